/**
 * A deep copy of a JSON-like value (what informers cache: plain objects, arrays, primitives; Dates
 * copied as Dates). Several times faster than `structuredClone` for Kubernetes objects, which matters
 * because every reconcile gets its own copy so a reconciler can never change the cache.
 */
export function cloneResource<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i]);
    return out;
  }
  if (value instanceof Date) return new Date(value.getTime());
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (Object.prototype.hasOwnProperty.call(value, key))
      out[key] = copy((value as Record<string, unknown>)[key]);
  }
  return out;
}
