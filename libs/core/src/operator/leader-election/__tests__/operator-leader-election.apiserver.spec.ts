import { describe, it, expect, beforeAll, afterAll, afterEach } from '@jest/globals';
import type { KubeApiServer } from '@tosdk/apiserver';
import type { KubernetesClient } from '../../../client/kubernetes-client.js';
import { Operator } from '../../operator.js';
import type { LeaderElectionConfiguration } from '../leader-election-configuration.js';
import { newNamespace, RecordingReconciler, startServer, Widget, widget } from '../../__tests__/support.js';
import { until } from './until.js';

let server: KubeApiServer;
let admin: KubernetesClient;
const operators: Operator[] = [];
const samplers: Array<ReturnType<typeof setInterval>> = [];

beforeAll(async () => {
  ({ server, client: admin } = await startServer());
});
afterEach(async () => {
  for (const timer of samplers.splice(0)) clearInterval(timer);
  server?.faults.clear();
  await Promise.all(operators.splice(0).map((o) => o.stop()));
});
afterAll(async () => {
  admin?.close();
  await server?.stop();
});

/** Two operators competing for one lease, each with its own recording reconciler of Widgets. */
async function pair(namespace: string, leaseName: string) {
  const election = (identity: string): LeaderElectionConfiguration => ({
    leaseName,
    leaseNamespace: namespace,
    identity,
    leaseDurationMs: 2_000,
    renewDeadlineMs: 1_500,
    retryPeriodMs: 250,
    exitOnStopLeading: false,
  });
  const make = (identity: string) => {
    const reconciler = new RecordingReconciler();
    const op = new Operator({ kubeConfig: server.kubeConfig(), leaderElection: election(identity) });
    op.register(reconciler, { resourceType: Widget, name: 'widgets', namespaces: [namespace] });
    operators.push(op);
    return { op, reconciler };
  };
  const a = make('operator-a');
  const b = make('operator-b');
  await a.op.start();
  await until('operator-a leads', () => a.op.runtimeInfo.isLeader());
  await b.op.start();
  let overlaps = 0;
  const sampler = setInterval(() => {
    if (a.op.runtimeInfo.isLeader() && b.op.runtimeInfo.isLeader()) overlaps++;
  }, 2);
  samplers.push(sampler);
  return { a, b, overlaps: () => overlaps, stopSampling: () => clearInterval(sampler) };
}

const ranOn = (r: RecordingReconciler, name: string) => r.runs.some((run) => run.name === name);

describe('Operator with leader election', () => {
  it('[OP-01] both instances start (caches warm), only the leader reconciles; the standby takes over when the leader stops', async () => {
    const ns = await newNamespace(admin);
    const { a, b, overlaps, stopSampling } = await pair(ns, 'widgets-stop');
    expect(a.op.runtimeInfo.isStarted()).toBe(true);
    expect(b.op.runtimeInfo.isStarted()).toBe(true);
    expect(b.op.runtimeInfo.allEventSourcesHealthy()).toBe(true);
    expect(b.op.runtimeInfo.isLeader()).toBe(false);

    await admin.create(Widget, widget('w1', ns));
    await until('the leader reconciles w1', () => ranOn(a.reconciler, 'w1'));
    await admin.create(Widget, widget('w2', ns));
    await until('the leader reconciles w2', () => ranOn(a.reconciler, 'w2'));
    expect(b.reconciler.runs).toHaveLength(0);

    await a.op.stop();
    await until('operator-b leads', () => b.op.runtimeInfo.isLeader());
    await admin.create(Widget, widget('w3', ns));
    await until('the new leader reconciles w3', () => ranOn(b.reconciler, 'w3'));
    expect(ranOn(a.reconciler, 'w3')).toBe(false);
    stopSampling();
    expect(overlaps()).toBe(0);
  });

  it('[OP-01] a leader that loses the lease stops reconciling and the standby takes over, never both', async () => {
    const ns = await newNamespace(admin);
    const { a, b, overlaps, stopSampling } = await pair(ns, 'widgets-lost');
    await admin.create(Widget, widget('w1', ns));
    await until('the leader reconciles w1', () => ranOn(a.reconciler, 'w1'));

    // the leader's renewals fail from now on (so do everyone's lease writes)
    server.faults.failNext({
      verb: 'update',
      resource: 'leases',
      namespace: ns,
      code: 503,
      times: 1_000_000,
    });
    await until('operator-a loses the lease', () => !a.op.runtimeInfo.isLeader());
    expect(b.op.runtimeInfo.isLeader()).toBe(false);
    await admin.create(Widget, widget('w2', ns)); // nobody leads: nobody may reconcile it
    // JOSDK exits the process here (exitOnStopLeading); a test cannot, so it stops the operator, whose
    // release fails like every lease write: the standby must wait for the lease to expire
    await a.op.stop();
    server.faults.clear();
    await until('operator-b leads', () => b.op.runtimeInfo.isLeader());

    await admin.create(Widget, widget('w3', ns));
    await until('the new leader reconciles w3', () => ranOn(b.reconciler, 'w3'));
    expect(ranOn(a.reconciler, 'w2')).toBe(false);
    expect(ranOn(a.reconciler, 'w3')).toBe(false);
    stopSampling();
    expect(overlaps()).toBe(0);
  });
});
