/**
 * Translates a CRD's OpenAPI v3 schema into a JSON Schema (draft-07) that ajv validates the way
 * kube-openapi does: `nullable` adds `null` to the type, `x-kubernetes-int-or-string` allows integer or
 * string, `multipleOf` becomes kube-openapi's check, OpenAPI's boolean `exclusiveMinimum`/`exclusiveMaximum` become numeric, string formats
 * Kubernetes knows are kept, other formats (int32, int64, ...) and all `x-kubernetes-*` keys are dropped,
 * and the root's `metadata` is reduced to the `name`/`generateName` constraints.
 */
import type { JsonObject } from '../../types.js';
import type { JsonSchemaProps } from '../schema-types.js';
import { asSchema, mapValueSchema } from '../schema-types.js';
import { kubernetesFormat } from './formats.js';
import { MULTIPLE_OF } from './multiple-of.js';
import { compileRe2 } from './re2.js';

const COPIED = [
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
  'required',
] as const;

/** Marks an `enum` to which `null` was added because the node is nullable. */
export const ENUM_NULL_ADDED = 'x-kube-enum-null-added';

/** Translates the root schema of a version. */
export function toJsonSchema(root: JsonSchemaProps): JsonObject {
  return translate(root, true);
}

function translate(s: JsonSchemaProps, root: boolean): JsonObject {
  const out: JsonObject = {};
  const nullable = s.nullable === true;
  if (s['x-kubernetes-int-or-string'] === true) {
    out.type = nullable ? ['integer', 'string', 'null'] : ['integer', 'string'];
  } else if (typeof s.type === 'string' && s.type !== '') {
    out.type = nullable ? [s.type, 'null'] : s.type;
  }
  for (const k of COPIED) if (s[k] !== undefined) out[k] = s[k];
  // kube-openapi's own multipleOf arithmetic (see multiple-of.ts), not ajv's
  if (typeof s.multipleOf === 'number') out[MULTIPLE_OF] = s.multipleOf;
  if (Array.isArray(s.enum)) {
    out.enum = nullable && !s.enum.includes(null) ? [...s.enum, null] : s.enum;
    // remembered so an enum error lists the values as the CRD declares them
    if (out.enum !== s.enum) out[ENUM_NULL_ADDED] = true;
  }
  if (typeof s.maximum === 'number') {
    if (s.exclusiveMaximum === true) out.exclusiveMaximum = s.maximum;
    else out.maximum = s.maximum;
  }
  if (typeof s.minimum === 'number') {
    if (s.exclusiveMinimum === true) out.exclusiveMinimum = s.minimum;
    else out.minimum = s.minimum;
  }
  if (typeof s.pattern === 'string' && isValidPattern(s.pattern)) out.pattern = s.pattern;
  if (typeof s.format === 'string' && kubernetesFormat(s.format)) out.format = s.format;
  if (s.properties) {
    const props: JsonObject = {};
    for (const [k, v] of Object.entries(s.properties)) {
      const sub = asSchema(v);
      if (!sub) continue;
      props[k] = root && k === 'metadata' ? metadataSchema(sub) : translate(sub, false);
    }
    out.properties = props;
  }
  if (root && Array.isArray(out.required))
    out.required = (out.required as unknown[]).filter((r) => r !== 'metadata');
  const mapValues = mapValueSchema(s);
  if (mapValues) out.additionalProperties = translate(mapValues, false);
  const items = asSchema(s.items);
  if (items) out.items = translate(items, false);
  for (const kw of ['allOf', 'anyOf', 'oneOf'] as const) {
    let list = s[kw];
    // int-or-string's anyOf integer/string only restates the type (checked above with kube's wording).
    if (s['x-kubernetes-int-or-string'] === true && Array.isArray(list)) {
      if (kw === 'anyOf' && isIntOrStringAnyOf(list)) list = undefined;
      else if (kw === 'allOf' && list[0] && isIntOrStringAnyOf(list[0].anyOf)) {
        const { anyOf: _dropped, ...rest } = list[0];
        list = [rest, ...list.slice(1)];
      }
    }
    if (Array.isArray(list) && list.length > 0) out[kw] = list.map((x) => translate(x, false));
  }
  if (asSchema(s.not)) out.not = translate(s.not as JsonSchemaProps, false);
  return out;
}

function isIntOrStringAnyOf(list: readonly JsonSchemaProps[] | undefined): boolean {
  if (list?.length !== 2) return false;
  const [a, b] = list as [JsonSchemaProps, JsonSchemaProps];
  return (
    a.type === 'integer' && b.type === 'string' && Object.keys(a).length === 1 && Object.keys(b).length === 1
  );
}

/** Only `metadata.name` and `metadata.generateName` of the root are validated against the CRD schema. */
function metadataSchema(s: JsonSchemaProps): JsonObject {
  const props: JsonObject = {};
  for (const k of ['name', 'generateName']) {
    const sub = asSchema(s.properties?.[k]);
    if (sub) props[k] = translate(sub, false);
  }
  return { type: 'object', properties: props };
}

function isValidPattern(pattern: string): boolean {
  try {
    compileRe2(pattern);
    return true;
  } catch {
    return false;
  }
}
