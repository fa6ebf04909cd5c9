import { LRUCache } from 'lru-cache';
import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';

/** Options of a {@link BoundedResourceCache}. */
export interface BoundedResourceCacheOptions<T> {
  /** A resource not read or written for this long is evicted. Must be > 0. */
  ttlMs: number;
  /** Loads an evicted (or never cached) resource; undefined when it does not exist. */
  fetch: (key: string) => Promise<T | undefined>;
  /** Time source (eviction ages). Defaults to the system clock. */
  clock?: Clock;
  /** Hard cap on entries, evicting the least recently used. Defaults to no cap. */
  max?: number;
}

/**
 * A cache that keeps resources while they are used (JOSDK's bounded item store with Caffeine, here
 * on `lru-cache`): each read or write renews an entry's time; entries idle for `ttlMs` are evicted,
 * and {@link BoundedResourceCache.fetch} loads a missing one again (concurrent fetches of one key
 * share one request).
 */
export class BoundedResourceCache<T extends object> {
  private readonly lru: LRUCache<string, T>;
  private readonly loader: (key: string) => Promise<T | undefined>;

  /** @throws RangeError when `ttlMs` or `max` is not positive. */
  constructor(options: BoundedResourceCacheOptions<T>) {
    if (!(options.ttlMs > 0)) throw new RangeError(`ttlMs must be > 0, got ${options.ttlMs}`);
    if (options.max !== undefined && !(Number.isInteger(options.max) && options.max > 0))
      throw new RangeError(`max must be a positive integer, got ${options.max}`);
    const clock = options.clock ?? systemClock;
    this.loader = options.fetch;
    this.lru = new LRUCache<string, T>({
      ttl: options.ttlMs,
      ttlResolution: 0,
      updateAgeOnGet: true,
      perf: { now: () => clock.now() },
      ...(options.max !== undefined ? { max: options.max } : { ttlAutopurge: false }),
      fetchMethod: async (key) => (await this.loader(key)) ?? undefined,
    });
  }

  /** The cached resource (renewing it), undefined when evicted or never cached. */
  get(key: string): T | undefined {
    return this.lru.get(key);
  }

  /** Whether a resource is cached, without renewing it. */
  has(key: string): boolean {
    return this.lru.has(key);
  }

  /** Caches (or replaces) a resource. */
  set(key: string, value: T): void {
    this.lru.set(key, value);
  }

  /** Drops a resource. */
  delete(key: string): void {
    this.lru.delete(key);
  }

  /** The cached resource, or the fetched one (then cached) when missing. */
  async fetch(key: string): Promise<T | undefined> {
    return (await this.lru.fetch(key)) ?? undefined;
  }

  /** Evicts every idle entry now (also done lazily on reads); returns whether any was evicted. */
  purgeStale(): boolean {
    return this.lru.purgeStale();
  }

  /** Number of entries (idle ones not yet purged included). */
  get size(): number {
    return this.lru.size;
  }
}
