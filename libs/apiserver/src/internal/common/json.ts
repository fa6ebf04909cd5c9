import type { JsonObject } from '../../types.js';

/** Whether a value is a plain JSON object. */
export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Deep equality of JSON values, ignoring key order. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  // keys holding undefined count as absent; no key lists are built (this runs on every write)
  const oa = a as JsonObject;
  const ob = b as JsonObject;
  let na = 0;
  for (const k in oa) {
    if (!Object.hasOwn(oa, k)) continue;
    const v = oa[k];
    if (v === undefined) continue;
    na++;
    if (!Object.hasOwn(ob, k) || !deepEqual(v, ob[k])) return false;
  }
  let nb = 0;
  for (const k in ob) if (Object.hasOwn(ob, k) && ob[k] !== undefined) nb++;
  return na === nb;
}

/** A deep copy of a JSON value. */
export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** The metadata object of an object (created when missing or not an object). */
export function metaOf(obj: JsonObject): JsonObject {
  let m = obj.metadata;
  if (!isObject(m)) {
    m = {};
    obj.metadata = m;
  }
  return m as JsonObject;
}

/** A dotted path's value (`status.phase`). */
export function pathValue(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const p of path.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

/** RFC 3339 time with second precision, as Kubernetes writes timestamps. */
export function rfc3339(d: Date): string {
  const sec = Math.floor(d.getTime() / 1000);
  if (sec !== lastSecond || lastStamp === undefined) {
    lastStamp = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = sec;
  }
  return lastStamp;
}

// every write stamps the current second (often twice); format each second once
let lastSecond = Number.NaN;
let lastStamp: string | undefined;

/** A scalar as text ('' for objects, arrays, null and undefined), for messages and keys. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}
