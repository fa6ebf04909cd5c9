import { LRUCache } from 'lru-cache';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { Logger } from '../../util/logger.js';
import type { ResourceEventHandler } from '../resource-event-handler.js';
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
 * - `watched`: the last object the list/watch delivered per key. Events are computed from it
 *   (old watched → new watched), so no watch event is ever swallowed because an own write is newer.
 *   One exception: the watch event carrying exactly the version of the current own write is
 *   reported with that write as the old object (nothing the writer does not know changed).
 * - `overlay`: results of own writes ({@link InformerCache.cacheIfNewer}) ahead of the stream. Reads
 *   (`store`: get, list, indexes) see the overlay while it is newer than the watched object; it is
 *   dropped once the stream reaches its resourceVersion (decimal versions), on the next event of that
 *   object (opaque versions), on a delete or a new uid.
 */
export class InformerCache<T extends KubernetesResource> {
  /** What reads see: the overlay where there is one, else the watched object. */
  readonly store: InformerStore<T>;
  private readonly watched = new Map<string, T>();
  private readonly overlay = new Map<string, T>();
  private handlers: ResourceEventHandler<T>[] = [];
  /** Uids seen deleted recently, so a late own write cannot resurrect a deleted object. */
  // a size count instead of `max`, which would preallocate all 10,000 slots in every informer
  private readonly deletedUids = new LRUCache<string, true>({ maxSize: 10_000, sizeCalculation: () => 1 });

  constructor(
    private readonly logger: Logger,
    private readonly transform: ((obj: T) => T) | undefined,
    /** Whether an object is in the informer's selection (own writes outside it are refused). */
    private readonly inSelection: ObjectMatcher = () => true,
  ) {
    this.store = new InformerStore<T>((index, key, error) =>
      this.logger.error('index function failed; the object is left out of the index', {
        index,
        key,
        error: errorText(error),
      }),
    );
  }

  /** Adds a handler; replays what was watched as adds (as client-go does). Returns the remover. */
  addHandler(handler: ResourceEventHandler<T>): () => void {
    this.handlers = [...this.handlers, handler];
    if (handler.onAdd) {
      for (const obj of [...this.watched.values()]) this.call(handler, 'onAdd', () => handler.onAdd!(obj));
    }
    return () => {
      this.handlers = this.handlers.filter((h) => h !== handler);
    };
  }

  addIndex(name: string, fn: IndexFunction<T>): void {
    this.store.addIndex(name, fn);
  }

  /**
   * Replaces the watched content with a complete list (taken at `listResourceVersion`) and emits
   * the difference: deletes (final state unknown) for what is gone or has a new uid, adds for what
   * is new, updates for what changed. Overlays newer than what was listed are kept; an overlay of
   * an object the list does not contain is kept only when it is newer than the list (its event follows).
   */
  replace(items: T[], listResourceVersion = ''): { added: number; updated: number; deleted: number } {
    const listed = new Map<string, T>();
    for (const raw of items) {
      const obj = this.prepare(raw);
      const key = cacheKey(obj);
      if (key) listed.set(key, obj);
    }
    let added = 0;
    let updated = 0;
    let deleted = 0;
    for (const [key, old] of [...this.watched]) {
      const now = listed.get(key);
      if (!now || differentUid(now, old)) {
        this.watched.delete(key);
        this.rememberDeleted(old);
        if (!now) this.settle(key, undefined, true);
        this.refresh(key);
        this.emitDelete(old, true);
        deleted++;
      }
    }
    for (const [key, overlaid] of [...this.overlay]) {
      if (listed.has(key) || this.watched.has(key)) continue;
      const order = compareResourceVersions(overlaid.metadata?.resourceVersion, listResourceVersion);
      if (order === undefined || order <= 0) {
        this.overlay.delete(key);
        this.refresh(key);
      }
    }
    for (const [key, obj] of listed) {
      const old = this.watched.get(key);
      if (!old) {
        this.watched.set(key, obj);
        this.settle(key, obj, true);
        this.refresh(key);
        this.emitAdd(obj);
        added++;
      } else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
        // a list from a lagging cache must not move the watched state backwards
        if ((compareResourceVersions(old.metadata?.resourceVersion, obj.metadata?.resourceVersion) ?? -1) > 0)
          continue;
        this.watched.set(key, obj);
        this.settle(key, obj, true);
        this.refresh(key);
        this.emitUpdate(old, obj);
        updated++;
      } else {
        this.settle(key, obj, false);
        this.refresh(key);
      }
    }
    return { added, updated, deleted };
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
    if (type === 'DELETED') {
      this.rememberDeleted(obj);
      this.watched.delete(key);
      this.settle(key, undefined, true);
      this.refresh(key);
      if (!old) return;
      const sameIncarnation = !differentUid(old, obj);
      this.emitDelete(sameIncarnation ? obj : old, !sameIncarnation);
      return;
    }
    // The event of an own write itself (exactly its resourceVersion) is reported against that
    // write, which the writer already knows: old and new carry the same version, so filters see no
    // change and the write does not trigger its writer again. A watch delivers every version in
    // order, so any foreign change before it had its own event, already emitted.
    const mine = this.overlay.get(key);
    const ownEvent = mine !== undefined && mine.metadata?.resourceVersion === obj.metadata?.resourceVersion;
    this.watched.set(key, obj);
    this.settle(key, obj, true);
    this.refresh(key);
    if (!old) {
      this.emitAdd(obj);
    } else if (differentUid(old, obj)) {
      this.rememberDeleted(old);
      this.emitDelete(old, true);
      this.emitAdd(obj);
    } else {
      this.emitUpdate(ownEvent && !differentUid(mine, obj) ? mine : old, obj);
    }
  }

  /**
   * See `Informer.cacheIfNewer` for the rule. The write is compared with what reads see now (an
   * earlier overlay or the watched object). An object outside the informer's label/field selection
   * is refused, and an older overlay of it is dropped (the stream will report it gone).
   */
  cacheIfNewer(raw: T, previousResourceVersion?: string): boolean {
    const obj = this.prepare(raw);
    const key = cacheKey(obj);
    const uid = obj.metadata?.uid;
    const version = obj.metadata?.resourceVersion;
    if (!key || !version) return false;
    if (uid && this.deletedUids.has(uid)) return false;
    const cached = this.store.get(key);
    if (cached && uid && cached.metadata?.uid && uid !== cached.metadata.uid) return false;
    if (cached) {
      const order = compareResourceVersions(version, cached.metadata?.resourceVersion);
      const newer =
        order !== undefined
          ? order > 0
          : version !== cached.metadata?.resourceVersion &&
            previousResourceVersion !== undefined &&
            cached.metadata?.resourceVersion === previousResourceVersion;
      if (!newer) return false;
    }
    if (!this.inSelection(obj)) {
      if (this.overlay.delete(key)) this.refresh(key);
      return false;
    }
    this.overlay.set(key, obj);
    this.refresh(key);
    return true;
  }

  /** Whether an own write of `key` is ahead of the watched object (for tests and diagnostics). */
  hasOverlay(key: string): boolean {
    return this.overlay.has(key);
  }

  /**
   * Drops the overlay of `key` when the watched state caught up with it: `seen` (the watched object
   * now, undefined after a delete) has its resourceVersion or a newer one, another uid, or (opaque
   * versions) any version when `isEvent` says the object changed.
   */
  private settle(key: string, seen: T | undefined, isEvent: boolean): void {
    const mine = this.overlay.get(key);
    if (!mine) return;
    if (!seen) {
      if (isEvent) this.overlay.delete(key);
      return;
    }
    if (differentUid(mine, seen)) {
      this.overlay.delete(key);
      return;
    }
    const order = compareResourceVersions(seen.metadata?.resourceVersion, mine.metadata?.resourceVersion);
    if (order === undefined ? isEvent : order >= 0) this.overlay.delete(key);
  }

  /** Puts what reads should see for `key` into the store. */
  private refresh(key: string): void {
    const view = this.overlay.get(key) ?? this.watched.get(key);
    if (view) {
      if (this.store.get(key) !== view) this.store.put(key, view);
    } else {
      this.store.remove(key);
    }
  }

  private prepare(obj: T): T {
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

  private rememberDeleted(obj: T): void {
    const uid = obj.metadata?.uid;
    if (uid) this.deletedUids.set(uid, true);
  }

  private emitAdd(obj: T): void {
    for (const h of this.handlers) if (h.onAdd) this.call(h, 'onAdd', () => h.onAdd!(obj));
  }

  private emitUpdate(old: T, obj: T): void {
    for (const h of this.handlers) if (h.onUpdate) this.call(h, 'onUpdate', () => h.onUpdate!(old, obj));
  }

  private emitDelete(obj: T, finalStateUnknown: boolean): void {
    for (const h of this.handlers) {
      if (h.onDelete) this.call(h, 'onDelete', () => h.onDelete!(obj, finalStateUnknown));
    }
  }

  private call(_handler: ResourceEventHandler<T>, what: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.logger.error(`event handler ${what} threw; the informer goes on`, { error: errorText(error) });
    }
  }
}

/** Whether two objects carry different uids (both known). */
function differentUid(a: KubernetesResource, b: KubernetesResource): boolean {
  return Boolean(a.metadata?.uid && b.metadata?.uid && a.metadata.uid !== b.metadata.uid);
}

/** A short description of a thrown value for a log line. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
