import { randomUUID } from 'node:crypto';
import { ResourceID } from '../api/resource-id.js';
import type { KubernetesResource, ResourceType } from '../api/resource-type.js';
import { KubernetesApiError } from '../client/errors.js';
import type { KubernetesClient } from '../client/kubernetes-client.js';
import type { KubeConfigSource } from '../config/kube-config.js';
import { LeaseType } from '../operator/leader-election/internal/lease-lock.js';
import type { LeaseJson } from '../operator/leader-election/internal/lease-lock.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { noopLogger } from '../util/logger.js';
import { HashRing, hash32 } from './hash-ring.js';
import { BoundedRequests } from './internal/bounded-requests.js';
import { GroupSettings } from './internal/group-settings.js';
import { MemberObservations } from './internal/member-observations.js';
import type { LiveMember } from './internal/member-observations.js';
import { MembershipView, olderThan } from './internal/membership-view.js';
import { RivalCheck, foreignChange, leaseBody, leaseSetupError } from './internal/own-lease.js';
import {
  SHARD_ACK_ANNOTATION,
  SHARD_GROUP_LABEL,
  SHARD_IDENTITY_ANNOTATION,
  SHARD_INCARNATION_ANNOTATION,
  SHARD_RELEASED_ANNOTATION,
  shardingConfiguration,
} from './sharding-configuration.js';
import type { ResolvedShardingConfiguration, ShardingOptions } from './sharding-configuration.js';

/**
 * The client methods membership uses; a `KubernetesClient` has them all. Without `watch`, the group
 * is read by a list every period instead of a watch.
 */
export type ShardClient = Pick<KubernetesClient, 'get' | 'create' | 'update' | 'list' | 'delete'> &
  Partial<Pick<KubernetesClient, 'watch'>>;

/** A controller of a replica as its shard group sees it ({@link ShardMembership.setControllers}). */
export interface ShardedController {
  /** The controller's name. */
  readonly name: string;
  /** Its primary resource type (versions of one kind count as one kind). */
  readonly resourceType: Pick<ResourceType, 'group' | 'plural'>;
}

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
  /**
   * Whether no reconciliation of a lost key is queued or running anymore; with `keep`, keys it owns
   * do not count (the ring about to be acknowledged gives them back to this replica).
   */
  drained(keep?: ShardAssignment): boolean;
  /**
   * This replica lost its membership (no renewal within `renewDeadlineMs`): refuse the writes of the
   * reconciliations running now, since the others may take their resources over soon.
   */
  fence?(): void;
  /**
   * What this replica caches changed ({@link ShardMembership.caches}): make the caches reflect it
   * (e.g. re-list secondaries). When a new ring widens it, this replica acknowledges that ring only
   * once the promise resolved, so no gained key is reconciled before its caches are filled; a
   * rejection is retried at the next period. When a settled ring narrows it, nothing waits.
   */
  rescope?(): Promise<void>;
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

const newIncarnation = (): string => randomUUID().slice(0, 8);

/**
 * A fresh list of the group every this many lease durations even while the watch is healthy (a
 * resync against missed events; a member is never counted dead without a fresh list anyway).
 */
const RESYNC_LEASE_DURATIONS = 4;

const NONE: ShardAssignment = Object.freeze({ owns: () => false });

/** An assignment allowing keys any of `rings` gives to `identity`. */
function anyOf(rings: readonly HashRing[], identity: string): ShardAssignment {
  if (rings.length === 0) return NONE;
  return Object.freeze({ owns: (key: string) => rings.some((r) => r.ownerOf(key) === identity) });
}

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
  private lease: LeaseJson | undefined;
  private renewedAt = Number.NEGATIVE_INFINITY;
  private desired: HashRing | undefined;
  /** Fingerprint of the desired ring and of its members' incarnations: what acknowledgements name. */
  private desiredFingerprint: string | undefined;
  /** Changes whenever this replica (re)joins, so acknowledgements older than the join never count. */
  private incarnation = newIncarnation();
  /** Every incarnation this object used: its own Lease carrying one of them is its own write. */
  private readonly ownIncarnations = new Set<string>([this.incarnation]);
  /**
   * Whether this incarnation wrote its Lease: from then on the Lease missing, or naming another
   * holder, group or incarnation, is someone else's change (see {@link ShardMembership.rejoin}).
   */
  private held = false;
  /** Whether a renewal ever succeeded since start(): until then a missing namespace or permission fails start(). */
  private joined = false;
  /** What this replica publishes about itself and checks of the others. */
  private readonly settings: GroupSettings;
  /** The other members' Leases as seen over time. */
  private readonly observations: MemberObservations;
  /** Another live process holding this replica's Lease under its identity. */
  private readonly rivals: RivalCheck;
  /** Whether a read of the group ever succeeded since start(): until then a forbidden list fails start(). */
  private groupRead = false;
  /** Why the first renewal or group read cannot succeed (thrown by start()). */
  private startError: Error | undefined;
  /** The rings whose intersection is what this replica may reconcile now. */
  private allowance: HashRing[] = [];
  private assignment: ShardAssignment = NONE;
  private acknowledged: string | undefined;
  private settled = false;
  /** The rings whose union is what this replica's caches hold (see {@link ShardMembership.caches}). */
  private cacheRings: HashRing[] = [];
  private cacheScope: ShardAssignment = NONE;
  /** The ring fingerprint whose rescope every participant finished, and the one in progress. */
  private rescoped: string | undefined;
  private rescoping: string | undefined;
  /** The ring of the latest widening of the caches (refilled once `rescoped` names it). */
  private lastWidening: string | undefined;
  private view: MembershipView | undefined;
  private lastFreshList = Number.NEGATIVE_INFINITY;
  private timer: TimerHandle | undefined;
  /** Fires at the renew deadline (last renewal sent + `renewDeadlineMs`): reconcile nothing from then. */
  private deadlineTimer: TimerHandle | undefined;
  /** Every Lease request, bounded by `renewDeadlineMs` and abandoned by `stop()`. */
  private readonly requests: BoundedRequests;
  private running = false;
  private ticking: Promise<void> | undefined;
  /** Steps and watch-driven evaluations run one at a time, in order. */
  private chain: Promise<void> = Promise.resolve();
  private wakeQueued = false;
  /** Names of expired members' Leases being deleted ({@link ShardMembership.collect}). */
  private readonly collecting = new Set<string>();

  /** @throws InvalidShardingConfigurationError for a bad configuration. */
  constructor(
    options: ShardingOptions,
    private readonly client: ShardClient,
    membershipOptions: ShardMembershipOptions = {},
  ) {
    this.configuration = shardingConfiguration(options, { kubeConfig: membershipOptions.kubeConfig });
    this.clock = membershipOptions.clock ?? systemClock;
    this.requests = new BoundedRequests(this.clock, this.configuration.renewDeadlineMs);
    this.logger = (membershipOptions.logger ?? noopLogger).child({
      shardGroup: this.configuration.name,
      identity: this.configuration.identity,
    });
    this.settings = new GroupSettings(this.configuration, this.logger);
    this.observations = new MemberObservations(this.configuration.identity, this.settings);
    this.rivals = new RivalCheck(this.configuration, this.clock, this.logger);
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

  /**
   * The keys whose secondary resources this replica caches: its current allowance, the keys it is
   * still draining, and those of the ring it is moving to (filled before it acknowledges that ring).
   * Once a ring settles, exactly that ring's share.
   */
  caches(): ShardAssignment {
    return this.cacheScope;
  }

  /**
   * Tells the group which controllers this replica runs (published in its Lease, before it joins):
   * members whose controllers reconcile none of these kinds are left out of this replica's ring, and
   * a member running other controllers on shared kinds is reported. The Operator calls it at start.
   */
  setControllers(controllers: readonly ShardedController[]): void {
    this.settings.setControllers(controllers);
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

  /**
   * Joins: opens the watch on the group's Leases, writes this replica's Lease and reads the group
   * once; then renews every period and re-evaluates the group on every watch event.
   * @throws ShardingLeaseNamespaceNotFoundError when the lease namespace does not exist.
   * @throws ShardingLeasePermissionError when the API server denies a request on the Lease.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.logger.info('joining the shard group');
    // a start after a stop joins as a new member, knowing nothing of the group or its rings
    this.newIncarnation();
    this.desired = undefined;
    this.desiredFingerprint = undefined;
    this.settled = false;
    this.held = false;
    this.lease = undefined;
    this.observations.clear();
    this.rivals.reset();
    this.lastFreshList = Number.NEGATIVE_INFINITY;
    this.rescoped = this.rescoping = this.lastWidening = undefined;
    this.setCacheRings([]);
    const c = this.configuration;
    this.view = new MembershipView({
      client: this.client,
      namespace: c.leaseNamespace,
      labelSelector: `${SHARD_GROUP_LABEL}=${c.name}`,
      ownLease: c.leaseName,
      clock: this.clock,
      logger: this.logger,
      onChange: () => this.wake(),
      onOwnChange: (lease, deleted) => this.ownLeaseChanged(lease, deleted),
      deadStreamTimeoutMs: Math.max(c.leaseDurationMs, 3 * c.retryPeriodMs),
      requestTimeoutMs: c.renewDeadlineMs,
    });
    await this.view.start();
    if (!this.running) return;
    this.joined = false;
    this.groupRead = false;
    this.startError = undefined;
    await this.tick();
    const failed = this.takeStartError();
    if (failed !== undefined) {
      // a Lease written before the group read failed is not left behind
      await this.stop({ release: true });
      throw failed;
    }
  }

  /**
   * Leaves: stops renewing. With `release` (only when nothing of this replica is still running),
   * deletes the Lease so the others take its share over at once; otherwise they wait until it expires.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.deadlineTimer !== undefined) this.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    // a renewal or read hanging now must not hold stop() up
    this.requests.abandonAll('shard membership stopped');
    this.view?.abort();
    await this.ticking;
    await this.chain;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const view = this.view;
    this.view = undefined;
    await view?.stop();
    this.setAllowance([]);
    const lease = this.lease;
    if (options.release && lease) {
      try {
        // marked first: the others drop a member at once only when it released its Lease itself
        await this.requests.run('releasing the membership lease', (signal) =>
          this.client.update(
            LeaseType,
            {
              ...lease,
              metadata: {
                ...lease.metadata,
                annotations: {
                  ...lease.metadata?.annotations,
                  [SHARD_RELEASED_ANNOTATION]: this.incarnation,
                },
              },
              spec: { ...lease.spec, holderIdentity: '' },
            },
            { signal },
          ),
        );
        await this.requests.run('deleting the membership lease', (signal) =>
          this.client.delete(
            LeaseType,
            new ResourceID(this.configuration.leaseName, this.configuration.leaseNamespace),
            { signal },
          ),
        );
        this.logger.info('left the shard group; lease released and deleted');
      } catch (error) {
        this.logger.warn('could not release the membership lease; the others wait until it expires', {
          error: String(error),
        });
      }
    }
    this.lease = undefined;
    this.held = false;
  }

  /** No renewal within `renewDeadlineMs`: reconcile nothing and refuse the running writes. */
  private deadlinePassed(): void {
    const had = this.allowance.length > 0;
    this.setAllowance([]);
    if (had) {
      this.logger.warn('membership lease not renewed in time: reconciling nothing, running writes refused');
      for (const p of this.participants) p.fence?.();
    }
  }

  /** Arms the renew deadline of the renewal just made (a hung next renewal cannot delay the fence). */
  private armDeadline(): void {
    if (this.deadlineTimer !== undefined) this.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = this.clock.setTimeout(
      () => {
        this.deadlineTimer = undefined;
        if (this.running && !this.isMember()) this.deadlinePassed();
      },
      Math.max(0, this.renewedAt + this.configuration.renewDeadlineMs - this.elapsed()),
    );
  }

  /** The error the first renewal since start() recorded (cleared). */
  private takeStartError(): Error | undefined {
    const error = this.startError;
    this.startError = undefined;
    return error;
  }

  /**
   * The time every deadline and expiry is judged by: the clock's monotonic time when it has one, so
   * a step of the wall clock (NTP, a resumed VM) neither makes this replica count the others dead
   * and take their share, nor keeps it reconciling past its renew deadline (client-go judges a
   * leader lease on Go's monotonic clock readings). Wall time only goes into the Lease's MicroTimes.
   */
  private elapsed(): number {
    return this.clock.monotonic ? this.clock.monotonic() : this.clock.now();
  }

  private isMember(): boolean {
    return this.elapsed() < this.renewedAt + this.configuration.renewDeadlineMs;
  }

  private tick(): Promise<void> {
    this.ticking = this.serial(() => this.step()).finally(() => {
      this.ticking = undefined;
      if (this.running)
        this.timer = this.clock.setTimeout(() => void this.tick(), this.configuration.retryPeriodMs);
    });
    return this.ticking;
  }

  /** Runs `work` after every step or evaluation queued before it (never two at once). */
  private serial(work: () => Promise<void>): Promise<void> {
    const run = this.chain.then(() => (this.running ? work() : undefined));
    this.chain = run.catch((error: unknown) => {
      this.logger.error('shard membership step failed', { error: String(error) });
    });
    return this.chain;
  }

  /** Another member's Lease changed (watch event), or a rescope finished: evaluate the group soon. */
  private wake(): void {
    if (!this.running || this.wakeQueued) return;
    this.wakeQueued = true;
    void this.serial(async () => {
      this.wakeQueued = false;
      await this.evaluate(true);
    });
  }

  private async step(): Promise<void> {
    await this.renew();
    if (!this.running) return;
    if (!this.isMember()) {
      this.deadlinePassed();
      if (this.desired) {
        // the others may count this replica dead and take its share: rejoin as a new member
        this.newIncarnation();
      }
      this.desired = undefined;
      this.desiredFingerprint = undefined;
      this.settled = false;
    }
    // the watch cache, and a fresh list every RESYNC_LEASE_DURATIONS lease durations (resync)
    await this.evaluate(
      this.elapsed() < this.lastFreshList + RESYNC_LEASE_DURATIONS * this.configuration.leaseDurationMs,
    );
  }

  /**
   * Reads the group (from the watch cache when `cached` and the watch is synced, else by a fresh
   * list), moves to the ring of its live members, acknowledges it once drained and rescoped, and
   * passes the barrier once every live member acknowledged it.
   */
  private async evaluate(cached: boolean): Promise<void> {
    const view = this.view;
    if (!this.running || !this.isMember() || !view) return;
    let listedAt = this.elapsed();
    let read = await view.leases(cached);
    if (read === undefined) this.listFailed(view.failure);
    if (read === undefined || !this.running || !this.isMember()) return;
    this.groupRead = true;
    if (read.fresh) this.lastFreshList = listedAt;
    const first = this.liveMembers(read.items, read.fresh);
    this.collect(first.expired);
    let live = first.live;
    if (first.unconfirmed) {
      // a watch cannot tell a dead member from a stalled stream: count nobody dead on its word
      listedAt = this.elapsed();
      read = await view.leases(false);
      if (read === undefined) this.listFailed(view.failure);
      if (read === undefined || !this.running || !this.isMember()) return;
      this.lastFreshList = listedAt;
      const confirmed = this.liveMembers(read.items, true);
      this.collect(confirmed.expired);
      live = confirmed.live;
    }
    const fingerprint = `${HashRing.fingerprintOf(live.keys(), this.configuration.virtualNodes)}-${hash32(
      [...live]
        .map(([id, m]) => `${id}=${m.incarnation}`)
        .sort()
        .join('\n'),
    ).toString(16)}`;
    let ring = this.desired;
    if (fingerprint !== this.desiredFingerprint || ring === undefined) {
      ring = new HashRing(live.keys(), this.configuration.virtualNodes);
      this.logger.info('shard ring changed', { members: ring.members, ring: fingerprint });
      this.desired = ring;
      this.desiredFingerprint = fingerprint;
      this.settled = false;
      // lost keys stop at once; gained ones wait for the barrier
      this.setAllowance(this.allowance.length === 0 ? [] : [...this.allowance, ring]);
      // caches widen at once (the union of what may still run and what the ring gives); a refill is
      // needed unless the caches, filled for every earlier ring, already hold this ring's share
      const widened = ring;
      const filled =
        this.rescoping === undefined &&
        this.rescoped === this.lastWidening &&
        widened.shareWithin(this.configuration.identity, this.cacheRings);
      this.setCacheRings([...this.cacheRings.filter((r) => r.fingerprint !== widened.fingerprint), widened]);
      if (filled) {
        this.lastWidening = fingerprint;
        this.rescoped = fingerprint;
      } else this.rescope(fingerprint);
    } else if (this.rescoped !== fingerprint && this.rescoping === undefined) {
      this.rescope(fingerprint);
    }
    if (
      this.acknowledged !== fingerprint &&
      this.rescoped === fingerprint &&
      [...this.participants].every((p) => p.drained(anyOf([ring], this.configuration.identity)))
    ) {
      await this.renew(fingerprint);
      if (!this.running || this.desiredFingerprint !== fingerprint) return;
    }
    if (!this.settled && this.acknowledged === fingerprint) {
      // this replica's own acknowledgement is the one just checked
      const waiting = [...live]
        .filter(([id, m]) => id !== this.configuration.identity && m.ack !== fingerprint)
        .map(([id]) => id);
      if (waiting.length === 0) {
        this.settled = true;
        this.logger.info('every member acknowledged the ring: reconciling the whole share', {
          ring: fingerprint,
        });
        this.setAllowance([ring]);
        if (this.cacheRings.length !== 1 || this.cacheRings[0] !== ring) {
          // drained keys' caches go (nothing waits for it); no re-list when no key leaves them
          const identity = this.configuration.identity;
          const shrinks = this.cacheRings.some((r) => !r.shareWithin(identity, [ring]));
          this.setCacheRings([ring]);
          if (shrinks) this.rescope(undefined);
        }
      }
    }
  }

  /**
   * A list of the group failed. Forbidden (no `list` on leases, e.g. a Role made for leader
   * election): before the group was ever read, start() rejects with a ShardingLeasePermissionError;
   * later it is logged as an error each period. Other failures were logged as warnings by the view.
   */
  private listFailed(failure: unknown): void {
    const c = this.configuration;
    const setup = leaseSetupError(failure, 'list', c);
    if (!setup || !this.running) return;
    if (!this.groupRead) this.startError ??= setup;
    else this.logger.error(setup.message, { code: setup.code });
  }

  private setCacheRings(rings: HashRing[]): void {
    this.cacheRings = rings;
    this.cacheScope = anyOf(rings, this.configuration.identity);
  }

  /**
   * Tells every participant that {@link caches} changed. With a `fingerprint` (a widening for a new
   * ring) the ring may be acknowledged once all finished; a failure is retried at the next period.
   */
  private rescope(fingerprint: string | undefined): void {
    const work = [...this.participants].filter((p) => p.rescope !== undefined);
    if (fingerprint !== undefined) {
      this.rescoping = fingerprint;
      this.lastWidening = fingerprint;
      if (work.length === 0) {
        this.rescoping = undefined;
        this.rescoped = fingerprint;
        return;
      }
    }
    void Promise.allSettled(work.map((p) => p.rescope!())).then((results) => {
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      for (const f of failed) {
        this.logger.warn('could not refill the caches for a new ring; retrying next period', {
          error: String(f.reason),
        });
      }
      if (fingerprint === undefined || this.rescoping !== fingerprint) return;
      this.rescoping = undefined;
      if (failed.length > 0) return;
      this.rescoped = fingerprint;
      this.wake();
    });
  }

  /** Live members from a read of the group, this replica included (see {@link MemberObservations}). */
  private liveMembers(
    leases: LeaseJson[],
    fresh: boolean,
  ): { live: Map<string, LiveMember>; unconfirmed: boolean; expired: LeaseJson[] } {
    const { live, unconfirmed, expired } = this.observations.read(leases, fresh, this.elapsed());
    live.set(this.configuration.identity, { ack: this.acknowledged, incarnation: this.incarnation });
    return { live, unconfirmed, expired };
  }

  /**
   * Deletes the Leases of members a fresh list showed dead (as kube-apiserver's lease garbage
   * collector deletes the identity Leases of apiservers that are gone): a Deployment's pod that died
   * without releasing its Lease never comes back under its name, so its Lease would stay forever.
   * Each delete is conditional on the uid and resourceVersion listed, so a Lease renewed since (its
   * holder was only cut off) is kept; a holder that comes back to a deleted Lease rejoins as a new
   * member, as after any change of its Lease by someone else.
   */
  private collect(expired: readonly LeaseJson[]): void {
    const c = this.configuration;
    for (const lease of expired) {
      const name = lease.metadata?.name;
      if (!name || this.collecting.has(name)) continue;
      this.collecting.add(name);
      const preconditions = { uid: lease.metadata?.uid, resourceVersion: lease.metadata?.resourceVersion };
      void this.requests
        .run('deleting an expired membership lease', (signal) =>
          this.client.delete(LeaseType, new ResourceID(name, c.leaseNamespace), { preconditions, signal }),
        )
        .then(
          () => this.logger.info('deleted the membership lease of a member that expired', { lease: name }),
          (error: unknown) => {
            // gone already (another member collected it) or renewed since: nothing to do
            if (error instanceof KubernetesApiError && (error.isNotFound() || error.isConflict())) return;
            if (this.running) {
              this.logger.warn('could not delete the membership lease of a member that expired', {
                lease: name,
                error: String(error),
              });
            }
          },
        )
        .finally(() => this.collecting.delete(name));
    }
  }

  /**
   * Updates `lease` (or creates the Lease when undefined) with this incarnation's renewal, sent at
   * wall time `sent` (its `renewTime`).
   */
  private async writeLease(
    lease: LeaseJson | undefined,
    ack: string | undefined,
    sent: number,
  ): Promise<LeaseJson> {
    const c = this.configuration;
    const body = leaseBody(
      lease,
      c,
      {
        [SHARD_IDENTITY_ANNOTATION]: c.identity,
        [SHARD_INCARNATION_ANNOTATION]: this.incarnation,
        ...this.settings.annotations(),
        // '' until this incarnation acknowledged a ring
        [SHARD_ACK_ANNOTATION]: ack ?? this.acknowledged ?? '',
      },
      sent,
    );
    return lease
      ? await this.requests.run('renewing the membership lease', (signal) =>
          this.client.update(LeaseType, body, { signal }),
        )
      : await this.requests.run('creating the membership lease', (signal) =>
          this.client.create(LeaseType, body, { signal }),
        );
  }

  /** Takes a new incarnation: acknowledgements given before never count for this replica again. */
  private newIncarnation(): void {
    this.incarnation = newIncarnation();
    this.ownIncarnations.add(this.incarnation);
    this.acknowledged = undefined;
  }

  /**
   * This replica's Lease was changed by someone else (deleted, relabelled, another holder): the
   * others may stop counting this replica once its last renewal they saw expires, so it stops
   * reconciling now (running writes refused, as at a missed renew deadline) and rejoins as a new
   * member, whose ring passes the barrier only after every member acknowledged it.
   */
  private rejoin(why: string): void {
    this.logger.warn(`${why}: reconciling nothing, running writes refused; rejoining as a new member`);
    this.held = false;
    this.setAllowance([]);
    for (const p of this.participants) p.fence?.();
    this.newIncarnation();
    this.desired = undefined;
    this.desiredFingerprint = undefined;
    this.settled = false;
  }

  /** A watch event of this replica's own Lease: rejoin when someone else changed it. */
  private ownLeaseChanged(lease: LeaseJson, deleted: boolean): void {
    if (!this.running || !this.held) return;
    const current = this.lease;
    if (current) {
      // an event older than the copy this replica wrote last is history (e.g. a delete before its re-creation)
      const sameObject = current.metadata?.uid === lease.metadata?.uid;
      if (!sameObject && deleted) return;
      const version = lease.metadata?.resourceVersion;
      if (sameObject && version && olderThan(version, current.metadata?.resourceVersion)) return;
    }
    const why = foreignChange(deleted ? undefined : lease, this.configuration, this.ownIncarnations);
    if (why === undefined) return;
    this.rejoin(why);
    void this.serial(() => this.step());
  }

  /** Creates or renews this replica's Lease (with `ack` as the acknowledged ring when given). */
  private async renew(ack?: string): Promise<void> {
    const c = this.configuration;
    // the deadline is judged on elapsed time; the Lease's MicroTimes carry wall time
    const sent = this.elapsed();
    const sentWall = this.clock.now();
    const id = new ResourceID(c.leaseName, c.leaseNamespace);
    let verb: string | undefined;
    try {
      // a 409 (stale copy) or 404 (gone) is re-read and retried once at once
      for (let attempt = 0; ; attempt++) {
        verb = 'get';
        if (!this.lease) {
          const existing = await this.requests.run('reading the membership lease', (signal) =>
            this.client.get(LeaseType, id, { signal }),
          );
          const why = this.held ? foreignChange(existing, c, this.ownIncarnations) : undefined;
          if (why !== undefined) {
            this.rejoin(why);
            ack = undefined; // acknowledged by the incarnation that just ended
          }
          if (this.rivals.holds(existing, this.ownIncarnations)) return;
          this.lease = existing;
        }
        try {
          verb = this.lease ? 'update' : 'create';
          this.lease = await this.writeLease(this.lease, ack, sentWall);
          break;
        } catch (error) {
          this.lease = undefined;
          const retry =
            attempt === 0 &&
            error instanceof KubernetesApiError &&
            (error.isConflict() || error.isNotFound());
          if (!retry) throw error;
        }
      }
      this.held = true;
      this.joined = true;
      this.renewedAt = sent;
      if (this.running) this.armDeadline();
      if (ack) {
        this.acknowledged = ack;
        this.logger.info('drained: ring acknowledged', { ring: ack });
      }
    } catch (error) {
      // re-read before the next write
      this.lease = undefined;
      const setup = leaseSetupError(error, verb ?? 'get', c);
      if (setup && this.running) {
        if (!this.joined) this.startError ??= setup;
        else this.logger.error(setup.message, { code: setup.code });
        return;
      }
      const quiet =
        !this.running || (error instanceof KubernetesApiError && (error.isConflict() || error.isNotFound()));
      if (!quiet) {
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
