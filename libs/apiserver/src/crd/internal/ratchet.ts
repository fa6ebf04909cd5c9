/**
 * Validation ratcheting (kube-apiserver 1.30+): an error on a value that did not change is not
 * reported on update. "Did not change" follows kube's correlation of the new object with the old
 * (apiextensions-apiserver validation/ratcheting.go and apiserver cel/common/equality.go, 1.32): object
 * fields the schema declares (a property or an `additionalProperties` schema) by name, items of
 * `x-kubernetes-list-type: map` lists by their keys, items of any other list not at all (only the list
 * as a whole: `set`, `atomic` and lists without a list type). An error inside an uncorrelatable part
 * is judged on its nearest correlatable ancestor; an object holding a field the schema does not
 * declare never counts as unchanged.
 */
import { isObject, jsonEqual } from '../json-util.js';
import type { JsonSchemaProps } from '../schema-types.js';
import { asSchema, mapValueSchema } from '../schema-types.js';

/**
 * Whether the value at `segments` of `obj` (or, where kube cannot correlate it with `old`, its
 * nearest correlatable ancestor) equals its old value.
 */
export function unchangedAt(
  segments: readonly (string | number)[],
  obj: unknown,
  old: unknown,
  schema: JsonSchemaProps,
): boolean {
  let now: unknown = obj;
  let before: unknown = old;
  let s: JsonSchemaProps | undefined = schema;
  for (const seg of segments) {
    const next = correlate(now, before, s, seg);
    if (!next) break;
    [now, before, s] = next;
  }
  return correlatedEqual(now, before, s);
}

type Step = [now: unknown, before: unknown, schema: JsonSchemaProps | undefined];

/** The child `seg` of `now` with the old value kube correlates it with, or undefined when there is none. */
function correlate(
  now: unknown,
  before: unknown,
  s: JsonSchemaProps | undefined,
  seg: string | number,
): Step | undefined {
  if (typeof seg === 'number') {
    if (!Array.isArray(now) || !Array.isArray(before) || seg >= now.length) return undefined;
    const items = asSchema(s?.items);
    const item: unknown = now[seg];
    switch (s?.['x-kubernetes-list-type']) {
      case 'map': {
        const match = findByKeys(before, item, s['x-kubernetes-list-map-keys'] ?? []);
        return match === undefined ? undefined : [item, match, items];
      }
      default:
        // set, atomic and lists without a list type: not correlatable by item (no index correlation)
        return undefined;
    }
  }
  if (!isObject(now) || !isObject(before) || !(seg in now) || !(seg in before)) return undefined;
  const sub = fieldSchema(s, seg);
  return sub ? [now[seg], before[seg], sub] : undefined;
}

/** The schema of a declared field (a property or the `additionalProperties` schema), if any. */
function fieldSchema(s: JsonSchemaProps | undefined, k: string): JsonSchemaProps | undefined {
  return s ? (asSchema(s.properties?.[k]) ?? mapValueSchema(s)) : undefined;
}

function findByKeys(list: readonly unknown[], item: unknown, keys: readonly string[]): unknown {
  if (!isObject(item)) return undefined;
  return list.find((o) => isObject(o) && keys.every((k) => jsonEqual(o[k], item[k])));
}

/**
 * Deep equality as kube's ratcheting sees it (CorrelatedObject.CachedDeepEqual): map-list items
 * compared by key (so their order does not count), other lists as plain values, and an object equal
 * only when each of its fields is declared by the schema and equal.
 */
function correlatedEqual(a: unknown, b: unknown, s: JsonSchemaProps | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    if (s?.['x-kubernetes-list-type'] !== 'map') return jsonEqual(a, b);
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const items = asSchema(s.items);
    return a.every((item) => {
      const match = findByKeys(b, item, keys);
      return match !== undefined && correlatedEqual(item, match, items);
    });
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => {
      const sub = fieldSchema(s, k);
      return sub !== undefined && k in b && correlatedEqual(a[k], b[k], sub);
    });
  }
  return jsonEqual(a, b);
}
