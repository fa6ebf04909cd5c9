import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { ResetAfterProcessingProxy } from './reset-proxy.js';

/**
 * Adversarial review (session 5) of the transport's stale-socket retry, which one shared pool makes
 * more frequent (2eaf61d: watches and requests now reuse each other's sockets). A request that fails
 * with ECONNRESET on a reused keep-alive socket before any answer is sent once more on a fresh socket
 * (transport.ts). That is safe only if the server never processed it. A connection reset after the
 * server processed the request (a load balancer's idle cut, a node going away) looks the same to the
 * client, so a non-idempotent write is applied twice: a create with generateName makes two objects,
 * a JSON patch that appends makes two items. client-go retries a connection reset only for GET, and
 * Go's transport replays a request with a body only when it knows nothing was written. The client's
 * own retrier knows which writes are safe to repeat (`RetrySafety`); the transport's resend does not
 * ask it. The client's retry is off here, so only the transport's resend can repeat a request.
 */
let server: KubeApiServer;
let token: string;
const CM = ResourceTypes.ConfigMap;
jest.setTimeout(60_000);

beforeAll(async () => {
  server = await KubeApiServer.start({ tls: false });
  token = server.tokenOf();
});
afterAll(async () => {
  await server.stop();
});

async function withProxy<T>(
  cut: (method: string, url: string, n: number) => boolean,
  body: (client: KubernetesClient, proxy: ResetAfterProcessingProxy) => Promise<T>,
): Promise<T> {
  const proxy = await ResetAfterProcessingProxy.start(server.port, (req, n) =>
    cut(req.method ?? '', req.url ?? '', n),
  );
  const client = KubernetesClient.fromKubeConfig(proxy.kubeConfig(token), { retry: false });
  try {
    return await body(client, proxy);
  } finally {
    client.close();
    await proxy.stop();
  }
}

describe('review s5: a write the server processed is not sent again after a connection reset', () => {
  it('[FINDING H24-1] a create with generateName on a kept-alive socket reset after the server created it makes one object, not two', async () => {
    const ns = 'default';
    const outcome = await withProxy(
      (method, _url, n) => method === 'POST' && n > 1,
      async (client, proxy) => {
        await client.list(CM, { namespace: ns }); // the socket is kept alive
        const result = await client
          .create(CM, {
            metadata: { generateName: 'resend-', namespace: ns },
            data: { a: '1' },
          })
          .then(
            () => 'created',
            (e: unknown) => (e as Error).name,
          );
        return {
          result,
          cuts: proxy.cuts,
          forwarded: proxy.forwarded.filter((f) => f.startsWith('POST')).length,
        };
      },
    );
    const admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
    const after = (await admin.list(CM, { namespace: ns })).items.filter((c) =>
      c.metadata?.name?.startsWith('resend-'),
    ).length;
    admin.close();
    expect(outcome.cuts).toBe(1);
    // what the user observes: one create call, one object (today: 2 POSTs reached the server, 2 objects)
    expect({ forwarded: outcome.forwarded, objects: after }).toEqual({ forwarded: 1, objects: 1 });
  });

  it('[FINDING H24-1] a JSON patch that appends to a list, reset after the server applied it, appends one item, not two', async () => {
    const admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
    const id = new ResourceID('resend-patch', 'default');
    await admin.create(CM, {
      metadata: { name: id.name, namespace: 'default', finalizers: ['example.com/first'] },
      data: {},
    });
    try {
      await withProxy(
        (method, _url, n) => method === 'PATCH' && n > 1,
        async (client) => {
          await client.get(CM, id); // the socket is kept alive
          await client
            .jsonPatch(CM, id, [
              { op: 'add', path: '/metadata/finalizers/-', value: 'example.com/once' },
            ] as never)
            .catch(() => undefined);
        },
      ).catch(() => undefined);
      const cm = await admin.get(CM, id);
      expect(cm?.metadata?.finalizers).toEqual(['example.com/first', 'example.com/once']);
    } finally {
      await admin
        .jsonPatch(CM, id, [{ op: 'remove', path: '/metadata/finalizers' }] as never)
        .catch(() => undefined);
      admin.close();
    }
  });

  it('a GET on a kept-alive socket reset after the server answered is sent again and answers (the resend stays for reads)', async () => {
    const admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
    await admin.create(CM, { metadata: { name: 'resend-read', namespace: 'default' }, data: { a: '1' } });
    admin.close();
    const got = await withProxy(
      (method, url, n) => method === 'GET' && url.includes('resend-read') && n > 1,
      async (client, proxy) => {
        await client.list(CM, { namespace: 'kube-system' });
        const cm = await client.get(CM, new ResourceID('resend-read', 'default'));
        return { value: cm?.data?.a, cuts: proxy.cuts };
      },
    );
    expect(got).toEqual({ value: '1', cuts: 1 });
  });
});
