import { describe, expect, it, jest } from '@jest/globals';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import type { Event } from '../../event/event.js';
import type { LogFields, Logger } from '../../util/logger.js';
import { systemClock } from '../../util/clock.js';
import type { Clock } from '../../util/clock.js';
import { LeaderElector } from '../leader-election/leader-elector.js';
import {
  apiServerSuite,
  gate,
  newNamespace,
  RecordingReconciler,
  waitFor,
  Widget,
  widget,
} from './support.js';

/**
 * Review s9 (leader election and the event processor's scheduling around it): what a user of an
 * operator with several replicas sees when leadership moves, when the operator stops, when the
 * replica is busy and when the wall clock jumps.
 */
const suite = apiServerSuite();
jest.setTimeout(60_000);

/** Every line logged, with its level (children share the list). */
function capturingLogger(lines: Array<{ level: string; message: string }> = []): Logger & {
  lines: Array<{ level: string; message: string }>;
} {
  const at =
    (level: string) =>
    (message: string, _fields?: LogFields): void =>
      void lines.push({ level, message });
  const logger = {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

/** A MicroTime of now, as a Lease holds it. */
const microNow = () => new Date().toISOString().replace('Z', '000Z');

/** Writes the lease as another holder would (an intruder, kubectl), for `seconds`. */
async function stealLease(ns: string, leaseName: string, seconds: number): Promise<void> {
  const now = microNow();
  await suite.admin.mergePatch(ResourceTypes.Lease, new ResourceID(leaseName, ns), {
    spec: { holderIdentity: 'intruder', renewTime: now, acquireTime: now, leaseDurationSeconds: seconds },
  });
}

/**
 * An operator leading `leaseName` in `ns` (one reconcile thread, client-go's lease proportions with
 * room for load) whose reconciler waits while `holding` is closed; `received` lists the names of the
 * events that reached its event processor, `executor` the executor's last counts.
 */
function gatedLeader(ns: string, leaseName: string) {
  const ctx = {
    holding: undefined as ReturnType<typeof gate> | undefined,
    received: [] as string[],
    executor: { queued: 0, inFlight: 0 },
  };
  const r = new RecordingReconciler(async () => {
    await ctx.holding?.promise;
    const { UpdateControl } = await import('../../api/controls.js');
    return UpdateControl.noUpdate();
  });
  const op = suite.operator({
    concurrentReconciliationThreads: 1,
    metrics: {
      receivedEvent: (event: Event) => void ctx.received.push(event.resourceId.name),
      executorChanged: (queued: number, inFlight: number) => void (ctx.executor = { queued, inFlight }),
    },
    leaderElection: {
      leaseName,
      leaseNamespace: ns,
      identity: 'a',
      exitOnStopLeading: false,
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 200,
    },
  });
  op.register(r, { resourceType: Widget, name: leaseName, namespaces: [ns] });
  return { ctx, r, op };
}

/**
 * After the lease came back to `leader` (runs before it: `before`), with its first run waiting on
 * `ctx.holding`: a resource created now is reconciled right after the run in progress, not behind
 * the backlog.
 */
async function freshGoesFirstAfterRegain(
  ns: string,
  { ctx, r, op }: ReturnType<typeof gatedLeader>,
  before: number,
): Promise<void> {
  await waitFor(() => op.runtimeInfo.isLeader(), 'regained the lease', 15_000);
  await waitFor(() => r.active === 1, 'the first run after the regain waits');
  await suite.admin.create(Widget, widget('fresh', ns));
  await waitFor(() => ctx.received.includes('fresh'), 'the new resource reached the event processor');
  ctx.holding!.open();
  await waitFor(() => r.of('fresh').length === 1, 'the new resource is reconciled', 20_000);
  const after = r.runs.slice(before).map((x) => x.name);
  // right after the run in progress (index 1); a little later if the lease flapped under load,
  // never behind the backlog (index N - 1 and more before the fix)
  expect(after.indexOf('fresh')).toBeGreaterThan(0);
  expect(after.indexOf('fresh')).toBeLessThan(4);
}

describe('review s9: leader election', () => {
  it('[FINDING S9-LE1] losing the lease during a graceful stop() does not call exit (JOSDK: stoppingGracefully)', async () => {
    const ns = await newNamespace(suite.admin);
    const exit = jest.fn<(code: number) => void>();
    const logger = capturingLogger();
    const held = gate();
    const r = new RecordingReconciler(async (_w, _c: Context<Widget>) => {
      await held.promise;
      const { UpdateControl } = await import('../../api/controls.js');
      return UpdateControl.noUpdate();
    });
    const op = suite.operator({
      logger,
      terminationTimeoutMs: 30_000,
      leaderElection: {
        leaseName: 'graceful',
        leaseNamespace: ns,
        identity: 'a',
        leaseDurationMs: 2_000,
        renewDeadlineMs: 1_500,
        retryPeriodMs: 100,
        exit,
      },
    });
    op.register(r, { resourceType: Widget, name: 'graceful', namespaces: [ns] });
    await op.start();
    await waitFor(() => op.runtimeInfo.isLeader(), 'leading');
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => r.active === 1, 'a reconciliation runs (and waits)');

    // a graceful stop: the running reconciliation gets terminationTimeoutMs to finish ...
    const stopped = op.stop();
    // ... and meanwhile someone else gets the lease (or renewals fail until the deadline)
    await stealLease(ns, 'graceful', 30);
    await waitFor(() => logger.lines.some((l) => /lost leadership/.test(l.message)), 'the loss is noticed');
    held.open();
    await stopped;
    // README and OperatorLeaderElectionConfiguration.exit: "never called on a graceful stop()"
    expect(exit).not.toHaveBeenCalled();
  });

  it('[FINDING S9-LE2] after leadership is regained, a resource created then is not queued behind every cached primary', async () => {
    const ns = await newNamespace(suite.admin);
    const N = 25;
    const leader = gatedLeader(ns, 'regain-order');
    const { ctx, r, op } = leader;
    await op.start();
    await waitFor(() => op.runtimeInfo.isLeader(), 'leading');
    for (let i = 0; i < N; i++) await suite.admin.create(Widget, widget(`old-${i}`, ns));
    await waitFor(() => new Set(r.runs.map((x) => x.name)).size === N && r.active === 0, 'all reconciled');

    ctx.holding = gate();
    await stealLease(ns, 'regain-order', 1);
    await waitFor(() => !op.runtimeInfo.isLeader(), 'lost the lease');
    // the regain queues every cached primary once (timers were dropped); the first one runs and waits
    await freshGoesFirstAfterRegain(ns, leader, r.runs.length);
  });

  it('[FINDING S9-LE2] the initial-list backlog still queued when the lease is lost stays behind new resources after the regain', async () => {
    const ns = await newNamespace(suite.admin);
    const N = 20;
    for (let i = 0; i < N; i++) await suite.admin.create(Widget, widget(`listed-${i}`, ns));
    const leader = gatedLeader(ns, 'regain-backlog');
    const { ctx, r, op } = leader;
    const first = (ctx.holding = gate());
    await op.start();
    // the initial list's backlog: one run waits, N - 1 are queued
    await waitFor(() => r.active === 1 && ctx.executor.queued === N - 1, 'the backlog is queued');
    await stealLease(ns, 'regain-backlog', 1);
    await waitFor(() => !op.runtimeInfo.isLeader(), 'lost the lease');
    ctx.holding = gate();
    first.open();
    // the queued runs leave the executor without reconciling (not leading); they are kept for later
    await waitFor(() => ctx.executor.queued === 0 && ctx.executor.inFlight === 0, 'the queue drained');
    expect(r.runs).toHaveLength(1);
    await freshGoesFirstAfterRegain(ns, leader, r.runs.length);
  });

  it('[FINDING S9-LE5] a resource deleted and created again while its reconciliation runs is reconciled (the new object is not dropped with the old state)', async () => {
    const ns = await newNamespace(suite.admin);
    const held = gate();
    const seen: string[] = [];
    const r = new RecordingReconciler(async (w) => {
      if (w.spec?.value === 'old') await held.promise;
      const { UpdateControl } = await import('../../api/controls.js');
      return UpdateControl.noUpdate();
    });
    const op = suite.operator({
      metrics: {
        receivedEvent: (event: Event) => {
          const action = (event as { action?: string }).action;
          if (action) seen.push(`${action} ${event.resourceId.name}`);
        },
      },
    });
    op.register(r, { resourceType: Widget, name: 'recreate', namespaces: [ns] });
    await op.start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'old' }));
    await waitFor(() => r.active === 1, 'the old object is being reconciled');
    await suite.admin.delete(Widget, new ResourceID('w', ns));
    await waitFor(() => seen.includes('DELETED w'), 'the delete reached the event processor');
    await suite.admin.create(Widget, widget('w', ns, { value: 'new' }));
    await waitFor(() => seen.filter((x) => x === 'ADDED w').length === 2, 'the new add reached it');
    held.open();
    // controller-runtime reconciles the key again; JOSDK throws IllegalStateException ("Cannot
    // receive event after a delete event received") in handleEvent and loses it too
    await waitFor(() => r.runs.some((x) => x.value === 'new'), 'the new object is reconciled', 5_000);
  });

  it('[FINDING S9-LE7] a reconciliation that blocks the event loop past the renew deadline cannot write afterwards (the lease is no longer valid)', async () => {
    const ns = await newNamespace(suite.admin);
    const CM = ResourceTypes.ConfigMap;
    const outcome: { leaderAtWrite?: boolean; error?: string; done: boolean } = { done: false };
    const r = new RecordingReconciler(async (w, context) => {
      const { UpdateControl } = await import('../../api/controls.js');
      if (w.metadata!.name !== 'busy' || r.of('busy').length > 1) return UpdateControl.noUpdate();
      // CPU-bound work (a large diff, a template) that keeps the event loop busy beyond the renew
      // deadline: no timer, so neither a renewal nor the deadline's step-down, runs meanwhile
      const until = Date.now() + 2_500;
      while (Date.now() < until) {
        // busy
      }
      outcome.leaderAtWrite = op.runtimeInfo.isLeader();
      try {
        await context.client.create(CM, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'written-late', namespace: ns },
          data: { by: 'a' },
        });
      } catch (error) {
        outcome.error = (error as Error).name;
      } finally {
        outcome.done = true;
      }
      return UpdateControl.noUpdate();
    });
    const op = suite.operator({
      leaderElection: {
        leaseName: 'blocked',
        leaseNamespace: ns,
        identity: 'a',
        leaseDurationMs: 2_000,
        renewDeadlineMs: 1_500,
        retryPeriodMs: 250,
        exitOnStopLeading: false,
      },
    });
    op.register(r, { resourceType: Widget, name: 'blocked', namespaces: [ns] });
    await op.start();
    await waitFor(() => op.runtimeInfo.isLeader(), 'leading');
    await suite.admin.create(Widget, widget('busy', ns));
    await waitFor(() => outcome.done, 'the blocking reconciliation tried its write', 20_000);
    expect(outcome.leaderAtWrite).toBe(false);
    // a standby in another process may hold the lease by now: the write must not be sent
    expect(outcome.error).toBe('ReconcileAbandonedError');
    expect(await suite.admin.get(CM, new ResourceID('written-late', ns))).toBeUndefined();
  });

  it('[FINDING S9-LE3] lease renewals do not queue behind busy reconciliations on the shared connections (the leader keeps the lease)', async () => {
    const ns = await newNamespace(suite.admin);
    const exit = jest.fn<(code: number) => void>();
    const CM = ResourceTypes.ConfigMap;
    let done = 0;
    const r = new RecordingReconciler(async (w, context) => {
      // a slow API call of the reconciler (a busy API server, a large list)
      await context.client.get(CM, new ResourceID(`${w.metadata!.name}-cm`, ns));
      done++;
      const { UpdateControl } = await import('../../api/controls.js');
      return UpdateControl.noUpdate();
    });
    const op = suite.operator({
      concurrentReconciliationThreads: 6,
      clientOptions: { maxSockets: 3 },
      leaderElection: {
        leaseName: 'busy',
        leaseNamespace: ns,
        identity: 'a',
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 250,
        exit,
      },
    });
    op.register(r, { resourceType: Widget, name: 'busy', namespaces: [ns] });
    await op.start();
    await waitFor(() => op.runtimeInfo.isLeader(), 'leading');
    suite.server.faults.addLatency({ verb: 'get', resource: 'configmaps', namespace: ns, ms: 2_500 });
    for (let i = 0; i < 6; i++) await suite.admin.create(Widget, widget(`w${i}`, ns));
    await waitFor(() => done === 6, 'every slow reconciliation finished', 30_000);
    expect(exit).not.toHaveBeenCalled();
    expect(op.runtimeInfo.isLeader()).toBe(true);
  });

  it('[FINDING S9-LE8] a Lease deleted by someone else while a leader holds it is not taken by a standby before the leader could have lost it', async () => {
    const ns = await newNamespace(suite.admin);
    const clients: KubernetesClient[] = [];
    const electors: LeaderElector[] = [];
    const make = (identity: string, retryPeriodMs: number) => {
      const client = KubernetesClient.fromKubeConfig(suite.server.kubeConfig());
      clients.push(client);
      const elector = new LeaderElector(
        {
          leaseName: 'deleted',
          leaseNamespace: ns,
          identity,
          leaseDurationMs: 3_000,
          renewDeadlineMs: 2_000,
          retryPeriodMs,
          exitOnStopLeading: false,
        },
        client,
      );
      electors.push(elector);
      return elector;
    };
    let overlaps = 0;
    const sampler = setInterval(() => {
      if (electors.filter((e) => e.isLeader()).length > 1) overlaps++;
    }, 2);
    try {
      const a = make('a', 1_000);
      a.run({ onStartLeading: () => undefined, onStopLeading: () => undefined });
      await waitFor(() => a.isLeader(), 'a leads');
      const b = make('b', 100);
      b.run({ onStartLeading: () => undefined, onStopLeading: () => undefined });
      await waitFor(() => b.currentLeader() === 'a', 'b sees a holding the lease');
      await suite.admin.delete(ResourceTypes.Lease, new ResourceID('deleted', ns));
      // a recreates the lease at its next renewal (within a second); b must not have led meanwhile
      const holders = new Set<string>();
      await waitFor(async () => {
        const lease = await suite.admin.get(ResourceTypes.Lease, new ResourceID('deleted', ns));
        if (lease?.spec?.holderIdentity) holders.add(lease.spec.holderIdentity);
        return holders.size > 0 && (a.isLeader() || b.isLeader());
      }, 'the lease exists again with a leader');
      await waitFor(() => a.state === 'Leading' || b.state === 'Leading', 'someone leads');
      expect(overlaps).toBe(0);
      // the leader that held it keeps it: nobody could know it had stopped
      expect([...holders]).toEqual(['a']);
    } finally {
      clearInterval(sampler);
      await Promise.all(electors.map((e) => e.stop()));
      for (const c of clients) c.close();
    }
  });

  it('[FINDING S9-LE4] a standby whose wall clock jumps forward does not take over a lease the leader keeps renewing', async () => {
    const ns = await newNamespace(suite.admin);
    const clients: KubernetesClient[] = [];
    const electors: LeaderElector[] = [];
    const make = (identity: string, retryPeriodMs: number, clock: Clock) => {
      const client = KubernetesClient.fromKubeConfig(suite.server.kubeConfig());
      clients.push(client);
      const elector = new LeaderElector(
        {
          leaseName: 'jump',
          leaseNamespace: ns,
          identity,
          leaseDurationMs: 10_000,
          renewDeadlineMs: 1_500,
          retryPeriodMs,
          exitOnStopLeading: false,
        },
        client,
        { clock },
      );
      electors.push(elector);
      return elector;
    };
    let offset = 0;
    // the wall clock (what now() reads) jumps; elapsed time does not (NTP step, VM resumed)
    const jumping: Clock = { ...systemClock, now: () => systemClock.now() + offset };
    try {
      const a = make('a', 500, systemClock);
      let aLost = false;
      a.run({ onStartLeading: () => undefined, onStopLeading: () => void (aLost = true) });
      await waitFor(() => a.isLeader(), 'a leads');
      const b = make('b', 100, jumping);
      let bLed = false;
      b.run({ onStartLeading: () => void (bLed = true), onStopLeading: () => undefined });
      await waitFor(() => b.currentLeader() === 'a', 'b sees a holding the lease');
      offset = 60_000;
      // a renews every ~500 ms; wait for four of its renewals
      const renewTime = async () =>
        (await suite.admin.get(ResourceTypes.Lease, new ResourceID('jump', ns)))?.spec?.renewTime;
      const seen = new Set<unknown>();
      await waitFor(async () => {
        seen.add(await renewTime());
        return seen.size >= 5 || bLed;
      }, 'four renewals of a');
      // client-go compares with the monotonic clock (time.Time's monotonic reading): a jump of the
      // wall clock does not expire a lease that is being renewed
      expect(bLed).toBe(false);
      expect(aLost).toBe(false);
    } finally {
      await Promise.all(electors.map((e) => e.stop()));
      for (const c of clients) c.close();
    }
  });
});
