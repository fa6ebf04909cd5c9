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

/**
 * Removes unknown fields from `obj` in place (when `mutate`) and returns the paths of the fields that
 * are unknown, written as kube-apiserver reports them (`spec.foo`, `spec.items[0].bar`).
 */
export function pruneObject(obj: JsonObject, schema: JsonSchemaProps, mutate: boolean): string[] {
  const dropped: string[] = [];
  pruneNode(obj, schema, '', true, mutate, dropped);
  return dropped;
}

function pruneNode(
  value: unknown,
  schema: JsonSchemaProps,
  path: string,
  resourceRoot: boolean,
  mutate: boolean,
  dropped: string[],
): void {
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    if (!items) return;
    value.forEach((item, i) =>
      pruneNode(
        item,
        items,
        `${path}[${i}]`,
        items['x-kubernetes-embedded-resource'] === true,
        mutate,
        dropped,
      ),
    );
    return;
  }
  if (!isObject(value)) return;
  const keep = preservesUnknown(schema);
  const mapValues = mapValueSchema(schema);
  for (const k of Object.keys(value)) {
    const childPath = path ? `${path}.${k}` : k;
    if (resourceRoot && RESOURCE_FIELDS.has(k)) continue;
    const sub = asSchema(schema.properties?.[k]) ?? mapValues;
    if (sub) {
      pruneNode(value[k], sub, childPath, sub['x-kubernetes-embedded-resource'] === true, mutate, dropped);
    } else if (!keep) {
      dropped.push(childPath);
      if (mutate) delete value[k];
    }
  }
}
