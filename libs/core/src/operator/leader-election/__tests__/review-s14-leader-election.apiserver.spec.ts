import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import { KubernetesClient } from '../../../client/kubernetes-client.js';
import type { Logger } from '../../../util/logger.js';
import { LeaderElector } from '../leader-elector.js';
import { FaultyProxy } from './faulty-proxy.js';
import { until } from './until.js';

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

/** A logger keeping the messages of warnings. */
function capturingLogger(warnings: string[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => void warnings.push(message),
    error: () => undefined,
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
});
