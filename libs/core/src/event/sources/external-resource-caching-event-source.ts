import type { ResourceID } from '../../api/resource-id.js';
import { ResourceID as ID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { AmbiguousSecondaryResourceError } from '../../reconcile/errors.js';
import { AbstractEventSource } from './abstract-event-source.js';
import type { EventSourceOptions } from './abstract-event-source.js';

/** Options of an {@link ExternalResourceCachingEventSource}. */
export interface ExternalResourceCachingOptions<R> extends EventSourceOptions {
  /** Identity of an external resource among those of one primary. Defaults to the whole value as JSON (one resource per distinct value). */
  idOf?: (resource: R) => string;
  /** Whether two versions of one resource are equal (no event). Defaults to comparing their JSON. */
  equals?: (a: R, b: R) => boolean;
}

/**
 * Base of the sources that cache resources from outside Kubernetes per primary (JOSDK's
 * `ExternalResourceCachingEventSource`): {@link ExternalResourceCachingEventSource.handleResources}
 * replaces what is cached for a primary and emits an event only when something changed. While the
 * source is not running (before `start`, after `stop` or deregistration) results are dropped: nothing
 * is cached and no reconciliation is triggered (as JOSDK's).
 *
 * @typeParam R - the external resource type.
 */
export abstract class ExternalResourceCachingEventSource<R> extends AbstractEventSource {
  private readonly cache = new Map<string, Map<string, R>>();
  private readonly idOf: (resource: R) => string;
  private readonly equals: (a: R, b: R) => boolean;

  protected constructor(options: ExternalResourceCachingOptions<R> = {}) {
    super(options);
    this.idOf = options.idOf ?? ((r) => JSON.stringify(r));
    this.equals = options.equals ?? ((a, b) => JSON.stringify(a) === JSON.stringify(b));
  }

  /** The cached resources of a primary (`[]` when none or never fetched). */
  getSecondaryResources(primary: KubernetesResource | ResourceID): R[] {
    return [...(this.cache.get(keyOf(primary))?.values() ?? [])];
  }

  /**
   * The one cached resource of a primary; undefined when none.
   * @throws AmbiguousSecondaryResourceError when several are cached (read them with `getSecondaryResources`).
   */
  getSecondaryResource(primary: KubernetesResource | ResourceID): R | undefined {
    const found = this.getSecondaryResources(primary);
    if (found.length > 1) {
      throw new AmbiguousSecondaryResourceError(
        `${this.name ?? this.constructor.name}: ${found.length} resources are cached for ${keyOf(primary)}; use getSecondaryResources and pick one`,
      );
    }
    return found[0];
  }

  /** Whether anything was cached for a primary (an empty result of a fetch counts). */
  isCached(primary: KubernetesResource | ResourceID): boolean {
    return this.cache.has(keyOf(primary));
  }

  /** Primaries with cached resources. */
  cachedPrimaries(): ResourceID[] {
    return [...this.cache.keys()].map((k) => ID.fromKey(k));
  }

  /**
   * Replaces the cached resources of a primary; emits one event for it when the set changed (a
   * first result that is empty changes nothing). Returns whether it changed; false (nothing cached)
   * while the source is not running.
   */
  protected handleResources(primary: ResourceID, resources: Iterable<R>): boolean {
    if (!this.isRunning()) return false;
    const next = new Map<string, R>();
    for (const r of resources) next.set(this.idOf(r), r);
    const before = this.cache.get(primary.key);
    this.cache.set(primary.key, next);
    const changed = before ? !this.sameSet(before, next) : next.size > 0;
    if (changed) this.emit(primary);
    return changed;
  }

  /** Adds or replaces one resource of a primary; emits when it changed. Ignored while not running. */
  protected handleResource(primary: ResourceID, resource: R): boolean {
    if (!this.isRunning()) return false;
    const map = this.cache.get(primary.key) ?? new Map<string, R>();
    const id = this.idOf(resource);
    const old = map.get(id);
    map.set(id, resource);
    this.cache.set(primary.key, map);
    const changed = !old || !this.equals(old, resource);
    if (changed) this.emit(primary);
    return changed;
  }

  /**
   * Puts a resource the operator just created into the cache of its primary, unless a resource with
   * its id is cached already (JOSDK's `handleRecentResourceCreate`); no event. The next fetch then
   * compares with what was written, so a resource dropped before that fetch is reported (an event).
   */
  handleRecentResourceCreate(primary: ResourceID, resource: R): void {
    let map = this.cache.get(primary.key);
    if (!map) this.cache.set(primary.key, (map = new Map<string, R>()));
    const id = this.idOf(resource);
    if (!map.has(id)) map.set(id, resource);
  }

  /**
   * Replaces the cached version of a resource the operator just updated, when the cache still holds
   * the version the update started from (JOSDK's `handleRecentResourceUpdate`); no event. A cache
   * that moved on meanwhile is left as it is.
   */
  handleRecentResourceUpdate(primary: ResourceID, resource: R, previous: R): void {
    const map = this.cache.get(primary.key);
    if (!map) return;
    const id = this.idOf(resource);
    const cached = map.get(id);
    if (cached !== undefined && this.equals(cached, previous)) map.set(id, resource);
  }

  /** Removes one resource (by its id) or all resources of a primary; emits when something was removed. Ignored while not running. */
  protected handleDelete(primary: ResourceID, resourceId?: string): boolean {
    if (!this.isRunning()) return false;
    const map = this.cache.get(primary.key);
    if (!map) return false;
    let removed: boolean;
    if (resourceId === undefined) {
      removed = map.size > 0;
      this.cache.delete(primary.key);
    } else {
      removed = map.delete(resourceId);
    }
    if (removed) this.emit(primary);
    return removed;
  }

  /** Forgets a primary without an event (its primary is gone). */
  protected forget(primary: ResourceID): void {
    this.cache.delete(primary.key);
  }

  /** The id of a resource (per `idOf`). */
  protected resourceId(resource: R): string {
    return this.idOf(resource);
  }

  private sameSet(a: Map<string, R>, b: Map<string, R>): boolean {
    if (a.size !== b.size) return false;
    for (const [id, r] of a) {
      const other = b.get(id);
      if (other === undefined || !this.equals(r, other)) return false;
    }
    return true;
  }
}

function keyOf(primary: KubernetesResource | ResourceID): string {
  return primary instanceof ID ? primary.key : ID.fromResource(primary).key;
}
