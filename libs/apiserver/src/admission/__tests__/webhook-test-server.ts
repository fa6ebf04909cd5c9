import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateTls } from '../../internal/http/tls.js';

/** An object in a review, as the tests read it. */
export interface ReviewObject {
  metadata?: { name?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

/** The review a test webhook receives. */
export interface Review {
  apiVersion: string;
  kind: string;
  request: {
    uid: string;
    operation: string;
    name: string;
    namespace?: string;
    dryRun: boolean;
    resource: { group: string; version: string; resource: string };
    object?: ReviewObject;
    oldObject?: ReviewObject;
  };
}

/** What a test webhook answers: the review's `response` (uid is filled in) or a raw body. */
export type TestHook = (
  review: Review,
) => Record<string, unknown> | Promise<Record<string, unknown>> | 'hang';

/** An HTTPS server on 127.0.0.1 whose paths are test webhooks; records every review it gets. */
export class TestWebhookServer {
  readonly reviews: { path: string; review: Review }[] = [];
  private readonly hooks = new Map<string, TestHook>();
  private server!: Server;
  caBundle = '';
  port = 0;

  static async start(): Promise<TestWebhookServer> {
    const s = new TestWebhookServer();
    const tls = await generateTls();
    s.caBundle = Buffer.from(tls.caPem).toString('base64');
    s.server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'https://x').pathname;
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
        s.reviews.push({ path, review });
        const hook = s.hooks.get(path);
        if (!hook) {
          res.writeHead(404).end();
          return;
        }
        void Promise.resolve(hook(review)).then((answer) => {
          if (answer === 'hang') return;
          const uid = review.request.uid;
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(
            JSON.stringify({
              apiVersion: review.apiVersion,
              kind: review.kind,
              response: { uid, ...answer },
            }),
          );
        });
      });
    });
    await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
    s.port = (s.server.address() as AddressInfo).port;
    return s;
  }

  /** Serves `hook` at `path`. */
  on(path: string, hook: TestHook): this {
    this.hooks.set(path, hook);
    return this;
  }

  /** A clientConfig for `path`. */
  clientConfig(path: string): { url: string; caBundle: string } {
    return { url: `https://127.0.0.1:${this.port}${path}`, caBundle: this.caBundle };
  }

  /** Reviews received at `path`. */
  at(path: string): Review[] {
    return this.reviews.filter((r) => r.path === path).map((r) => r.review);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** A JSON patch as a mutating webhook answers it. */
export function patchResponse(ops: unknown[]): Record<string, unknown> {
  return {
    allowed: true,
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
  };
}
