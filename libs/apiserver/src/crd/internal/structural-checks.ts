/**
 * Checks kube-apiserver makes beyond the OpenAPI keywords: unique items of `set` lists, unique keys of
 * `map` lists, and `apiVersion`/`kind` of embedded resources.
 */
import type { JsonObject } from '../../types.js';
import { duplicate, required } from '../field-errors.js';
import { isObject, jsonEqual } from '../json-util.js';
import type { JsonSchemaProps } from '../schema-types.js';
import { asSchema, mapValueSchema } from '../schema-types.js';
import type { LocatedCause } from './located-cause.js';
import { renderPath } from './schema-validator.js';

/** Runs the checks over `obj` and returns the causes. */
export function structuralChecks(obj: JsonObject, schema: JsonSchemaProps): LocatedCause[] {
  const out: LocatedCause[] = [];
  walk(obj, schema, [], true, out);
  return out;
}

function walk(
  value: unknown,
  s: JsonSchemaProps,
  segs: (string | number)[],
  root: boolean,
  out: LocatedCause[],
): void {
  if (Array.isArray(value)) {
    checkList(value, s, segs, out);
    const items = asSchema(s.items);
    if (items) value.forEach((v, i) => walk(v, items, [...segs, i], false, out));
    return;
  }
  if (!isObject(value)) return;
  if (!root && s['x-kubernetes-embedded-resource'] === true) {
    for (const k of ['apiVersion', 'kind']) {
      if (typeof value[k] !== 'string' || value[k] === '') {
        out.push({ cause: required(renderPath([...segs, k]), 'must not be empty'), segments: segs });
      }
    }
  }
  const mapValues = mapValueSchema(s);
  for (const [k, v] of Object.entries(value)) {
    if (root && k === 'metadata') continue;
    const sub = asSchema(s.properties?.[k]) ?? mapValues;
    if (sub) walk(v, sub, [...segs, k], false, out);
  }
}

function checkList(
  list: unknown[],
  s: JsonSchemaProps,
  segs: (string | number)[],
  out: LocatedCause[],
): void {
  const type = s['x-kubernetes-list-type'];
  if (type === 'set') {
    list.forEach((v, i) => {
      if (list.slice(0, i).some((w) => jsonEqual(v, w))) {
        const at = [...segs, i];
        out.push({ cause: duplicate(renderPath(at), v), segments: at });
      }
    });
  } else if (type === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const keyOf = (v: unknown): JsonObject =>
      Object.fromEntries(keys.map((k) => [k, isObject(v) ? (v[k] ?? null) : null]));
    list.forEach((v, i) => {
      const mine = keyOf(v);
      if (list.slice(0, i).some((w) => jsonEqual(mine, keyOf(w)))) {
        const at = [...segs, i];
        out.push({ cause: duplicate(renderPath(at), mine), segments: at });
      }
    });
  }
}
