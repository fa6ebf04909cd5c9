import type { EventSourceContext, PrimaryResourceCache } from '../../api/event-source-context.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { systemClock } from '../../util/clock.js';
import { errorMessage } from './abstract-event-source.js';
import { EventSourceUsageError } from './errors.js';
import { ExternalResourceCachingEventSource } from './external-resource-caching-event-source.js';
import type { ExternalResourceCachingOptions } from './external-resource-caching-event-source.js';
import { positive, withTimeout } from './polling-support.js';

/** Options of a {@link PerResourcePollingEventSource}. */
export interface PerResourcePollingEventSourceOptions<
  R,
  P extends KubernetesResource,
> extends ExternalResourceCachingOptions<R> {
  /** Fetches the external resources of one primary. */
  fetcher: (primary: P) => Promise<Iterable<R>>;
  /**
   * Time between the starts of polling rounds: each round fetches every cached primary whose
   * previous fetch has settled. Must be > 0.
   */
  periodMs: number;
  /** A fetch not settled after this long fails (its primary is polled again next round). Defaults to `periodMs`, at least 1 s. */
  fetchTimeoutMs?: number;
  /** Which primaries to poll. Defaults to all. */
  registerPredicate?: (primary: P) => boolean;
  /** Time source. Defaults to the operator's clock. */
  clock?: Clock;
}

/**
 * Polls an external system once per primary (JOSDK's `PerResourcePollingEventSource`): every period
 * a round fetches the resources of every primary in the controller's cache (in parallel), caches
 * them, and emits an event for each primary whose resources changed. Cached resources of primaries
 * that left the cache, or were deleted and created again under their name (another uid), are
 * dropped; a stopped source fetches nothing more.
 *
 * Caching is not complete before the first reconciliation (a new primary is reconciled before it is
 * polled): use {@link PerResourcePollingEventSource.getOrFetch}, which checks the cache first and
 * fetches (and caches, without an event) on a miss.
 *
 * A fetch that fails or hangs is logged with the primary, keeps that primary's last results, and
 * marks the source unhealthy until a later fetch of that primary succeeds. It holds up no other
 * primary: a round does not wait for it, and skips only its primary while it runs (at most
 * `fetchTimeoutMs`).
 */
export class PerResourcePollingEventSource<
  R,
  P extends KubernetesResource = KubernetesResource,
> extends ExternalResourceCachingEventSource<R> {
  private readonly fetcher: (primary: P) => Promise<Iterable<R>>;
  private readonly periodMs: number;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly primaries: PrimaryResourceCache<P>;
  private readonly predicate: (primary: P) => boolean;
  private timer: TimerHandle | undefined;
  private rounds = 0;
  /** The fetch running for a primary (by key): a round starts no second one. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Why the last fetch of a primary failed (by key); the source is unhealthy while any is here. */
  private readonly failing = new Map<string, string>();
  /** The uid of the primary each cached entry was fetched for (by key). */
  private readonly uids = new Map<string, string>();

  /** @throws EventSourceUsageError when the fetcher or period is missing or invalid. */
  constructor(options: PerResourcePollingEventSourceOptions<R, P>, context: EventSourceContext<P>) {
    super({ ...options, logger: options?.logger ?? context.logger });
    if (typeof options?.fetcher !== 'function')
      throw new EventSourceUsageError('PerResourcePollingEventSource needs a fetcher');
    try {
      this.periodMs = positive('periodMs', options.periodMs);
      this.timeoutMs = positive(
        'fetchTimeoutMs',
        options.fetchTimeoutMs ?? Math.max(options.periodMs, 1_000),
      );
    } catch (error) {
      throw new EventSourceUsageError(`PerResourcePollingEventSource: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    this.fetcher = options.fetcher;
    this.clock = options.clock ?? context.clock ?? systemClock;
    this.primaries = context.primaryCache;
    this.predicate = options.registerPredicate ?? (() => true);
  }

  override async start(): Promise<void> {
    await super.start();
    this.schedule();
  }

  override async stop(): Promise<void> {
    await super.stop();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Number of completed polling rounds. */
  get roundCount(): number {
    return this.rounds;
  }

  /**
   * The cached resources of a primary; `[]` when what is cached was fetched for another primary of
   * that name (deleted and created again) that no round has replaced yet.
   */
  override getSecondaryResources(primary: KubernetesResource | ResourceID): R[] {
    if (!(primary instanceof ResourceID) && !this.cachedForUid(primary)) return [];
    return super.getSecondaryResources(primary);
  }

  /**
   * The cached resources of a primary, or (when it was never polled, or what is cached was fetched
   * for a deleted primary of its name) fetched now and cached without an event: the check of the
   * cache before the first poll.
   */
  async getOrFetch(primary: P): Promise<R[]> {
    if (this.isCached(primary) && this.cachedForUid(primary)) return this.getSecondaryResources(primary);
    const id = ResourceID.fromResource(primary);
    const fetched = [
      ...(await withTimeout(
        () => this.fetcher(primary),
        this.timeoutMs,
        this.clock,
        `the fetcher of ${id.key}`,
      )),
    ];
    if (!this.isRunning()) return fetched;
    if (!this.isCached(id) || !this.cachedForUid(primary)) {
      this.forget(id);
      // cache silently: the caller is reconciling this primary already
      this.seed(primary, fetched);
    }
    return this.getSecondaryResources(primary);
  }

  /**
   * Starts a round now: fetches every primary whose previous fetch has settled, and schedules the
   * next round a period from now. Resolves when this round's fetches are handled.
   */
  async pollAll(): Promise<void> {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.isRunning()) return;
    const primaries = this.primaries.list().filter((p) => this.safePredicate(p));
    const live = new Map(primaries.map((p) => [ResourceID.fromResource(p).key, p]));
    // results of primaries that left the cache, or of a deleted one whose name came back, go
    for (const id of this.cachedPrimaries()) {
      const now = live.get(id.key);
      if (!now || !this.cachedForUid(now)) this.forget(id);
    }
    for (const key of [...this.failing.keys()]) if (!live.has(key)) this.failing.delete(key);
    this.updateHealth();
    // a fetch still running (slow, or hanging until its timeout) is not started again nor waited for
    const round = primaries.map((p) => this.inFlight.get(ResourceID.fromResource(p).key) ?? this.fetch(p));
    this.schedule();
    await Promise.all(round);
    if (this.isRunning()) this.rounds++;
  }

  protected override forget(primary: ResourceID): void {
    super.forget(primary);
    this.uids.delete(primary.key);
  }

  private fetch(primary: P): Promise<void> {
    const key = ResourceID.fromResource(primary).key;
    const running = this.pollOne(primary).finally(() => {
      if (this.inFlight.get(key) === running) this.inFlight.delete(key);
    });
    this.inFlight.set(key, running);
    return running;
  }

  /** Fetches one primary's resources; never rejects (a failure is logged and marks the source). */
  private async pollOne(primary: P): Promise<void> {
    const id = ResourceID.fromResource(primary);
    try {
      const fetched = await withTimeout(
        () => this.fetcher(primary),
        this.timeoutMs,
        this.clock,
        `the fetcher of ${id.key}`,
      );
      if (!this.isRunning()) return;
      const now = this.primaries.get(id);
      // gone meanwhile, or deleted and created again: the result is not the current primary's
      if (!now || !sameUid(now, primary)) return;
      if (!this.cachedForUid(primary)) this.forget(id);
      this.remember(primary);
      this.handleResources(id, fetched);
      this.failing.delete(id.key);
    } catch (error) {
      this.logger.error("fetch of a primary's resources failed; keeping its last results", {
        primary: id.key,
        error: errorMessage(error),
        errorCode: (error as { code?: unknown })?.code,
      });
      if (this.isRunning()) this.failing.set(id.key, errorMessage(error));
    }
    this.updateHealth();
  }

  private updateHealth(): void {
    if (this.failing.size === 0) {
      this.markHealthy();
      return;
    }
    const [key, reason] = this.failing.entries().next().value!;
    this.markUnhealthy(
      `the last fetch failed for ${this.failing.size} primar${this.failing.size === 1 ? 'y' : 'ies'} (${key}: ${reason})`,
    );
  }

  /** Whether what is cached for the primary's name was fetched for this primary (or for one of unknown uid). */
  private cachedForUid(primary: KubernetesResource): boolean {
    const uid = primary.metadata?.uid;
    const cached = this.uids.get(ResourceID.fromResource(primary).key);
    return uid === undefined || cached === undefined || uid === cached;
  }

  private remember(primary: KubernetesResource): void {
    const uid = primary.metadata?.uid;
    if (uid !== undefined) this.uids.set(ResourceID.fromResource(primary).key, uid);
  }

  private seed(primary: P, resources: R[]): void {
    this.remember(primary);
    // handleResources emits only on change; a seed stores without an event
    this.silent = true;
    try {
      this.handleResources(ResourceID.fromResource(primary), resources);
    } finally {
      this.silent = false;
    }
  }

  private silent = false;

  protected override emit(primary: ResourceID): void {
    if (!this.silent) super.emit(primary);
  }

  private safePredicate(primary: P): boolean {
    try {
      return this.predicate(primary);
    } catch (error) {
      this.logger.error('registerPredicate threw; primary not polled', { error: errorMessage(error) });
      return false;
    }
  }

  private schedule(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = this.isRunning()
      ? this.clock.setTimeout(() => void this.pollAll(), this.periodMs)
      : undefined;
  }
}

function sameUid(a: KubernetesResource, b: KubernetesResource): boolean {
  const x = a.metadata?.uid;
  const y = b.metadata?.uid;
  return x === undefined || y === undefined || x === y;
}
