import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../api/builtin-types.js';
import { KubernetesTransportError } from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import { startTunnelProxy } from './tunnel-proxy.js';
import type { TunnelProxy } from './tunnel-proxy.js';

describe('KubernetesClient behind a proxy-url', () => {
  let server: KubeApiServer;
  let proxy: TunnelProxy;

  beforeAll(async () => {
    server = await KubeApiServer.start({ port: 0 });
    proxy = await startTunnelProxy();
  });
  afterAll(async () => {
    await proxy.close();
    await server.stop();
  });

  const viaProxy = (proxyPort: number): KubeConfig => {
    const base = server.kubeConfig();
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          ...base.getCurrentCluster()!,
          proxyUrl: `http://127.0.0.1:${proxyPort}`,
        },
      ],
      users: [base.getCurrentUser()!],
      contexts: [
        { name: 'proxied', cluster: base.getCurrentCluster()!.name, user: base.getCurrentUser()!.name },
      ],
      currentContext: 'proxied',
    });
    return kc;
  };

  it('tunnels through the HTTP CONNECT proxy named in the KubeConfig', async () => {
    const kc = viaProxy(proxy.port);
    const client = KubernetesClient.fromKubeConfig(kc, { requestTimeoutMs: 5_000 });
    try {
      const list = await client.list(ResourceTypes.Namespace);
      expect(list.items.some((n) => n.metadata?.name === 'default')).toBe(true);
      expect(proxy.tunnels).toEqual([`127.0.0.1:${server.port}`]);
    } finally {
      client.close();
    }
  });

  it('times out a request whose tunnel never opens (no socket yet, so no socket timeout)', async () => {
    const silent = net.createServer((socket) => proxy.sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const client = KubernetesClient.fromKubeConfig(viaProxy((silent.address() as AddressInfo).port), {
      requestTimeoutMs: 200,
    });
    try {
      const error = await client.list(ResourceTypes.Namespace).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubernetesTransportError);
      expect((error as KubernetesTransportError).failure).toBe('timeout');
    } finally {
      client.close();
      for (const socket of proxy.sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
