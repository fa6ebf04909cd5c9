/**
 * Small helpers for reading untyped JSON.
 */
import type { JsonObject } from '../types.js';

/** Narrows to a plain JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON object at `obj[key]`, or an empty object when absent or not an object. */
export function objectAt(obj: JsonObject | undefined, key: string): JsonObject {
  const v = obj?.[key];
  return isObject(v) ? v : {};
}

/** The string at `obj[key]`, or undefined. */
export function stringAt(obj: JsonObject | undefined, key: string): string | undefined {
  const v = obj?.[key];
  return typeof v === 'string' ? v : undefined;
}

/** The array at `obj[key]`, or an empty array. */
export function arrayAt(obj: JsonObject | undefined, key: string): unknown[] {
  const v = obj?.[key];
  return Array.isArray(v) ? v : [];
}

/** The JSON type name of a value as OpenAPI names it (`integer` for whole numbers). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Deep structural equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** A deep copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}
