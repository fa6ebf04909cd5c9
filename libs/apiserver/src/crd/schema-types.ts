/**
 * The OpenAPI v3 schema dialect of `apiextensions.k8s.io/v1` (`JSONSchemaProps`), as far as this
 * server reads it.
 */

/** One node of a CRD's `openAPIV3Schema`. Unknown keys are kept but ignored. */
export interface JsonSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  title?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JsonSchemaProps;
  properties?: Record<string, JsonSchemaProps>;
  additionalProperties?: JsonSchemaProps | boolean;
  allOf?: JsonSchemaProps[];
  anyOf?: JsonSchemaProps[];
  oneOf?: JsonSchemaProps[];
  not?: JsonSchemaProps;
  example?: unknown;
  externalDocs?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
  [extension: string]: unknown;
}

/** Narrows an unknown value to a schema node (any JSON object). */
export function asSchema(value: unknown): JsonSchemaProps | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonSchemaProps)
    : undefined;
}

/** The schema for the value of any key of a map (`additionalProperties` as a schema), if any. */
export function mapValueSchema(schema: JsonSchemaProps): JsonSchemaProps | undefined {
  const ap = schema.additionalProperties;
  return typeof ap === 'object' && ap !== null ? ap : undefined;
}

/** Whether unknown fields under this node are kept by pruning. */
export function preservesUnknown(schema: JsonSchemaProps): boolean {
  return schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
}
