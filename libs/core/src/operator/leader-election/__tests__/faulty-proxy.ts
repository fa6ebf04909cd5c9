import type http from 'node:http';
import type { Socket } from 'node:net';
import { forwardUpstream, passAnswer, startTrackedServer } from '../../../__tests__/support/http-forward.js';

/** What the proxy does with traffic. */
export type ProxyMode = 'pass' | 'fail-leases' | 'blackhole';

/**
 * An HTTP proxy on 127.0.0.1 in front of a plain-HTTP API server, for one client whose network a
 * test breaks in three ways: lease requests answered 500 (`fail-leases`), connections refused
 * (`refuse()`: the listener closes, every connection is cut) and traffic black-holed (`blackhole`:
 * requests get no answer and open streams stall, nothing is closed).
 */
export class FaultyProxy {
  mode: ProxyMode = 'pass';
  private readonly upstream = new Set<http.ClientRequest>();
  private readonly frozen: Array<() => void> = [];
  private listening = true;

  private constructor(
    private readonly server: http.Server,
    private readonly sockets: Set<Socket>,
    readonly port: number,
    private readonly upstreamPort: number,
  ) {}

  static async start(upstreamPort: number): Promise<FaultyProxy> {
    const ref: { self?: FaultyProxy } = {};
    const { server, port, sockets } = await startTrackedServer((req, res) => ref.self!.handle(req, res));
    ref.self = new FaultyProxy(server, sockets, port, upstreamPort);
    return ref.self;
  }

  /** The server URL clients use. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stalls everything: open streams stop, new requests are held without an answer. */
  blackhole(): void {
    this.mode = 'blackhole';
    for (const freeze of this.frozen.splice(0)) freeze();
  }

  /** Refuses connections: closes the listener and cuts every connection. */
  async refuse(): Promise<void> {
    this.listening = false;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.cutAll();
    await closed;
  }

  /** Back to passing traffic (listening again after `refuse()`); held requests are cut. */
  async heal(): Promise<void> {
    this.mode = 'pass';
    this.cutAll();
    if (!this.listening) {
      await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
      this.listening = true;
    }
  }

  async stop(): Promise<void> {
    if (this.listening) {
      this.listening = false;
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.cutAll();
      await closed;
    } else this.cutAll();
  }

  private cutAll(): void {
    for (const socket of this.sockets) socket.destroy();
    for (const req of this.upstream) req.destroy();
    this.frozen.length = 0;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.mode === 'blackhole') return; // never answered
    if (this.mode === 'fail-leases' && /\/leases(\/|\?|$)/.test(req.url ?? '')) {
      req.resume();
      const body = JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'InternalError',
        code: 500,
        message: 'lease storage unavailable (proxy fault)',
      });
      res.writeHead(500, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    const up = forwardUpstream(this.upstreamPort, req, res, (upRes) => {
      if (this.mode === 'blackhole') {
        upRes.destroy();
        return;
      }
      passAnswer(upRes, res);
      // a black hole stalls this stream where it is (nothing more reaches the client)
      const freeze = () => {
        upRes.unpipe(res);
        upRes.pause();
      };
      this.frozen.push(freeze);
      upRes.on('end', () => {
        const i = this.frozen.indexOf(freeze);
        if (i >= 0) this.frozen.splice(i, 1);
      });
    });
    this.upstream.add(up);
    up.on('close', () => this.upstream.delete(up));
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
  }
}
