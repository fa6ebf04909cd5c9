import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import { ResourceTypes } from '../../../api/builtin-types.js';
import { ResourceID } from '../../../api/resource-id.js';
import { defineResource } from '../../../api/resource-type.js';
import type { KubernetesResource } from '../../../api/resource-type.js';
import { KubernetesClient } from '../../../client/kubernetes-client.js';
import { Operator } from '../../operator.js';
import type { OperatorLeaderElectionConfiguration } from '../../operator-leader-election.js';
import { gate, newNamespace, Widget, widget } from '../../__tests__/support.js';
import { FaultyProxy } from './faulty-proxy.js';
import { until } from './until.js';

// Leader election under the three ways a leader fails in production (its lease requests fail, its
// connections are refused, its traffic is black-holed), and a graceful hand-over. Each instance
// reaches the API server through its own proxy, as its own user, so the test can break one
// instance's network and count what each instance wrote.

let server: KubeApiServer;
let admin: KubernetesClient;
const cleanups: Array<() => Promise<void> | void> = [];

/** A KubeConfig for `user` against a plain-HTTP URL (client-node wants skipTLSVerify for http:). */
function kubeConfigFor(url: string, user: string, namespace = 'default'): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: user, token: server.tokenOf(user) }],
    contexts: [{ name: 'c', cluster: 'c', user, namespace }],
    currentContext: 'c',
  });
  return kc;
}

const CRD = defineResource<KubernetesResource & { spec: unknown }>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

beforeAll(async () => {
  // plain HTTP, so a small HTTP proxy can fail one instance's lease requests
  server = await KubeApiServer.start({
    tls: false,
    users: [
      { name: 'op-a', token: 'token-a', groups: ['system:masters'] },
      { name: 'op-b', token: 'token-b', groups: ['system:masters'] },
    ],
  });
  admin = KubernetesClient.fromKubeConfig(kubeConfigFor(server.url, 'admin'));
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  await admin.create(CRD, {
    metadata: { name: `${Widget.plural}.${Widget.group}` },
    spec: {
      group: Widget.group,
      scope: 'Namespaced',
      names: { plural: Widget.plural, singular: 'widget', kind: Widget.kind, listKind: 'WidgetList' },
      versions: [
        {
          name: Widget.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
        },
      ],
    },
  });
  await until('the Widget CRD is served', async () => {
    const found = await admin
      .request<{ resources?: Array<{ name?: string }> }>(`/apis/${Widget.group}/${Widget.version}`)
      .catch(() => undefined);
    return found?.resources?.some((r) => r.name === Widget.plural) ?? false;
  });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  admin?.close();
  await server?.stop();
});

const FAST: Omit<OperatorLeaderElectionConfiguration, 'leaseName' | 'leaseNamespace' | 'identity'> = {
  leaseDurationMs: 2_000,
  renewDeadlineMs: 1_500,
  retryPeriodMs: 250,
  exitOnStopLeading: false,
};

/** Every reconcile start, with whether its own instance and the other one led at that moment. */
interface Start {
  identity: string;
  name: string;
  selfLeading: boolean;
  otherLeading: boolean;
  otherActive: number;
}

/** One operator instance behind its own proxy. */
interface Instance {
  identity: string;
  op: Operator;
  proxy: FaultyProxy;
  active: number;
  /** Reconciles of this widget wait for the gate, then write a ConfigMap. */
  hold?: { name: string; gate: ReturnType<typeof gate>; outcome?: unknown };
}

async function pairOfInstances(namespace: string, election: typeof FAST) {
  const starts: Start[] = [];
  const instances: Instance[] = [];
  const make = async (identity: string, user: string): Promise<Instance> => {
    const proxy = await FaultyProxy.start(server.port);
    const kubeConfig = kubeConfigFor(proxy.url, user, namespace);
    const op = new Operator({
      kubeConfig,
      terminationTimeoutMs: 300,
      leaderElection: { ...election, leaseName: 'widgets', leaseNamespace: namespace, identity },
    });
    const self: Instance = { identity, op, proxy, active: 0 };
    op.register(
      {
        reconcile: async (resource: Widget, context: Context<Widget>) => {
          const other = instances.find((i) => i !== self);
          starts.push({
            identity,
            name: resource.metadata!.name!,
            selfLeading: op.runtimeInfo.isLeader(),
            otherLeading: other?.op.runtimeInfo.isLeader() ?? false,
            otherActive: other?.active ?? 0,
          });
          self.active++;
          try {
            const hold = self.hold;
            if (hold && hold.name === resource.metadata!.name) {
              await hold.gate.promise;
              hold.outcome = await context.client
                .create(ResourceTypes.ConfigMap, {
                  metadata: { name: `late-${identity}`, namespace },
                  data: { by: identity },
                })
                .catch((e: unknown) => e);
            }
            return UpdateControl.patchStatus({ ...resource, status: { observed: identity } });
          } finally {
            self.active--;
          }
        },
      },
      { resourceType: Widget, name: 'widgets', namespaces: [namespace] },
    );
    cleanups.push(async () => {
      await op.stop();
      await proxy.stop();
    });
    instances.push(self);
    return self;
  };
  const a = await make('instance-a', 'op-a');
  const b = await make('instance-b', 'op-b');
  await a.op.start();
  await until('instance-a leads', () => a.op.runtimeInfo.isLeader(), 20_000);
  await b.op.start();
  // sample who leads every 2 ms; the order of the first loss and the first takeover is recorded
  const samples = { both: 0, aLostAt: -1, bLedAt: -1, n: 0 };
  const sampler = setInterval(() => {
    samples.n++;
    const aLeads = a.op.runtimeInfo.isLeader();
    const bLeads = b.op.runtimeInfo.isLeader();
    if (aLeads && bLeads) samples.both++;
    if (!aLeads && samples.aLostAt < 0) samples.aLostAt = samples.n;
    if (bLeads && samples.bLedAt < 0) samples.bLedAt = samples.n;
  }, 2);
  cleanups.push(() => clearInterval(sampler));
  return { a, b, starts, samples };
}

const reconciledBy = (starts: Start[], identity: string, name: string) =>
  starts.some((s) => s.identity === identity && s.name === name);

type Failure = 'lease requests failing' | 'connections refused' | 'traffic black-holed';

describe('leader election when the leader fails', () => {
  it.each<Failure>(['lease requests failing', 'connections refused', 'traffic black-holed'])(
    '[OP-01] %s: the leader stops processing, the standby takes over after the lease expires, never two leaders, and the healed instance stays standby',
    async (failure) => {
      const ns = await newNamespace(admin);
      const { a, b, starts, samples } = await pairOfInstances(ns, FAST);
      await admin.create(Widget, widget('before', ns));
      await until(
        'the leader reconciles the first widget',
        () => reconciledBy(starts, 'instance-a', 'before'),
        20_000,
      );

      if (failure === 'lease requests failing') a.proxy.mode = 'fail-leases';
      else if (failure === 'connections refused') await a.proxy.refuse();
      else a.proxy.blackhole();
      // lease duration + retry period with jitter is ~2.6 s here; wait far longer before failing
      await until('instance-b takes over (as the sampler saw it)', () => samples.bLedAt > 0, 20_000);
      expect(samples.aLostAt).toBeGreaterThan(0);
      expect(samples.aLostAt).toBeLessThanOrEqual(samples.bLedAt);
      expect(a.op.runtimeInfo.isLeader()).toBe(false);

      await admin.create(Widget, widget('during', ns));
      await until('the new leader reconciles', () => reconciledBy(starts, 'instance-b', 'during'), 20_000);

      await a.proxy.heal();
      await admin.create(Widget, widget('after', ns));
      await until(
        'the leader reconciles after the heal',
        () => reconciledBy(starts, 'instance-b', 'after'),
        20_000,
      );
      // the healed instance saw the new holder and stays standby
      await until('instance-a sees instance-b lead', () => b.op.runtimeInfo.isLeader(), 20_000);
      expect(a.op.runtimeInfo.isLeader()).toBe(false);

      expect(reconciledBy(starts, 'instance-a', 'during')).toBe(false);
      expect(reconciledBy(starts, 'instance-a', 'after')).toBe(false);
      // instrumented: no reconcile began while the other instance led or ran one (an instance whose
      // renew deadline just passed may still start one before its loss is processed, but the other
      // cannot lead before the lease expires, later)
      expect(starts.filter((s) => s.otherLeading || s.otherActive > 0)).toEqual([]);
      expect(samples.both).toBe(0);
      expect(samples.n).toBeGreaterThan(100);
    },
    90_000,
  );

  it('[OP-01] a graceful stop hands over before the lease would expire, and the old leader writes nothing afterwards, even from a reconcile that outlived stop()', async () => {
    const ns = await newNamespace(admin);
    // a long lease: a standby that waited for it to expire would miss the bound below
    const { a, b, starts, samples } = await pairOfInstances(ns, {
      ...FAST,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
    });
    a.hold = { name: 'slow', gate: gate() };
    await admin.create(Widget, widget('slow', ns));
    await until('the leader is inside the slow reconcile', () => a.active === 1, 20_000);

    await a.op.stop(); // terminationTimeoutMs 300: the slow reconcile outlives it
    const stoppedAt = Date.now();
    await until(
      'instance-b takes over, well before the 15 s lease could expire',
      () => b.op.runtimeInfo.isLeader(),
      7_500,
    );

    a.hold.gate.open();
    await until('the outlived reconcile tried its write', () => a.hold?.outcome !== undefined, 20_000);
    // refused with a typed error: by the closed client, or before it by the dispatcher (abandoned reconcile)
    expect(a.hold.outcome).toBeInstanceOf(Error);
    expect(['KubernetesClientClosed', 'ReconcileAbandoned']).toContain(
      (a.hold.outcome as { code?: string }).code,
    );
    // the new leader reconciles what the old one never finished
    await until(
      'instance-b reconciles the slow widget',
      () => reconciledBy(starts, 'instance-b', 'slow'),
      20_000,
    );
    // its status write lands after the reconcile began: wait for it (under load it may lag)
    await until(
      "instance-b's status on the slow widget",
      async () => (await admin.get(Widget, new ResourceID('slow', ns)))?.status?.observed === 'instance-b',
      20_000,
    );

    // request accounting: after stop() returned, the old leader sent nothing at all
    const late = server.requests.log.filter((r) => r.user === 'op-a' && r.time >= stoppedAt);
    expect(late).toEqual([]);
    expect(await admin.get(ResourceTypes.ConfigMap, new ResourceID('late-instance-a', ns))).toBeUndefined();
    expect(samples.both).toBe(0);
  }, 90_000);
});
