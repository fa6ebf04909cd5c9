// Review S10: a kubeconfig with a proxy-url whose user reads its token from a file (`tokenFile`,
// the field client-go reads). Behind a proxy, loadKubeConfig() used to hand the whole user to
// @kubernetes/client-node, which knows only `token-file`: the requests went out without a token.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../api/builtin-types.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { startTunnelProxy } from '../../client/__tests__/tunnel-proxy.js';
import type { TunnelProxy } from '../../client/__tests__/tunnel-proxy.js';
import { loadKubeConfig } from '../kube-config.js';

describe('review S10: proxy-url with a token file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tosdk-s10-proxy-'));
  let server: KubeApiServer;
  let proxy: TunnelProxy;

  beforeAll(async () => {
    server = await KubeApiServer.start({ port: 0 });
    proxy = await startTunnelProxy();
  });
  afterAll(async () => {
    await proxy.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('[FINDING S10-KC9] behind a proxy-url, a user whose token is in a tokenFile sends no token (401)', async () => {
    writeFileSync(join(dir, 'token'), `${server.tokenOf()}\n`);
    writeFileSync(join(dir, 'ca.crt'), server.caPem!);
    const kubeconfig = join(dir, 'config');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'c',
        clusters: [
          {
            name: 'k',
            cluster: {
              server: server.url,
              'certificate-authority': 'ca.crt',
              'proxy-url': `http://127.0.0.1:${proxy.port}`,
            },
          },
        ],
        users: [{ name: 'u', user: { tokenFile: 'token' } }],
        contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
      }),
    );
    const client = KubernetesClient.fromKubeConfig(
      loadKubeConfig({ env: { KUBECONFIG: kubeconfig, HOME: join(dir, 'no-home') } }),
      { retry: false, requestTimeoutMs: 10_000 },
    );
    try {
      const list = await client.list(ResourceTypes.Namespace);
      expect(list.items.some((n) => n.metadata?.name === 'default')).toBe(true);
      expect(proxy.tunnels).toEqual([`127.0.0.1:${server.port}`]);
    } finally {
      client.close();
    }
  });
});
