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
 * @param fieldManagers - the managers whose entries `keepOwn` keeps.
 */
export function managedFieldsTransform<T extends KubernetesResource>(
  policy: ManagedFieldsPolicy,
  fieldManagers: readonly string[] = [],
): ((obj: T) => T) | undefined {
  if (policy === 'keepAll') return undefined;
  const own = new Set(fieldManagers);
  return (obj: T): T => {
    const entries = obj.metadata?.managedFields;
    if (!entries) return obj;
    const kept =
      policy === 'dropAll' ? [] : entries.filter((e) => e.manager !== undefined && own.has(e.manager));
    if (kept.length === entries.length) return obj;
    const metadata = { ...obj.metadata };
    if (kept.length === 0) delete metadata.managedFields;
    else metadata.managedFields = kept;
    return { ...obj, metadata };
  };
}
