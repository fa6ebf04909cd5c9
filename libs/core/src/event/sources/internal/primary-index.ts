import type { KubernetesResource } from '../../../api/resource-type.js';

/**
 * The keys of an event source's cached secondaries by the keys of their primaries (what
 * `InformerEventSource`'s `PRIMARY_INDEX` answers), built to cost little per cached object
 * (issue 15 §3: heap per cached object of an operator's event source):
 * - a secondary whose key equals its primary's (a dependent named after its primary, the common
 *   case) is not held at all: the reader looks that key up in the cache itself (see
 *   {@link PrimaryIndex.keysOf});
 * - a primary with one other secondary holds that key as a plain string, a `Set` only from the
 *   second on;
 * - there is no reverse map (secondary -> primaries): an update or a delete takes the primaries of
 *   the old object from the caller, and an update that keeps its primaries does no map work.
 *
 * Without the reverse map an entry can go stale, e.g. when objects leave the cache without a delete
 * event (a namespace dropped) or when the old object of an event maps differently than the one that
 * was indexed. Reads therefore hand out candidates only: the caller checks each against the cache
 * and the mapper and calls {@link PrimaryIndex.drop} for those that fail, so a stale entry costs a
 * map slot until it is read, never a wrong answer.
 */
export class PrimaryIndex {
  private readonly byPrimary = new Map<string, string | Set<string>>();

  /** Number of primaries with at least one indexed secondary (for tests). */
  get size(): number {
    return this.byPrimary.size;
  }

  /** Indexes the secondary `key` under each of `primaries` (not under its own key, see the class comment). */
  add(key: string, primaries: readonly string[]): void {
    for (const primary of primaries) {
      if (primary === key) continue;
      const held = this.byPrimary.get(primary);
      if (held === undefined) {
        this.byPrimary.set(primary, key);
      } else if (typeof held === 'string') {
        if (held !== key) this.byPrimary.set(primary, new Set([held, key]));
      } else {
        held.add(key);
      }
    }
  }

  /** Removes the secondary `key` from each of `primaries`. */
  remove(key: string, primaries: readonly string[]): void {
    for (const primary of primaries) this.drop(primary, key);
  }

  /** Moves the secondary `key` from the primaries of its old object to those of its new one. */
  update(key: string, before: readonly string[], after: readonly string[]): void {
    if (sameKeys(before, after)) return;
    for (const primary of before) if (!after.includes(primary)) this.drop(primary, key);
    this.add(key, after);
  }

  /**
   * The keys indexed under `primary` (candidates: check each, see the class comment). The key equal
   * to `primary` itself is never among them: a secondary of that key, if cached, is a candidate too.
   */
  keysOf(primary: string): string[] {
    const held = this.byPrimary.get(primary);
    if (held === undefined) return [];
    return typeof held === 'string' ? [held] : [...held];
  }

  /** Removes the secondary `key` from `primary` (a stale entry found by a read, or a removal). */
  drop(primary: string, key: string): void {
    const held = this.byPrimary.get(primary);
    if (held === undefined) return;
    if (typeof held === 'string') {
      if (held === key) this.byPrimary.delete(primary);
      return;
    }
    held.delete(key);
    if (held.size === 1) this.byPrimary.set(primary, held.values().next().value!);
    else if (held.size === 0) this.byPrimary.delete(primary);
  }

  /** Forgets everything. */
  clear(): void {
    this.byPrimary.clear();
  }
}

/**
 * Whether two versions of a secondary carry the same namespace and owner references as far as
 * `Mappers.fromOwnerReferences` reads them (apiVersion, kind, name, in order): then that mapper maps
 * both to the same primaries, and an update needs no index work (no mapper call, no allocation).
 */
export function sameOwners(a: KubernetesResource, b: KubernetesResource): boolean {
  if (a.metadata?.namespace !== b.metadata?.namespace) return false;
  const x = a.metadata?.ownerReferences;
  const y = b.metadata?.ownerReferences;
  if (x === y) return true;
  if (!x || !y) return (x?.length ?? 0) === 0 && (y?.length ?? 0) === 0;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    if (x[i].name !== y[i].name || x[i].kind !== y[i].kind || x[i].apiVersion !== y[i].apiVersion)
      return false;
  }
  return true;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
