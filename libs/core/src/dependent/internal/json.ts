/**
 * Structural equality of JSON values (key order ignored, `undefined` members ignored). Walks each
 * object's keys once and counts the defined ones, with no key set built per object.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const isArray = Array.isArray(a);
  if (isArray !== Array.isArray(b)) return false;
  if (isArray) {
    const aa = a as unknown[];
    const bb = b as unknown[];
    if (aa.length !== bb.length) return false;
    for (let i = 0; i < aa.length; i++) if (!deepEqual(aa[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // every defined member of a equals b's; then b may have no other defined member
  let defined = 0;
  for (const k of Object.keys(ao)) {
    const v = ao[k];
    if (v === undefined) continue;
    defined++;
    if (!deepEqual(v, bo[k])) return false;
  }
  let definedInB = 0;
  for (const k of Object.keys(bo)) if (bo[k] !== undefined) definedInB++;
  return defined === definedInB;
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

/**
 * A JSON deep copy: the value `JSON.parse(JSON.stringify(value))` gives (`toJSON` called, members
 * that are undefined, functions or symbols left out of objects and `null` in arrays, non-finite
 * numbers `null`, boxed primitives unboxed), built directly, several times faster than the round
 * trip through a string for the objects dependents compare on every reconciliation.
 * @throws TypeError for a BigInt, as JSON.stringify does.
 */
export function clone<T>(value: T): T {
  return value === undefined ? value : (jsonCopy(value, '') as T);
}

function jsonCopy(input: unknown, key: string): unknown {
  let value = input;
  if (value !== null && typeof value === 'object') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = (toJSON as (k: string) => unknown).call(value, key);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // -0 prints as 0
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      break;
    default:
      return undefined; // undefined, functions, symbols
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = jsonCopy(value[i], String(i));
      out[i] = v === undefined ? null : v;
    }
    return out;
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    return jsonCopy(value.valueOf(), key);
  }
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(source)) {
    const v = jsonCopy(source[k], k);
    if (v === undefined) continue;
    // JSON.parse makes "__proto__" an own member; an assignment would set the prototype
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}
