import type { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { Logger } from '../../util/logger.js';
import { noopLogger } from '../../util/logger.js';
import type { ShardMembership, ShardParticipant } from '../shard-membership.js';

/**
 * What the sharding layer uses of a secondary event source (an `InformerEventSource` has it): a
 * filter on its cache, a refill after the filter's answers changed, and its secondary-to-primary
 * mapping.
 */
export interface ShardableSecondarySource<R extends KubernetesResource = KubernetesResource> {
  /** Caches only the secondaries `admit` accepts; before start. */
  restrictTo(admit: (obj: R) => boolean): void;
  /** Re-lists and applies `admit` as it answers now; resolves when the cache reflects it. */
  readmit(): Promise<void>;
  /** The primaries a secondary maps to. */
  primaryIdsOf(obj: R): ResourceID[];
}

/** Options of {@link attachShardedSecondaries}. */
export interface ShardedSecondariesOptions {
  /** The controller's name, for logs. */
  controller?: string;
  /**
   * The controller's primary by ID, from its informer's store (which holds only the replica's cache
   * scope). Needed only with a user `shardKey` (the ring key is then a function of the primary
   * object, not of its ID); a secondary whose primary is not found is kept, so with a `shardKey`
   * secondaries are not split.
   */
  primary?: (id: ResourceID) => KubernetesResource | undefined;
  /** Where restriction failures are logged. Defaults to no logging. */
  logger?: Logger;
}

function isShardable(source: unknown): source is ShardableSecondarySource {
  const s = source as Partial<ShardableSecondarySource> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.restrictTo === 'function' &&
    typeof s.readmit === 'function' &&
    typeof s.primaryIdsOf === 'function'
  );
}

/**
 * Makes a controller's secondary caches follow its primaries' shard: each secondary source among
 * `sources` (those with {@link ShardableSecondarySource}'s hooks; others are left alone) caches only
 * secondaries whose primaries are in this replica's {@link ShardMembership.caches} scope; secondaries
 * that map to no primary are kept (nothing tells whose they are). When a new ring widens the scope,
 * every source re-lists (`readmit`) and the membership acknowledges that ring only after all
 * refills finished, so a gained primary, which starts only once every member acknowledged, is never
 * reconciled while its secondaries are missing from the cache. When a ring settles, the secondaries
 * of drained primaries leave the caches.
 *
 * Call before the sources start. Sources registered later (dynamically) are not restricted: they
 * cache every secondary, as without sharding.
 * @returns a function that detaches the sources from the membership (their filters stay).
 */
export function attachShardedSecondaries(
  membership: ShardMembership,
  sources: Iterable<unknown>,
  options: ShardedSecondariesOptions = {},
): () => void {
  const logger = (options.logger ?? noopLogger).child({ controller: options.controller });
  const byKey = membership.configuration.shardKey !== undefined;
  const keyOf = (id: ResourceID): string | undefined => {
    if (!byKey) return id.key;
    const primary = options.primary?.(id);
    return primary ? membership.keyOf(primary) : undefined;
  };
  const restricted: ShardableSecondarySource[] = [];
  for (const source of new Set(sources)) {
    if (!isShardable(source)) continue;
    const admit = (obj: KubernetesResource): boolean => {
      const ids = source.primaryIdsOf(obj);
      if (ids.length === 0) return true;
      const scope = membership.caches();
      return ids.some((id) => {
        const key = keyOf(id);
        return key === undefined || scope.owns(key);
      });
    };
    try {
      source.restrictTo(admit);
      restricted.push(source);
    } catch (error) {
      logger.warn('a secondary source could not be restricted to the shard; it caches every secondary', {
        error: String(error),
      });
    }
  }
  if (restricted.length === 0) return () => undefined;
  // one refill at a time per source; each lists after it was asked for, so it sees the scope of then
  const queues = new Map<ShardableSecondarySource, Promise<void>>();
  const refill = (source: ShardableSecondarySource): Promise<void> => {
    const next = (queues.get(source) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => source.readmit());
    queues.set(source, next);
    return next;
  };
  const participant: ShardParticipant = {
    reassign: () => undefined,
    drained: () => true,
    rescope: async () => {
      await Promise.all(restricted.map(refill));
    },
  };
  return membership.attach(participant);
}
