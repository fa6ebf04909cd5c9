/**
 * Pruning of unknown fields (structural pruning of kube-apiserver, pruning/algorithm.go): fields not in
 * the schema are removed, except under `x-kubernetes-preserve-unknown-fields: true` (the items of such
 * a list included); `apiVersion`, `kind` and `metadata` of the root and of embedded resources are always
 * kept; the values of `additionalProperties: true` are pruned without a schema.
 */
import type { JsonObject } from '../../types.js';
import { isObject } from '../json-util.js';
import type { JsonSchemaProps } from '../schema-types.js';
import { asSchema, mapValueSchema } from '../schema-types.js';

const RESOURCE_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);
/** The fields of ObjectMeta; anything else in an embedded resource's metadata is pruned. */
const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Options of {@link pruneObject}. */
export interface PruneOptions {
  /**
   * Whether the `metadata` of embedded resources is cut to ObjectMeta's fields (kube-apiserver's
   * objectmeta coercion, done where objects are decoded). Defaults to true; the check of a CRD's
   * defaults leaves it out, as kube-apiserver's does.
   */
  embeddedMetadata?: boolean;
}

/**
 * Removes unknown fields from `obj` in place (when `mutate`) and returns the paths of the fields that
 * are unknown, written as kube-apiserver reports them (`spec.foo`, `spec.items[0].bar`).
 */
export function pruneObject(
  obj: JsonObject,
  schema: JsonSchemaProps,
  mutate: boolean,
  options: PruneOptions = {},
): string[] {
  const dropped: string[] = [];
  pruneNode(obj, schema, '', true, { mutate, metadata: options.embeddedMetadata !== false }, dropped);
  return dropped;
}

interface Pruning {
  mutate: boolean;
  metadata: boolean;
}

/**
 * kube-apiserver's prune: without a schema every field of an object goes; under
 * `x-kubernetes-preserve-unknown-fields` only the declared fields are pruned ({@link keepUnknown}).
 */
function pruneNode(
  value: unknown,
  schema: JsonSchemaProps | undefined,
  path: string,
  resourceRoot: boolean,
  how: Pruning,
  dropped: string[],
): void {
  if (schema?.['x-kubernetes-preserve-unknown-fields'] === true) {
    keepUnknown(value, schema, path, resourceRoot, how, dropped);
    return;
  }
  if (Array.isArray(value)) {
    const items = asSchema(schema?.items);
    value.forEach((item, i) => pruneNode(item, items, `${path}[${i}]`, isEmbedded(items), how, dropped));
    return;
  }
  if (!isObject(value)) return;
  for (const k of Object.keys(value)) {
    const childPath = path ? `${path}.${k}` : k;
    if (schema && resourceRoot && RESOURCE_FIELDS.has(k)) {
      keepResourceField(value, k, childPath, path, how, dropped);
      continue;
    }
    const sub = childSchema(schema, k);
    if (sub.known) pruneNode(value[k], sub.schema, childPath, isEmbedded(sub.schema), how, dropped);
    else {
      dropped.push(childPath);
      if (how.mutate) delete value[k];
    }
  }
}

/** kube-apiserver's skipPrune: unknown fields stay, declared ones are pruned by their schema. */
function keepUnknown(
  value: unknown,
  schema: JsonSchemaProps,
  path: string,
  resourceRoot: boolean,
  how: Pruning,
  dropped: string[],
): void {
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    // the items of a preserving list are preserved too
    if (items)
      value.forEach((item, i) => keepUnknown(item, items, `${path}[${i}]`, isEmbedded(items), how, dropped));
    return;
  }
  if (!isObject(value)) return;
  for (const k of Object.keys(value)) {
    const childPath = path ? `${path}.${k}` : k;
    if (resourceRoot && RESOURCE_FIELDS.has(k)) {
      keepResourceField(value, k, childPath, path, how, dropped);
      continue;
    }
    const sub = childSchema(schema, k);
    if (sub.known) pruneNode(value[k], sub.schema, childPath, isEmbedded(sub.schema), how, dropped);
  }
}

/**
 * The schema of field `k`: a declared property, else any `additionalProperties` (a schema, or none
 * for `additionalProperties: true`, under which an object value keeps no field); `known` is false
 * when the field is unknown.
 */
function childSchema(
  schema: JsonSchemaProps | undefined,
  k: string,
): { known: boolean; schema: JsonSchemaProps | undefined } {
  const prop = asSchema(schema?.properties?.[k]);
  if (prop) return { known: true, schema: prop };
  if (schema?.additionalProperties !== undefined && schema.additionalProperties !== null)
    return { known: true, schema: mapValueSchema(schema) };
  return { known: false, schema: undefined };
}

function isEmbedded(schema: JsonSchemaProps | undefined): boolean {
  return schema?.['x-kubernetes-embedded-resource'] === true;
}

/**
 * `apiVersion`, `kind` and `metadata` of the root and of embedded resources are kept; the root's
 * metadata is the engine's to check, an embedded resource's is cut to ObjectMeta here.
 */
function keepResourceField(
  value: JsonObject,
  k: string,
  childPath: string,
  path: string,
  how: Pruning,
  dropped: string[],
): void {
  const meta = value[k];
  if (k === 'metadata' && path !== '' && how.metadata && isObject(meta))
    pruneMetadata(meta, childPath, how.mutate, dropped);
}

function pruneMetadata(meta: JsonObject, path: string, mutate: boolean, dropped: string[]): void {
  for (const k of Object.keys(meta)) {
    if (OBJECT_META_FIELDS.has(k)) continue;
    dropped.push(`${path}.${k}`);
    if (mutate) delete meta[k];
  }
}
