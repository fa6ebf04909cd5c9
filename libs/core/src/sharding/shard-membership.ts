import { randomUUID } from 'node:crypto';
import { ResourceID } from '../api/resource-id.js';
import type { KubernetesResource } from '../api/resource-type.js';
import { KubernetesApiError } from '../client/errors.js';
import type { KubernetesClient } from '../client/kubernetes-client.js';
import type { KubeConfigSource } from '../config/kube-config.js';
import { LeaseType, microTime } from '../operator/leader-election/internal/lease-lock.js';
import type { LeaseJson } from '../operator/leader-election/internal/lease-lock.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { noopLogger } from '../util/logger.js';
import { HashRing, hash32 } from './hash-ring.js';
import {
  SHARD_ACK_ANNOTATION,
  SHARD_GROUP_LABEL,
  SHARD_IDENTITY_ANNOTATION,
  SHARD_INCARNATION_ANNOTATION,
  shardingConfiguration,
} from './sharding-configuration.js';
import type { ResolvedShardingConfiguration, ShardingOptions } from './sharding-configuration.js';

/** The client methods membership uses; a `KubernetesClient` has them all. */
export type ShardClient = Pick<KubernetesClient, 'get' | 'create' | 'update' | 'list' | 'delete'>;

/** Which keys a replica may reconcile at one moment. */
export interface ShardAssignment {
  /** Whether this replica may reconcile the resource with this ring key. */
  owns(key: string): boolean;
}

/**
 * One user of the assignment (a controller's primary informer): told when the assignment changes,
 * asked whether it has finished the reconciliations of the keys it lost.
 */
export interface ShardParticipant {
  /** The assignment changed from `before` to `after`: stop lost keys, queue gained ones. */
  reassign(before: ShardAssignment, after: ShardAssignment): void;
  /** Whether no reconciliation of a lost key is queued or running anymore. */
  drained(): boolean;
  /**
   * This replica lost its membership (no renewal within `renewDeadlineMs`): refuse the writes of the
   * reconciliations running now, since the others may take their resources over soon.
   */
  fence?(): void;
}

/** What a replica knows about its shard (for health endpoints and logs). */
export interface ShardStatus {
  /** This replica's identity. */
  readonly identity: string;
  /** Live members as this replica sees them, sorted; empty before the first successful read. */
  readonly members: readonly string[];
  /** Fingerprint of the ring over `members`. */
  readonly ring: string | undefined;
  /** The ring this replica has drained for and acknowledged in its Lease. */
  readonly acknowledged: string | undefined;
  /** Whether every live member acknowledged `ring`: this replica reconciles its whole share. */
  readonly settled: boolean;
  /** Whether this replica holds a renewed membership Lease. */
  readonly member: boolean;
}

interface Observation {
  key: string;
  at: number;
  lease: LeaseJson;
}

const NONE: ShardAssignment = Object.freeze({ owns: () => false });

/** An assignment allowing only keys every one of `rings` gives to `identity`. */
function allOf(rings: readonly HashRing[], identity: string): ShardAssignment {
  if (rings.length === 0) return NONE;
  return Object.freeze({ owns: (key: string) => rings.every((r) => r.ownerOf(key) === identity) });
}

/** Options of {@link ShardMembership}. */
export interface ShardMembershipOptions {
  /** The clock of renewals and expiry. Defaults to {@link systemClock}. */
  clock?: Clock;
  /** Where membership changes are logged. Defaults to no logging. */
  logger?: Logger;
  /** Whose current context namespace is the default lease namespace. */
  kubeConfig?: KubeConfigSource;
}

/**
 * This replica's membership in a shard group, and the assignment of ring keys to it.
 *
 * Protocol (every replica runs it; only Leases, labels and reads of them are shared):
 * 1. Each replica holds the Lease `<name>-<identity>` labelled `tosdk.io/shard-group=<name>`, renewed
 *    every `retryPeriodMs` (conditional updates, as leader election).
 * 2. Each period it lists the group's Leases. A Lease is live while it names a holder and was seen
 *    to change within its `leaseDurationSeconds` (local observation time, as client-go judges expiry);
 *    this replica counts itself live while its last renewal is younger than `renewDeadlineMs`.
 * 3. The live members define the desired ring. When it changes, the replica at once narrows what it
 *    may reconcile to keys both its previous allowance and the new ring give it (lost keys stop being
 *    accepted), waits until no reconciliation of a lost key is queued or running (drain), then writes
 *    the new ring's fingerprint into its Lease annotation `tosdk.io/shard-ring` (acknowledgement).
 * 4. Gained keys start only when every live member's Lease acknowledges the same ring (the barrier);
 *    a member that died is not live once its Lease expired, so it does not block the barrier.
 *
 * Invariant: a replica whose Lease acknowledges ring R reconciles only keys R gives it until it
 * passes the barrier of a later ring, which needs every other live member to acknowledge that ring,
 * which each does only after draining the keys that ring takes from it. So no key is reconciled by
 * two replicas at once; and once membership is stable for a few periods every key has an owner.
 */
export class ShardMembership {
  /** The resolved configuration. */
  readonly configuration: ResolvedShardingConfiguration;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly participants = new Set<ShardParticipant>();
  private readonly observed = new Map<string, Observation>();
  private lease: LeaseJson | undefined;
  private renewedAt = Number.NEGATIVE_INFINITY;
  private desired: HashRing | undefined;
  /** Fingerprint of the desired ring and of its members' incarnations: what acknowledgements name. */
  private desiredFingerprint: string | undefined;
  /** Changes whenever this replica (re)joins, so acknowledgements older than the join never count. */
  private incarnation = randomUUID().slice(0, 8);
  /** The rings whose intersection is what this replica may reconcile now. */
  private allowance: HashRing[] = [];
  private assignment: ShardAssignment = NONE;
  private acknowledged: string | undefined;
  private settled = false;
  private timer: TimerHandle | undefined;
  private running = false;
  private ticking: Promise<void> | undefined;

  /** @throws InvalidShardingConfigurationError for a bad configuration. */
  constructor(
    options: ShardingOptions,
    private readonly client: ShardClient,
    membershipOptions: ShardMembershipOptions = {},
  ) {
    this.configuration = shardingConfiguration(options, { kubeConfig: membershipOptions.kubeConfig });
    this.clock = membershipOptions.clock ?? systemClock;
    this.logger = (membershipOptions.logger ?? noopLogger).child({
      shardGroup: this.configuration.name,
      identity: this.configuration.identity,
    });
  }

  /** The ring key of a resource: the configured `shardKey`, else `namespace/name`. */
  keyOf(resource: KubernetesResource): string {
    return this.configuration.shardKey?.(resource) ?? ResourceID.fromResource(resource).key;
  }

  /** Whether this replica may reconcile `resource` now. */
  owns(resource: KubernetesResource): boolean {
    return this.assignment.owns(this.keyOf(resource));
  }

  /** The assignment in force now. */
  current(): ShardAssignment {
    return this.assignment;
  }

  /** Adds a participant; returns a function that removes it. */
  attach(participant: ShardParticipant): () => void {
    this.participants.add(participant);
    return () => this.participants.delete(participant);
  }

  /** What this replica knows about its shard. */
  status(): ShardStatus {
    return Object.freeze({
      identity: this.configuration.identity,
      members: this.desired?.members ?? [],
      ring: this.desiredFingerprint,
      acknowledged: this.acknowledged,
      settled: this.settled,
      member: this.isMember(),
    });
  }

  /** Joins: writes this replica's Lease and reads the group once, then keeps both up every period. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.logger.info('joining the shard group');
    await this.tick();
  }

  /**
   * Leaves: stops renewing. With `release` (only when nothing of this replica is still running),
   * deletes the Lease so the others take its share over at once; otherwise they wait until it expires.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
    this.setAllowance([]);
    if (options.release && this.lease) {
      try {
        await this.client.delete(
          LeaseType,
          new ResourceID(this.configuration.leaseName, this.configuration.leaseNamespace),
        );
        this.logger.info('left the shard group; lease deleted');
      } catch (error) {
        this.logger.warn('could not delete the membership lease; the others wait until it expires', {
          error: String(error),
        });
      }
    }
    this.lease = undefined;
  }

  private isMember(): boolean {
    return this.clock.now() < this.renewedAt + this.configuration.renewDeadlineMs;
  }

  private tick(): Promise<void> {
    this.ticking = this.step().finally(() => {
      this.ticking = undefined;
      if (this.running)
        this.timer = this.clock.setTimeout(() => void this.tick(), this.configuration.retryPeriodMs);
    });
    return this.ticking;
  }

  private async step(): Promise<void> {
    await this.renew();
    if (!this.running) return;
    if (!this.isMember()) {
      const had = this.allowance.length > 0;
      this.setAllowance([]);
      if (had) {
        this.logger.warn('membership lease not renewed in time: reconciling nothing, running writes refused');
        for (const p of this.participants) p.fence?.();
      }
      if (this.desired) {
        // the others may count this replica dead and take its share: rejoin as a new member
        this.incarnation = randomUUID().slice(0, 8);
        this.acknowledged = undefined;
      }
      this.desired = undefined;
      this.desiredFingerprint = undefined;
      this.settled = false;
    }
    let leases: LeaseJson[];
    try {
      leases = (
        await this.client.list(LeaseType, {
          namespace: this.configuration.leaseNamespace,
          labelSelector: `${SHARD_GROUP_LABEL}=${this.configuration.name}`,
        })
      ).items;
    } catch (error) {
      this.logger.warn('could not list the membership leases', { error: String(error) });
      return;
    }
    if (!this.running || !this.isMember()) return;
    const live = this.liveMembers(leases);
    const ring = new HashRing(live.keys(), this.configuration.virtualNodes);
    const fingerprint = `${ring.fingerprint}-${hash32(
      [...live]
        .map(([id, m]) => `${id}=${m.incarnation}`)
        .sort()
        .join('\n'),
    ).toString(16)}`;
    if (fingerprint !== this.desiredFingerprint) {
      this.logger.info('shard ring changed', { members: ring.members, ring: fingerprint });
      this.desired = ring;
      this.desiredFingerprint = fingerprint;
      this.settled = false;
      // lost keys stop at once; gained ones wait for the barrier
      this.setAllowance(this.allowance.length === 0 ? [] : [...this.allowance, ring]);
    }
    if (this.acknowledged !== fingerprint && [...this.participants].every((p) => p.drained())) {
      await this.renew(fingerprint);
      if (!this.running || this.desiredFingerprint !== fingerprint) return;
    }
    if (!this.settled && this.acknowledged === fingerprint) {
      const waiting = [...live].filter(([, m]) => m.ack !== fingerprint).map(([id]) => id);
      if (waiting.length === 0) {
        this.settled = true;
        this.logger.info('every member acknowledged the ring: reconciling the whole share', {
          ring: fingerprint,
        });
        this.setAllowance([ring]);
      }
    }
  }

  /** Live members (identity to acknowledged ring and incarnation) from a fresh list. */
  private liveMembers(leases: LeaseJson[]): Map<string, { ack?: string; incarnation?: string }> {
    const now = this.clock.now();
    const live = new Map<string, { ack?: string; incarnation?: string }>();
    const self = { ack: this.acknowledged, incarnation: this.incarnation };
    const seen = new Set<string>();
    for (const lease of leases) {
      const name = lease.metadata?.name;
      if (!name) continue;
      seen.add(name);
      const identity = lease.metadata?.annotations?.[SHARD_IDENTITY_ANNOTATION];
      const spec = lease.spec ?? {};
      const ack = lease.metadata?.annotations?.[SHARD_ACK_ANNOTATION];
      const incarnation = lease.metadata?.annotations?.[SHARD_INCARNATION_ANNOTATION];
      const key = JSON.stringify([
        spec.holderIdentity,
        String(spec.renewTime),
        spec.leaseDurationSeconds,
        ack,
        incarnation,
      ]);
      const before = this.observed.get(name);
      const at = before && before.key === key ? before.at : now;
      this.observed.set(name, { key, at, lease });
      if (!identity || spec.holderIdentity !== identity) continue;
      if (identity === this.configuration.identity) {
        live.set(identity, self);
        continue;
      }
      const duration = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds * 1000 : 0;
      if (now < at + duration) live.set(identity, { ack, incarnation });
    }
    for (const name of [...this.observed.keys()]) if (!seen.has(name)) this.observed.delete(name);
    live.set(this.configuration.identity, self);
    return live;
  }

  /** Creates or renews this replica's Lease (with `ack` as the acknowledged ring when given). */
  private async renew(ack?: string): Promise<void> {
    const c = this.configuration;
    const sent = this.clock.now();
    const annotations: Record<string, string> = {
      [SHARD_IDENTITY_ANNOTATION]: c.identity,
      [SHARD_INCARNATION_ANNOTATION]: this.incarnation,
      // '' until this incarnation acknowledged a ring
      [SHARD_ACK_ANNOTATION]: ack ?? this.acknowledged ?? '',
    };
    const spec = {
      holderIdentity: c.identity,
      leaseDurationSeconds: c.leaseDurationMs / 1000,
      renewTime: microTime(sent),
    };
    try {
      if (!this.lease) {
        const existing = await this.client.get(LeaseType, new ResourceID(c.leaseName, c.leaseNamespace));
        if (existing) this.lease = existing;
      }
      if (this.lease) {
        this.lease = await this.client.update(LeaseType, {
          ...this.lease,
          metadata: {
            ...this.lease.metadata,
            labels: { ...this.lease.metadata?.labels, [SHARD_GROUP_LABEL]: c.name },
            annotations: { ...this.lease.metadata?.annotations, ...annotations },
          },
          spec: { ...this.lease.spec, ...spec },
        });
      } else {
        this.lease = await this.client.create(LeaseType, {
          apiVersion: LeaseType.apiVersion,
          kind: LeaseType.kind,
          metadata: {
            name: c.leaseName,
            namespace: c.leaseNamespace,
            labels: { [SHARD_GROUP_LABEL]: c.name },
            annotations,
          },
          spec: { ...spec, acquireTime: microTime(sent) },
        });
      }
      this.renewedAt = sent;
      if (ack) {
        this.acknowledged = ack;
        this.logger.info('drained: ring acknowledged', { ring: ack });
      }
    } catch (error) {
      // re-read before the next write (a 409 means our copy is stale, a 404 that it was deleted)
      this.lease = undefined;
      if (!(error instanceof KubernetesApiError && (error.isConflict() || error.isNotFound()))) {
        this.logger.warn('could not renew the membership lease', { error: String(error) });
      }
    }
  }

  private setAllowance(rings: HashRing[]): void {
    // the intersection of older rings with the newest is all that matters once settled
    this.allowance = rings;
    const before = this.assignment;
    const after = allOf(rings, this.configuration.identity);
    this.assignment = after;
    for (const p of this.participants) {
      try {
        p.reassign(before, after);
      } catch (error) {
        this.logger.error('a shard participant failed to take a new assignment', { error: String(error) });
      }
    }
  }
}
