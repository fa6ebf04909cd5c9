import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/** A request as the scripted server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path and query. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** Header names and values as sent, one pair per header line (repeated names kept apart). */
  rawHeaders: string[];
  body: string;
  /** The client's port of the connection it came on (the same for requests on one kept-alive socket). */
  remotePort: number;
}

/** Answers one request; may keep `res` open (watch streams). */
export type Script = (req: RecordedRequest, res: http.ServerResponse) => void | Promise<void>;

/**
 * A tiny HTTP server on 127.0.0.1 whose answers a test scripts request by request: for the framing,
 * error and timing cases a real API server cannot be made to produce on demand.
 */
export class ScriptedServer {
  readonly requests: RecordedRequest[] = [];
  private script: Script = (_req, res) => {
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        kind: 'Status',
        status: 'Failure',
        reason: 'NotFound',
        code: 404,
        message: 'no script',
      }),
    );
  };
  private readonly open = new Set<http.ServerResponse>();

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
  ) {}

  static async start(): Promise<ScriptedServer> {
    const ref: { self?: ScriptedServer } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const recorded: RecordedRequest = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          rawHeaders: req.rawHeaders,
          body: Buffer.concat(chunks).toString('utf8'),
          remotePort: req.socket.remotePort ?? 0,
        };
        ref.self!.requests.push(recorded);
        ref.self!.open.add(res);
        res.on('close', () => ref.self!.open.delete(res));
        void Promise.resolve(ref.self!.script(recorded, res)).catch((error: unknown) => {
          res.destroy(error as Error);
        });
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ref.self = new ScriptedServer(server, (server.address() as AddressInfo).port);
    return ref.self;
  }

  /** Sets how the next requests are answered. */
  handle(script: Script): void {
    this.script = script;
  }

  /** A KubeConfig pointing at this server with a bearer token (client-node allows plain HTTP only with skipTLSVerify). */
  kubeConfig(token = 'test-token'): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'scripted', server: `http://127.0.0.1:${this.port}`, skipTLSVerify: true }],
      users: [{ name: 'tester', token }],
      contexts: [{ name: 'scripted', cluster: 'scripted', user: 'tester' }],
      currentContext: 'scripted',
    });
    return kc;
  }

  /** Responses still open (watch streams). */
  get openResponses(): number {
    return this.open.size;
  }

  /** Ends every open response cleanly (as a server does at a watch timeout). */
  endAll(): void {
    for (const res of this.open) res.end();
  }

  /** Cuts every open connection (as a crash or a proxy does). */
  destroyAll(): void {
    for (const res of this.open) res.destroy();
  }

  async stop(): Promise<void> {
    this.destroyAll();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Writes a JSON answer. */
export function json(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** A Status failure body. */
export function status(code: number, reason: string, message = reason): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

/** Polls `condition` until it holds (or fails the test after `timeoutMs`). */
export async function waitFor(
  condition: () => boolean,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
