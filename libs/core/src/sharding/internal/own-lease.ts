import { KubernetesApiError } from '../../client/errors.js';
import { LeaseType, microTime } from '../../operator/leader-election/internal/lease-lock.js';
import type { LeaseJson } from '../../operator/leader-election/internal/lease-lock.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import {
  SHARD_ACK_ANNOTATION,
  SHARD_GROUP_LABEL,
  SHARD_IDENTITY_ANNOTATION,
  SHARD_INCARNATION_ANNOTATION,
  SHARD_RELEASED_ANNOTATION,
  ShardingLeaseNamespaceNotFoundError,
  ShardingLeasePermissionError,
} from '../sharding-configuration.js';
import type { ResolvedShardingConfiguration } from '../sharding-configuration.js';

/**
 * What in this replica's own Lease (as read) shows a change by someone else: gone, another holder,
 * the group label removed or changed, or an identity or incarnation this replica never wrote.
 * @returns a description, or undefined when the Lease is as this replica wrote it.
 */
export function foreignChange(
  lease: LeaseJson | undefined,
  c: ResolvedShardingConfiguration,
  ownIncarnations: ReadonlySet<string>,
): string | undefined {
  if (!lease) return 'membership lease deleted by someone else';
  const annotations = lease.metadata?.annotations ?? {};
  if (lease.spec?.holderIdentity !== c.identity) {
    return `membership lease given to holder "${String(lease.spec?.holderIdentity)}" by someone else`;
  }
  if (lease.metadata?.labels?.[SHARD_GROUP_LABEL] !== c.name) {
    return `label ${SHARD_GROUP_LABEL} of the membership lease changed by someone else`;
  }
  const incarnation = annotations[SHARD_INCARNATION_ANNOTATION];
  if (
    annotations[SHARD_IDENTITY_ANNOTATION] !== c.identity ||
    !incarnation ||
    !ownIncarnations.has(incarnation)
  ) {
    return 'membership lease annotations changed by someone else';
  }
  return undefined;
}

/**
 * A failure of a request on the own Lease that no retry can cure: the lease namespace is missing
 * (404 on create) or the request is forbidden (403).
 */
export function leaseSetupError(
  error: unknown,
  verb: string,
  c: ResolvedShardingConfiguration,
): ShardingLeaseNamespaceNotFoundError | ShardingLeasePermissionError | undefined {
  if (!(error instanceof KubernetesApiError)) return undefined;
  if (error.status === 403) {
    return new ShardingLeasePermissionError(verb, c.leaseNamespace, c.leaseName, { cause: error });
  }
  if (verb === 'create' && error.isNotFound()) {
    return new ShardingLeaseNamespaceNotFoundError(c.leaseNamespace, c.leaseName, { cause: error });
  }
  return undefined;
}

/**
 * The own Lease to write for a renewal sent at `sent`: `lease` (as read) with this replica's holder,
 * group label and `annotations` (a release mark removed), or a new Lease when `lease` is undefined.
 */
export function leaseBody(
  lease: LeaseJson | undefined,
  c: ResolvedShardingConfiguration,
  annotations: Record<string, string>,
  sent: number,
): LeaseJson {
  const spec = {
    holderIdentity: c.identity,
    leaseDurationSeconds: c.leaseDurationMs / 1000,
    renewTime: microTime(sent),
  };
  if (lease) {
    const { [SHARD_RELEASED_ANNOTATION]: _released, ...kept } = lease.metadata?.annotations ?? {};
    return {
      ...lease,
      metadata: {
        ...lease.metadata,
        labels: { ...lease.metadata?.labels, [SHARD_GROUP_LABEL]: c.name },
        annotations: { ...kept, ...annotations },
      },
      spec: { ...lease.spec, ...spec },
    };
  }
  return {
    apiVersion: LeaseType.apiVersion,
    kind: LeaseType.kind,
    metadata: {
      name: c.leaseName,
      namespace: c.leaseNamespace,
      labels: { [SHARD_GROUP_LABEL]: c.name },
      annotations,
    },
    spec: { ...spec, acquireTime: microTime(sent) },
  };
}

/**
 * Tells whether the own Lease, as read before this replica writes it, is held under this identity
 * by another incarnation that renewed it within its lease duration (local observation): another
 * process runs with the same identity, and both would own every key this identity owns. Logged as
 * an error at each check; the replica does not join until that Lease stays unrenewed for its
 * duration (a predecessor that died without releasing it).
 */
export class RivalCheck {
  private rival: { key: string; at: number } | undefined;

  constructor(
    private readonly c: ResolvedShardingConfiguration,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Forgets the rival seen (a new start). */
  reset(): void {
    this.rival = undefined;
  }

  /** Whether another live incarnation holds `lease` (logged); false when it may be written. */
  holds(lease: LeaseJson | undefined, ownIncarnations: ReadonlySet<string>): boolean {
    const c = this.c;
    const annotations = lease?.metadata?.annotations ?? {};
    const incarnation = annotations[SHARD_INCARNATION_ANNOTATION];
    if (
      !lease ||
      lease.spec?.holderIdentity !== c.identity ||
      !incarnation ||
      ownIncarnations.has(incarnation)
    ) {
      this.rival = undefined;
      return false;
    }
    // seen locally, on elapsed time: a step of the wall clock does not end a rival's term
    const now = this.clock.monotonic ? this.clock.monotonic() : this.clock.now();
    const key = JSON.stringify([
      String(lease.spec?.renewTime),
      incarnation,
      annotations[SHARD_ACK_ANNOTATION],
    ]);
    if (this.rival?.key !== key) this.rival = { key, at: now };
    const durationMs = (lease.spec?.leaseDurationSeconds ?? c.leaseDurationMs / 1000) * 1000;
    if (now >= this.rival.at + durationMs) {
      this.logger.info(
        'taking over the membership lease of an earlier incarnation not renewed for its duration',
        {
          incarnation,
        },
      );
      this.rival = undefined;
      return false;
    }
    this.logger.error(
      `another replica holds the membership lease "${c.leaseName}" under this replica's identity "${c.identity}" ` +
        `(incarnation ${incarnation}, renewed ${now - this.rival.at} ms ago as seen here). Two replicas must never ` +
        'share sharding.identity (TOSDK_SHARDING_IDENTITY; it defaults to HOSTNAME, the pod name): not joining. ' +
        `If that replica is gone, this one joins once its lease was not renewed for ${durationMs} ms`,
      { code: 'ShardingDuplicateIdentity', identity: c.identity },
    );
    return true;
  }
}
