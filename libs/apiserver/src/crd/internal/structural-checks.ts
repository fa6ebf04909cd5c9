/**
 * Checks kube-apiserver makes beyond the OpenAPI keywords: unique items of `set` lists, unique keys of
 * `map` lists, and `apiVersion`/`kind` of embedded resources.
 */
import type { JsonObject } from '../../types.js';
import { CauseReason, required } from '../field-errors.js';
import { isObject } from '../json-util.js';
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
  if (type === 'set') reportRepeats(list, segs, out);
  else if (type === 'map') {
    // a key leaves out the key fields an item does not set (so an unset key and a null key differ)
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const keyOf = (v: unknown): JsonObject => {
      const key: JsonObject = {};
      if (isObject(v)) for (const k of keys) if (k in v) key[k] = v[k] ?? null;
      return key;
    };
    reportRepeats(list.map(keyOf), segs, out);
  }
}

/**
 * kube-apiserver's uniqueness check (listtype validation): each repeated value is reported once, at
 * its second appearance, printed as Go's %#v prints it.
 */
function reportRepeats(values: readonly unknown[], segs: (string | number)[], out: LocatedCause[]): void {
  const seen = new Map<string, number>();
  values.forEach((v, i) => {
    const id = JSON.stringify(canonical(v));
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) {
      const at = [...segs, i];
      out.push({
        cause: {
          reason: CauseReason.Duplicate,
          message: `Duplicate value: ${goSyntax(v)}`,
          field: renderPath(at),
        },
        segments: at,
      });
    }
  });
}

/** A JSON value with its object keys sorted, so equal values stringify alike. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (isObject(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical(v[k])]),
    );
  return v;
}

/** A decoded JSON value as Go's `%#v` prints it (`map[string]interface {}{"port":80, "protocol":"TCP"}`). */
function goSyntax(v: unknown, nested = false): string {
  if (v === null || v === undefined) return nested ? 'interface {}(nil)' : 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSyntax(x, true)).join(', ')}}`;
  if (isObject(v))
    return `map[string]interface {}{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goSyntax(v[k], true)}`)
      .join(', ')}}`;
  return JSON.stringify(v) ?? 'null';
}
