import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { main, CliUsageError } from '../cli.js';
import { ApiServerOptionsError } from '../options.js';
import { KubeApiServer } from '../server.js';
import { call, waitFor } from './http-helper.js';

describe('workload simulation', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ simulateWorkloads: { readyDelayMs: 10 } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[AS-SIM] Deployments report ready replicas, Pods reach Running, Jobs complete', async () => {
    const spec = {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    };
    await call(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'd' },
      spec: { ...spec, replicas: 3 },
    });
    const dep = await waitFor(async () => {
      const d = (await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/d')).json<{
        status?: { readyReplicas?: number; observedGeneration?: number };
      }>();
      return d.status?.readyReplicas === 3 ? d : undefined;
    });
    expect(dep.status!.observedGeneration).toBe(1);
    await call(
      server,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/d',
      { spec: { replicas: 5 } },
      { contentType: 'application/merge-patch+json' },
    );
    await waitFor(
      async () =>
        (await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/d')).json<{
          status: { readyReplicas?: number };
        }>().status.readyReplicas === 5,
    );
    await call(server, 'POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    const pod = await waitFor(async () => {
      const p = (await call(server, 'GET', '/api/v1/namespaces/default/pods/p')).json<{
        status: { phase: string; containerStatuses?: { ready: boolean }[] };
      }>();
      return p.status.phase === 'Running' ? p : undefined;
    });
    expect(pod.status.containerStatuses).toEqual([expect.objectContaining({ ready: true })]);
    await call(server, 'POST', '/apis/batch/v1/namespaces/default/jobs', {
      metadata: { name: 'j' },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } },
    });
    await waitFor(
      async () =>
        (await call(server, 'GET', '/apis/batch/v1/namespaces/default/jobs/j')).json<{
          status?: { succeeded?: number };
        }>().status?.succeeded === 1,
    );
  });
});

describe('options and CLI', () => {
  it('[AS-OPTS] bad options fail with a typed error', async () => {
    await expect(KubeApiServer.start({ port: 70000 })).rejects.toBeInstanceOf(ApiServerOptionsError);
    await expect(
      KubeApiServer.start({
        users: [
          { name: 'a', token: 't' },
          { name: 'b', token: 't' },
        ],
      }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });

  it('[AS-CLI] the CLI starts a server, writes a kubeconfig that a client uses, and rejects bad flags', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tosdk-cli-'));
    const lines: string[] = [];
    const server = await main(['--port', '0', '--kubeconfig', join(dir, 'kc')], (l) => lines.push(l));
    try {
      expect(lines[0]).toBe(`tosdk-apiserver listening on ${server.url}`);
      expect(lines[1]).toBe(`kubeconfig written to ${join(dir, 'kc')}`);
      const kc = new KubeConfig();
      kc.loadFromString(await readFile(join(dir, 'kc'), 'utf8'));
      const ns = await kc.makeApiClient(CoreV1Api).readNamespace({ name: 'default' });
      expect(ns.metadata?.name).toBe('default');
    } finally {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
    await expect(main(['--bogus'], () => undefined)).rejects.toBeInstanceOf(CliUsageError);
    await expect(main(['--port', 'x'], () => undefined)).rejects.toBeInstanceOf(CliUsageError);
  });
});
