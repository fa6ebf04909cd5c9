import { LRUCache } from 'lru-cache';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { Logger } from '../../util/logger.js';
import type { ResourceEventHandler } from '../resource-event-handler.js';
import { CacheView, differentUid } from './cache-view.js';
import type { ViewedCache } from './cache-view.js';
import { cacheKey, InformerStore } from './informer-store.js';
import type { IndexFunction } from './informer-store.js';
import { compareResourceVersions } from './resource-version.js';
import type { ObjectMatcher } from './selector-match.js';

/**
 * The informer's view of the cluster and its listeners: applies listed snapshots and watch events
 * and tells the handlers what changed. The cache is keyed by `namespace/name`; the uid tells
 * incarnations of one name apart (a delete and re-create is a delete then an add).
 *
 * Two layers, as JOSDK's informer plus `TemporaryResourceCache`:
 * - `watched`: the last object the list/watch delivered per key, shared by every user of the
 *   informer. Events are computed from it (old watched → new watched), so no watch event is ever
 *   swallowed because an own write is newer.
 * - per user, a {@link CacheView}: its handlers, its indexes and its own writes
 *   ({@link CacheView.cacheIfNewer}) ahead of the stream. One exception to the rule above: the watch
 *   event carrying exactly the version of the user's current own write is reported to that user with
 *   the write as the old object (nothing the writer does not know changed).
 *
 * An unshared informer has one view, {@link InformerCache.main}; `SharedInformers` opens one per user.
 *
 * With an `admit` predicate only admitted objects are kept: an event of an object it does not admit
 * is dropped, and an update that makes a cached object not admitted removes it with a delete event
 * (final state unknown: the object still exists on the server). {@link InformerCache.readmit} applies
 * a changed predicate to the cache.
 */
export class InformerCache<T extends KubernetesResource> implements ViewedCache<T> {
  /** The watched objects, with the indexes of every view (each under its view's prefix). */
  readonly watched: InformerStore<T>;
  /** The view of an unshared informer (and the one the tests of this class read). */
  readonly main: CacheView<T>;
  private views: CacheView<T>[] = [];
  private nextView = 1;
  private listDepth = 0;
  /** Uids seen deleted recently, so a late own write cannot resurrect a deleted object. */
  // a size count instead of `max`, which would preallocate all 10,000 slots in every informer
  private readonly deletedUids = new LRUCache<string, true>({ maxSize: 10_000, sizeCalculation: () => 1 });
  /**
   * Objects {@link InformerCache.readmit} cached from its own list, which may be ahead of the watch:
   * until the watch delivers a newer version, its older ones are stale (see `apply`). Weak: an entry
   * goes with the object it marks; undefined until a readmit adds something (no cost per event).
   */
  private readmitted?: WeakSet<T>;

  constructor(
    private readonly logger: Logger,
    private readonly transform: ((obj: T) => T) | undefined,
    /** Whether an object is in the informer's selection (own writes outside it are refused). */
    private readonly inSelection: ObjectMatcher = () => true,
    /** Which objects the cache keeps (see the class comment). Defaults to all. */
    private readonly admit?: (obj: T) => boolean,
  ) {
    this.watched = new InformerStore<T>((index, key, error) =>
      this.logger.error('index function failed; the object is left out of the index', {
        index: index.replace(/^\0v\d+\0/, ''),
        key,
        error: errorText(error),
      }),
    );
    this.main = new CacheView<T>(this, '');
    this.views.push(this.main);
  }

  /** What reads of the main view see (kept for callers of the unshared informer). */
  get store(): CacheView<T> {
    return this.main;
  }

  /** Opens another user's view (its own handlers, indexes and own writes). */
  openView(): CacheView<T> {
    const view = new CacheView<T>(this, `\0v${this.nextView++}\0`);
    this.views = [...this.views, view];
    return view;
  }

  /** Whether the events being emitted now come from a list (a first list, a re-list, a readmit or a late handler's replay). */
  get listing(): boolean {
    return this.listDepth > 0;
  }

  /** Adds a handler to the main view; replays what was watched as adds (as client-go does). Returns the remover. */
  addHandler(handler: ResourceEventHandler<T>): () => void {
    return this.main.addHandler(handler);
  }

  addIndex(name: string, fn: IndexFunction<T>): void {
    this.main.addIndex(name, fn);
  }

  /** See `Informer.cacheIfNewer` (the main view's own writes). */
  cacheIfNewer(raw: T, previousResourceVersion?: string): boolean {
    return this.main.cacheIfNewer(raw, previousResourceVersion);
  }

  /** Whether the main view has an own write of `key` ahead of the watched object (for tests and diagnostics). */
  hasOverlay(key: string): boolean {
    return this.main.hasOverlay(key);
  }

  /**
   * Replaces the watched content with a complete list (taken at `listResourceVersion`) and emits
   * the difference: deletes (final state unknown) for what is gone or has a new uid, adds for what
   * is new, updates for what changed. Own writes newer than what was listed are kept; an own write
   * of an object the list does not contain is kept only when it is newer than the list (its event follows).
   */
  replace(items: T[], listResourceVersion = ''): { added: number; updated: number; deleted: number } {
    const listed = new Map<string, T>();
    const refused = new Set<string>();
    for (const raw of items) {
      const obj = this.prepare(raw);
      const key = cacheKey(obj);
      if (!key) continue;
      if (this.admit && !this.admits(obj)) refused.add(key);
      else listed.set(key, obj);
    }
    let added = 0;
    let updated = 0;
    let deleted = 0;
    this.listDepth++;
    try {
      for (const old of this.watched.list()) {
        const key = cacheKey(old)!;
        const now = listed.get(key);
        if (!now || differentUid(now, old)) {
          this.watched.remove(key);
          // an object the predicate refuses still exists: its uid must not count as deleted
          if (!refused.has(key)) this.rememberDeleted(old);
          for (const view of this.views) if (!now) view.settle(key, undefined, true);
          for (const view of this.views) view.emitDelete(old, true);
          deleted++;
        }
      }
      for (const view of this.views) {
        view.afterList((key) => listed.has(key) || this.watched.get(key) !== undefined, listResourceVersion);
      }
      for (const [key, obj] of listed) {
        const old = this.watched.get(key);
        if (!old) {
          this.watched.put(key, obj);
          for (const view of this.views) view.settle(key, obj, true);
          for (const view of this.views) view.emitAdd(obj);
          added++;
        } else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
          // a list from a lagging cache must not move the watched state backwards
          if (
            (compareResourceVersions(old.metadata?.resourceVersion, obj.metadata?.resourceVersion) ?? -1) > 0
          )
            continue;
          this.watched.put(key, obj);
          for (const view of this.views) view.settle(key, obj, true);
          for (const view of this.views) view.emitUpdate(old, obj);
          updated++;
        } else {
          for (const view of this.views) view.settle(key, obj, false);
        }
      }
    } finally {
      this.listDepth--;
    }
    return { added, updated, deleted };
  }

  /**
   * Applies the `admit` predicate as it answers now: removes cached objects it no longer admits
   * (delete events, final state unknown) and adds the objects of `items` (a fresh list, taken after
   * the predicate changed) that it admits and the cache lacks (add events). Objects the cache has
   * are left as the watch has them (it is newer than or as new as the list); an object seen deleted
   * is not added back. Events are marked as list events. Synchronous: no read sees a gap.
   */
  readmit(items: T[]): { added: number; removed: number } {
    let added = 0;
    let removed = 0;
    this.listDepth++;
    try {
      if (this.admit) {
        for (const old of this.watched.list()) {
          if (this.admits(old)) continue;
          const key = cacheKey(old)!;
          this.watched.remove(key);
          for (const view of this.views) view.settle(key, undefined, true);
          for (const view of this.views) view.emitDelete(old, true);
          removed++;
        }
      }
      for (const raw of items) {
        const obj = this.prepare(raw);
        const key = cacheKey(obj);
        if (!key || this.watched.get(key)) continue;
        const uid = obj.metadata?.uid;
        if (uid && this.deletedUids.has(uid)) continue;
        if (this.admit && !this.admits(obj)) continue;
        this.watched.put(key, obj);
        (this.readmitted ??= new WeakSet()).add(obj);
        for (const view of this.views) view.settle(key, obj, true);
        for (const view of this.views) view.emitAdd(obj);
        added++;
      }
    } finally {
      this.listDepth--;
    }
    return { added, removed };
  }

  /** Applies one watch event: the event is always emitted from the watched state. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', raw: T): void {
    const obj = this.prepare(raw);
    const key = cacheKey(obj);
    if (!key) {
      this.logger.warn('watch event without metadata.name ignored', { type });
      return;
    }
    const old = this.watched.get(key);
    if (old !== undefined && this.readmitted?.has(old) && notNewer(obj, old)) {
      // readmit's list was ahead of the watch, which now delivers the versions in between: the
      // cache keeps the newer object and nothing is reported (the same version is no change either)
      if (type === 'DELETED') this.rememberDeleted(obj);
      return;
    }
    if (type === 'DELETED') {
      this.rememberDeleted(obj);
      this.watched.remove(key);
      for (const view of this.views) view.settle(key, undefined, true);
      if (!old) return;
      const sameIncarnation = !differentUid(old, obj);
      for (const view of this.views) view.emitDelete(sameIncarnation ? obj : old, !sameIncarnation);
      return;
    }
    if (this.admit && !this.admits(obj)) {
      // no longer (or never) kept: gone from this cache, not from the server
      if (!old) return;
      this.watched.remove(key);
      for (const view of this.views) view.settle(key, undefined, true);
      for (const view of this.views) view.emitDelete(old, true);
      return;
    }
    // The event of an own write itself (exactly its resourceVersion) is reported to its writer
    // against that write, which the writer already knows: old and new carry the same version, so
    // filters see no change and the write does not trigger its writer again. A watch delivers every
    // version in order, so any foreign change before it had its own event, already emitted.
    const views = this.views;
    // allocated only when some view has an own write of this object
    let own: Array<T | undefined> | undefined;
    if (old) {
      for (let i = 0; i < views.length; i++) {
        const mine = views[i].ownWriteOf(key, obj);
        if (mine) (own ??= [])[i] = mine;
      }
    }
    this.watched.put(key, obj);
    for (const view of views) view.settle(key, obj, true);
    if (!old) {
      for (const view of views) view.emitAdd(obj);
    } else if (differentUid(old, obj)) {
      this.rememberDeleted(old);
      for (const view of views) view.emitDelete(old, true);
      for (const view of views) view.emitAdd(obj);
    } else {
      for (let i = 0; i < views.length; i++) views[i].emitUpdate(own?.[i] ?? old, obj);
    }
  }

  // --- ViewedCache ---------------------------------------------------------------------------------

  prepare(obj: T): T {
    if (!this.transform) return obj;
    try {
      return this.transform(obj);
    } catch (error) {
      this.logger.error('transform failed; caching the object untransformed', {
        key: cacheKey(obj),
        error: errorText(error),
      });
      return obj;
    }
  }

  wasDeleted(uid: string): boolean {
    return this.deletedUids.has(uid);
  }

  accepts(obj: T): boolean {
    return this.inSelection(obj) && (!this.admit || this.admits(obj));
  }

  asList(fn: () => void): void {
    this.listDepth++;
    try {
      fn();
    } finally {
      this.listDepth--;
    }
  }

  handlerFailed(what: string, error: unknown): void {
    this.logger.error(`event handler ${what} threw; the informer goes on`, { error: errorText(error) });
  }

  detach(view: CacheView<T>): void {
    if (view !== this.main) this.views = this.views.filter((v) => v !== view);
  }

  private admits(obj: T): boolean {
    try {
      return this.admit!(obj);
    } catch (error) {
      this.logger.error('admit predicate threw; the object is not cached', {
        key: cacheKey(obj),
        error: errorText(error),
      });
      return false;
    }
  }

  private rememberDeleted(obj: T): void {
    const uid = obj.metadata?.uid;
    if (uid) this.deletedUids.set(uid, true);
  }
}

/** Whether `obj` carries the resourceVersion of `than` or an older one (decimal versions only). */
function notNewer(obj: KubernetesResource, than: KubernetesResource): boolean {
  const order = compareResourceVersions(obj.metadata?.resourceVersion, than.metadata?.resourceVersion);
  return order !== undefined && order <= 0;
}

/** A short description of a thrown value for a log line. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
