import { describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';

function handles(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const h of process.getActiveResourcesInfo()) out[h] = (out[h] ?? 0) + 1;
  return out;
}

describe('KubeApiServer lifecycle', () => {
  it('[AS-STOP] stop() ends open watches and leaves no sockets, servers or timers behind', async () => {
    const before = handles();
    const server = await KubeApiServer.start({ bookmarkIntervalMs: 50, simulateWorkloads: true });
    await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } });
    const w = rawWatch(
      server,
      '/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=0',
    );
    await waitFor(() => w.events.length > 0);
    await call(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    });
    await server.stop();
    await w.ended;
    await waitFor(() => {
      const after = handles();
      return ['TCPServerWrap', 'TCPSocketWrap', 'TLSWrap', 'Timeout', 'Immediate'].every(
        (k) => (after[k] ?? 0) <= (before[k] ?? 0),
      );
    });
  });

  it('[AS-START-PORT] listens on the requested host and port; plain HTTP with tls: false', async () => {
    const probe = await KubeApiServer.start({ tls: false });
    const port = probe.port;
    await probe.stop();
    const server = await KubeApiServer.start({ tls: false, port });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      expect(server.caPem).toBeUndefined();
      expect((await call(server, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
      const cluster = server.kubeConfig().getCurrentCluster();
      expect(cluster?.server).toBe(server.url);
    } finally {
      await server.stop();
    }
  });
});
