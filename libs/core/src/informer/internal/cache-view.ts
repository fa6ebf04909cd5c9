import type { KubernetesResource } from '../../api/resource-type.js';
import { InformerUsageError } from '../errors.js';
import type { ResourceEventHandler } from '../resource-event-handler.js';
import { cacheKey } from './informer-store.js';
import type { IndexFunction, InformerStore } from './informer-store.js';
import { compareResourceVersions } from './resource-version.js';

/** What a {@link CacheView} needs of the cache it looks at (implemented by `InformerCache`). */
export interface ViewedCache<T extends KubernetesResource> {
  /** The watched objects (shared by every view) with every view's indexes. */
  readonly watched: InformerStore<T>;
  /** Applies the informer's transform. */
  prepare(obj: T): T;
  /** Whether the uid was seen deleted recently. */
  wasDeleted(uid: string): boolean;
  /** Whether an object belongs in the cache (selectors and `admit`). */
  accepts(obj: T): boolean;
  /** Marks the events emitted by `fn` as list events (see `Informer.isListing`). */
  asList(fn: () => void): void;
  /** Logs a throwing handler. */
  handlerFailed(what: string, error: unknown): void;
  /** Forgets a closed view. */
  detach(view: CacheView<T>): void;
}

/**
 * One user's look at an informer's cache: its event handlers, its indexes and its own writes
 * (JOSDK's `TemporaryResourceCache`), over the watched objects every user shares. An unshared
 * informer has one view; a shared informer (see `SharedInformers`) one per user, so one user's own
 * write is never read by, nor hides a change from, another user, and one user's index is neither
 * visible to the others nor computed for them (it is kept in the shared store under a name private
 * to the view, and removed when the view closes).
 *
 * Reads return the own write while it is newer than the watched object; it is dropped once the
 * stream reaches its resourceVersion (decimal versions), on the next event of that object (opaque
 * versions), on a delete or a new uid. The watch event carrying exactly the own write's version is
 * reported to this view's handlers with the write as the old object.
 */
export class CacheView<T extends KubernetesResource> {
  private readonly overlay = new Map<string, T>();
  private handlers: ResourceEventHandler<T>[] = [];
  private readonly indexes = new Map<string, IndexFunction<T>>();
  private closed = false;

  constructor(
    private readonly cache: ViewedCache<T>,
    /** Prefix of this view's index names in the shared store (`''` for an unshared informer). */
    private readonly prefix: string,
  ) {}

  /** Number of objects reads see. */
  get size(): number {
    let extra = 0;
    for (const key of this.overlay.keys()) if (!this.cache.watched.get(key)) extra++;
    return this.cache.watched.size + extra;
  }

  /** The object reads see under `key`: the own write where there is one, else the watched object. */
  get(key: string): T | undefined {
    return this.overlay.get(key) ?? this.cache.watched.get(key);
  }

  /** Objects, all or of one namespace. */
  list(namespace?: string): T[] {
    const watched = this.cache.watched.list(namespace);
    if (this.overlay.size === 0) return watched;
    const out = watched.map((obj) => this.overlay.get(cacheKey(obj)!) ?? obj);
    for (const [key, mine] of this.overlay) {
      if (this.cache.watched.get(key)) continue;
      if (namespace === undefined || (mine.metadata?.namespace ?? '') === namespace) out.push(mine);
    }
    return out;
  }

  /** Keys of the objects reads see. */
  keys(): string[] {
    const keys = this.cache.watched.keys();
    for (const key of this.overlay.keys()) if (!this.cache.watched.get(key)) keys.push(key);
    return keys;
  }

  /**
   * Objects whose values of this view's index `name` include `value`.
   * @throws InformerUsageError for an unknown index.
   */
  byIndex(name: string, value: string): T[] {
    const fn = this.indexes.get(name);
    if (!fn) throw new InformerUsageError(`no index named "${name}"; add it with addIndexer first`);
    const found = this.cache.watched.byIndex(this.prefix + name, value);
    if (this.overlay.size === 0) return found;
    const out = found.filter((obj) => !this.overlay.has(cacheKey(obj)!));
    for (const mine of this.overlay.values()) if (indexValues(fn, mine).includes(value)) out.push(mine);
    return out;
  }

  /**
   * Adds an index (filled from the cache at once, kept up to date).
   * @throws InformerUsageError when this view has an index of that name.
   */
  addIndex(name: string, fn: IndexFunction<T>): void {
    if (this.indexes.has(name)) throw new InformerUsageError(`an index named "${name}" exists already`);
    this.cache.watched.addIndex(this.prefix + name, fn);
    this.indexes.set(name, fn);
  }

  /** Adds a handler; replays what is watched as adds, marked as list events. Returns the remover. */
  addHandler(handler: ResourceEventHandler<T>): () => void {
    this.handlers = [...this.handlers, handler];
    if (handler.onAdd && this.cache.watched.size > 0) {
      const objects = this.cache.watched.list();
      this.cache.asList(() => {
        for (const obj of objects) this.call('onAdd', () => handler.onAdd!(obj));
      });
    }
    return () => {
      this.handlers = this.handlers.filter((h) => h !== handler);
    };
  }

  /** See `Informer.cacheIfNewer` for the rule. */
  cacheIfNewer(raw: T, previousResourceVersion?: string): boolean {
    if (this.closed) return false;
    const obj = this.cache.prepare(raw);
    const key = cacheKey(obj);
    const uid = obj.metadata?.uid;
    const version = obj.metadata?.resourceVersion;
    if (!key || !version) return false;
    if (uid && this.cache.wasDeleted(uid)) return false;
    const cached = this.get(key);
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
    if (!this.cache.accepts(obj)) {
      this.overlay.delete(key);
      return false;
    }
    this.overlay.set(key, obj);
    return true;
  }

  /** Whether an own write of `key` is ahead of the watched object. */
  hasOverlay(key: string): boolean {
    return this.overlay.has(key);
  }

  /** Removes this view's handlers, indexes and own writes from the cache. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.handlers = [];
    this.overlay.clear();
    for (const name of this.indexes.keys()) this.cache.watched.removeIndex(this.prefix + name);
    this.indexes.clear();
    this.cache.detach(this);
  }

  // --- called by the cache -------------------------------------------------------------------------

  /** The own write whose version the event `obj` carries (the old object to report), if any. */
  ownWriteOf(key: string, obj: T): T | undefined {
    const mine = this.overlay.get(key);
    if (!mine || mine.metadata?.resourceVersion !== obj.metadata?.resourceVersion) return undefined;
    return differentUid(mine, obj) ? undefined : mine;
  }

  /**
   * Drops the own write of `key` when the watched state caught up with it: `seen` (the watched
   * object now, undefined after a delete) has its resourceVersion or a newer one, another uid, or
   * (opaque versions) any version when `isEvent` says the object changed.
   */
  settle(key: string, seen: T | undefined, isEvent: boolean): void {
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

  /**
   * After a complete list taken at `listResourceVersion`: drops own writes of objects neither listed
   * nor watched unless they are newer than the list (their event follows).
   */
  afterList(isListedOrWatched: (key: string) => boolean, listResourceVersion: string): void {
    for (const [key, mine] of [...this.overlay]) {
      if (isListedOrWatched(key)) continue;
      const order = compareResourceVersions(mine.metadata?.resourceVersion, listResourceVersion);
      if (order === undefined || order <= 0) this.overlay.delete(key);
    }
  }

  emitAdd(obj: T): void {
    for (const h of this.handlers) if (h.onAdd) this.call('onAdd', () => h.onAdd!(obj));
  }

  emitUpdate(old: T, obj: T): void {
    for (const h of this.handlers) if (h.onUpdate) this.call('onUpdate', () => h.onUpdate!(old, obj));
  }

  emitDelete(obj: T, finalStateUnknown: boolean): void {
    for (const h of this.handlers) {
      if (h.onDelete) this.call('onDelete', () => h.onDelete!(obj, finalStateUnknown));
    }
  }

  private call(what: string, fn: () => unknown): void {
    try {
      const result = fn();
      // an `async` handler (TypeScript accepts one where `void` is declared) fails by rejecting: a
      // rejection left unhandled ends the Node process, so it is logged like a throw
      if (result !== undefined && typeof (result as PromiseLike<unknown>).then === 'function') {
        (result as PromiseLike<unknown>).then(undefined, (error: unknown) =>
          this.cache.handlerFailed(what, error),
        );
      }
    } catch (error) {
      this.cache.handlerFailed(what, error);
    }
  }
}

/** Whether two objects carry different uids (both known). */
export function differentUid(a: KubernetesResource, b: KubernetesResource): boolean {
  return Boolean(a.metadata?.uid && b.metadata?.uid && a.metadata.uid !== b.metadata.uid);
}

function indexValues<T>(fn: IndexFunction<T>, obj: T): string[] {
  try {
    const values = fn(obj);
    return Array.isArray(values) ? values : [];
  } catch {
    return [];
  }
}
