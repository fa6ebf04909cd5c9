/** Structural equality of JSON values (key order ignored, `undefined` members ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}

/**
 * Whether every value of `desired` is in `actual` (objects: each desired key, recursively; lists:
 * same length, item by item; scalars: equal). Extra fields in `actual` (server defaults) are fine.
 */
export function isSubset(desired: unknown, actual: unknown): boolean {
  if (desired === undefined) return true;
  if (desired === null || typeof desired !== 'object') return desired === actual;
  if (typeof actual !== 'object' || actual === null) return false;
  if (Array.isArray(desired)) {
    if (!Array.isArray(actual) || actual.length !== desired.length) return false;
    return desired.every((v, i) => isSubset(v, actual[i]));
  }
  if (Array.isArray(actual)) return false;
  const a = actual as Record<string, unknown>;
  for (const [k, v] of Object.entries(desired as Record<string, unknown>))
    if (!isSubset(v, a[k])) return false;
  return true;
}

/** A JSON deep copy. */
export function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
