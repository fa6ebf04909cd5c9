import type { KubernetesResource } from '../api/resource-type.js';

/** What a cache keeps of `metadata.managedFields`. */
export type ManagedFieldsPolicy = 'keepOwn' | 'keepAll' | 'dropAll';

/**
 * A transform for informer caches that drops `metadata.managedFields` entries of other field
 * managers (`keepOwn`), all of them (`dropAll`) or none (`keepAll`). Managed fields often weigh
 * more than the rest of a small object; an operator needs at most its own entries (to see which
 * fields it applied). The object is copied shallowly (its metadata replaced), never mutated.
 *
 * Safe where the cached objects are not written back whole: server-side apply and patches do not
 * send managedFields; an `update` (PUT) of a cached object without managedFields keeps the
 * server's entries (the API server treats an absent list as unchanged).
 *
 * The pruned copy is built without `delete` (which would turn the metadata into a V8 hash table):
 * with `dropAll` or `keepOwn`, a cached object weighs less on the heap than its JSON as served.
 *
 * @param fieldManagers - the managers whose entries `keepOwn` keeps. A `Set` is read at each call, so
 *   managers added to it later count (a shared cache whose users come and go); an array is copied.
 */
export function managedFieldsTransform<T extends KubernetesResource>(
  policy: ManagedFieldsPolicy,
  fieldManagers: readonly string[] | ReadonlySet<string> = [],
): ((obj: T) => T) | undefined {
  if (policy === 'keepAll') return undefined;
  const own: ReadonlySet<string> = Array.isArray(fieldManagers)
    ? new Set(fieldManagers)
    : (fieldManagers as ReadonlySet<string>);
  return (obj: T): T => {
    const entries = obj.metadata?.managedFields;
    if (!entries) return obj;
    const kept =
      policy === 'dropAll' ? [] : entries.filter((e) => e.manager !== undefined && own.has(e.manager));
    if (kept.length === entries.length) return obj;
    // a rest copy, never `delete`: deleting a property turns a V8 object into a hash table, which
    // made every cached metadata ~50% larger (heap per cached object 1.43x its JSON instead of 0.94x)
    const { managedFields: _dropped, ...metadata } = obj.metadata!;
    return { ...obj, metadata: kept.length === 0 ? metadata : { ...metadata, managedFields: kept } };
  };
}
