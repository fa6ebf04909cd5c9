import { describe, expect, it } from '@jest/globals';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { defineResource } from '../../api/resource-type.js';
import { LinearRateLimiter } from '../../config/rate-limiter.js';
import type { Retry } from '../../config/retry.js';
import { GenericRetry } from '../../config/retry.js';
import type { Metrics } from '../../metrics/metrics.js';
import { noopLogger } from '../../util/logger.js';
import type { Event, ResourceEvent } from '../event.js';
import { BoundedExecutor } from '../internal/bounded-executor.js';
import { EventProcessor } from '../internal/event-processor.js';
import type { ExecutionScope, PostExecutionControl } from '../internal/execution.js';
import { FakeClock, settle } from './fake-clock.js';

type R = KubernetesResource;
const type = defineResource<R>({ group: 'test.tosdk.io', version: 'v1', kind: 'Thing' });

interface Run {
  scope: ExecutionScope<R>;
  finish(post?: PostExecutionControl<R>): Promise<void>;
  fail(error?: unknown, extra?: Partial<PostExecutionControl<R>>): Promise<void>;
}

function harness(
  opts: {
    retry?: Retry;
    limiter?: (clock: FakeClock) => LinearRateLimiter;
    maxIntervalMs?: number;
    limit?: number;
    metrics?: Metrics;
  } = {},
) {
  const clock = new FakeClock();
  const cache = new Map<string, R>();
  const runs: Run[] = [];
  let active = 0;
  let maxActive = 0;
  const executor = new BoundedExecutor(opts.limit ?? 50);
  const ep = new EventProcessor<R>({
    controller: { name: 'things', resourceType: type },
    cache: { get: (id) => cache.get(id.key) },
    handler: {
      handleExecution: (scope) =>
        new Promise<PostExecutionControl<R>>((resolve) => {
          active++;
          maxActive = Math.max(maxActive, active);
          const done = async (post: PostExecutionControl<R>) => {
            active--;
            resolve(post);
            await settle();
          };
          runs.push({
            scope,
            finish: (post = { kind: 'reconcile' }) => done(post),
            fail: (error = new Error('boom'), extra = {}) => done({ kind: 'reconcile', error, ...extra }),
          });
        }),
    },
    executor,
    retry: opts.retry ?? GenericRetry.defaultLimitedExponentialRetry(),
    rateLimiter: opts.limiter?.(clock) ?? LinearRateLimiter.deactivatedRateLimiter(),
    maxReconciliationIntervalMs: opts.maxIntervalMs,
    clock,
    metrics: opts.metrics ?? {},
    logger: noopLogger,
  });
  let rv = 0;
  const put = (name: string, extra: Partial<R['metadata']> = {}): R => {
    const r: R = {
      apiVersion: type.apiVersion,
      kind: type.kind,
      metadata: { name, namespace: 'ns', resourceVersion: String(++rv), ...extra },
    };
    cache.set(`ns/${name}`, r);
    return r;
  };
  const event = (name: string, action: ResourceEvent['action'] = 'UPDATED'): ResourceEvent<R> => {
    const resource = action === 'DELETED' ? cache.get(`ns/${name}`)! : put(name);
    if (action === 'DELETED') cache.delete(`ns/${name}`);
    return { resourceId: new ResourceID(name, 'ns'), action, resource };
  };
  const generic = (name: string): Event => ({ resourceId: new ResourceID(name, 'ns') });
  const send = async (e: Event) => {
    ep.handleEvent(e);
    await settle();
  };
  return {
    clock,
    cache,
    runs,
    ep,
    event,
    generic,
    send,
    executor,
    put,
    maxActive: () => maxActive,
    active: () => active,
  };
}

describe('EventProcessor', () => {
  it('[EP-11] never runs two reconciliations of one resource at once; different resources run in parallel up to the limit', async () => {
    const h = harness({ limit: 3 });
    h.ep.start();
    for (const n of ['a', 'b', 'c', 'd', 'e']) await h.send(h.event(n, 'ADDED'));
    await h.send(h.event('a'));
    await h.send(h.event('a'));
    expect(h.runs.map((r) => r.scope.id.name)).toEqual(['a', 'b', 'c']);
    expect(h.executor.queued).toBe(2);
    await h.runs[0].finish();
    // a's follow-up is queued behind d and e; never two a's at once
    expect(h.runs.map((r) => r.scope.id.name)).toEqual(['a', 'b', 'c', 'd']);
    await h.runs[1].finish();
    await h.runs[2].finish();
    expect(h.runs.map((r) => r.scope.id.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'a']);
    expect(h.maxActive()).toBe(3);
  });

  it('[EP-12] merges events received during a reconciliation into one follow-up that sees the newest cached state', async () => {
    const h = harness();
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    expect(h.runs).toHaveLength(1);
    for (let i = 0; i < 5; i++) await h.send(h.event('a'));
    const newest = h.cache.get('ns/a')!;
    await h.runs[0].finish();
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1].scope.resource).toBe(newest);
    await h.runs[1].finish();
    expect(h.runs).toHaveLength(2);
  });

  it('[EP-21] isNextReconciliationImminent tells a running reconciliation that another event is queued', async () => {
    const h = harness();
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    expect(h.runs[0].scope.isNextReconciliationImminent()).toBe(false);
    await h.send(h.event('a'));
    expect(h.runs[0].scope.isNextReconciliationImminent()).toBe(true);
    expect(h.ep.isNextReconciliationImminent(new ResourceID('a', 'ns'))).toBe(true);
  });

  it('[EP-10] retries with the default policy (2 s, 2 s, 3 s, 4.5 s, 6.75 s) and stops after the last attempt', async () => {
    const h = harness();
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    expect(h.runs[0].scope.retryInfo).toBeUndefined();
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      await h.runs[attempt - 1].fail();
      const [delay] = h.clock.pending();
      delays.push(delay);
      await h.clock.advance(delay - 1);
      expect(h.runs).toHaveLength(attempt);
      await h.clock.advance(1);
      expect(h.runs).toHaveLength(attempt + 1);
      expect(h.runs[attempt].scope.retryInfo).toEqual({
        attemptCount: attempt,
        isLastAttempt: attempt === 5,
      });
    }
    expect(delays).toEqual([2000, 2000, 3000, 4500, 6750]);
    await h.runs[5].fail();
    expect(h.clock.pending()).toEqual([]);
    await h.clock.advance(60 * 60 * 1000);
    expect(h.runs).toHaveLength(6);
  });

  it('[EP-10] a new event after exhausted retries still reconciles (as the last attempt); a success resets', async () => {
    const h = harness({ retry: new GenericRetry({ maxAttempts: 1, initialInterval: 100 }) });
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    await h.runs[0].fail();
    await h.clock.advance(100);
    await h.runs[1].fail();
    expect(h.clock.pending()).toEqual([]);
    await h.send(h.event('a'));
    expect(h.runs).toHaveLength(3);
    expect(h.runs[2].scope.retryInfo).toEqual({ attemptCount: 1, isLastAttempt: true });
    await h.runs[2].finish();
    await h.send(h.event('a'));
    expect(h.runs[3].scope.retryInfo).toBeUndefined();
    await h.runs[3].fail();
    expect(h.clock.pending()).toEqual([100]);
  });

  it('[EP-07] an event during backoff reconciles at once and does not use up a retry attempt', async () => {
    const h = harness();
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    await h.runs[0].fail();
    expect(h.clock.pending()).toEqual([2000]);
    await h.clock.advance(500);
    await h.send(h.event('a'));
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1].scope.retryInfo).toEqual({ attemptCount: 1, isLastAttempt: false });
    await h.runs[1].fail();
    // the pending retry keeps its due time; no attempt used
    expect(h.clock.pending()).toEqual([1500]);
    await h.clock.advance(1500);
    expect(h.runs).toHaveLength(3);
    expect(h.runs[2].scope.retryInfo).toEqual({ attemptCount: 1, isLastAttempt: false });
    await h.runs[2].fail();
    expect(h.clock.pending()).toEqual([2000]);
    await h.clock.advance(2000);
    expect(h.runs[3].scope.retryInfo).toEqual({ attemptCount: 2, isLastAttempt: false });
  });

  it('[EP-07] a failure with an event already present reconciles again at once without scheduling a retry', async () => {
    const h = harness();
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    await h.send(h.event('a'));
    await h.runs[0].fail();
    expect(h.runs).toHaveLength(2);
    expect(h.clock.pending()).toEqual([]);
    await h.runs[1].finish();
    expect(h.runs).toHaveLength(2);
  });

  it('[EP-13] rescheduleAfter reconciles at the latest after the delay; an event before replaces it (no double run)', async () => {
    const h = harness();
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    await h.runs[0].finish({ kind: 'reconcile', rescheduleDelayMs: 1000 });
    await h.clock.advance(999);
    expect(h.runs).toHaveLength(1);
    await h.clock.advance(1);
    expect(h.runs).toHaveLength(2);
    await h.runs[1].finish({ kind: 'reconcile', rescheduleDelayMs: 1000 });
    await h.clock.advance(400);
    await h.send(h.event('a'));
    expect(h.runs).toHaveLength(3);
    await h.runs[2].finish();
    await h.clock.advance(10_000);
    expect(h.runs).toHaveLength(3);
  });

  it('[EP-14] maxReconciliationInterval reconciles when nothing else happens, and not when off', async () => {
    const h = harness({ maxIntervalMs: 5000 });
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    await h.runs[0].finish();
    await h.clock.advance(4999);
    expect(h.runs).toHaveLength(1);
    await h.clock.advance(1);
    expect(h.runs).toHaveLength(2);

    const off = harness();
    off.ep.start();
    await off.send(off.event('a', 'ADDED'));
    await off.runs[0].finish();
    expect(off.clock.pending()).toEqual([]);
  });

  it('[EP-18] the rate limiter postpones (never drops) reconciliations and wins over reschedule timing', async () => {
    const { ep, send, event, runs, clock } = harness({
      limiter: (clock) => new LinearRateLimiter({ refreshPeriodMs: 1000, limitForPeriod: 2, clock }),
    });
    ep.start();
    await send(event('a', 'ADDED'));
    await runs[0].finish({ kind: 'reconcile', rescheduleDelayMs: 10 });
    await clock.advance(10);
    expect(runs).toHaveLength(2);
    await runs[1].finish({ kind: 'reconcile', rescheduleDelayMs: 10 });
    await clock.advance(10);
    // third within the window: postponed to the window's end
    expect(runs).toHaveLength(2);
    await send(event('a'));
    expect(runs).toHaveLength(2);
    await clock.advance(1000 - 20 - 1);
    expect(runs).toHaveLength(2);
    await clock.advance(1);
    expect(runs).toHaveLength(3);
  });

  it('drops the state of a deleted resource (after the running reconciliation)', async () => {
    const h = harness({ maxIntervalMs: 1000 });
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    await h.send(h.event('a', 'DELETED'));
    expect(h.ep.trackedResources).toBe(1);
    await h.runs[0].fail();
    expect(h.ep.trackedResources).toBe(0);
    expect(h.clock.pending()).toEqual([]);
    await h.send(h.event('b', 'ADDED'));
    await h.runs[1].finish();
    expect(h.clock.pending()).toEqual([1000]);
    await h.send(h.event('b', 'DELETED'));
    expect(h.ep.trackedResources).toBe(0);
    expect(h.clock.pending()).toEqual([]);
  });

  it('ignores events of a resource whose finalizer was removed until it is deleted', async () => {
    const h = harness();
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    await h.runs[0].finish({ kind: 'cleanup', finalizerRemoved: true });
    h.put('a', { deletionTimestamp: new Date() });
    await h.send({
      resourceId: new ResourceID('a', 'ns'),
      action: 'UPDATED',
      resource: h.cache.get('ns/a')!,
    } as ResourceEvent<R>);
    await h.send(h.generic('a'));
    expect(h.runs).toHaveLength(1);
  });

  it('queues events before start and processes them on start; stop lets running work finish and starts nothing new', async () => {
    const h = harness({ limit: 1 });
    await h.send(h.event('a', 'ADDED'));
    await h.send(h.event('b', 'ADDED'));
    expect(h.runs).toHaveLength(0);
    h.ep.start();
    await settle();
    expect(h.runs).toHaveLength(1);
    h.ep.stop();
    h.executor.shutdown();
    await h.runs[0].finish({ kind: 'reconcile', rescheduleDelayMs: 10 });
    await h.clock.advance(100);
    expect(h.runs).toHaveLength(1);
    expect(h.clock.pending()).toEqual([]);
  });

  it('[OP-07] calls the metrics hooks for events, submissions, starts, successes, failures, retries and cleanup', async () => {
    const seen: string[] = [];
    const metrics: Metrics = {
      receivedEvent: () => seen.push('event'),
      reconcileSubmitted: () => seen.push('submitted'),
      reconciliationStarted: () => seen.push('started'),
      reconcileSucceeded: () => seen.push('succeeded'),
      reconcileFailed: () => seen.push('failed'),
      reconciliationFinished: () => seen.push('finished'),
      retrying: () => seen.push('retrying'),
      cleanupDone: () => seen.push('cleanupDone'),
    };
    const h = harness({ metrics });
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    await h.runs[0].fail();
    await h.clock.advance(2000);
    await h.runs[1].finish();
    await h.send(h.event('a', 'DELETED'));
    expect(seen).toEqual([
      'event',
      'submitted',
      'started',
      'failed',
      'finished',
      'retrying',
      'event',
      'submitted',
      'started',
      'succeeded',
      'finished',
      'event',
      'cleanupDone',
    ]);
  });

  it('keeps work of a stopped processor for the next start (lost and regained leadership)', async () => {
    const h = harness({ limit: 1 });
    h.ep.start();
    await h.send(h.event('a', 'ADDED'));
    await h.send(h.event('b', 'ADDED'));
    expect(h.executor.queued).toBe(1);
    h.ep.stop();
    await h.runs[0].fail();
    // b was queued before the stop: it does not run while stopped
    expect(h.runs).toHaveLength(1);
    h.ep.start();
    await settle();
    await h.runs[1].finish();
    expect(h.runs.map((r) => r.scope.id.name)).toEqual(['a', 'a', 'b']);
  });

  it('forgets events for primaries it does not have (no state leak); their add event brings them back', async () => {
    const h = harness();
    h.ep.start();
    await h.send(h.generic('unknown'));
    expect(h.ep.trackedResources).toBe(0);
    expect(h.runs).toHaveLength(0);
    await h.send(h.event('unknown', 'ADDED'));
    expect(h.runs).toHaveLength(1);
  });

  it('[EP-18] the rate limiter wins over a retry delay: the retry runs when the window allows', async () => {
    const { ep, send, event, runs, clock } = harness({
      retry: new GenericRetry({ initialInterval: 100 }),
      limiter: (c) => new LinearRateLimiter({ refreshPeriodMs: 1000, limitForPeriod: 1, clock: c }),
    });
    ep.start();
    await send(event('a', 'ADDED'));
    await runs[0].fail();
    await clock.advance(100);
    // the retry is due, but the window holds one run: postponed to the window's end, not dropped
    expect(runs).toHaveLength(1);
    await clock.advance(899);
    expect(runs).toHaveLength(1);
    await clock.advance(1);
    expect(runs).toHaveLength(2);
    expect(runs[1].scope.retryInfo).toEqual({ attemptCount: 1, isLastAttempt: false });
  });
});
