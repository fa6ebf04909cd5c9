import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/** Which request the proxy lets the server process and then answers with a connection reset. */
export type CutRule = (req: http.IncomingMessage, nthOnConnection: number) => boolean;

/**
 * An HTTP proxy on 127.0.0.1 in front of a plain-HTTP API server that, for the requests `cut`
 * selects, forwards the request, waits until the server has answered it (it was processed), and
 * then resets the client's connection instead of passing the answer on: what a load balancer or a
 * dying node does to a kept-alive connection. Every other request passes.
 */
export class ResetAfterProcessingProxy {
  /** Requests that reached the server through the proxy, as `METHOD path`. */
  readonly forwarded: string[] = [];
  cuts = 0;
  private readonly sockets = new Set<Socket>();
  private readonly perConnection = new WeakMap<Socket, number>();

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
    private readonly upstreamPort: number,
    public cut: CutRule,
  ) {}

  static async start(upstreamPort: number, cut: CutRule): Promise<ResetAfterProcessingProxy> {
    const ref: { self?: ResetAfterProcessingProxy } = {};
    const server = http.createServer((req, res) => ref.self!.handle(req, res));
    server.keepAliveTimeout = 60_000;
    server.on('connection', (socket: Socket) => {
      ref.self?.sockets.add(socket);
      socket.on('close', () => ref.self?.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ref.self = new ResetAfterProcessingProxy(
      server,
      (server.address() as AddressInfo).port,
      upstreamPort,
      cut,
    );
    return ref.self;
  }

  /** A KubeConfig with the admin's token that reaches the server through this proxy. */
  kubeConfig(token: string): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'reset', server: `http://127.0.0.1:${this.port}`, skipTLSVerify: true }],
      users: [{ name: 'admin', token }],
      contexts: [{ name: 'reset', cluster: 'reset', user: 'admin' }],
      currentContext: 'reset',
    });
    return kc;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const n = (this.perConnection.get(req.socket) ?? 0) + 1;
    this.perConnection.set(req.socket, n);
    const cut = this.cut(req, n);
    const headers = { ...req.headers };
    delete headers.connection;
    delete headers['keep-alive'];
    const up = http.request(
      {
        host: '127.0.0.1',
        port: this.upstreamPort,
        method: req.method,
        path: req.url,
        headers,
        agent: false,
      },
      (upRes) => {
        this.forwarded.push(`${req.method} ${req.url}`);
        if (cut) {
          // processed by the server: drop its answer and reset the client's connection
          upRes.resume();
          upRes.on('end', () => {
            this.cuts++;
            req.socket.resetAndDestroy();
          });
          return;
        }
        const upHeaders = { ...upRes.headers };
        delete upHeaders.connection;
        delete upHeaders['keep-alive'];
        res.writeHead(upRes.statusCode ?? 502, upHeaders);
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  }
}
