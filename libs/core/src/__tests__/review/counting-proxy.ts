import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeApiServer } from '@tosdk/apiserver';

/**
 * A TCP proxy on 127.0.0.1 in front of an API server that counts the client's connections (TLS
 * passes through untouched): how many were opened, how many are open now, and the most open at once.
 */
export class CountingProxy {
  opened = 0;
  open = 0;
  peak = 0;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(upstreamPort: number): Promise<CountingProxy> {
    const ref: { self?: CountingProxy } = {};
    const server = net.createServer((client) => {
      const self = ref.self!;
      self.opened++;
      self.open++;
      self.peak = Math.max(self.peak, self.open);
      const upstream = net.connect(upstreamPort, '127.0.0.1');
      self.sockets.add(client);
      self.sockets.add(upstream);
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        self.open--;
        client.destroy();
        upstream.destroy();
        self.sockets.delete(client);
        self.sockets.delete(upstream);
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ref.self = new CountingProxy(server, (server.address() as AddressInfo).port);
    return ref.self;
  }

  /** Forgets the peak (the next peak counts from the connections open now). */
  resetPeak(): void {
    this.peak = this.open;
  }

  /** A KubeConfig of the server's admin that reaches the server through this proxy. */
  kubeConfig(apiServer: KubeApiServer): KubeConfig {
    const original = apiServer.kubeConfig();
    const cluster = original.getCurrentCluster()!;
    const user = original.getCurrentUser()!;
    const url = new URL(cluster.server);
    url.port = String(this.port);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ ...cluster, name: 'proxied', server: url.toString().replace(/\/$/, '') }],
      users: [user],
      contexts: [{ name: 'proxied', cluster: 'proxied', user: user.name }],
      currentContext: 'proxied',
    });
    return kc;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
