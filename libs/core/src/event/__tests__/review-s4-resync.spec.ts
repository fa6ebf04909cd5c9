import { describe, expect, it } from '@jest/globals';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { defineResource } from '../../api/resource-type.js';
import { LinearRateLimiter } from '../../config/rate-limiter.js';
import type { RateLimiter } from '../../config/rate-limiter.js';
import { GenericRetry } from '../../config/retry.js';
import type { Retry } from '../../config/retry.js';
import { noopLogger } from '../../util/logger.js';
import type { ResourceEvent } from '../event.js';
import { BoundedExecutor } from '../internal/bounded-executor.js';
import { EventProcessor } from '../internal/event-processor.js';
import type { ExecutionScope, PostExecutionControl } from '../internal/execution.js';
import { FakeClock, settle } from './fake-clock.js';

/**
 * Adversarial review (session 4) of the one-queue max-interval resyncs (0b12115): the timing rules
 * around them (stop with a run in flight, rate limiting of a resync, exhausted retries) must be what
 * one timer per resource gave.
 */
type R = KubernetesResource;
const type = defineResource<R>({ group: 'review.s4.io', version: 'v1', kind: 'Thing' });
const INTERVAL = 1_000;

function bed(options: { rateLimiter?: (clock: FakeClock) => RateLimiter; retry?: Retry } = {}) {
  const clock = new FakeClock();
  const cache = new Map<string, R>();
  const runs: Array<{
    scope: ExecutionScope<R>;
    at: number;
    done: (post?: PostExecutionControl<R>) => Promise<void>;
  }> = [];
  const ep = new EventProcessor<R>({
    controller: { name: 'things', resourceType: type },
    cache: { get: (id) => cache.get(id.key) },
    handler: {
      handleExecution: (scope) =>
        new Promise<PostExecutionControl<R>>((resolve) => {
          runs.push({
            scope,
            at: clock.now(),
            done: async (post = { kind: 'reconcile' }) => {
              resolve(post);
              await settle();
            },
          });
        }),
    },
    executor: new BoundedExecutor(100),
    retry: options.retry ?? GenericRetry.defaultLimitedExponentialRetry(),
    rateLimiter: options.rateLimiter?.(clock) ?? LinearRateLimiter.deactivatedRateLimiter(),
    maxReconciliationIntervalMs: INTERVAL,
    clock,
    metrics: {},
    logger: noopLogger,
  });
  let rv = 0;
  const send = async (name: string, action: ResourceEvent['action'] = 'UPDATED') => {
    const id = new ResourceID(name, 'ns');
    if (action === 'DELETED') {
      const resource = cache.get(id.key)!;
      cache.delete(id.key);
      const event: ResourceEvent = { resourceId: id, action, resource };
      ep.handleEvent(event);
    } else {
      const resource: R = {
        apiVersion: type.apiVersion,
        kind: type.kind,
        metadata: { name, namespace: 'ns', resourceVersion: String(++rv) },
      };
      cache.set(id.key, resource);
      const event: ResourceEvent = { resourceId: id, action, resource };
      ep.handleEvent(event);
    }
    await settle();
  };
  let finished = 0;
  const finishAll = async (post?: PostExecutionControl<R>) => {
    while (finished < runs.length) await runs[finished++].done(post);
  };
  /** The runs from `from` on, as `name@time` (time relative to the start). */
  const start = clock.now();
  const seen = (from = 0) => runs.slice(from).map((r) => `${r.scope.id.name}@${r.at - start}`);
  return { clock, ep, runs, send, finishAll, seen };
}

describe('review s4: max-interval resyncs in one queue (0b12115)', () => {
  it('[EP-14] a reconciliation that ends after stop arms nothing; no resync runs while stopped; after a restart an event reconciles and resyncs one interval later', async () => {
    const b = bed();
    b.ep.start();
    await b.send('a', 'ADDED');
    await b.send('b', 'ADDED');
    await b.finishAll();
    await b.clock.advance(500);
    await b.send('a');
    // a's run is in flight when the operator stops
    const inFlight = b.runs.length - 1;
    b.ep.stop();
    expect(b.clock.pending()).toEqual([]);
    await b.runs[inFlight].done();
    expect(b.clock.pending()).toEqual([]);
    await b.clock.advance(10 * INTERVAL);
    expect(b.seen(inFlight + 1)).toEqual([]);
    // restarted: a new event reconciles, and its resync comes one interval after that run
    b.ep.start();
    const from = b.runs.length;
    await b.send('b');
    expect(b.seen(from)).toEqual(['b@10500']);
    await b.finishAll();
    await b.clock.advance(INTERVAL - 1);
    expect(b.seen(from + 1)).toEqual([]);
    await b.clock.advance(1);
    expect(b.seen(from + 1)).toEqual(['b@11500']);
  });

  it('[EP-14] a rate-limited resync waits for its window; the queue goes on with the resyncs armed after it', async () => {
    // one reconciliation per resource per 5 s
    const r = bed({
      rateLimiter: (clock) => new LinearRateLimiter({ limitForPeriod: 1, refreshPeriodMs: 5_000, clock }),
    });
    r.ep.start();
    await r.send('a', 'ADDED'); // t=0: a's window has its one run
    await r.finishAll();
    await r.clock.advance(100);
    await r.send('b', 'ADDED'); // t=100: b's window has its one run
    await r.finishAll();
    // the resyncs at 1000 and 1100 are limited: each waits for the end of its own window
    await r.clock.advance(4_999 - 100);
    expect(r.seen(2)).toEqual([]);
    await r.clock.advance(1);
    expect(r.seen(2)).toEqual(['a@5000']);
    await r.finishAll();
    await r.clock.advance(100);
    expect(r.seen(2)).toEqual(['a@5000', 'b@5100']);
    await r.finishAll();
    // their next resyncs (6000, 6100) are limited again, to the end of the windows they opened
    await r.clock.advance(10_000 - 5_100 - 1);
    expect(r.seen(4)).toEqual([]);
    await r.clock.advance(1);
    await r.finishAll();
    await r.clock.advance(100);
    expect(r.seen(4)).toEqual(['a@10000', 'b@10100']);
  });

  it('[EP-14] a resource whose retries are exhausted resyncs one interval after its last failure, in order with the others', async () => {
    const b = bed({ retry: GenericRetry.noRetry() });
    b.ep.start();
    await b.send('ok1', 'ADDED');
    await b.finishAll();
    await b.clock.advance(200);
    await b.send('bad', 'ADDED');
    await b.finishAll({ kind: 'reconcile', error: new Error('boom') });
    await b.clock.advance(200);
    await b.send('ok2', 'ADDED');
    await b.finishAll();
    // ok1 due 1000, bad 1200, ok2 1400
    await b.clock.advance(1_400 - 400);
    expect(b.seen(3)).toEqual(['ok1@1000', 'bad@1200', 'ok2@1400']);
  });
});
