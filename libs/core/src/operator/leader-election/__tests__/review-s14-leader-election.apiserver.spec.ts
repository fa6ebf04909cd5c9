import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import { ResourceID } from '../../../api/resource-id.js';
import type { KubernetesResource } from '../../../api/resource-type.js';
import { KubernetesClient } from '../../../client/kubernetes-client.js';
import { Operator } from '../../operator.js';
import type { Logger } from '../../../util/logger.js';
import { LeaderElector } from '../leader-elector.js';
import type { LeaderElectorClient } from '../leader-elector.js';
import { FaultyProxy } from './faulty-proxy.js';
import { until } from './until.js';
import { FakeClock, flush } from './fake-clock.js';
import { LeaseClientDouble, LeaseStore } from './lease-store-double.js';

/**
 * Review s14 (leader election): what a user running two or three replicas sees when the network
 * between a replica and the API server misbehaves. Each elector reaches the server through its own
 * proxy (plain HTTP on 127.0.0.1).
 */
jest.setTimeout(60_000);

let server: KubeApiServer;
const cleanups: Array<() => Promise<void> | void> = [];

function kubeConfigFor(url: string, user: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: user, token: server.tokenOf(user) }],
    contexts: [{ name: 'c', cluster: 'c', user, namespace: 'default' }],
    currentContext: 'c',
  });
  return kc;
}

beforeAll(async () => {
  server = await KubeApiServer.start({
    tls: false,
    users: [{ name: 'op-a', token: 'token-a', groups: ['system:masters'] }],
  });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await server?.stop();
});

/** A logger keeping the messages of warnings and errors. */
function capturingLogger(warnings: string[], errors: string[] = []): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => void warnings.push(message),
    error: (message: string) => void errors.push(message),
    child: () => logger,
  };
  return logger;
}

describe('review s14: leader election', () => {
  it('[FINDING S14-LE3] a renewal that got no answer within the renew deadline is abandoned: once the network is back the replica takes the lease again, its requests not queued behind the hung ones', async () => {
    const proxy = await FaultyProxy.start(server.port);
    cleanups.push(() => proxy.stop());
    // the Operator gives its elector a client of its own with 2 sockets
    const client = KubernetesClient.fromKubeConfig(kubeConfigFor(proxy.url, 'op-a'), { maxSockets: 2 });
    cleanups.push(() => client.close());
    const warnings: string[] = [];
    const elector = new LeaderElector(
      {
        leaseName: `hung-${Date.now().toString(36)}`,
        leaseNamespace: 'default',
        identity: 'a',
        leaseDurationMs: 2_000,
        renewDeadlineMs: 1_500,
        retryPeriodMs: 250,
        exitOnStopLeading: false,
      },
      client,
      { logger: capturingLogger(warnings) },
    );
    cleanups.push(() => elector.stop());
    let losses = 0;
    elector.run({ onStartLeading: () => undefined, onStopLeading: () => void losses++ });
    await until('a leads', () => elector.isLeader());
    // the connections go dead without being closed (a half-open TCP connection, an API server
    // that vanished behind a load balancer): requests on them never get an answer
    proxy.blackhole();
    await until('a lost the lease at its renew deadline', () => losses === 1);
    await until(
      'two tries to acquire timed out on the dead connections',
      () => warnings.filter((w) => w === 'failed to acquire the lease').length >= 2,
    );
    // new connections work again; the held ones stay dead (nothing closes them)
    proxy.mode = 'pass';
    // client-go bounds each try by a context that cancels its request (leaderelection.go renew:
    // PollUntilContextTimeout with RenewDeadline), which frees the connection
    await until('a leads again', () => elector.isLeader(), 15_000);
    expect(elector.currentLeader()).toBe('a');
  });

  it('[FINDING S14-LE4] two replicas that got the same identity (a hostname set in the pod template, hostNetwork) never lead at once; the second logs the duplicate identity', async () => {
    const client = KubernetesClient.fromKubeConfig(kubeConfigFor(server.url, 'op-a'));
    cleanups.push(() => client.close());
    const leaseName = `same-${Date.now().toString(36)}`;
    const make = (logger: Logger) => {
      const elector = new LeaderElector(
        {
          leaseName,
          leaseNamespace: 'default',
          identity: 'operator-0',
          leaseDurationMs: 2_000,
          renewDeadlineMs: 1_500,
          retryPeriodMs: 100,
          exitOnStopLeading: false,
        },
        client,
        { logger },
      );
      cleanups.push(() => elector.stop());
      elector.run({ onStartLeading: () => undefined, onStopLeading: () => undefined });
      return elector;
    };
    const first = make(capturingLogger([]));
    await until('the first leads', () => first.isLeader());
    const errors: string[] = [];
    const second = make(capturingLogger([], errors));
    let both = 0;
    let samples = 0;
    await until(
      'the second tried for three lease durations',
      () => {
        if (first.isLeader() && second.isLeader()) both++;
        return ++samples >= 300;
      },
      20_000,
    );
    // JOSDK and controller-runtime keep one identity per process (controller-runtime adds a UUID to
    // the hostname); the Lease cannot tell two holders of one identity apart without more
    expect(both).toBe(0);
    expect(first.isLeader()).toBe(true);
    expect(errors.join('\n')).toMatch(/identity "operator-0".*leaderElection\.identity/s);
  });

  it('[FINDING S14-LE4] a process restarted under the identity of one that died holding the lease leads once that lease expired', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const config = { leaseName: 'my-operator-leader', leaseNamespace: 'ops', identity: 'operator-0' };
    const deadClient = new LeaseClientDouble(store, 'dead');
    const dead = new LeaderElector(config, deadClient, { clock, random: () => 0, exit: () => undefined });
    dead.run({ onStartLeading: () => undefined, onStopLeading: () => undefined });
    await clock.advance(0);
    expect(dead.isLeader()).toBe(true);
    // the process dies holding the lease: nothing of it reaches the server anymore, nothing releases
    deadClient.fault = 'hang';
    const restarted = new LeaderElector(config, new LeaseClientDouble(store, 'restarted'), {
      clock,
      random: () => 0,
    });
    cleanups.push(() => void restarted.stop());
    const events: string[] = [];
    restarted.run({ onStartLeading: () => events.push('start'), onStopLeading: () => undefined });
    await clock.advance(14_000);
    expect(events).toEqual([]);
    await clock.advance(5_000);
    expect(events).toEqual(['start']);
    expect(store.read('ops/my-operator-leader')?.spec).toMatchObject({
      holderIdentity: 'operator-0',
      leaseTransitions: 1,
    });
  });

  it('[FINDING S14-LE6] an Operator given both kubeConfig and client (as every NestJS app is) renews its lease on connections of its own: busy reconciliations do not make it lose the lease', async () => {
    const kubeConfig = kubeConfigFor(server.url, 'op-a');
    const admin = KubernetesClient.fromKubeConfig(kubeConfig);
    cleanups.push(() => admin.close());
    const label = `busy${Date.now().toString(36)}`;
    const exit = jest.fn<(code: number) => void>();
    let done = 0;
    // the app's client, shared by everything (OperatorModule passes its KubernetesClient provider)
    const client = KubernetesClient.fromKubeConfig(kubeConfig, { maxSockets: 3 });
    cleanups.push(() => client.close());
    const op = new Operator({
      kubeConfig,
      client,
      concurrentReconciliationThreads: 6,
      leaderElection: {
        leaseName: label,
        leaseNamespace: 'default',
        identity: 'a',
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 250,
        exit,
      },
    });
    cleanups.push(() => op.stop());
    op.register(
      {
        reconcile: async (cm: KubernetesResource, context: Context<KubernetesResource>) => {
          // a slow API call of the reconciler (a busy API server, a large list)
          await context.client.get(ResourceTypes.Secret, new ResourceID(`${cm.metadata!.name}-s`, 'default'));
          done++;
          return UpdateControl.noUpdate();
        },
      },
      {
        resourceType: ResourceTypes.ConfigMap,
        name: label,
        namespaces: ['default'],
        labelSelector: `busy=${label}`,
      },
    );
    await op.start();
    await until('leading', () => op.runtimeInfo.isLeader());
    server.faults.addLatency({ verb: 'get', resource: 'secrets', ms: 2_500 });
    for (let i = 0; i < 6; i++) {
      await admin.create(ResourceTypes.ConfigMap, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${label}-${i}`, namespace: 'default', labels: { busy: label } },
      });
    }
    await until('every slow reconciliation finished', () => done === 6, 30_000);
    // controller-runtime gives leader election a client of its own (manager: LeaderElectionConfig
    // from a copy of the rest config), whatever client the reconcilers use
    expect(exit).not.toHaveBeenCalled();
    expect(op.runtimeInfo.isLeader()).toBe(true);
  });

  it('[FINDING S14-LE7] stop() while a lease request hangs returns at once: the request is abandoned, not awaited until the renew deadline', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const client = new LeaseClientDouble(store, 'a');
    client.fault = 'hang'; // the API server accepted the connection and never answers
    const elector = new LeaderElector(
      { leaseName: 'my-operator-leader', leaseNamespace: 'ops', identity: 'a' },
      client,
      { clock, random: () => 0 },
    );
    elector.run({ onStartLeading: () => undefined, onStopLeading: () => undefined });
    await clock.advance(0);
    expect(client.requests).toBe(1); // the first try to acquire hangs
    let stopped = false;
    void elector.stop().then(() => (stopped = true));
    // no time passes: client-go cancels the context of the try in flight (Run's ctx), JOSDK cancels
    // its elector's future; neither waits for an answer that may never come
    await flush();
    expect(stopped).toBe(true);
    expect(elector.state).toBe('Stopped');
  });

  it('[FINDING S14-LE8] a renewal abandoned by stop() that still lands before the release is written does not keep the lease from being released (the release retries on 409)', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const client = new RacingClient(new LeaseClientDouble(store, 'a'));
    const elector = new LeaderElector(
      { leaseName: 'my-operator-leader', leaseNamespace: 'ops', identity: 'a' },
      client,
      { clock, random: () => 0 },
    );
    elector.run({ onStartLeading: () => undefined, onStopLeading: () => undefined });
    await clock.advance(0);
    expect(elector.isLeader()).toBe(true);
    client.holdNextUpdate = true;
    await clock.advance(2_000); // the next renewal is on its way to the server
    expect(client.held).toBeDefined();
    // stop() abandons it; the server still commits it between the release's read and its write
    await elector.stop();
    // client-go's tryRelease retries on conflict for exactly this race
    expect(store.read('ops/my-operator-leader')?.spec).toMatchObject({ holderIdentity: '' });
  });
});

/**
 * A lease client whose next update is held back (`holdNextUpdate`) and committed by the server only
 * when the next read has been answered: a request the client gave up on, still landing late.
 */
class RacingClient implements LeaderElectorClient {
  holdNextUpdate = false;
  held: (() => Promise<void>) | undefined;

  constructor(private readonly inner: LeaseClientDouble) {}

  get: LeaderElectorClient['get'] = async (type, id) => {
    const read = await this.inner.get(type, id);
    const held = this.held;
    this.held = undefined;
    await held?.();
    return read;
  };

  create: LeaderElectorClient['create'] = (type, obj) => this.inner.create(type, obj);

  update: LeaderElectorClient['update'] = (type, obj) => {
    if (!this.holdNextUpdate) return this.inner.update(type, obj);
    this.holdNextUpdate = false;
    return new Promise((resolve, reject) => {
      this.held = () => this.inner.update(type, obj).then(resolve, reject);
    });
  };

  selfSubjectAccessReview: LeaderElectorClient['selfSubjectAccessReview'] = (attributes) =>
    this.inner.selfSubjectAccessReview(attributes);
}
