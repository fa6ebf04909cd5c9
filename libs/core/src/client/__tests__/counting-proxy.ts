import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/**
 * A TCP relay on 127.0.0.1 in front of a server: counts the connections clients open to it (each
 * a TLS handshake with an HTTPS server behind), the way a test observes a client's connection use
 * from the outside.
 */
export class CountingProxy {
  /** Connections accepted so far. */
  accepted = 0;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<CountingProxy> {
    const ref: { self?: CountingProxy } = {};
    const server = net.createServer((inbound) => {
      const self = ref.self!;
      self.accepted++;
      const outbound = net.connect(targetPort, '127.0.0.1');
      for (const s of [inbound, outbound]) {
        self.sockets.add(s);
        s.on('close', () => self.sockets.delete(s));
        s.on('error', () => undefined);
      }
      inbound.pipe(outbound);
      outbound.pipe(inbound);
      inbound.on('close', () => outbound.destroy());
      outbound.on('close', () => inbound.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ref.self = new CountingProxy(server, (server.address() as AddressInfo).port);
    return ref.self;
  }

  /** Connections open now (both ends of a relayed connection count as one). */
  get open(): number {
    return this.sockets.size / 2;
  }

  /** The same KubeConfig with its current cluster's server behind this proxy. */
  kubeConfig(kc: KubeConfig): KubeConfig {
    const proxied = new KubeConfig();
    proxied.loadFromOptions({
      clusters: kc.clusters.map((c) => {
        const url = new URL(c.server);
        url.port = String(this.port);
        return { ...c, server: url.origin };
      }),
      users: kc.users,
      contexts: kc.contexts,
      currentContext: kc.currentContext,
    });
    return proxied;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
