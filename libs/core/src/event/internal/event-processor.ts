import type { RetryInfo } from '../../api/context.js';
import type { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { RateLimiter } from '../../config/rate-limiter.js';
import type { Retry, RetryExecution } from '../../config/retry.js';
import type { ControllerMetricsInfo, Metrics } from '../../metrics/metrics.js';
import { callMetricsHook } from '../../metrics/internal/call-hook.js';
import {
  currentResourceContext,
  outsideResourceContext,
  resourceContextOf,
  runWithResourceContext,
} from '../../logging/resource-context.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import type { LogFields, Logger } from '../../util/logger.js';
import { isResourceEvent } from '../event.js';
import type { Event, EventHandler } from '../event.js';
import { ReconcilePriority } from '../event.js';
import type { BoundedExecutor, QueuedTask } from './bounded-executor.js';
import type { ExecutionHandler, ExecutionScope, PostExecutionControl, PrimaryCache } from './execution.js';

/** A rate-limited submission waits at least this long (JOSDK's minimum). */
export const MINIMAL_RATE_LIMIT_RESCHEDULE_MS = 50;

/** Why the timer slot of a resource is armed. */
export type TimerKind = 'retry' | 'reschedule' | 'maxInterval' | 'rateLimit';

/** A synthetic event of the controller's timer (retry, reschedule, max interval, rate limit). */
export interface TimerEvent extends Event {
  readonly timer: TimerKind;
}

/**
 * A max-interval resync waiting in the processor's one resync queue (see `EventProcessor`); `state`
 * is cleared when the slot is taken by something else (cancelled).
 */
interface Resync {
  state: ResourceState | undefined;
  readonly dueAt: number;
}

/** How many cancelled or fired resyncs the queue keeps before it compacts its array. */
const RESYNC_COMPACT_AFTER = 1024;

interface ResourceState {
  readonly id: ResourceID;
  underProcessing: boolean;
  eventPresent: boolean;
  deleteEventPresent: boolean;
  processedMarkForDeletion: boolean;
  retry?: RetryExecution;
  /** When the scheduled retry is due; undefined when none is pending. */
  retryDueAt?: number;
  rateLimitState?: unknown;
  /** The armed timer: a clock handle, or for `maxInterval` the entry of the resync queue. */
  timer?: { handle: TimerHandle | Resync; kind: TimerKind };
  /** The priority of the next run: the highest of the events marked since the last submission. */
  priority?: number;
  /** The submitted run while it waits for a reconciliation thread (it can be promoted). */
  queued?: QueuedTask;
  /** Deleted and created again while a run of the old object was under way: its outcome is moot. */
  replaced: boolean;
}

/** Resolved settings of an {@link EventProcessor}. */
export interface EventProcessorOptions<P extends KubernetesResource> {
  readonly controller: ControllerMetricsInfo;
  readonly cache: PrimaryCache<P>;
  readonly handler: ExecutionHandler<P>;
  readonly executor: BoundedExecutor;
  readonly retry: Retry;
  readonly rateLimiter: RateLimiter;
  /** Undefined when off. */
  readonly maxReconciliationIntervalMs?: number;
  readonly clock: Clock;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

/**
 * The heart of a controller (JOSDK's `EventProcessor`): turns events into reconciliations, one at a
 * time per resource and at most the executor's limit overall.
 *
 * Per resource it keeps: under processing, event present, delete received, processed mark for
 * deletion, the retry execution and one timer slot. Rules:
 * - An event marks the resource; if it is not being reconciled it is submitted at once, else the
 *   mark makes exactly one follow-up run when the current one ends (it reads the newest cache).
 * - One timer slot per resource, shared by retry, reschedule, max interval and rate limiting; a
 *   later request replaces the earlier one. A timer firing is an event.
 * - A failure schedules a retry (policy delay) unless an event is present (then it runs at once and
 *   uses no attempt). A run caused by an event while a retry is pending does not use an attempt:
 *   if it fails, the pending retry keeps its due time. Exhausted retries schedule nothing but the
 *   max interval; new events still reconcile. A success resets the retry and the timer.
 * - A delete event drops the state (after the running reconciliation, if any).
 *
 * Max-interval resyncs all wait the same interval, so they are due in the order they were armed: they
 * wait in one FIFO queue served by one clock timer (armed for the queue's head) instead of a timer
 * each, which an operator with thousands of resources would otherwise arm and cancel on every
 * reconciliation. A resync is due exactly when its own timer would have been; when several are due
 * at once they run in the order they were armed.
 */
export class EventProcessor<P extends KubernetesResource> implements EventHandler {
  private readonly states = new Map<string, ResourceState>();
  private running = false;
  /** Armed max-interval resyncs in due order, read from `resyncHead` on; `resyncLive` are not cancelled. */
  private resyncs: Resync[] = [];
  private resyncHead = 0;
  private resyncLive = 0;
  /** The one clock timer of the resync queue, armed for its head's due time. */
  private resyncTimer: { handle: TimerHandle; dueAt: number } | undefined;
  /** While due resyncs run, the queue's array is not compacted under the loop. */
  private firingResyncs = false;

  constructor(private readonly o: EventProcessorOptions<P>) {}

  /** Whether events are processed (started and not stopped). */
  isRunning(): boolean {
    return this.running;
  }

  /** Starts processing, including events that arrived before. */
  start(): void {
    if (currentResourceContext() !== undefined) return outsideResourceContext(() => this.start());
    if (this.running) return;
    this.running = true;
    for (const state of [...this.states.values()]) {
      if (state.eventPresent || state.deleteEventPresent) this.handleMarked(state);
    }
  }

  /** Stops processing: no new reconciliation starts, timers are cancelled; running ones finish. */
  stop(): void {
    this.running = false;
    for (const state of this.states.values()) {
      this.cancelTimer(state);
      // the pending retry is gone with its timer: a failure after the next start takes the next
      // attempt (JOSDK: its deadline has passed), it does not run again at once in its place
      state.retryDueAt = undefined;
    }
  }

  /** Whether an event for the resource is waiting for the next reconciliation. */
  isNextReconciliationImminent(id: ResourceID): boolean {
    return this.states.get(id.key)?.eventPresent ?? false;
  }

  /** Whether the resource is being reconciled now. */
  isUnderProcessing(id: ResourceID): boolean {
    return this.states.get(id.key)?.underProcessing ?? false;
  }

  /** Number of resources with state (for tests and diagnostics). */
  get trackedResources(): number {
    return this.states.size;
  }

  handleEvent(event: Event): void {
    // An event source may deliver in the resource context of the reconciliation that started it
    // (or a reconciler may call it): the processing of this event, and the reconciliation and
    // retry it leads to, are about another resource. (One lookup when there is no context.)
    if (currentResourceContext() !== undefined) return outsideResourceContext(() => this.handleEvent(event));
    const state = this.getOrCreate(event.resourceId);
    if (this.o.metrics.receivedEvent)
      this.safeMetric(() => this.o.metrics.receivedEvent?.(event, this.o.controller));
    this.markEvent(event, state);
    if (!this.running) {
      // a run still in flight (started before the stop) keeps the state: dropped now, a new object
      // of that name after the next start would be reconciled alongside it; its end (or the next
      // start) drops it
      if (state.deleteEventPresent && !state.underProcessing) this.cleanupForDeleted(state);
      return;
    }
    this.handleMarked(state);
  }

  private markEvent(event: Event, state: ResourceState): void {
    const priority = event.priority ?? ReconcilePriority.NORMAL;
    state.priority = Math.max(state.priority ?? priority, priority);
    // a run already waiting for a thread goes with the most urgent event since it was submitted
    state.queued?.promote(priority);
    if (isResourceEvent(event)) {
      if (event.action === 'DELETED') {
        state.deleteEventPresent = true;
        return;
      }
      // An add or update after the delete (during a reconciliation, which keeps the state): the
      // object was created again. It is a new object: reconciled when the run ends, with a fresh retry.
      if (state.deleteEventPresent) this.recreated(state);
      if (state.processedMarkForDeletion && event.resource.metadata?.deletionTimestamp) return;
      // A new add/update after our finalizer left: the object was recreated (or another party
      // re-added the finalizer); either way it is live again.
      state.processedMarkForDeletion = false;
      state.eventPresent = true;
      return;
    }
    if (!state.deleteEventPresent && !state.processedMarkForDeletion) state.eventPresent = true;
  }

  /** The deleted object of `state` was created again: what was kept for the old one goes. */
  private recreated(state: ResourceState): void {
    state.deleteEventPresent = false;
    if (state.underProcessing) state.replaced = true;
    state.retry = undefined;
    state.retryDueAt = undefined;
    this.cancelTimer(state);
  }

  private handleMarked(state: ResourceState): void {
    if (state.deleteEventPresent) {
      if (!state.underProcessing) this.cleanupForDeleted(state);
    } else if (!state.processedMarkForDeletion) {
      this.submit(state);
    }
  }

  private submit(state: ResourceState): void {
    if (state.underProcessing || !state.eventPresent) return;
    const latest = this.o.cache.get(state.id);
    if (!latest) {
      this.o.logger.debug('no primary resource in cache; skipping', { resource: state.id.key });
      // nothing pending for an object we do not have: forget it (its add event brings it back)
      if (!state.timer && !state.retry) this.states.delete(state.id.key);
      return;
    }
    state.rateLimitState ??= this.o.rateLimiter.initState();
    const limitedFor = this.o.rateLimiter.isLimited(state.rateLimitState);
    if (limitedFor !== undefined) {
      const delay = Math.max(limitedFor, MINIMAL_RATE_LIMIT_RESCHEDULE_MS);
      this.o.logger.debug('rate limited; postponed', { resource: state.id.key, delayMs: delay });
      // the postponed run keeps the priority of what it runs for (a low resync stays behind changes)
      this.schedule(state, delay, 'rateLimit', state.priority);
      return;
    }
    state.underProcessing = true;
    state.eventPresent = false;
    const priority = state.priority ?? ReconcilePriority.NORMAL;
    state.priority = undefined;
    const retryInfo = state.retry ? retryInfoOf(state.retry) : undefined;
    if (this.o.metrics.reconcileSubmitted) {
      this.safeMetric(() =>
        this.o.metrics.reconcileSubmitted?.(state.id, this.o.controller, retryInfo?.attemptCount ?? 0),
      );
    }
    const queued = this.o.executor.submit(() => this.execute(state, retryInfo, priority), priority);
    if (!queued) {
      state.underProcessing = false;
      state.eventPresent = true;
      state.priority = priority;
      return;
    }
    state.queued = queued;
  }

  private async execute(
    state: ResourceState,
    retryInfo: RetryInfo | undefined,
    priority: number,
  ): Promise<void> {
    state.queued = undefined;
    if (!this.running) {
      // submitted before a stop (or a lost leadership): keep the event, with its priority (a backlog
      // run stays behind new work), for the next start
      state.underProcessing = false;
      state.eventPresent = true;
      state.priority = Math.max(state.priority ?? priority, priority);
      return;
    }
    const resource = this.o.cache.get(state.id);
    if (!resource) {
      state.underProcessing = false;
      if (state.deleteEventPresent) this.cleanupForDeleted(state);
      return;
    }
    const scope = new RunScope<P>(state, resource, retryInfo, this.o.retry);
    const metrics = this.o.metrics;
    if (metrics.reconciliationStarted)
      this.safeMetric(() => metrics.reconciliationStarted?.(state.id, this.o.controller));
    const started = this.o.clock.now();
    let post: PostExecutionControl<P>;
    try {
      post = await this.o.handler.handleExecution(scope);
    } catch (error) {
      post = { kind: 'reconcile', error };
    }
    // Every run reported as started is reported as finished and as succeeded or failed, also the
    // pass that only adds the finalizer or finds nothing to do (`kind` undefined: a reconcile pass),
    // as JOSDK's ReconcilerExecutor does: in-flight gauges and success ratios must not drift.
    const kind = post.kind ?? 'reconcile';
    // a failure ended by withNoRetry is not retried but still counts as failed
    const failure = post.error ?? post.noRetryError;
    // hooks no one set cost nothing (no closure per reconciliation)
    if (failure === undefined) {
      if (metrics.reconcileSucceeded)
        this.safeMetric(() => metrics.reconcileSucceeded?.(state.id, this.o.controller, kind));
    } else if (metrics.reconcileFailed)
      this.safeMetric(() => metrics.reconcileFailed?.(state.id, this.o.controller, kind, failure));
    if (metrics.reconciliationFinished) {
      const duration = this.o.clock.now() - started;
      this.safeMetric(() => metrics.reconciliationFinished?.(state.id, this.o.controller, kind, duration));
    }
    this.finished(state, post, resource);
  }

  private finished(state: ResourceState, post: PostExecutionControl<P>, resource: P): void {
    state.underProcessing = false;
    // the run reconciled an object that was deleted and created again meanwhile (see `recreated`)
    const replaced =
      state.replaced || (post.finalizerRemoved === true && this.replacedInCache(state, resource));
    state.replaced = false;
    if (!this.running) {
      // deleted while stopped: the state waited for this run to end
      if (state.deleteEventPresent) {
        if (this.states.get(state.id.key) === state) this.cleanupForDeleted(state);
        return;
      }
      // a failure while stopped is not retried now; after a restart it reconciles again
      if (post.error !== undefined) state.eventPresent = true;
      return;
    }
    if (this.states.get(state.id.key) !== state) return;
    if (post.error !== undefined && !state.deleteEventPresent && !replaced) {
      this.handleFailure(state, post, resource);
      return;
    }
    // success (or a failure made moot by a delete or a new object): reset retry and the timer slot
    state.retry = undefined;
    state.retryDueAt = undefined;
    this.cancelTimer(state);
    if (state.deleteEventPresent) {
      this.cleanupForDeleted(state);
    } else if (post.finalizerRemoved && !replaced) {
      // cleanupDone comes with the delete event (cleanupForDeleted), once, as in JOSDK
      state.processedMarkForDeletion = true;
    } else if (state.eventPresent) {
      this.submit(state);
    } else if (post.rescheduleDelayMs !== undefined) {
      this.schedule(state, post.rescheduleDelayMs, 'reschedule', post.reschedulePriority);
    } else {
      this.scheduleMaxInterval(state);
    }
  }

  /** Whether the cache holds another object (a new uid) than the one a run reconciled. */
  private replacedInCache(state: ResourceState, resource: P): boolean {
    const uid = this.o.cache.get(state.id)?.metadata?.uid;
    return uid !== undefined && uid !== resource.metadata?.uid;
  }

  /**
   * Writes a failure line of `resource` in its resource context (JOSDK logs these inside the
   * reconciler executor, with the resource's MDC). Only the line: the submission or timer that
   * follows must not inherit the context (see `handleEvent`).
   */
  private logFailure(resource: P, level: 'warn' | 'error', message: string, fields: LogFields): void {
    const context = resourceContextOf(resource, this.o.controller.name);
    runWithResourceContext(context, () => this.o.logger[level](message, fields));
  }

  private handleFailure(state: ResourceState, post: PostExecutionControl<P>, resource: P): void {
    state.retry ??= this.o.retry.initExecution();
    const retry = state.retry;
    if (state.eventPresent) {
      this.logFailure(
        resource,
        'warn',
        'reconciliation failed; a newer event reconciles again at once',
        errorFields(state, post.error),
      );
      this.submit(state);
      return;
    }
    const now = this.o.clock.now();
    if (state.retryDueAt !== undefined) {
      // an event-triggered run during backoff failed: keep the pending retry's due time
      this.logFailure(
        resource,
        'warn',
        'reconciliation failed; the pending retry stays scheduled',
        errorFields(state, post.error),
      );
      this.schedule(state, Math.max(0, state.retryDueAt - now), 'retry');
      return;
    }
    const delay = retry.nextDelay();
    if (delay === undefined) {
      this.logFailure(
        resource,
        'error',
        'reconciliation failed; retries exhausted (a new event reconciles again)',
        {
          ...errorFields(state, post.error),
          attemptCount: retry.getAttemptCount(),
        },
      );
      this.scheduleMaxInterval(state);
      return;
    }
    this.logFailure(resource, 'warn', 'reconciliation failed; retry scheduled', {
      ...errorFields(state, post.error),
      attemptCount: retry.getAttemptCount(),
      delayMs: delay,
    });
    this.safeMetric(() =>
      this.o.metrics.retrying?.(state.id, this.o.controller, retry.getAttemptCount(), delay),
    );
    state.retryDueAt = now + delay;
    this.schedule(state, delay, 'retry');
  }

  private scheduleMaxInterval(state: ResourceState): void {
    const interval = this.o.maxReconciliationIntervalMs;
    if (interval === undefined || interval <= 0) return;
    this.cancelTimer(state);
    const entry: Resync = { state, dueAt: this.o.clock.now() + interval };
    this.resyncs.push(entry);
    this.resyncLive++;
    state.timer = { handle: entry, kind: 'maxInterval' };
    if (!this.resyncTimer) this.armResyncs(entry.dueAt);
  }

  /** Arms the resync queue's timer for `dueAt` (its head's due time). */
  private armResyncs(dueAt: number): void {
    const handle = this.o.clock.setTimeout(() => this.fireResyncs(), dueAt - this.o.clock.now());
    this.resyncTimer = { handle, dueAt };
  }

  /** The resync timer fired: every resync due by then runs (as its own timer would have), in order. */
  private fireResyncs(): void {
    const armedFor = this.resyncTimer?.dueAt ?? 0;
    this.resyncTimer = undefined;
    // the timer was armed for the head: that one is due even if the clock reads a little earlier
    const until = Math.max(this.o.clock.now(), armedFor);
    const queue = this.resyncs;
    this.firingResyncs = true;
    while (this.resyncHead < queue.length) {
      const entry = queue[this.resyncHead];
      if (entry.state && entry.dueAt > until) break;
      this.resyncHead++;
      const state = entry.state;
      if (!state) continue;
      entry.state = undefined;
      this.resyncLive--;
      state.timer = undefined;
      if (this.states.get(state.id.key) !== state) continue;
      const event: TimerEvent = {
        resourceId: state.id,
        timer: 'maxInterval',
        priority: ReconcilePriority.LOW,
      };
      this.handleEvent(event);
    }
    this.firingResyncs = false;
    this.compactResyncs();
    while (this.resyncHead < this.resyncs.length && !this.resyncs[this.resyncHead].state) this.resyncHead++;
    const head = this.resyncs[this.resyncHead];
    if (head && !this.resyncTimer) this.armResyncs(head.dueAt);
  }

  /** Drops cancelled and fired entries from the queue's array once they outweigh the armed ones. */
  private compactResyncs(): void {
    if (this.firingResyncs) return;
    const queue = this.resyncs;
    if (this.resyncLive === 0) {
      this.resyncs = [];
      this.resyncHead = 0;
      return;
    }
    const waste = queue.length - this.resyncLive;
    if (waste < RESYNC_COMPACT_AFTER || waste < this.resyncLive) return;
    const kept: Resync[] = [];
    for (let i = this.resyncHead; i < queue.length; i++) if (queue[i].state) kept.push(queue[i]);
    this.resyncs = kept;
    this.resyncHead = 0;
  }

  private schedule(state: ResourceState, delayMs: number, kind: TimerKind, priority?: number): void {
    this.cancelTimer(state);
    // resyncs are the backlog; retries, reschedules and rate-limited runs keep their timing
    const urgency = priority ?? (kind === 'maxInterval' ? ReconcilePriority.LOW : ReconcilePriority.NORMAL);
    const handle = this.o.clock.setTimeout(() => {
      if (state.timer?.handle !== handle) return;
      state.timer = undefined;
      if (kind === 'retry') state.retryDueAt = undefined;
      if (this.states.get(state.id.key) !== state) return;
      const event: TimerEvent = { resourceId: state.id, timer: kind, priority: urgency };
      this.handleEvent(event);
    }, delayMs);
    state.timer = { handle, kind };
  }

  private cancelTimer(state: ResourceState): void {
    const timer = state.timer;
    if (!timer) return;
    state.timer = undefined;
    if (timer.kind !== 'maxInterval') {
      this.o.clock.clearTimeout(timer.handle);
      return;
    }
    const entry = timer.handle as Resync;
    entry.state = undefined;
    this.resyncLive--;
    if (this.resyncLive === 0 && this.resyncTimer) {
      // nothing armed any more: no timer is left behind
      this.o.clock.clearTimeout(this.resyncTimer.handle);
      this.resyncTimer = undefined;
    }
    this.compactResyncs();
  }

  private cleanupForDeleted(state: ResourceState): void {
    this.cancelTimer(state);
    this.states.delete(state.id.key);
    this.safeMetric(() => this.o.metrics.cleanupDone?.(state.id, this.o.controller));
  }

  private getOrCreate(id: ResourceID): ResourceState {
    let state = this.states.get(id.key);
    if (!state) {
      state = {
        id,
        underProcessing: false,
        eventPresent: false,
        deleteEventPresent: false,
        processedMarkForDeletion: false,
        replaced: false,
      };
      this.states.set(id.key, state);
    }
    return state;
  }

  /** Calls a metrics hook: what it throws, or the promise it returns rejects with, is logged at debug. */
  private safeMetric(fn: () => unknown): void {
    callMetricsHook(fn, this.o.logger);
  }
}

/** The {@link ExecutionScope} of one run: one object (methods on the prototype) per reconciliation. */
class RunScope<P extends KubernetesResource> implements ExecutionScope<P> {
  readonly id: ResourceID;

  constructor(
    private readonly state: ResourceState,
    readonly resource: P,
    readonly retryInfo: RetryInfo | undefined,
    private readonly retry: Retry,
  ) {
    this.id = state.id;
  }

  isNextReconciliationImminent(): boolean {
    return this.state.eventPresent;
  }

  retryInfoOnFailure(): RetryInfo {
    return retryInfoOf(this.state.retry ?? this.retry.initExecution());
  }
}

function retryInfoOf(retry: RetryExecution): RetryInfo {
  return { attemptCount: retry.getAttemptCount(), isLastAttempt: retry.isLastAttempt() };
}

function errorFields(state: ResourceState, error: unknown): Record<string, unknown> {
  const e = error as { message?: unknown; code?: unknown; name?: unknown } | undefined;
  return {
    resource: state.id.key,
    error: typeof e?.message === 'string' ? e.message : String(error),
    errorCode: typeof e?.code === 'string' ? e.code : undefined,
    // the error itself, so a logger can write its stack and causes (pino's err serializer)
    err: error,
  };
}
