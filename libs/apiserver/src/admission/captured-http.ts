/**
 * In-process request and response objects for running the resource handler on a body that was
 * already read, and for catching its answer (to run a write as a dry run first, or to convert what
 * it answers). Only the members the handler uses exist.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { PassThrough, Readable } from 'node:stream';

/** A request carrying `body` with the original request's headers (optionally changed). */
export function replayRequest(
  original: IncomingMessage,
  body: Buffer,
  headers: Record<string, string> = {},
): IncomingMessage {
  const r = Readable.from(body.length > 0 ? [body] : []) as Readable & Partial<IncomingMessage>;
  const h: IncomingMessage['headers'] = { ...original.headers, ...headers };
  h['content-length'] = String(body.length);
  Object.assign(r, { headers: h, method: original.method, url: original.url, complete: true });
  return r as unknown as IncomingMessage;
}

/** A response that keeps status, headers and body instead of sending them. */
export class CapturedResponse extends PassThrough {
  statusCode = 200;
  readonly headers: OutgoingHttpHeaders = {};
  headersSent = false;

  writeHead(status: number, headers?: OutgoingHttpHeaders): this {
    this.statusCode = status;
    if (headers) for (const [k, v] of Object.entries(headers)) this.headers[k.toLowerCase()] = v;
    this.headersSent = true;
    return this;
  }

  setHeader(name: string, value: number | string | readonly string[]): this {
    this.headers[name.toLowerCase()] = value as OutgoingHttpHeaders[string];
    return this;
  }

  getHeader(name: string): OutgoingHttpHeaders[string] {
    return this.headers[name.toLowerCase()];
  }

  flushHeaders(): void {
    this.headersSent = true;
  }

  /** This object where the handler expects a ServerResponse. */
  asServerResponse(): ServerResponse {
    return this as unknown as ServerResponse;
  }

  /** The whole body once the handler ended it. */
  text(): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      this.on('data', (c: Buffer | string) => chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c)));
      this.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      this.on('error', reject);
    });
  }
}

/** Sends a captured answer's status and headers (not its body) on the real response. */
export function copyHead(from: CapturedResponse, to: ServerResponse, body: string): void {
  const headers: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(from.headers)) if (k !== 'content-length') headers[k] = v;
  headers['content-length'] = Buffer.byteLength(body);
  to.writeHead(from.statusCode, headers);
}

/**
 * Adds admission warnings to the `Warning` headers of `res`, each once: kube-apiserver's warning
 * recorder adds them as the webhooks answer, so they reach the client with an error answer too. A
 * captured answer takes them after its head was written too (it is sent later, by {@link copyHead}).
 */
export function addWarningHeaders(res: ServerResponse | CapturedResponse, warnings: readonly string[]): void {
  if (warnings.length === 0 || (res.headersSent && !(res instanceof CapturedResponse))) return;
  const had = res.getHeader('warning');
  const before = had === undefined ? [] : Array.isArray(had) ? had.map(String) : [String(had)];
  const added = warnings.map((w) => `299 - ${JSON.stringify(w)}`).filter((h) => !before.includes(h));
  res.setHeader('Warning', [...new Set([...before, ...added])]);
}
