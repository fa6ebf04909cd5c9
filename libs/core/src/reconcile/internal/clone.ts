/**
 * A deep copy of a JSON-like value (what informers cache: plain objects, arrays, primitives; Dates
 * copied as Dates). Several times faster than `structuredClone` for Kubernetes objects, which matters
 * because every reconcile gets its own copy so a reconciler can never change the cache.
 *
 * An object is copied with a spread first (`{ ...value }`: V8 copies the object's layout as a whole
 * instead of adding its members one by one) and then its object members are replaced by their
 * copies. Adding members one by one costs several times more for objects whose member names are
 * unique to them, which Kubernetes objects have: the managedFields of every owned object name their
 * owner reference by uid (`k:{"uid":"…"}`). Own enumerable members are copied, as JSON would see
 * them; symbol-keyed members (which JSON never has) are copied by reference.
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
  const out: Record<string, unknown> = { ...value };
  for (const key in out) {
    const member = out[key];
    if (member !== null && typeof member === 'object' && Object.hasOwn(out, key)) out[key] = copy(member);
  }
  return out;
}
