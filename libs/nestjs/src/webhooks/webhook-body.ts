import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import type { OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/** Largest review body accepted: kube-apiserver sends requests of up to 3 MiB. */
export const MAX_REVIEW_BYTES = 3 * 1024 * 1024;

/** A review's body as text, or `tooLarge` when it was longer than {@link MAX_REVIEW_BYTES} (the rest is read and dropped). */
export function readReviewBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_REVIEW_BYTES) chunks.push(c);
    });
    req.on('end', () =>
      resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > MAX_REVIEW_BYTES }),
    );
    req.on('error', reject);
  });
}

/** The routes of `WebhookController`, under any global prefix. */
const REVIEW_ROUTE = /\/webhooks\/(?:validate|mutate|convert)\/[^/]+\/?$/;

/**
 * Reads the body of a review posted to `WebhookController` itself, up to {@link MAX_REVIEW_BYTES},
 * before the application's JSON parser: Express's parser refuses bodies over 100 kB with 413, and
 * a list converted at another version, or a large object, is a bigger review. The body parsers that
 * follow skip a request whose body was read. Any other request passes through untouched.
 */
function reviewBodyMiddleware(
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  next: (error?: unknown) => void,
): void {
  const path = new URL(req.url ?? '/', 'http://app').pathname;
  // a body read before (the same reader of a second WebhookModule) would never end again
  if (req.method !== 'POST' || !REVIEW_ROUTE.test(path) || req.readableEnded) return next();
  readReviewBody(req).then(({ text, tooLarge }) => {
    if (!tooLarge) {
      req.body = text; // WebhookController's handler parses it (a malformed review is a 400)
      return next();
    }
    const answer = JSON.stringify({ message: `review larger than ${MAX_REVIEW_BYTES} bytes` });
    res.writeHead(413, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(answer) });
    res.end(answer);
  }, next);
}

/** The parts of an Express application this module touches. */
interface ExpressLike {
  use(handler: typeof reviewBodyMiddleware): unknown;
  router?: { stack?: { handle?: unknown }[] };
}

/**
 * With `WebhookModule.forRoot({ controller: true })`: lets reviews of up to 3 MiB reach
 * `WebhookController` on the application's own server, whatever the JSON body limit of the
 * application's other routes. On Express it reads the webhook routes' bodies ahead of the JSON
 * parser; on another platform it logs the limit to raise (Fastify: `bodyLimit`, 1 MiB by default).
 */
@Injectable()
export class WebhookRouteBody implements OnModuleInit {
  private readonly logger = new Logger('Webhooks');

  constructor(private readonly host: HttpAdapterHost) {}

  /** Puts the review body reader first on the Express application's router. */
  onModuleInit(): void {
    const adapter = this.host.httpAdapter as HttpAdapterHost['httpAdapter'] | undefined;
    if (!adapter) return; // an application context serves no routes
    if (adapter.getType() !== 'express') {
      this.logger.warn(
        `WebhookController on the ${adapter.getType()} platform: reviews larger than its body limit are refused; kube-apiserver sends up to ${MAX_REVIEW_BYTES} bytes (a list converted at another version), so give the adapter that limit (Fastify: new FastifyAdapter({ bodyLimit: ${MAX_REVIEW_BYTES} }))`,
      );
      return;
    }
    const app = adapter.getInstance<ExpressLike>();
    app.use(reviewBodyMiddleware);
    // Nest mounted its body parsers before any module initialised: run ahead of them
    const stack = app.router?.stack;
    if (Array.isArray(stack) && stack[stack.length - 1]?.handle === reviewBodyMiddleware) {
      stack.unshift(stack.pop()!);
      return;
    }
    this.logger.warn(
      `WebhookController: the review body reader could not be put ahead of the JSON body parser, so reviews over its limit (100 kB by default) are refused: call app.useBodyParser('json', { limit: '3mb' }) before listen`,
    );
  }
}
