import type http from 'node:http';
import type { Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { forwardUpstream, passAnswer, startTrackedServer } from '../support/http-forward.js';

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
  private readonly perConnection = new WeakMap<Socket, number>();

  private constructor(
    private readonly server: http.Server,
    private readonly sockets: Set<Socket>,
    readonly port: number,
    private readonly upstreamPort: number,
    public cut: CutRule,
  ) {}

  static async start(upstreamPort: number, cut: CutRule): Promise<ResetAfterProcessingProxy> {
    const ref: { self?: ResetAfterProcessingProxy } = {};
    const { server, port, sockets } = await startTrackedServer((req, res) => ref.self!.handle(req, res));
    ref.self = new ResetAfterProcessingProxy(server, sockets, port, upstreamPort, cut);
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
    forwardUpstream(this.upstreamPort, req, res, (upRes) => {
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
      passAnswer(upRes, res);
    });
  }
}
