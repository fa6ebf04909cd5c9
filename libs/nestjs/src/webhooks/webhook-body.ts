import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import type { OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/**
 * Largest `AdmissionReview` accepted: an UPDATE carries the object and the old object, each of up
 * to kube-apiserver's 3 MB request limit, so 7 MiB (controller-runtime's limit).
 */
export const MAX_ADMISSION_REVIEW_BYTES = 7 * 1024 * 1024;

/**
 * Largest `ConversionReview` accepted: kube-apiserver sends every object of a list read at another
 * version in one review, so far more than one object's size (controller-runtime sets no limit).
 */
export const MAX_CONVERSION_REVIEW_BYTES = 256 * 1024 * 1024;

/** The largest review accepted at `path`: a conversion review's or an admission review's. */
export function maxReviewBytes(path: string): number {
  return /\/convert\/[^/]+\/?$/.test(path) ? MAX_CONVERSION_REVIEW_BYTES : MAX_ADMISSION_REVIEW_BYTES;
}

/** A review's body as text, or `tooLarge` when it was longer than `limit` bytes (the rest is read and dropped). */
export function readReviewBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > limit }));
    req.on('error', reject);
  });
}

/** The 413 answer's message for a review over `limit` bytes. */
export function tooLargeMessage(limit: number): string {
  return `review larger than ${limit} bytes`;
}

/** The routes of `WebhookController`, under any global prefix. */
const REVIEW_ROUTE = /\/webhooks\/(?:validate|mutate|convert)\/[^/]+\/?$/;

/**
 * Reads the body of a review posted to `WebhookController` itself, up to {@link maxReviewBytes},
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
  const limit = maxReviewBytes(path);
  readReviewBody(req, limit).then(({ text, tooLarge }) => {
    if (!tooLarge) {
      req.body = text; // WebhookController's handler parses it (a malformed review is a 400)
      return next();
    }
    const answer = JSON.stringify({ message: tooLargeMessage(limit) });
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
 * With `WebhookModule.forRoot({ controller: true })`: lets reviews of up to {@link maxReviewBytes} reach
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
        `WebhookController on the ${adapter.getType()} platform: reviews larger than its body limit are refused; kube-apiserver sends admission reviews of up to ${MAX_ADMISSION_REVIEW_BYTES} bytes and conversion reviews of a whole list, so give the adapter such a limit (Fastify: new FastifyAdapter({ bodyLimit: ${MAX_CONVERSION_REVIEW_BYTES} }))`,
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
      `WebhookController: the review body reader could not be put ahead of the JSON body parser, so reviews over its limit (100 kB by default) are refused: call app.useBodyParser('json', { limit: '256mb' }) before listen (kube-apiserver sends admission reviews of up to 7 MiB and conversion reviews of whole lists)`,
    );
  }
}
