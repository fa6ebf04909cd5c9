import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import {
  KubernetesApiError,
  KubernetesClientClosedError,
  KubernetesTransportError,
} from '../../client/errors.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { ExponentialBackoff } from '../backoff.js';
import { InformerStartError } from '../errors.js';
import { advice } from './list-advice.js';
import type { InformerStatus } from '../informer-health.js';
import { errorText } from './informer-cache.js';
import { outsideResourceContext } from '../../logging/resource-context.js';

/** Resolved settings of a loop (the public `Informer` fills every default). */
export interface LoopSettings<T extends KubernetesResource> {
  name: string;
  client: KubernetesClient;
  type: ResourceType<T>;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  pageSize: number;
  /** The first list asks for resourceVersion 0 (the API server's watch cache), as client-go's reflector. */
  firstListFromCache: boolean;
  clock: Clock;
  logger: Logger;
  backoff: ExponentialBackoff;
  deadStreamTimeoutMs: number;
  /** Fixed server-side watch timeout; undefined draws one in [300, 600) s per connection. */
  watchTimeoutSeconds?: number;
  random: () => number;
  failFast: boolean;
  /** Lists and watches ask for `PartialObjectMetadata`. */
  metadataOnly: boolean;
  /** Own writes registered for this value (`KubernetesClient.expectEcho`) reach the cache unparsed. */
  echoes?: object;
}

/** Where the loop delivers what it learns. */
export interface LoopSink<T> {
  /** A complete, consistent list. */
  listed(items: T[], resourceVersion: string): void;
  /** One watch event. */
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): void;
  /** The loop's status changed. */
  status(status: InformerStatus, reason?: string): void;
}

/** The states of the loop; see `Informer` for the transitions. */
type LoopState =
  | { kind: 'list' }
  | { kind: 'watch'; afterList: boolean }
  | { kind: 'backoff'; delayMs: number; then: LoopState }
  | { kind: 'stopped' };

/** A stream that ends sooner than this with nothing in it is "empty" (see {@link ListWatchLoop.ended}). */
const MIN_HEALTHY_WATCH_MS = 1_000;

/** Empty streams in a row resumed at once; later ones wait {@link EMPTY_END_DELAY_MS} doubling, at most {@link EMPTY_END_MAX_DELAY_MS}. */
const EMPTY_ENDS_RESUMED_AT_ONCE = 2;
const EMPTY_END_DELAY_MS = 100;
const EMPTY_END_MAX_DELAY_MS = 1_000;

/** Paginated lists restarted after an expired continue token before one unpaginated list. */
const PAGINATED_RESTARTS = 1;

/** Watches refused in a row (API errors, no progress) before the loop re-lists. */
const REFUSALS_BEFORE_RELIST = 3;

/**
 * The list-then-watch engine of an informer: a state machine driven by one `step` function.
 * Every failure is logged with the informer's name and reported through `sink.status`.
 */
export class ListWatchLoop<T extends KubernetesResource> {
  private readonly stopController = new AbortController();
  private resourceVersion = '';
  private synced = false;
  private listAttempts = 0;
  /** Watches in a row the server refused with an API error, with no event or bookmark between. */
  private refusedWatches = 0;
  /** Streams in a row that the server ended quickly without any event or bookmark. */
  private emptyEnds = 0;
  /**
   * When the retry after the last failure began (its backoff over). The backoff resets when that
   * was `resetAfterMs` ago with no failure since: clean reconnects and 410 re-lists in between are
   * part of a healthy run (client-go's reflector: `DelayWithReset`, reset once the backoff's last
   * start is older than 2 minutes).
   */
  private retryingSince?: number;
  private running?: Promise<void>;
  private startPromise?: Promise<void>;
  private settleStart?: (error?: unknown) => void;
  private wakeUp?: () => void;

  constructor(
    private readonly s: LoopSettings<T>,
    private readonly sink: LoopSink<T>,
  ) {}

  /** Why the lists so far failed, while none has succeeded yet (an `InformerStartError`). */
  unsyncedFailure: InformerStartError | undefined;

  /** The resourceVersion of the newest list, event or bookmark seen. */
  get lastResourceVersion(): string {
    return this.resourceVersion;
  }

  /** Starts the loop once; resolves per `failFast` (see `Informer.start`). */
  start(): Promise<void> {
    this.startPromise ??= new Promise<void>((resolve, reject) => {
      this.settleStart = (error?: unknown) => {
        this.settleStart = undefined;
        if (error === undefined) resolve();
        else reject(error instanceof InformerStartError ? error : this.startError(error));
      };
      this.sink.status('starting');
      // the loop outlives whoever starts it (e.g. a reconciliation registering an event source):
      // its lines and the events it delivers must not carry that reconciliation's resource context
      this.running = outsideResourceContext(() => this.run());
    });
    return this.startPromise;
  }

  /** Ends the loop: aborts the request or stream in flight, cancels a pending backoff. */
  async stop(): Promise<void> {
    this.stopController.abort();
    this.wakeUp?.();
    this.settleStart?.(new Error('the informer was stopped before its first list completed'));
    await this.running;
    this.sink.status('stopped');
  }

  private get stopping(): boolean {
    return this.stopController.signal.aborted;
  }

  private async run(): Promise<void> {
    let state: LoopState = { kind: 'list' };
    while (state.kind !== 'stopped' && !this.stopping) {
      try {
        state = await this.step(state);
      } catch (error) {
        // A bug in a step must not end the loop silently: report it and start over with a list.
        this.s.logger.error('informer loop failed unexpectedly; re-listing', { error: errorText(error) });
        state = this.failure('unexpected failure', error, { kind: 'list' });
      }
    }
  }

  /**
   * One transition:
   * - `list` → `watch` (success), `list` (410 on a continue token: once paginated, then unpaginated),
   *   `backoff` → `list` (failure), or `stopped` (first list failed with failFast).
   * - `watch` → `watch` at once (the stream ended: EOF, `timeoutSeconds`, or the connection of an
   *   established stream closed or reset without an error status — not a failure; the backoff is
   *   untouched), `list` (410; via backoff when it came < 1 s after a fresh list with no event
   *   between), `backoff` → `watch` (the watch could not be opened, ERROR event, unparsable line,
   *   dead stream; or, short and not counted as a failure, the third quick empty end in a row), or
   *   `backoff` → `list` (the third API refusal in a row without progress; a 429 never counts);
   *   `stopped` when the client was closed.
   * - `backoff` → its `then` state after the delay.
   */
  private async step(state: LoopState): Promise<LoopState> {
    switch (state.kind) {
      case 'list':
        return this.list();
      case 'watch':
        return this.watch(state.afterList);
      case 'backoff':
        await this.sleep(state.delayMs);
        return state.then;
      case 'stopped':
        return state;
    }
  }

  private async list(): Promise<LoopState> {
    const items: T[] = [];
    let continueToken: string | undefined;
    let resourceVersion: string;
    let restarts = 0;
    this.listAttempts++;
    for (;;) {
      try {
        const page = await this.s.client.list(this.s.type, {
          namespace: this.s.namespace,
          labelSelector: this.s.labelSelector,
          fieldSelector: this.s.fieldSelector,
          // after a second expired continue token, one unpaginated list (see below)
          limit: restarts <= PAGINATED_RESTARTS ? this.s.pageSize : undefined,
          continue: continueToken,
          // client-go's first list: from the watch cache, one answer (kube ignores the limit there);
          // never after a sync (a 410 means the cache lost our version: list consistently), never
          // on a continue page or after a continue token expired
          resourceVersion:
            this.s.firstListFromCache && !this.synced && continueToken === undefined && restarts === 0
              ? '0'
              : undefined,
          signal: this.stopController.signal,
          metadataOnly: this.s.metadataOnly,
        });
        for (const item of page.items) items.push(item);
        resourceVersion = page.resourceVersion;
        continueToken = page.continue;
        if (!continueToken) break;
      } catch (error) {
        if (this.stopping) return { kind: 'stopped' };
        if (error instanceof KubernetesClientClosedError) return this.clientClosed(error);
        // A list slower than the server's compaction window expires its continue tokens: listed
        // again once, paginated; if that expires too, in one unpaginated request, which has no
        // token to expire (client-go's pager, FullListIfExpired).
        if (continueToken && isGone(error) && restarts <= PAGINATED_RESTARTS) {
          restarts++;
          this.s.logger.info(
            restarts > PAGINATED_RESTARTS
              ? 'list continue token expired (410) again; listing again in one unpaginated request'
              : 'list continue token expired (410); listing again from the start',
            { itemsDiscarded: items.length },
          );
          items.length = 0;
          continueToken = undefined;
          continue;
        }
        return this.listFailed(error);
      }
    }
    if (this.stopping) return { kind: 'stopped' };
    this.sink.listed(items, resourceVersion);
    this.resourceVersion = resourceVersion;
    this.synced = true;
    this.unsyncedFailure = undefined;
    this.listAttempts = 0;
    this.sink.status('synced');
    this.s.logger.debug('listed', { count: items.length, resourceVersion });
    this.settleStart?.();
    return { kind: 'watch', afterList: true };
  }

  private listFailed(error: unknown): LoopState {
    if (!this.synced) this.unsyncedFailure = this.startError(error);
    if (!this.synced && this.listAttempts === 1 && this.s.failFast) {
      const startError = this.startError(error);
      this.s.logger.error('first list failed; the informer does not start', { error: errorText(error) });
      this.sink.status('failed', startError.message);
      this.settleStart?.(startError);
      return { kind: 'stopped' };
    }
    const next = this.failure('list failed', error, { kind: 'list' });
    // With failFast off, start() returns after the first attempt; the loop keeps retrying.
    this.settleStart?.();
    return next;
  }

  private startError(error: unknown): InformerStartError {
    return new InformerStartError(this.s.name, error, {
      resourceType: this.s.type,
      namespace: this.s.namespace,
    });
  }

  private async watch(afterList: boolean): Promise<LoopState> {
    const { clock, deadStreamTimeoutMs } = this.s;
    const streamController = new AbortController();
    const signal = AbortSignal.any([this.stopController.signal, streamController.signal]);
    const openedAt = clock.now();
    const quick = () => clock.now() - openedAt < MIN_HEALTHY_WATCH_MS;
    let lastActivity = openedAt;
    let progress = 0;
    let dead = false;
    let established = false;
    let timer: TimerHandle | undefined;
    const checkDead = (): void => {
      const idle = clock.now() - lastActivity;
      if (idle >= deadStreamTimeoutMs) {
        dead = true;
        streamController.abort();
      } else timer = clock.setTimeout(checkDead, deadStreamTimeoutMs - idle);
    };
    timer = clock.setTimeout(checkDead, deadStreamTimeoutMs);
    const timeoutSeconds = this.s.watchTimeoutSeconds ?? Math.floor(300 + this.s.random() * 300);
    try {
      const events = this.s.client.watch(this.s.type, {
        namespace: this.s.namespace,
        labelSelector: this.s.labelSelector,
        fieldSelector: this.s.fieldSelector,
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
        signal,
        metadataOnly: this.s.metadataOnly,
        // own writes registered for this informer's cache reach it as the object the writer kept
        sharedEchoes: this.s.echoes ?? false,
        onConnected: () => {
          lastActivity = clock.now();
          established = true;
          this.connected();
        },
      });
      for await (const event of events) {
        lastActivity = clock.now();
        if (event.type === 'ERROR') {
          if (event.error.isGone()) return this.gone(event.error, afterList && progress === 0 && quick());
          return this.watchFailed('watch stream sent an ERROR event', event.error, progress);
        }
        const version = event.object.metadata?.resourceVersion;
        if (event.type !== 'BOOKMARK') this.sink.event(event.type, event.object);
        if (version) this.resourceVersion = version;
        progress++;
        this.refusedWatches = 0;
        this.emptyEnds = 0;
      }
    } catch (error) {
      if (this.stopping) return { kind: 'stopped' };
      if (error instanceof KubernetesClientClosedError) return this.clientClosed(error);
      if (isGone(error)) return this.gone(error, afterList && progress === 0 && quick());
      // An established stream whose connection closed or reset (server restart, proxy or load
      // balancer timeout) ended like an EOF: nothing says the server is unwell.
      if (established && !dead && isCut(error)) return this.ended(progress, quick(), errorText(error));
      return this.watchFailed('watch failed', error, progress);
    } finally {
      if (timer) clock.clearTimeout(timer);
      streamController.abort();
    }
    if (this.stopping) return { kind: 'stopped' };
    if (dead) {
      return this.failure(`no event or bookmark for ${deadStreamTimeoutMs} ms (dead stream)`, undefined, {
        kind: 'watch',
        afterList: false,
      });
    }
    return this.ended(progress, quick(), 'the server ended the stream');
  }

  /**
   * The stream ended without a failure: resume at once from the last resourceVersion (client-go's
   * reflector and kube-rs do the same). Only a server that keeps ending streams at once with
   * nothing in them is slowed, briefly (100 ms doubling to 1 s from the third such end in a row),
   * so it is not hammered in a tight loop; that is not a failure either (no backoff growth, the
   * status stays synced).
   */
  private ended(progress: number, quick: boolean, how: string): LoopState {
    const next: LoopState = { kind: 'watch', afterList: false };
    if (progress > 0 || !quick) this.emptyEnds = 0;
    else this.emptyEnds++;
    if (this.emptyEnds > EMPTY_ENDS_RESUMED_AT_ONCE) {
      const delayMs = Math.min(
        EMPTY_END_MAX_DELAY_MS,
        EMPTY_END_DELAY_MS * 2 ** (this.emptyEnds - EMPTY_ENDS_RESUMED_AT_ONCE - 1),
      );
      this.s.logger.debug(`watch stream ended at once without events (${how}); resuming in ${delayMs} ms`, {
        resourceVersion: this.resourceVersion,
        emptyEndsInARow: this.emptyEnds,
      });
      return { kind: 'backoff', delayMs, then: next };
    }
    this.s.logger.debug(`watch stream ended (${how}); resuming at once`, {
      resourceVersion: this.resourceVersion,
    });
    return next;
  }

  /** The client was closed under the informer: nothing can be done any more. */
  private clientClosed(error: KubernetesClientClosedError): LoopState {
    this.s.logger.warn('the Kubernetes client was closed; the informer stops watching', {
      resourceVersion: this.resourceVersion,
    });
    this.sink.status('failed', error.message);
    this.settleStart?.(error);
    return { kind: 'stopped' };
  }

  /**
   * A failed watch resumes from the same resourceVersion, unless the server refused it with an API
   * error 3 times in a row without progress (e.g. "too large resource version"): then re-list, as
   * client-go's reflector does. Transport failures always resume (a list would not fare better), and
   * so does a 429: a throttled server must not get a LIST, the most expensive request (client-go's
   * reflector backs off and watches again, `isWatchErrorRetriable`, `IsTooManyRequests`).
   */
  private watchFailed(what: string, error: unknown, progress: number): LoopState {
    if (progress > 0) this.refusedWatches = 0;
    if (!(error instanceof KubernetesApiError) || error.isTooManyRequests()) {
      return this.failure(what, error, { kind: 'watch', afterList: false });
    }
    this.refusedWatches++;
    if (this.refusedWatches < REFUSALS_BEFORE_RELIST) {
      return this.failure(what, error, { kind: 'watch', afterList: false });
    }
    this.refusedWatches = 0;
    return this.failure(`${what} (${REFUSALS_BEFORE_RELIST} times without progress; re-listing)`, error, {
      kind: 'list',
    });
  }

  private gone(error: unknown, noProgress: boolean): LoopState {
    if (noProgress) {
      return this.failure('watch expired (410) right after a list', error, { kind: 'list' });
    }
    this.s.logger.info('watch resourceVersion expired (410); re-listing', {
      resourceVersion: this.resourceVersion,
    });
    this.sink.status('reconnecting', `resourceVersion ${this.resourceVersion} expired (410); re-listing`);
    return { kind: 'list' };
  }

  private connected(): void {
    this.sink.status('synced');
  }

  /** Records a failure (log, status) and chooses the backoff before `next`. */
  private failure(what: string, error: unknown, next: LoopState): LoopState {
    const { backoff, clock } = this.s;
    if (
      this.retryingSince !== undefined &&
      clock.now() - this.retryingSince >= backoff.options.resetAfterMs
    ) {
      backoff.reset();
    }
    const delayMs = backoff.next();
    this.retryingSince = clock.now() + delayMs;
    // a kind not served or a permission missing: what to do, as the start error says it (the loop
    // retries by itself after every failure recorded here)
    const reason =
      error === undefined
        ? what
        : `${what}: ${errorText(error)}${advice(error, { resourceType: this.s.type, namespace: this.s.namespace }, true)}`;
    this.s.logger.warn(`${reason}; retrying in ${delayMs} ms`, {
      attempt: backoff.attempts,
      resourceVersion: this.resourceVersion,
      ...(error instanceof KubernetesApiError ? { status: error.status, reason: error.reason } : {}),
    });
    this.sink.status(this.synced ? 'reconnecting' : 'failed', reason);
    return { kind: 'backoff', delayMs, then: next };
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const handle = this.s.clock.setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        this.s.clock.clearTimeout(handle);
        this.wakeUp = undefined;
        resolve();
      };
    });
  }
}

/** The connection of a stream closed or reset mid-way (not a bad line, not an error status). */
function isCut(error: unknown): boolean {
  return (
    error instanceof KubernetesTransportError &&
    (error.failure === 'stream-ended' || error.failure === 'connection')
  );
}

function isGone(error: unknown): boolean {
  return error instanceof KubernetesApiError && error.isGone();
}
