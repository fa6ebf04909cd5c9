/**
 * Validation ratcheting (kube-apiserver 1.30+): an error on a value that did not change is not
 * reported on update. "Did not change" follows kube's correlation of the new object with the old
 * (apiextensions-apiserver validation/ratcheting.go and apiserver cel/common/equality.go): object
 * fields by name, items of `x-kubernetes-list-type: map` lists by their keys, items of `set` and
 * `atomic` lists not at all (only the list as a whole), items of other lists by index. An error
 * inside an uncorrelatable part is judged on its nearest correlatable ancestor.
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
      case 'set':
      case 'atomic':
        return undefined;
      default:
        return seg < before.length ? [item, before[seg], items] : undefined;
    }
  }
  if (!isObject(now) || !isObject(before) || !(seg in now) || !(seg in before)) return undefined;
  const sub = s ? (asSchema(s.properties?.[seg]) ?? mapValueSchema(s)) : undefined;
  return [now[seg], before[seg], sub];
}

function findByKeys(list: readonly unknown[], item: unknown, keys: readonly string[]): unknown {
  if (!isObject(item)) return undefined;
  return list.find((o) => isObject(o) && keys.every((k) => jsonEqual(o[k], item[k])));
}

/** Deep equality as kube's ratcheting sees it: map-list items compared by key, so their order does not count. */
function correlatedEqual(a: unknown, b: unknown, s: JsonSchemaProps | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    const items = asSchema(s?.items);
    const type = s?.['x-kubernetes-list-type'];
    if (type === 'map') {
      const keys = s?.['x-kubernetes-list-map-keys'] ?? [];
      return a.every((item) => {
        const match = findByKeys(b, item, keys);
        return match !== undefined && correlatedEqual(item, match, items);
      });
    }
    if (type === 'set' || type === 'atomic') return jsonEqual(a, b);
    return a.every((item, i) => correlatedEqual(item, b[i], items));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every(
      (k) =>
        k in b &&
        correlatedEqual(a[k], b[k], s ? (asSchema(s.properties?.[k]) ?? mapValueSchema(s)) : undefined),
    );
  }
  return jsonEqual(a, b);
}
