import type { ResourceID } from '../../api/resource-id.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import { systemClock } from '../../util/clock.js';
import { errorMessage } from './abstract-event-source.js';
import { EventSourceUsageError, PollingEventSourceStartError } from './errors.js';
import { ExternalResourceCachingEventSource } from './external-resource-caching-event-source.js';
import type { ExternalResourceCachingOptions } from './external-resource-caching-event-source.js';
import { positive, withTimeout } from './polling-support.js';

/** Options of a {@link PollingEventSource}. */
export interface PollingEventSourceOptions<R> extends ExternalResourceCachingOptions<R> {
  /**
   * Fetches every external resource, grouped by the primary each belongs to: `[primary, resources]`
   * pairs (a `Map` keyed by `ResourceID` works). A primary named by several pairs gets the resources
   * of all of them. Primaries absent from a result lose their cached resources (one event).
   */
  fetcher: () => Promise<Iterable<readonly [ResourceID, Iterable<R>]>>;
  /** Time between the end of one poll and the start of the next. Must be > 0. */
  periodMs: number;
  /** A poll not settled after this long fails (and the next one is scheduled). Defaults to `periodMs`, at least 1 s. */
  fetchTimeoutMs?: number;
  /** Time source. Defaults to the system clock. */
  clock?: Clock;
  /**
   * Whether `start` rejects (with a {@link PollingEventSourceStartError}) when the first poll fails;
   * the source keeps polling either way. Defaults to true (as JOSDK's): the operator's
   * `stopOnInformerErrorDuringStartup` then decides whether that stops the start or only marks the
   * source unhealthy until a poll succeeds.
   */
  failFast?: boolean;
}

/**
 * Polls an external system for all resources at once, independently of primaries (JOSDK's
 * `PollingEventSource`); each primary whose resources changed gets one event. The first poll runs
 * during `start`, so the cache is filled before the first reconciliation; when it fails, `start`
 * rejects (see `failFast`). A poll that fails or hangs is logged, marks the source unhealthy until
 * a poll succeeds, and keeps the last cache.
 */
export class PollingEventSource<R> extends ExternalResourceCachingEventSource<R> {
  private readonly fetcher: PollingEventSourceOptions<R>['fetcher'];
  private readonly periodMs: number;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly failFast: boolean;
  private timer: TimerHandle | undefined;
  private polls = 0;

  /** @throws EventSourceUsageError when the fetcher or period is missing or invalid. */
  constructor(options: PollingEventSourceOptions<R>) {
    super(options);
    if (typeof options?.fetcher !== 'function')
      throw new EventSourceUsageError('PollingEventSource needs a fetcher');
    try {
      this.periodMs = positive('periodMs', options.periodMs);
      this.timeoutMs = positive(
        'fetchTimeoutMs',
        options.fetchTimeoutMs ?? Math.max(options.periodMs, 1_000),
      );
    } catch (error) {
      throw new EventSourceUsageError(`PollingEventSource: ${errorMessage(error)}`, { cause: error });
    }
    this.fetcher = options.fetcher;
    this.clock = options.clock ?? systemClock;
    this.failFast = options.failFast ?? true;
  }

  /**
   * Starts and polls once (the next poll is scheduled either way).
   * @throws PollingEventSourceStartError when that poll fails and `failFast` is on.
   */
  override async start(): Promise<void> {
    await super.start();
    const error = await this.pollOnce();
    if (error !== undefined && this.failFast && this.isRunning()) {
      const label = this.name ? `PollingEventSource ${this.name}` : 'PollingEventSource';
      throw new PollingEventSourceStartError(
        `${label}: the first poll failed (${errorMessage(error)}); its cache is empty, polling again every ${this.periodMs} ms. Fix the fetcher or the system it reads, or set failFast: false to start without its results`,
        { cause: error },
      );
    }
  }

  override async stop(): Promise<void> {
    await super.stop();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Number of completed polls (successful or not). */
  get pollCount(): number {
    return this.polls;
  }

  /** Polls now (also what the timer does); resolves when the poll is handled. */
  async poll(): Promise<void> {
    await this.pollOnce();
  }

  /** One poll; resolves with its error (logged, and the source marked unhealthy), if any. */
  private async pollOnce(): Promise<unknown> {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    try {
      const result = await withTimeout(this.fetcher, this.timeoutMs, this.clock, 'the polling fetcher');
      if (!this.isRunning()) return;
      // a primary may come in several pairs (e.g. one per external resource): their union counts
      const byPrimary = new Map<string, { primary: ResourceID; resources: R[] }>();
      for (const [primary, resources] of result) {
        const entry = byPrimary.get(primary.key);
        if (entry) entry.resources.push(...resources);
        else byPrimary.set(primary.key, { primary, resources: [...resources] });
      }
      for (const { primary, resources } of byPrimary.values()) this.handleResources(primary, resources);
      for (const primary of this.cachedPrimaries())
        if (!byPrimary.has(primary.key)) this.handleResources(primary, []);
      this.markHealthy();
      return undefined;
    } catch (error) {
      this.logger.error('poll failed; keeping the last results, polling again next period', {
        error: errorMessage(error),
        errorCode: (error as { code?: unknown })?.code,
      });
      this.markUnhealthy(`poll failed: ${errorMessage(error)}`);
      return error;
    } finally {
      this.polls++;
      if (this.isRunning()) this.timer = this.clock.setTimeout(() => void this.poll(), this.periodMs);
    }
  }
}
