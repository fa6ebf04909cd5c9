import { describe, expect, it } from '@jest/globals';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { defineResource } from '../../api/resource-type.js';
import { LinearRateLimiter } from '../../config/rate-limiter.js';
import { GenericRetry } from '../../config/retry.js';
import { noopLogger } from '../../util/logger.js';
import { ReconcilePriority } from '../event.js';
import type { Event } from '../event.js';
import { BoundedExecutor } from '../internal/bounded-executor.js';
import type { QueuedTask } from '../internal/bounded-executor.js';
import { EventProcessor } from '../internal/event-processor.js';
import type { PostExecutionControl } from '../internal/execution.js';
import { FakeClock, settle } from './fake-clock.js';

type R = KubernetesResource;
const type = defineResource<R>({ group: 'test.tosdk.io', version: 'v1', kind: 'Thing' });

/** An executor of one thread, its first task holding it until `release`. */
function blocked() {
  const order: string[] = [];
  const executor = new BoundedExecutor(1);
  let release!: () => void;
  executor.submit(() => new Promise<void>((resolve) => (release = resolve)));
  const task = (name: string) => async () => void order.push(name);
  return { executor, order, task, release: () => release() };
}

describe('priority queue (issue 15 §4)', () => {
  it('[EP-11] waiting tasks start by priority, FIFO within one; a waiting task can be promoted', async () => {
    const { executor, order, task, release } = blocked();
    executor.submit(task('low-1'), ReconcilePriority.LOW);
    executor.submit(task('normal-1'));
    const low2 = executor.submit(task('low-2'), ReconcilePriority.LOW);
    executor.submit(task('high'), ReconcilePriority.HIGH);
    executor.submit(task('low-3'), ReconcilePriority.LOW);
    executor.submit(task('normal-2'));
    expect(executor.queued).toBe(6);
    if (low2) low2.promote(ReconcilePriority.NORMAL);
    release();
    await settle();
    // low-2 joined the normal lane in its submission order (before normal-2, after normal-1)
    expect(order).toEqual(['high', 'normal-1', 'low-2', 'normal-2', 'low-1', 'low-3']);
    expect(executor.queued).toBe(0);
  });

  it('[EP-11] a backlog of thousands keeps FIFO order within a priority, and tasks of it can still be promoted', async () => {
    const { executor, order, task, release } = blocked();
    const handles: Array<QueuedTask | false> = [];
    for (let i = 0; i < 3000; i++) handles.push(executor.submit(task(`n${i}`)));
    const lateLow = executor.submit(task('late-low'), ReconcilePriority.LOW);
    // promoted from the middle and from the end of the backlog: they go first, in submission order
    const promote = (handle: QueuedTask | false) => {
      if (!handle) throw new Error('the task was refused');
      handle.promote(ReconcilePriority.HIGH);
    };
    promote(handles[2500]);
    promote(handles[1200]);
    expect(executor.queued).toBe(3001);
    release();
    await settle();
    const expected = ['n1200', 'n2500'];
    for (let i = 0; i < 3000; i++) if (i !== 1200 && i !== 2500) expected.push(`n${i}`);
    expected.push('late-low');
    expect(order).toEqual(expected);
    expect(executor.queued).toBe(0);
    if (lateLow) lateLow.promote(ReconcilePriority.HIGH); // started already: no effect, no throw
    // the emptied queue takes and orders new work as a fresh one does
    const again = blocked();
    again.executor.submit(again.task('b'));
    again.executor.submit(again.task('a'), ReconcilePriority.HIGH);
    again.release();
    await settle();
    expect(again.order).toEqual(['a', 'b']);
  });

  it('[EP-11] a changed resource is reconciled before the backlog of a list and of resyncs; a run waiting with low priority is promoted by a change', async () => {
    const clock = new FakeClock();
    const cache = new Map<string, R>();
    const started: string[] = [];
    const finishers: Array<() => void> = [];
    const executor = new BoundedExecutor(1);
    const ep = new EventProcessor<R>({
      controller: { name: 'things', resourceType: type },
      cache: { get: (id) => cache.get(id.key) },
      handler: {
        handleExecution: (scope) =>
          new Promise<PostExecutionControl<R>>((resolve) => {
            started.push(scope.id.name);
            finishers.push(() => resolve({ kind: 'reconcile' }));
          }),
      },
      executor,
      retry: GenericRetry.defaultLimitedExponentialRetry(),
      rateLimiter: LinearRateLimiter.deactivatedRateLimiter(),
      clock,
      metrics: {},
      logger: noopLogger,
    });
    ep.start();
    const send = (name: string, priority?: number): void => {
      cache.set(`ns/${name}`, {
        apiVersion: type.apiVersion,
        kind: type.kind,
        metadata: { name, namespace: 'ns' },
      });
      const event: Event = {
        resourceId: new ResourceID(name, 'ns'),
        ...(priority === undefined ? {} : { priority }),
      };
      ep.handleEvent(event);
    };
    // the initial list: a backlog of low-priority adds; the first takes the only thread
    for (const name of ['l0', 'l1', 'l2', 'l3']) send(name, ReconcilePriority.LOW);
    // a new resource, and a change of one waiting in the backlog
    send('new');
    send('l3');
    const next = async (): Promise<void> => {
      finishers.shift()!();
      await settle();
    };
    await settle();
    for (let i = 0; i < 6; i++) await next();
    // l3's change came while its run was waiting: the run was promoted (keeping its place in
    // submission order among normal runs), and (as for any event after a submission) one more run
    // follows with the priority of that change; the backlog waits for both
    expect(started).toEqual(['l0', 'l3', 'new', 'l3', 'l1', 'l2']);
  });
});
