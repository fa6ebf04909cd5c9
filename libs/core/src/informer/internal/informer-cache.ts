import { LRUCache } from 'lru-cache';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { Logger } from '../../util/logger.js';
import type { ResourceEventHandler } from '../resource-event-handler.js';
import { cacheKey, InformerStore } from './informer-store.js';
import type { IndexFunction } from './informer-store.js';
import { compareResourceVersions } from './resource-version.js';

/**
 * The informer's view of the cluster and its listeners: applies listed snapshots and watch events
 * to the store and tells the handlers what changed. The cache is keyed by `namespace/name`; the uid
 * tells incarnations of one name apart (a delete and re-create is a delete then an add).
 */
export class InformerCache<T extends KubernetesResource> {
  readonly store: InformerStore<T>;
  private handlers: ResourceEventHandler<T>[] = [];
  /** Uids seen deleted recently, so a late own write cannot resurrect a deleted object. */
  private readonly deletedUids = new LRUCache<string, true>({ max: 10_000 });

  constructor(
    private readonly logger: Logger,
    private readonly transform: ((obj: T) => T) | undefined,
  ) {
    this.store = new InformerStore<T>((index, key, error) =>
      this.logger.error('index function failed; the object is left out of the index', {
        index,
        key,
        error: errorText(error),
      }),
    );
  }

  /** Adds a handler; replays what is cached as adds (as client-go does). Returns the remover. */
  addHandler(handler: ResourceEventHandler<T>): () => void {
    this.handlers = [...this.handlers, handler];
    if (handler.onAdd) {
      for (const obj of this.store.list()) this.call(handler, 'onAdd', () => handler.onAdd!(obj));
    }
    return () => {
      this.handlers = this.handlers.filter((h) => h !== handler);
    };
  }

  addIndex(name: string, fn: IndexFunction<T>): void {
    this.store.addIndex(name, fn);
  }

  /**
   * Replaces the content with a complete list and emits the difference: deletes (final state
   * unknown) for what is gone or has a new uid, adds for what is new, updates for what changed.
   * An object cached from an own write that is newer than the listed one is kept.
   */
  replace(items: T[]): { added: number; updated: number; deleted: number } {
    const listed = new Map<string, T>();
    for (const raw of items) {
      const obj = this.prepare(raw);
      const key = cacheKey(obj);
      if (key) listed.set(key, obj);
    }
    let added = 0;
    let updated = 0;
    let deleted = 0;
    for (const [key, old] of [...this.store.entries()]) {
      const now = listed.get(key);
      if (!now || (now.metadata?.uid && old.metadata?.uid && now.metadata.uid !== old.metadata.uid)) {
        this.store.remove(key);
        this.rememberDeleted(old);
        this.emitDelete(old, true);
        deleted++;
      }
    }
    for (const [key, obj] of listed) {
      const old = this.store.get(key);
      if (!old) {
        this.store.put(key, obj);
        this.emitAdd(obj);
        added++;
      } else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
        if ((compareResourceVersions(old.metadata?.resourceVersion, obj.metadata?.resourceVersion) ?? -1) > 0)
          continue;
        this.store.put(key, obj);
        this.emitUpdate(old, obj);
        updated++;
      }
    }
    return { added, updated, deleted };
  }

  /** Applies one watch event. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', raw: T): void {
    const obj = this.prepare(raw);
    const key = cacheKey(obj);
    if (!key) {
      this.logger.warn('watch event without metadata.name ignored', { type });
      return;
    }
    const old = this.store.get(key);
    if (type === 'DELETED') {
      this.rememberDeleted(obj);
      if (!old) return;
      this.store.remove(key);
      const sameIncarnation =
        !old.metadata?.uid || !obj.metadata?.uid || old.metadata.uid === obj.metadata.uid;
      this.emitDelete(sameIncarnation ? obj : old, !sameIncarnation);
      return;
    }
    if (!old) {
      this.store.put(key, obj);
      this.emitAdd(obj);
      return;
    }
    if (old.metadata?.uid && obj.metadata?.uid && old.metadata.uid !== obj.metadata.uid) {
      this.store.remove(key);
      this.rememberDeleted(old);
      this.emitDelete(old, true);
      this.store.put(key, obj);
      this.emitAdd(obj);
      return;
    }
    // An own write cached with cacheIfNewer may be ahead of the stream: keep it, its own event follows.
    if ((compareResourceVersions(old.metadata?.resourceVersion, obj.metadata?.resourceVersion) ?? -1) > 0)
      return;
    this.store.put(key, obj);
    this.emitUpdate(old, obj);
  }

  /** See `Informer.cacheIfNewer` for the rule. */
  cacheIfNewer(raw: T, previousResourceVersion?: string): boolean {
    const obj = this.prepare(raw);
    const key = cacheKey(obj);
    const uid = obj.metadata?.uid;
    const version = obj.metadata?.resourceVersion;
    if (!key || !version) return false;
    if (uid && this.deletedUids.has(uid)) return false;
    const cached = this.store.get(key);
    if (!cached) {
      this.store.put(key, obj);
      return true;
    }
    if (uid && cached.metadata?.uid && uid !== cached.metadata.uid) return false;
    const order = compareResourceVersions(version, cached.metadata?.resourceVersion);
    const newer =
      order !== undefined
        ? order > 0
        : version !== cached.metadata?.resourceVersion &&
          previousResourceVersion !== undefined &&
          cached.metadata?.resourceVersion === previousResourceVersion;
    if (!newer) return false;
    this.store.put(key, obj);
    return true;
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

/** A short description of a thrown value for a log line. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
