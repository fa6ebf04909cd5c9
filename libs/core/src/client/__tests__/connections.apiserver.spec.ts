import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { Informer } from '../../informer/informer.js';
import { UpdateControl } from '../../api/controls.js';
import { apiServerSuite, newNamespace, waitFor } from '../../operator/__tests__/support.js';
import { KubernetesTransportError } from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import { CountingProxy } from './counting-proxy.js';
import { json, ScriptedServer, waitFor as waitUntil } from './scripted-server.js';

const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();

// Connections a client opens (each a TLS handshake), counted by a relay in front of the API server
// (issue 15 §2: the list an informer starts with and the watch that follows share one socket).
describe('connections of one client to the API server', () => {
  let proxy: CountingProxy;
  const clients: KubernetesClient[] = [];
  const informers: Array<Informer<V1ConfigMap> | Informer<V1Secret>> = [];
  beforeAll(async () => {
    proxy = await CountingProxy.start(bed.server.port);
  });
  afterEach(async () => {
    await Promise.all(informers.splice(0).map((i) => i.stop()));
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => {
    await proxy.stop();
  });
  const client = (maxSockets?: number) => {
    const c = KubernetesClient.fromKubeConfig(proxy.kubeConfig(bed.server.kubeConfig()), { maxSockets });
    clients.push(c);
    return c;
  };
  const watches = (resource: string, namespace: string) =>
    bed.server.requests.count({ verb: 'watch', resource, namespace });

  it("an informer's list and the watch after it go over one connection", async () => {
    const ns = await newNamespace(bed.admin);
    await bed.admin.create(CM, { metadata: { name: 'a', namespace: ns }, data: { k: 'v' } });
    const before = proxy.accepted;
    const informer = new Informer<V1ConfigMap>({ client: client(), type: CM, namespace: ns });
    informers.push(informer);
    await informer.start();
    await waitFor(() => watches('configmaps', ns) === 1, 'the watch');
    expect(informer.list().map((c) => c.metadata?.name)).toEqual(['a']);
    expect(proxy.accepted - before).toBe(1);
    // and the watch works on it
    await bed.admin.create(CM, { metadata: { name: 'b', namespace: ns } });
    await waitFor(() => informer.list().length === 2, 'the watch event');
    expect(proxy.accepted - before).toBe(1);
  });

  it('two informers of two kinds started together open two connections, not four', async () => {
    const ns = await newNamespace(bed.admin);
    const c = client();
    const before = proxy.accepted;
    const a = new Informer<V1ConfigMap>({ client: c, type: CM, namespace: ns });
    const b = new Informer<V1Secret>({ client: c, type: ResourceTypes.Secret, namespace: ns });
    informers.push(a, b);
    await Promise.all([a.start(), b.start()]);
    await waitFor(() => watches('configmaps', ns) === 1 && watches('secrets', ns) === 1, 'both watches');
    expect(proxy.accepted - before).toBe(2);
    expect(proxy.open).toBeGreaterThanOrEqual(2);
  });

  it('an idle operator with one controller holds one connection', async () => {
    const ns = await newNamespace(bed.admin);
    await bed.admin.create(CM, { metadata: { name: 'a', namespace: ns } });
    const before = proxy.accepted;
    let reconciled = 0;
    const operator = bed.operator({ kubeConfig: proxy.kubeConfig(bed.server.kubeConfig()) });
    operator.register(
      {
        reconcile: () => {
          reconciled++;
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: CM, name: `idle-${ns}`, namespaces: [ns] },
    );
    await operator.start();
    await waitFor(() => reconciled === 1 && watches('configmaps', ns) === 1, 'the reconcile and the watch');
    expect(proxy.accepted - before).toBe(1);
  });

  it('watches take no request slot: with maxSockets 1 and three watches open, requests are answered', async () => {
    const ns = await newNamespace(bed.admin);
    await bed.admin.create(CM, { metadata: { name: 'a', namespace: ns } });
    const c = client(1);
    const stops = new AbortController();
    const drains = [0, 1, 2].map(async () => {
      for await (const event of c.watch(CM, { namespace: ns, signal: stops.signal })) void event;
    });
    try {
      await waitFor(() => watches('configmaps', ns) === 3, 'three watches');
      const got = await Promise.all([0, 1, 2, 3].map(() => c.get(CM, new ResourceID('a', ns))));
      expect(got.map((g) => g?.metadata?.name)).toEqual(['a', 'a', 'a', 'a']);
      expect((await c.list(CM, { namespace: ns })).items).toHaveLength(1);
    } finally {
      stops.abort();
      await Promise.all(drains);
    }
  });
});

describe('request slots and kept-alive sockets (scripted server)', () => {
  let server: ScriptedServer;
  let client: KubernetesClient | undefined;
  beforeAll(async () => {
    server = await ScriptedServer.start();
  });
  afterEach(() => {
    client?.close();
    client = undefined;
    server.requests.length = 0;
  });
  afterAll(async () => {
    await server.stop();
  });
  const item = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns1' } };

  it('maxSockets bounds the ordinary requests in flight; the ones over it wait their turn and are answered', async () => {
    // answers are held until two requests are at the server, then given a turn later (so that any
    // third request sent meanwhile would be seen there too)
    let held: Array<() => void> = [];
    let most = 0;
    server.handle((_req, res) => {
      held.push(() => json(res, 200, item));
      most = Math.max(most, held.length);
      if (held.length === 2) {
        const answers = held;
        held = [];
        setImmediate(() => answers.forEach((answer) => answer()));
      }
    });
    client = KubernetesClient.fromKubeConfig(server.kubeConfig(), { maxSockets: 2 });
    const c = client;
    const got = await Promise.all(Array.from({ length: 12 }, () => c.get(CM, new ResourceID('a', 'ns1'))));
    expect(got.every((g) => g?.metadata?.name === 'a')).toBe(true);
    expect(server.requests).toHaveLength(12);
    expect(most).toBe(2);
  });

  it('a request waiting for its slot while a watch holds a socket is not held back by the watch', async () => {
    let held: (() => void) | undefined;
    server.handle((req, res) => {
      if (req.query.get('watch') === 'true') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('');
        return; // open until the client goes
      }
      if (req.path.endsWith('/slow')) {
        held = () => json(res, 200, { ...item, metadata: { ...item.metadata, name: 'slow' } });
        return;
      }
      json(res, 200, item);
    });
    client = KubernetesClient.fromKubeConfig(server.kubeConfig(), { maxSockets: 1 });
    const c = client;
    const stops = new AbortController();
    const drain = (async () => {
      for await (const event of c.watch(CM, { namespace: 'ns1', signal: stops.signal })) void event;
    })();
    try {
      await waitUntil(() => server.openResponses === 1, 5_000, 'the watch');
      const slow = c.get(CM, new ResourceID('slow', 'ns1'));
      const queued = c.get(CM, new ResourceID('a', 'ns1'));
      await waitUntil(() => held !== undefined, 5_000, 'the slow request');
      held!();
      expect((await slow)?.metadata?.name).toBe('slow');
      expect((await queued)?.metadata?.name).toBe('a');
    } finally {
      stops.abort();
      await drain;
    }
  });

  it('a write a repeat could apply twice is not sent again after a reset on a kept-alive socket (the server may have processed it); a repeatable one is', async () => {
    const served = new Set<number>();
    server.handle((req, res) => {
      const reused = served.has(req.remotePort);
      served.add(req.remotePort);
      // the server processed the write, then the connection was cut before the answer
      // (a load balancer's idle cut looks the same to the client)
      if (req.method !== 'GET' && reused) {
        res.socket?.destroy();
        return;
      }
      json(
        res,
        200,
        req.method === 'GET'
          ? { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }
          : item,
      );
    });
    client = KubernetesClient.fromKubeConfig(server.kubeConfig(), { retry: false });
    await client.list(CM, { namespace: 'ns1' }); // a kept-alive socket
    const error = await client
      .create(CM, { metadata: { generateName: 'w-', namespace: 'ns1' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesTransportError);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);

    served.clear();
    server.requests.length = 0;
    await client.list(CM, { namespace: 'ns1' });
    const applied = await client.apply(
      CM,
      { metadata: { name: 'a', namespace: 'ns1' } },
      { fieldManager: 't' },
    );
    expect(applied.metadata?.name).toBe('a');
    expect(server.requests.filter((r) => r.method === 'PATCH')).toHaveLength(2);
  });

  it('a watch sent on the kept-alive socket of the list before it is sent again on a fresh one when the server has closed that socket', async () => {
    const served = new Set<number>();
    server.handle((req, res) => {
      const reused = served.has(req.remotePort);
      served.add(req.remotePort);
      if (req.query.get('watch') === 'true') {
        // the server had closed the idle socket as the client wrote on it
        if (reused) {
          res.socket?.destroy();
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write(
          `${JSON.stringify({ type: 'ADDED', object: { ...item, metadata: { ...item.metadata, resourceVersion: '2' } } })}\n`,
        );
        res.end();
        return;
      }
      json(res, 200, {
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '1' },
        items: [],
      });
    });
    client = KubernetesClient.fromKubeConfig(server.kubeConfig(), { retry: false });
    const list = await client.list(CM, { namespace: 'ns1' });
    const events = [];
    for await (const event of client.watch(CM, { namespace: 'ns1', resourceVersion: list.resourceVersion }))
      events.push(event.type);
    expect(events).toEqual(['ADDED']);
    // one watch reached the server's handler on a fresh socket (the one on a closed socket may or
    // may not have, depending on whether the list's socket was reused)
    const watchPorts = server.requests
      .filter((r) => r.query.get('watch') === 'true')
      .map((r) => r.remotePort);
    expect(watchPorts.at(-1)).not.toBe(server.requests[0].remotePort);
  });
});
