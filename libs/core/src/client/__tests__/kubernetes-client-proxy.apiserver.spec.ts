import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../api/builtin-types.js';
import { KubernetesTransportError } from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';

describe('KubernetesClient behind a proxy-url', () => {
  let server: KubeApiServer;
  let proxy: http.Server;
  const tunnels: string[] = [];
  const sockets = new Set<net.Socket>();

  beforeAll(async () => {
    server = await KubeApiServer.start({ port: 0 });
    proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        sockets.add(socket).add(upstream);
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
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
    const kc = viaProxy((proxy.address() as AddressInfo).port);
    const client = KubernetesClient.fromKubeConfig(kc, { requestTimeoutMs: 5_000 });
    try {
      const list = await client.list(ResourceTypes.Namespace);
      expect(list.items.some((n) => n.metadata?.name === 'default')).toBe(true);
      expect(tunnels).toEqual([`127.0.0.1:${server.port}`]);
    } finally {
      client.close();
    }
  });

  it('times out a request whose tunnel never opens (no socket yet, so no socket timeout)', async () => {
    const silent = net.createServer((socket) => sockets.add(socket));
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
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
