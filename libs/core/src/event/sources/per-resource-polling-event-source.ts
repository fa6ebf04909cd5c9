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
  /** Time between polling rounds (every cached primary is polled each round). Must be > 0. */
  periodMs: number;
  /** A fetch not settled after this long fails. Defaults to `periodMs`, at least 1 s. */
  fetchTimeoutMs?: number;
  /** Which primaries to poll. Defaults to all. */
  registerPredicate?: (primary: P) => boolean;
  /** Time source. Defaults to the operator's clock. */
  clock?: Clock;
}

/**
 * Polls an external system once per primary (JOSDK's `PerResourcePollingEventSource`): each round
 * fetches the resources of every primary in the controller's cache (in parallel), caches them, and
 * emits an event for each primary whose resources changed. Cached resources of primaries that left
 * the cache are dropped.
 *
 * Caching is not complete before the first reconciliation (a new primary is reconciled before it is
 * polled): use {@link PerResourcePollingEventSource.getOrFetch}, which checks the cache first and
 * fetches (and caches, without an event) on a miss.
 *
 * A fetch that fails or hangs is logged with the primary, marks the source unhealthy until a round
 * succeeds for every primary, keeps that primary's last results, and does not hold up the others.
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
   * The cached resources of a primary, or (when it was never polled) fetched now and cached
   * without an event: the check of the cache before the first poll.
   */
  async getOrFetch(primary: P): Promise<R[]> {
    if (this.isCached(primary)) return this.getSecondaryResources(primary);
    const id = ResourceID.fromResource(primary);
    const fetched = [
      ...(await withTimeout(
        () => this.fetcher(primary),
        this.timeoutMs,
        this.clock,
        `the fetcher of ${id.key}`,
      )),
    ];
    if (!this.isCached(id)) {
      this.forget(id);
      // cache silently: the caller is reconciling this primary already
      this.seed(id, fetched);
    }
    return this.getSecondaryResources(id);
  }

  /** Polls every primary now; resolves when the round is handled. */
  async pollAll(): Promise<void> {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const primaries = this.primaries.list().filter((p) => this.safePredicate(p));
    const live = new Set(primaries.map((p) => ResourceID.fromResource(p).key));
    for (const id of this.cachedPrimaries()) if (!live.has(id.key)) this.forget(id);
    const results = await Promise.allSettled(primaries.map((p) => this.pollOne(p)));
    if (!this.isRunning()) return;
    const failed = results.filter((r) => r.status === 'rejected').length;
    if (failed === 0) this.markHealthy();
    else this.markUnhealthy(`${failed} of ${results.length} fetches failed in the last round`);
    this.rounds++;
    this.schedule();
  }

  private async pollOne(primary: P): Promise<void> {
    const id = ResourceID.fromResource(primary);
    try {
      const fetched = await withTimeout(
        () => this.fetcher(primary),
        this.timeoutMs,
        this.clock,
        `the fetcher of ${id.key}`,
      );
      if (this.isRunning() && this.primaries.get(id)) this.handleResources(id, fetched);
    } catch (error) {
      this.logger.error("fetch of a primary's resources failed; keeping its last results", {
        primary: id.key,
        error: errorMessage(error),
        errorCode: (error as { code?: unknown })?.code,
      });
      throw error;
    }
  }

  private seed(id: ResourceID, resources: R[]): void {
    // handleResources emits only on change; a seed stores without an event
    this.silent = true;
    try {
      this.handleResources(id, resources);
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
    if (this.isRunning()) this.timer = this.clock.setTimeout(() => void this.pollAll(), this.periodMs);
  }
}
