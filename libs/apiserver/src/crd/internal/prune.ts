/**
 * Pruning of unknown fields (structural pruning of kube-apiserver): fields not in the schema are removed,
 * except under `x-kubernetes-preserve-unknown-fields: true`; `apiVersion`, `kind` and `metadata` of the
 * root and of embedded resources are always kept.
 */
import type { JsonObject } from '../../types.js';
import { isObject } from '../json-util.js';
import type { JsonSchemaProps } from '../schema-types.js';
import { asSchema, mapValueSchema, preservesUnknown } from '../schema-types.js';

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

function pruneNode(
  value: unknown,
  schema: JsonSchemaProps,
  path: string,
  resourceRoot: boolean,
  how: Pruning,
  dropped: string[],
): void {
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    if (!items) return;
    value.forEach((item, i) =>
      pruneNode(item, items, `${path}[${i}]`, items['x-kubernetes-embedded-resource'] === true, how, dropped),
    );
    return;
  }
  if (!isObject(value)) return;
  const keep = preservesUnknown(schema);
  const mapValues = mapValueSchema(schema);
  for (const k of Object.keys(value)) {
    const childPath = path ? `${path}.${k}` : k;
    if (resourceRoot && RESOURCE_FIELDS.has(k)) {
      // The root's metadata is the engine's to check; an embedded resource's is pruned to ObjectMeta here.
      if (k === 'metadata' && path !== '' && how.metadata && isObject(value[k]))
        pruneMetadata(value[k], `${childPath}`, how.mutate, dropped);
      continue;
    }
    const sub = asSchema(schema.properties?.[k]) ?? mapValues;
    if (sub) {
      pruneNode(value[k], sub, childPath, sub['x-kubernetes-embedded-resource'] === true, how, dropped);
    } else if (!keep) {
      dropped.push(childPath);
      if (how.mutate) delete value[k];
    }
  }
}

function pruneMetadata(meta: JsonObject, path: string, mutate: boolean, dropped: string[]): void {
  for (const k of Object.keys(meta)) {
    if (OBJECT_META_FIELDS.has(k)) continue;
    dropped.push(`${path}.${k}`);
    if (mutate) delete meta[k];
  }
}
