import { randomUUID } from 'node:crypto';
import { KubernetesApiError } from '../../client/errors.js';
import type { KubeConfigSource } from '../../config/kube-config.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { systemClock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { noopLogger } from '../../util/logger.js';
import { LeaderElectionStateError } from './leader-election-errors.js';
import {
  LEADER_ELECTION_JITTER_FACTOR,
  leaderElectionConfiguration,
} from './leader-election-configuration.js';
import type {
  LeaderElectionConfiguration,
  ResolvedLeaderElectionConfiguration,
} from './leader-election-configuration.js';
import { LeaseLock, microTime, recordKey } from './internal/lease-lock.js';
import type { LeaderElectionRecord, LeaseClient } from './internal/lease-lock.js';
import { checkLeasePermissions } from './internal/lease-permissions.js';
import type { AccessReviewClient } from './internal/lease-permissions.js';

/** What the elector tells its owner (the operator) about leadership. */
export interface LeaderCallbacks {
  /** This instance became the leader: start processing events. */
  onStartLeading(): void;
  /** This instance is no longer the leader: stop processing events at once. */
  onStopLeading(): void;
  /** The lease holder changed (including to this instance). */
  onNewLeader?(identity: string): void;
}

/** Options of {@link LeaderElector}. */
export interface LeaderElectorOptions {
  /** The clock of every wait and every expiry decision. Defaults to {@link systemClock}. */
  clock?: Clock;
  /** Where transitions and failures are logged. Defaults to no logging. */
  logger?: Logger;
  /** Ends the process when leadership is lost and `exitOnStopLeading` is on. Defaults to `process.exit`. */
  exit?: (code: number) => void;
  /** Source of the acquire jitter, in [0, 1). Defaults to `Math.random`. */
  random?: () => number;
  /** Whose current context namespace is the default lease namespace. Defaults to none. */
  kubeConfig?: KubeConfigSource;
}

/** The client methods the elector uses; a `KubernetesClient` has them all. */
export type LeaderElectorClient = LeaseClient & AccessReviewClient;

/** The phases of a {@link LeaderElector}. */
export type LeaderElectorPhase = 'Idle' | 'Candidate' | 'Leading' | 'Stopped';

type AttemptOutcome = 'acquired' | 'held' | 'failed';

/** Reads and writes a release makes at most when the lease keeps changing under it (409). */
const RELEASE_ATTEMPTS = 3;

/**
 * Leader election on a `coordination.k8s.io/v1` Lease with client-go's `leaderelection` semantics.
 *
 * State machine (all transitions happen in {@link LeaderElector.step}, or in `stop()`):
 *
 * ```
 * Idle ──run()──► Candidate ──lease absent, expired or released: create/update wins──► Leading
 *   Candidate ──lease held by another (also: deleted while the holder last seen may still lead), or
 *               the write lost a race (409)──► Candidate (retry after retryPeriod x (1 + random x 1.2))
 *   Leading ──renewed──► Leading (renew again after retryPeriod; deadline = renewal sent + renewDeadline)
 *   Leading ──renewal failed, deadline ahead──► Leading (retry after retryPeriod)
 *   Leading ──deadline passed, or the lease names another holder──► onStopLeading, then exit(1) when
 *               exitOnStopLeading, else Candidate; after prepareStop(): Stopped, never exit
 *   any ──stop()──► Stopped (onStopLeading if leading; then the lease is released)
 * ```
 *
 * Expiry is judged as client-go does, by the local time at which this instance last saw the record
 * change, plus the record's `leaseDurationSeconds`; the server's timestamps are never compared with
 * the local clock, so clock skew between machines does not matter, and local time is the clock's
 * monotonic time (`Clock.monotonic`), so a step of this machine's wall clock does not either. Every write is conditional on the
 * resourceVersion last seen, so of two candidates only one can win. The leader stops leading
 * `renewDeadlineMs` after it *sent* its last successful renewal, which is before any standby (which
 * counts `leaseDurationMs` from when it saw that renewal) may take over: never two leaders at once.
 */
export class LeaderElector {
  /** The resolved configuration. */
  readonly configuration: ResolvedLeaderElectionConfiguration;
  private readonly lock: LeaseLock;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly exit: (code: number) => void;
  private readonly random: () => number;
  private phase: LeaderElectorPhase = 'Idle';
  /** Bumped on every change of phase; the result of an attempt begun in an older epoch is ignored. */
  private epoch = 0;
  private callbacks: LeaderCallbacks | undefined;
  private observed: LeaderElectionRecord | undefined;
  private observedKey = '';
  private observedAt = 0;
  private leadingUntil = 0;
  private reportedLeader: string | undefined;
  private attemptTimer: TimerHandle | undefined;
  private deadlineTimer: TimerHandle | undefined;
  private inFlight: Promise<void> | undefined;
  /** Aborts the attempt in flight (its requests), if any. */
  private attempt: AbortController | undefined;
  private stopping: Promise<void> | undefined;
  /** A graceful stop has begun ({@link LeaderElector.prepareStop}): a loss no longer exits. */
  private stopRequested = false;
  /** This elector's token in the Lease it holds: tells it from another process of its identity. */
  private readonly incarnation = randomUUID().slice(0, 8);
  /** The incarnation of the other process of this identity last reported (logged once each). */
  private reportedRival: string | undefined;

  /**
   * @throws InvalidLeaderElectionConfigurationError when the configuration is not valid.
   */
  constructor(
    configuration: LeaderElectionConfiguration,
    private readonly client: LeaderElectorClient,
    options: LeaderElectorOptions = {},
  ) {
    this.configuration = leaderElectionConfiguration(configuration, { kubeConfig: options.kubeConfig });
    this.lock = new LeaseLock(client, this.configuration.leaseNamespace, this.configuration.leaseName);
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? noopLogger).child({
      lease: this.lock.describe(),
      identity: this.configuration.identity,
    });
    this.exit = options.exit ?? ((code) => process.exit(code));
    this.random = options.random ?? Math.random;
  }

  /**
   * Checks that this identity may get, create and update leases in the lease namespace
   * (SelfSubjectAccessReviews), so a missing RBAC rule fails the operator's start with a clear message.
   *
   * @throws LeaderElectionPermissionError naming the missing verbs, the resource, the namespace and the rule to add.
   * @throws LeaderElectionPermissionCheckError when the server could not answer the review.
   */
  async checkPermissions(): Promise<void> {
    await checkLeasePermissions(this.client, this.configuration.leaseNamespace, this.configuration.leaseName);
  }

  /**
   * Starts taking part in the election: the first attempt to acquire is made at once.
   * @throws LeaderElectionStateError when called twice or after `stop()`.
   */
  run(callbacks: LeaderCallbacks): void {
    if (this.phase !== 'Idle') {
      throw new LeaderElectionStateError(`run() was called on a leader elector that is ${this.phase}`);
    }
    this.callbacks = callbacks;
    this.enter('Candidate');
    this.logger.info('leader election started, trying to acquire the lease');
    this.scheduleStep(0);
  }

  /**
   * Leaves the election. When leading, calls `onStopLeading` (never exits), then releases the lease
   * (empty holder, `leaseDurationSeconds: 1`, like client-go's `ReleaseOnCancel`) so a standby takes
   * over within about a second. A lease request in flight is abandoned at once (its connection
   * closed), so a hung API server delays stop() only by the release, bounded by the renew deadline.
   * Idempotent.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopNow();
    return this.stopping;
  }

  /**
   * A graceful stop has begun (the owner still waits for running work before {@link LeaderElector.stop}):
   * losing the lease from now on stops leading without calling `exit` and without standing by again,
   * as JOSDK's `LeaderElectionManager` does once `stop()` was called. Idempotent.
   */
  prepareStop(): void {
    this.stopRequested = true;
  }

  /** Whether this instance leads now: it holds the lease and its renew deadline has not passed. */
  isLeader(): boolean {
    return this.phase === 'Leading' && this.elapsed() < this.leadingUntil;
  }

  /**
   * The time every expiry and deadline is judged by: the clock's monotonic time when it has one, so
   * a jump of the wall clock (an NTP step, a resumed VM) neither expires a lease that is being
   * renewed nor ends leadership early (client-go compares Go's monotonic clock readings). Wall time
   * (`now()`) only goes into the Lease's MicroTimes.
   */
  private elapsed(): number {
    return this.clock.monotonic ? this.clock.monotonic() : this.clock.now();
  }

  /** The holder of the lease as last seen; undefined when nobody holds it or it was not read yet. */
  currentLeader(): string | undefined {
    return this.observed?.holderIdentity || undefined;
  }

  /** The current phase of the state machine. */
  get state(): LeaderElectorPhase {
    return this.phase;
  }

  /** One attempt to acquire or renew, then the transition its outcome calls for. */
  private async step(): Promise<void> {
    this.attemptTimer = undefined;
    const epoch = this.epoch;
    const sentAt = this.elapsed();
    let outcome: AttemptOutcome;
    const controller = new AbortController();
    this.attempt = controller;
    const attempt = this.withTimeout((signal) => this.tryAcquireOrRenew(sentAt, signal), controller);
    this.inFlight = attempt.then(
      () => undefined,
      () => undefined,
    );
    void this.inFlight.then(() => {
      if (this.attempt === controller) this.attempt = undefined;
    });
    try {
      outcome = await attempt;
    } catch (error) {
      outcome = 'failed';
      if (epoch !== this.epoch) return; // stopped meanwhile (the attempt was abandoned)
      this.logger.warn(
        this.phase === 'Leading' ? 'failed to renew the lease' : 'failed to acquire the lease',
        { error: (error as Error)?.message ?? String(error) },
      );
    }
    if (epoch !== this.epoch) return; // stopped or lost meanwhile: the outcome is stale
    this.reportLeader();
    const { retryPeriodMs, renewDeadlineMs } = this.configuration;
    // an answer that came after the deadline of its own request cannot vouch for leadership any more
    if (outcome === 'acquired' && this.elapsed() >= sentAt + renewDeadlineMs) outcome = 'failed';
    if (outcome === 'acquired') {
      const started = this.phase === 'Candidate';
      if (started) this.enter('Leading');
      this.leadingUntil = sentAt + renewDeadlineMs;
      this.armDeadline();
      this.scheduleStep(retryPeriodMs);
      if (started) {
        this.logger.info('acquired the lease, now leading');
        this.notify('onStartLeading');
      }
    } else if (this.phase === 'Leading') {
      if (outcome === 'held' || this.elapsed() >= this.leadingUntil) {
        this.loseLeadership(outcome === 'held' ? 'the lease names another holder' : 'renew deadline passed');
      } else {
        this.scheduleStep(retryPeriodMs);
      }
    } else {
      this.scheduleStep(retryPeriodMs * (1 + this.random() * LEADER_ELECTION_JITTER_FACTOR));
    }
  }

  /** client-go's `tryAcquireOrRenew`: whether this instance holds the lease after the attempt. */
  private async tryAcquireOrRenew(now: number, signal: AbortSignal): Promise<AttemptOutcome> {
    const { identity, leaseDurationMs } = this.configuration;
    const wall = this.clock.now();
    const desired: LeaderElectionRecord = {
      holderIdentity: identity,
      leaseDurationSeconds: leaseDurationMs / 1000,
      acquireTime: microTime(wall),
      renewTime: microTime(wall),
      leaseTransitions: 0,
      holderIncarnation: this.incarnation,
    };
    const observed = this.observed;
    // Fast path: the holder renews the record it wrote last, without reading it first.
    if (
      observed?.holderIdentity === identity &&
      observed.holderIncarnation === this.incarnation &&
      this.observedValid(now)
    ) {
      const renewed = {
        ...desired,
        acquireTime: observed.acquireTime,
        leaseTransitions: observed.leaseTransitions,
      };
      try {
        await this.lock.update(renewed, signal);
        this.observe(renewed);
        return 'acquired';
      } catch (error) {
        if (signal.aborted) throw error;
        this.logger.debug('optimistic renewal failed, reading the lease', {
          error: (error as Error)?.message,
        });
      }
    }
    const current = await this.lock.get(signal);
    if (!current) {
      // Deleted by someone else: a create is not conditional on what we saw, so the holder we last
      // saw may still be leading (it creates the lease again at its next renewal). Wait until its
      // lease would have expired, as if the Lease were still there (client-go creates at once).
      if (this.observed && this.heldByAnother(this.observed) && this.observedValid(now)) return 'held';
      await this.lock.create(desired, signal);
      this.observe(desired);
      return 'acquired';
    }
    if (recordKey(current) !== this.observedKey) this.observe(current);
    if (this.heldByAnother(current) && this.observedValid(now)) {
      if (current.holderIdentity === identity) this.reportRival(current);
      return 'held';
    }
    // an expired lease of another process of this identity is taken over like another holder's
    const next =
      current.holderIdentity === identity && !this.heldByAnother(current)
        ? { ...desired, acquireTime: current.acquireTime, leaseTransitions: current.leaseTransitions }
        : { ...desired, leaseTransitions: current.leaseTransitions + 1 };
    await this.lock.update(next, signal);
    this.observe(next);
    return 'acquired';
  }

  /**
   * Whether `record` names a holder other than this elector: another identity, or this identity
   * written by another process (another incarnation). A record of this identity without an
   * incarnation (written by an older tosdk) counts as this elector's own, as before.
   */
  private heldByAnother(record: LeaderElectionRecord): boolean {
    if (!record.holderIdentity) return false;
    if (record.holderIdentity !== this.configuration.identity) return true;
    return Boolean(record.holderIncarnation) && record.holderIncarnation !== this.incarnation;
  }

  /** Logs (once per process) that another process holds the lease under this identity. */
  private reportRival(record: LeaderElectionRecord): void {
    if (this.reportedRival === record.holderIncarnation) return;
    this.reportedRival = record.holderIncarnation;
    const { identity, leaseDurationMs } = this.configuration;
    this.logger.error(
      `another process holds the lease ${this.lock.describe()} under this instance's identity "${identity}" ` +
        `(incarnation ${String(record.holderIncarnation)}, this one is ${this.incarnation}). Two instances must ` +
        'never share leaderElection.identity (it defaults to HOSTNAME, the pod name; a hostname set in the pod ' +
        'template or hostNetwork gives every replica the same one): give each its own. Standing by; if that ' +
        `process is gone, this one takes the lease once it was not renewed for ${leaseDurationMs / 1000} s`,
      { code: 'LeaderElectionDuplicateIdentity', identity },
    );
  }

  private observedValid(now: number): boolean {
    return this.observedAt + (this.observed?.leaseDurationSeconds ?? 0) * 1000 > now;
  }

  private observe(record: LeaderElectionRecord): void {
    this.observed = record;
    this.observedKey = recordKey(record);
    this.observedAt = this.elapsed();
  }

  private loseLeadership(why: string): void {
    this.clearTimers();
    // during a graceful stop the owner is shutting down anyway: no exit, no standing by again
    const exiting = this.configuration.exitOnStopLeading && !this.stopRequested;
    const standingBy = !this.configuration.exitOnStopLeading && !this.stopRequested;
    this.enter(standingBy ? 'Candidate' : 'Stopped');
    this.logger.error(`lost leadership: ${why}`, { exiting, stopping: this.stopRequested });
    this.notify('onStopLeading');
    if (exiting) {
      this.exit(1);
      return;
    }
    if (standingBy) this.scheduleStep(this.configuration.retryPeriodMs);
  }

  private async stopNow(): Promise<void> {
    this.stopRequested = true;
    const was = this.phase;
    this.clearTimers();
    this.enter('Stopped');
    if (was === 'Leading') {
      this.logger.info('leader election stopped, stepping down');
      this.notify('onStopLeading');
    }
    // the attempt in flight is abandoned, not awaited (client-go cancels its context): a hung API
    // server must not hold stop() up for the renew deadline
    // (as client-go, a lease an abandoned attempt may still have written unseen is not released:
    // a standby takes it once it expired)
    this.attempt?.abort(new Error('leader election stopped'));
    await this.inFlight;
    if (!this.observed?.holderIdentity || this.heldByAnother(this.observed)) return;
    try {
      await this.withTimeout((signal) => this.release(signal));
    } catch (error) {
      this.logger.warn('failed to release the lease; a standby takes over when it expires', {
        error: (error as Error)?.message ?? String(error),
      });
    }
  }

  /**
   * client-go's `release`: hand the lease back if the server still names this instance. A 409 is
   * read and tried again (client-go's `tryRelease` does): a renewal abandoned by stop() may still
   * land between the read and the write.
   */
  private async release(signal: AbortSignal): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.lock.get(signal);
      if (!current || !current.holderIdentity || this.heldByAnother(current)) return;
      const now = this.clock.now();
      const released: LeaderElectionRecord = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: current.leaseTransitions,
        holderIncarnation: '',
      };
      try {
        await this.lock.update(released, signal);
      } catch (error) {
        if (attempt < RELEASE_ATTEMPTS && error instanceof KubernetesApiError && error.isConflict()) continue;
        throw error;
      }
      this.observe(released);
      this.logger.info('released the lease');
      return;
    }
  }

  private enter(phase: LeaderElectorPhase): void {
    this.phase = phase;
    this.epoch++;
  }

  private scheduleStep(delayMs: number): void {
    this.attemptTimer = this.clock.setTimeout(() => void this.step(), delayMs);
  }

  private armDeadline(): void {
    if (this.deadlineTimer) this.clock.clearTimeout(this.deadlineTimer);
    const epoch = this.epoch;
    this.deadlineTimer = this.clock.setTimeout(() => {
      this.deadlineTimer = undefined;
      if (this.epoch !== epoch || this.phase !== 'Leading') return;
      if (this.elapsed() >= this.leadingUntil) this.loseLeadership('renew deadline passed');
      // Node's timers may fire up to a millisecond early: wait for the rest instead of never
      else this.armDeadline();
    }, this.leadingUntil - this.elapsed());
  }

  private clearTimers(): void {
    if (this.attemptTimer) this.clock.clearTimeout(this.attemptTimer);
    if (this.deadlineTimer) this.clock.clearTimeout(this.deadlineTimer);
    this.attemptTimer = this.deadlineTimer = undefined;
  }

  /**
   * Bounds an API round trip by the renew deadline, so a hung request cannot stall the machine. At
   * the deadline the requests of `work` are aborted through its signal (as client-go's context
   * cancels them): left open, each would hold one of the elector's few connections until the
   * client's idle timeout, and the tries after a network fault would queue behind them.
   */
  private withTimeout<T>(
    start: (signal: AbortSignal) => Promise<T>,
    controller = new AbortController(),
  ): Promise<T> {
    const limit = this.configuration.renewDeadlineMs;
    const work = start(controller.signal);
    return new Promise<T>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        const error = new Error(`no answer from the API server within ${limit} ms`);
        controller.abort(error);
        reject(error);
      }, limit);
      // aborted by stop(): settle now, whatever the request does
      controller.signal.addEventListener(
        'abort',
        () => {
          this.clock.clearTimeout(timer);
          const reason: unknown = controller.signal.reason;
          reject(reason instanceof Error ? reason : new Error(String(reason)));
        },
        { once: true },
      );
      work.then(
        (value) => {
          this.clock.clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          this.clock.clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private reportLeader(): void {
    const holder = this.observed?.holderIdentity;
    if (!holder || holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    this.logger.info('new leader observed', { leader: holder });
    this.notify('onNewLeader', holder);
  }

  private notify(callback: keyof LeaderCallbacks, identity?: string): void {
    try {
      if (callback === 'onNewLeader') this.callbacks?.onNewLeader?.(identity ?? '');
      else this.callbacks?.[callback]();
    } catch (error) {
      this.logger.error(`leader election callback ${callback} threw`, {
        error: (error as Error)?.message ?? String(error),
      });
    }
  }
}
