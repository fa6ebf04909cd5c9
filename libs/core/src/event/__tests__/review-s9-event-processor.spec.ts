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

/**
 * Review s9: the event processor's per-resource state when an object is deleted and created again
 * under the same name while a reconciliation of the old one runs (`kubectl replace --force`, a
 * GitOps tool recreating it, a Job-like resource recycled by name).
 */
type R = KubernetesResource;
const type = defineResource<R>({ group: 'test.tosdk.io', version: 'v1', kind: 'Thing' });

function harness() {
  const clock = new FakeClock();
  const cache = new Map<string, R>();
  const runs: Array<{ scope: ExecutionScope<R>; finish(post?: PostExecutionControl<R>): Promise<void> }> = [];
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
    executor: new BoundedExecutor(10),
    retry: GenericRetry.defaultLimitedExponentialRetry(),
    rateLimiter: LinearRateLimiter.deactivatedRateLimiter(),
    clock,
    metrics: {},
    logger: noopLogger,
  });
  let rv = 0;
  const id = new ResourceID('a', 'ns');
  const put = (uid: string, extra: Partial<NonNullable<R['metadata']>> = {}): R => {
    const r: R = {
      apiVersion: type.apiVersion,
      kind: type.kind,
      metadata: { name: 'a', namespace: 'ns', uid, resourceVersion: String(++rv), ...extra },
    };
    cache.set(id.key, r);
    return r;
  };
  const send = async (action: ResourceEvent['action'], resource: R) => {
    if (action === 'DELETED') cache.delete(id.key);
    ep.handleEvent({ resourceId: id, action, resource } as ResourceEvent<R>);
    await settle();
  };
  return { clock, runs, ep, put, send };
}

describe('review s9: EventProcessor, deleted and created again during a reconciliation', () => {
  it("[FINDING S9-LE5] the new object is reconciled after the old one's run ends", async () => {
    const h = harness();
    h.ep.start();
    const old = h.put('uid-1');
    await h.send('ADDED', old);
    expect(h.runs).toHaveLength(1);
    await h.send('DELETED', old);
    await h.send('ADDED', h.put('uid-2'));
    await h.runs[0].finish();
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1].scope.resource.metadata?.uid).toBe('uid-2');
    // a fresh start: no retry info of the old object
    expect(h.runs[1].scope.retryInfo).toBeUndefined();
  });

  it('[FINDING S9-LE5] also when the old run was the cleanup that removed the finalizer', async () => {
    const h = harness();
    h.ep.start();
    const old = h.put('uid-1', { deletionTimestamp: new Date(), finalizers: ['things/finalizer'] });
    await h.send('UPDATED', old);
    expect(h.runs).toHaveLength(1);
    const gone = h.put('uid-1', { deletionTimestamp: new Date() });
    await h.send('DELETED', gone);
    await h.send('ADDED', h.put('uid-2'));
    await h.runs[0].finish({ kind: 'cleanup', finalizerRemoved: true });
    expect(h.runs).toHaveLength(2);
    expect(h.runs[1].scope.resource.metadata?.uid).toBe('uid-2');
  });

  it('[FINDING S9-LE5] a failed run of the old object does not hand its retry to the new one', async () => {
    const h = harness();
    h.ep.start();
    const old = h.put('uid-1');
    await h.send('ADDED', old);
    await h.runs[0].finish({ kind: 'reconcile', error: new Error('boom') });
    // the retry runs (attempt 1) and waits
    await h.clock.advance(2_000);
    expect(h.runs).toHaveLength(2);
    await h.send('DELETED', old);
    await h.send('ADDED', h.put('uid-2'));
    await h.runs[1].finish({ kind: 'reconcile', error: new Error('boom') });
    expect(h.runs).toHaveLength(3);
    expect(h.runs[2].scope.resource.metadata?.uid).toBe('uid-2');
    expect(h.runs[2].scope.retryInfo).toBeUndefined();
  });
});
