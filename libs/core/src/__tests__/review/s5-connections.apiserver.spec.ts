import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClientClosedError, KubernetesTransportError } from '../../client/errors.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import type { KubernetesClientOptions } from '../../client/kubernetes-client.js';
import { Informer } from '../../informer/informer.js';
import { apiServerSuite, newNamespace, waitFor } from '../../operator/__tests__/support.js';
import { CountingProxy } from './counting-proxy.js';

/**
 * Adversarial review (session 5) of the client's connections (issue 15 §2/§3, H22): requests and
 * watches share sockets now. Whatever the pooling, a user must observe: at most `maxSockets`
 * connections carry ordinary requests, a watch never starves a request and no request waits behind
 * a watch, a socket is never reused after a timeout, an abort or a cut watch, and a request slot is
 * never lost (every failure path gives it back). Connections are counted by a TCP proxy in front of
 * the API server.
 */
const bed = apiServerSuite();
const CM = ResourceTypes.ConfigMap;
const WAIT_MS = 20_000;
jest.setTimeout(60_000);

const proxies: CountingProxy[] = [];
const clients: KubernetesClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const p of proxies.splice(0)) await p.stop();
});

async function proxied(
  options: KubernetesClientOptions,
): Promise<{ proxy: CountingProxy; client: KubernetesClient }> {
  const proxy = await CountingProxy.start(bed.server.port);
  proxies.push(proxy);
  const client = KubernetesClient.fromKubeConfig(proxy.kubeConfig(bed.server), { retry: false, ...options });
  clients.push(client);
  return { proxy, client };
}

async function configMaps(ns: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    await bed.admin.create(CM, { metadata: { name: `cm-${i}`, namespace: ns }, data: { i: String(i) } });
}

/** Opens a watch of ConfigMaps in `ns` and resolves once it is connected; `events` collects its events. */
async function openWatch(client: KubernetesClient, ns: string, signal: AbortSignal) {
  const events: string[] = [];
  let connected = false;
  const done = (async () => {
    for await (const e of client.watch(CM, { namespace: ns, signal, onConnected: () => (connected = true) }))
      events.push(`${e.type}:${(e.object as V1ConfigMap).metadata?.name ?? ''}`);
  })().catch(() => undefined);
  await waitFor(() => connected, `watch of ${ns} connected`, WAIT_MS);
  return { events, done };
}

describe('review s5: connections shared by requests and watches', () => {
  it('a burst of 80 concurrent requests never holds more than maxSockets connections, and every answer is its own', async () => {
    const ns = await newNamespace(bed.admin);
    await configMaps(ns, 8);
    const { proxy, client } = await proxied({ maxSockets: 3 });
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 80 }, (_, i) => client.get(CM, new ResourceID(`cm-${i % 8}`, ns))),
      );
      expect(answers.map((a) => a?.data?.i)).toEqual(Array.from({ length: 80 }, (_, i) => String(i % 8)));
    }
    expect(proxy.peak).toBeLessThanOrEqual(3);
  });

  it('six open watches do not starve requests of a client with maxSockets 1, and a watch opens while every request slot is busy', async () => {
    const namespaces: string[] = [];
    for (let i = 0; i < 6; i++) namespaces.push(await newNamespace(bed.admin));
    const { proxy, client } = await proxied({ maxSockets: 1 });
    const stop = new AbortController();
    try {
      const watches: Array<Awaited<ReturnType<typeof openWatch>>> = [];
      for (const ns of namespaces) watches.push(await openWatch(client, ns, stop.signal));
      // requests go through beside the watches
      for (const ns of namespaces)
        await client.create(CM, { metadata: { name: 'after', namespace: ns }, data: { a: '1' } });
      const got = await Promise.all(namespaces.map((ns) => client.get(CM, new ResourceID('after', ns))));
      expect(got.map((g) => g?.data?.a)).toEqual(namespaces.map(() => '1'));
      await waitFor(
        () => watches.every((w) => w.events.includes('ADDED:after')),
        'every watch saw its ConfigMap',
        WAIT_MS,
      );
      // the only request slot busy with a slow request: a new watch still opens
      const slow = new AbortController();
      bed.server.faults.addLatency({ verb: 'list', resource: 'secrets', ms: 4_000 });
      const pending = client
        .list(ResourceTypes.Secret, { namespace: namespaces[0], signal: slow.signal })
        .then(
          () => 'answered',
          (e: unknown) => (e instanceof KubernetesTransportError ? e.failure : String(e)),
        );
      // (the slot is taken when the call is made; the server answers only after the latency)
      const extra = await newNamespace(bed.admin);
      const late = await openWatch(client, extra, stop.signal);
      await bed.admin.create(CM, { metadata: { name: 'late', namespace: extra } });
      await waitFor(() => late.events.includes('ADDED:late'), 'the late watch saw its ConfigMap', WAIT_MS);
      slow.abort();
      expect(await pending).toBe('aborted');
      // the aborted request gave its slot back
      expect((await client.get(CM, new ResourceID('late', extra)))?.metadata?.name).toBe('late');
      // 1 request connection at most beside 7 watches
      expect(proxy.peak).toBeLessThanOrEqual(7 + 1 + 1);
    } finally {
      stop.abort();
      bed.server.faults.clear();
    }
  });

  it('request slots are given back by timed-out, aborted, refused and failed requests (maxSockets 1)', async () => {
    const ns = await newNamespace(bed.admin);
    await configMaps(ns, 2);
    const { client } = await proxied({ maxSockets: 1, requestTimeoutMs: 400 });
    bed.server.faults.addLatency({ verb: 'get', resource: 'secrets', ms: 3_000 });
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => 'answered',
        (e: unknown) => (e instanceof KubernetesTransportError ? e.failure : (e as Error).name),
      );
    // one times out holding the slot, three time out or are aborted while waiting for it
    const early = new AbortController();
    const results = await Promise.all([
      outcome(client.get(ResourceTypes.Secret, new ResourceID('s', ns))),
      outcome(client.get(ResourceTypes.Secret, new ResourceID('s', ns))),
      outcome(client.list(CM, { namespace: ns, signal: early.signal })),
      outcome(client.get(ResourceTypes.Secret, new ResourceID('s', ns))),
      (async () => {
        early.abort();
        return 'aborter';
      })(),
    ]);
    expect(results.filter((r) => r === 'answered')).toEqual([]);
    expect(results).toContain('aborted');
    bed.server.faults.clear();
    // a 404 and a 409 hold no slot either
    expect(await client.get(CM, new ResourceID('missing', ns))).toBeUndefined();
    await expect(client.create(CM, { metadata: { name: 'cm-0', namespace: ns } })).rejects.toMatchObject({
      status: 409,
    });
    // and the timed-out socket never answers a later request with its late answer
    const after = await Promise.all(
      Array.from({ length: 10 }, (_, i) => client.get(CM, new ResourceID(`cm-${i % 2}`, ns))),
    );
    expect(after.map((a) => a?.metadata?.name)).toEqual(Array.from({ length: 10 }, (_, i) => `cm-${i % 2}`));
  });

  it('close() with requests waiting for a slot ends every one of them (none hangs), and nothing is sent after it', async () => {
    const ns = await newNamespace(bed.admin);
    const { proxy, client } = await proxied({ maxSockets: 1 });
    bed.server.faults.addLatency({ verb: 'get', resource: 'secrets', ms: 4_000 });
    const before = bed.server.requests.count({ namespace: ns, resource: 'configmaps' });
    const pending = [
      client.get(ResourceTypes.Secret, new ResourceID('s', ns)),
      ...Array.from({ length: 5 }, (_, i) =>
        client.create(CM, { metadata: { name: `queued-${i}`, namespace: ns } }),
      ),
    ].map((p) =>
      p.then(
        () => 'answered',
        (e: unknown) => (e instanceof KubernetesClientClosedError ? 'closed' : String(e)),
      ),
    );
    await waitFor(() => proxy.opened >= 1, 'the slow get connected', WAIT_MS);
    client.close();
    const settled = await Promise.race([
      Promise.all(pending),
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5_000).unref()),
    ]);
    expect(settled).toEqual(['closed', 'closed', 'closed', 'closed', 'closed', 'closed']);
    bed.server.faults.clear();
    // the queued creates were never sent
    expect(bed.server.requests.count({ namespace: ns, resource: 'configmaps' })).toBe(before);
  });

  it('a watch the client leaves mid-stream (events still coming) leaves no bytes for a later request to read', async () => {
    const ns = await newNamespace(bed.admin);
    await configMaps(ns, 40);
    const { client } = await proxied({ maxSockets: 2 });
    for (let round = 0; round < 5; round++) {
      // the watch from the start replays 40 ADDED events; the loop leaves after the first
      let first: string | undefined;
      for await (const e of client.watch(CM, { namespace: ns, resourceVersion: '0' })) {
        first = e.type;
        break;
      }
      expect(first).toBe('ADDED');
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => client.get(CM, new ResourceID(`cm-${i}`, ns))),
      );
      expect(answers.map((a) => a?.data?.i)).toEqual(['0', '1', '2', '3', '4', '5']);
    }
  });

  it('watches cut by the server and a server restart: an informer on the client catches up and requests keep answering', async () => {
    const ns = await newNamespace(bed.admin);
    const { client } = await proxied({ maxSockets: 2, retry: undefined });
    const informer = new Informer<V1ConfigMap>({ client, type: CM, namespace: ns });
    try {
      await informer.start();
      for (let i = 0; i < 6; i++) {
        if (i % 2 === 0) bed.server.faults.closeAllWatches();
        else if (i === 3) await bed.server.faults.restart();
        await bed.admin.create(CM, { metadata: { name: `c-${i}`, namespace: ns }, data: { i: String(i) } });
        await waitFor(
          () => informer.get(new ResourceID(`c-${i}`, ns))?.data?.i === String(i),
          `the informer has c-${i}`,
          WAIT_MS,
        );
        const got = await client.get(CM, new ResourceID(`c-${i}`, ns));
        expect(got?.data?.i).toBe(String(i));
      }
    } finally {
      await informer.stop();
    }
  });

  it('a signal the caller reuses for many requests and watches, some of them waiting for a slot, keeps no listener once they are over', async () => {
    const ns = await newNamespace(bed.admin);
    await configMaps(ns, 2);
    const { client } = await proxied({ maxSockets: 2 });
    const shared = new AbortController();
    for (let round = 0; round < 20; round++) {
      // 10 at once on 2 slots: most wait for one
      await Promise.all(
        Array.from({ length: 10 }, () => client.list(CM, { namespace: ns, signal: shared.signal })),
      );
      for await (const _ of client.watch(CM, { namespace: ns, resourceVersion: '0', signal: shared.signal }))
        break;
    }
    expect(getEventListeners(shared.signal, 'abort').length).toBe(0);
  });
});
