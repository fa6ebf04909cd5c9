/**
 * Small helpers over parsed JSON values used by every patch engine.
 */
import type { JsonObject } from '../../types.js';

/** Whether `value` is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of a JSON value (objects, arrays, scalars). */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) out.push(cloneJson(value[i] as unknown));
    return out as T;
  }
  const from = value as JsonObject;
  const out: JsonObject = {};
  // own keys by for...in: neither a [key, value] pair nor a key list allocated per object
  for (const key in from) if (Object.hasOwn(from, key)) out[key] = cloneJson(from[key]);
  return out as T;
}

/** Structural equality of two JSON values (key order of objects does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}

/** A short description of a JSON value's type for error messages. */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
