import { describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';
import { trackTimers } from './timer-tracker.js';

function handles(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const h of process.getActiveResourcesInfo()) out[h] = (out[h] ?? 0) + 1;
  return out;
}

describe('KubeApiServer lifecycle', () => {
  it("[AS-STOP] stop() ends open watches and leaves no sockets, servers or timers behind (unref'd ones included)", async () => {
    const before = handles();
    const timers = trackTimers();
    let server: KubeApiServer | undefined;
    try {
      server = await KubeApiServer.start({
        bookmarkIntervalMs: 50,
        simulateWorkloads: { readyDelayMs: 60_000 },
      });
      const s = server;
      await call(s, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a' } });
      const w = rawWatch(
        s,
        '/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=600&resourceVersion=0',
      );
      await waitFor(() => w.events.some((e) => e.type === 'BOOKMARK'));
      await call(s, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
        metadata: { name: 'd' },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      });
      // the bookmark interval, the watch timeout and the simulator's (unref'd) timer are pending now
      expect(timers.pending().length).toBeGreaterThanOrEqual(3);
      await s.stop();
      await w.ended;
    } finally {
      timers.uninstall();
      await server?.stop();
    }
    // immediates queued by the stop itself run on the next turns; nothing else may stay
    await waitFor(() => timers.pending().length === 0, 2000).catch(() => undefined);
    expect(timers.pending().map((t) => `${t.kind}\n${t.stack}`)).toEqual([]);
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
