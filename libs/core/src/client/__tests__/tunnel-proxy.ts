import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as net from 'node:net';

/** An HTTP CONNECT proxy on 127.0.0.1 for tests: records each tunnel's target and closes them all on `close()`. */
export interface TunnelProxy {
  /** The proxy's port. */
  readonly port: number;
  /** `host:port` of each tunnel opened, in order. */
  readonly tunnels: string[];
  /** Sockets the test wants destroyed with the proxy's own (a silent upstream's, for one). */
  readonly sockets: Set<net.Socket>;
  close(): Promise<void>;
}

/** Starts a {@link TunnelProxy}; other requests than CONNECT are answered 405. */
export async function startTunnelProxy(): Promise<TunnelProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<net.Socket>();
  const proxy = http.createServer((_req, res) => res.writeHead(405).end());
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
  return {
    port: (proxy.address() as AddressInfo).port,
    tunnels,
    sockets,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
