import { describe, expect, it } from '@jest/globals';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { defineResource } from '../../api/resource-type.js';
import { LinearRateLimiter } from '../../config/rate-limiter.js';
import { GenericRetry } from '../../config/retry.js';
import { noopLogger } from '../../util/logger.js';
import type { ResourceEvent } from '../event.js';
import { BoundedExecutor } from '../internal/bounded-executor.js';
import { EventProcessor } from '../internal/event-processor.js';
import type { ExecutionScope, PostExecutionControl } from '../internal/execution.js';
import { FakeClock, settle } from './fake-clock.js';

// The event processor keeps max-interval resyncs in one queue with one clock timer instead of a
// timer per resource. These tests drive it as the controller does (events in, reconciliations out)
// and check that every resource still resyncs exactly when its own timer would have fired.

type R = KubernetesResource;
const type = defineResource<R>({ group: 'test.tosdk.io', version: 'v1', kind: 'Thing' });
const INTERVAL = 1_000;

interface Run {
  scope: ExecutionScope<R>;
  finish(post?: PostExecutionControl<R>): Promise<void>;
}

function harness(limit = 10_000) {
  const clock = new FakeClock();
  const cache = new Map<string, R>();
  const runs: Run[] = [];
  const ep = new EventProcessor<R>({
    controller: { name: 'things', resourceType: type },
    cache: { get: (id) => cache.get(id.key) },
    handler: {
      handleExecution: (scope) =>
        new Promise<PostExecutionControl<R>>((resolve) => {
          runs.push({
            scope,
            finish: async (post = { kind: 'reconcile' }) => {
              resolve(post);
              await settle();
            },
          });
        }),
    },
    executor: new BoundedExecutor(limit),
    retry: GenericRetry.defaultLimitedExponentialRetry(),
    rateLimiter: LinearRateLimiter.deactivatedRateLimiter(),
    maxReconciliationIntervalMs: INTERVAL,
    clock,
    metrics: {},
    logger: noopLogger,
  });
  let rv = 0;
  const event = (name: string, action: ResourceEvent['action'] = 'UPDATED'): ResourceEvent<R> => {
    if (action === 'DELETED') {
      const resource = cache.get(`ns/${name}`)!;
      cache.delete(`ns/${name}`);
      return { resourceId: new ResourceID(name, 'ns'), action, resource };
    }
    const resource: R = {
      apiVersion: type.apiVersion,
      kind: type.kind,
      metadata: { name, namespace: 'ns', resourceVersion: String(++rv) },
    };
    cache.set(`ns/${name}`, resource);
    return { resourceId: new ResourceID(name, 'ns'), action, resource };
  };
  const send = async (name: string, action: ResourceEvent['action'] = 'UPDATED') => {
    ep.handleEvent(event(name, action));
    await settle();
  };
  /** An update of `name` without waiting (the caller settles once for many). */
  const update = (name: string) => ep.handleEvent(event(name));
  /** Finishes every run not finished yet. */
  let finished = 0;
  const finishAll = async (post?: PostExecutionControl<R>) => {
    while (finished < runs.length) await runs[finished++].finish(post);
  };
  const names = (from = 0) => runs.slice(from).map((r) => r.scope.id.name);
  return { clock, ep, runs, send, update, finishAll, names };
}

describe('EventProcessor max-interval resyncs', () => {
  it('[EP-14] each resource resyncs exactly one interval after its own last reconciliation', async () => {
    const h = harness();
    h.ep.start();
    await h.send('a', 'ADDED');
    await h.finishAll();
    await h.clock.advance(300);
    await h.send('b', 'ADDED');
    await h.finishAll();
    await h.clock.advance(300);
    await h.send('c', 'ADDED');
    await h.finishAll();
    // t = 600: a due at 1000, b at 1300, c at 1600
    await h.clock.advance(399);
    expect(h.names(3)).toEqual([]);
    await h.clock.advance(1);
    expect(h.names(3)).toEqual(['a']);
    await h.finishAll();
    await h.clock.advance(299);
    expect(h.names(4)).toEqual([]);
    await h.clock.advance(1);
    expect(h.names(4)).toEqual(['b']);
    await h.finishAll();
    await h.clock.advance(300);
    expect(h.names(5)).toEqual(['c']);
    await h.finishAll();
    // a again one interval after its resync ended (t = 1000 + 1000)
    await h.clock.advance(399);
    expect(h.names(6)).toEqual([]);
    await h.clock.advance(1);
    expect(h.names(6)).toEqual(['a']);
  });

  it('[EP-14] a reconciliation in between moves the resync; a delete, a reschedule or a retry replaces it', async () => {
    const h = harness();
    h.ep.start();
    for (const n of ['moved', 'deleted', 'rescheduled', 'failed']) await h.send(n, 'ADDED');
    await h.finishAll();
    // t = 500: each gets something else in its timer slot
    await h.clock.advance(500);
    await h.send('moved');
    await h.send('rescheduled');
    await h.send('failed');
    await h.send('deleted', 'DELETED');
    expect(h.names(4)).toEqual(['moved', 'rescheduled', 'failed']);
    await h.runs[4].finish();
    await h.runs[5].finish({ kind: 'reconcile', rescheduleDelayMs: 2_000 });
    await h.runs[6].finish({ kind: 'reconcile', error: new Error('boom') });
    // t = 1000: none of the four original resyncs fires
    const after = h.runs.length;
    await h.clock.advance(500);
    expect(h.names(after)).toEqual([]);
    // t = 1500: moved's resync (reconciled at 500)
    await h.clock.advance(500);
    expect(h.names(after)).toEqual(['moved']);
    await h.finishAll();
    // t = 2500: rescheduled's own delay, failed's retry (the default policy's first delay, 2 s) and
    // moved's next resync (its resync ended at 1500)
    await h.clock.advance(999);
    expect(h.names(after)).toEqual(['moved']);
    await h.clock.advance(1);
    expect(h.names(after + 1).sort()).toEqual(['failed', 'moved', 'rescheduled']);
    expect(h.names(4)).not.toContain('deleted');
  });

  it('[EP-14] nothing stays armed once no resource waits for a resync (stop, deletes)', async () => {
    const h = harness();
    h.ep.start();
    await h.send('a', 'ADDED');
    await h.send('b', 'ADDED');
    await h.finishAll();
    expect(h.clock.pending()).toEqual([INTERVAL]);
    await h.send('a', 'DELETED');
    await h.send('b', 'DELETED');
    expect(h.clock.pending()).toEqual([]);
    await h.send('c', 'ADDED');
    await h.finishAll();
    expect(h.clock.pending()).toEqual([INTERVAL]);
    h.ep.stop();
    expect(h.clock.pending()).toEqual([]);
    await h.clock.advance(10 * INTERVAL);
    expect(h.names(3)).toEqual([]);
  });

  it('[EP-14] thousands of resources re-armed many times each resync once, at their own time', async () => {
    const h = harness();
    h.ep.start();
    const n = 1_500;
    const all = Array.from({ length: n }, (_, i) => `r${i}`);
    for (const name of all) h.update(name);
    await settle();
    await h.finishAll();
    // three more reconciliations of each, 100 ms apart: the earlier resyncs are replaced each time
    for (let round = 1; round <= 3; round++) {
      await h.clock.advance(100);
      for (const name of all) h.update(name);
      await settle();
      await h.finishAll();
    }
    const before = h.runs.length;
    expect(before).toBe(4 * n);
    // t = 300; the last reconciliations ended at 300: nothing before 1300
    await h.clock.advance(999);
    expect(h.runs.length).toBe(before);
    await h.clock.advance(1);
    expect(h.names(before).sort()).toEqual([...all].sort());
    await h.finishAll();
    await h.clock.advance(INTERVAL - 1);
    expect(h.runs.length).toBe(before + n);
    expect(h.clock.pending()).toEqual([1]);
  });
});
