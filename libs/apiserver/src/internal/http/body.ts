import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiError, errors } from '../common/errors.js';
import { checkJsonTextDepth, checkValueDepth } from '../common/nesting.js';

const EMPTY = Buffer.alloc(0);

/** Largest accepted request body (kube-apiserver's limit for JSON bodies). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * Reads a request body, failing with 413 as soon as it exceeds the limit.
 *
 * A request reaches the server's handler when its headers are parsed, before its body: the body is
 * looked at one microtask later, once Node has parsed what the same socket read brought. When the
 * whole body is there (a small body comes with its headers), it is taken in one read instead of
 * being streamed through 'data' and 'end' events; otherwise (a larger body still on its way, a body
 * without a declared length, a request replayed from a stream) it is read as a stream.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    return Promise.reject(errors.tooLarge());
  }
  return Promise.resolve().then(() => wholeBody(req, declared) ?? streamBody(req, limit));
}

/** The body when all of it waits in the request's buffer (taken in one read), else undefined. */
function wholeBody(req: IncomingMessage, declared: number): Buffer | undefined {
  if (!req.complete || req.readableFlowing === true || req.readableLength !== declared) return undefined;
  if (declared === 0) return EMPTY;
  const whole = req.read() as Buffer | null;
  // read() hands out everything buffered at once; anything else is left to the stream (not expected)
  if (whole === null) return undefined;
  if (whole.length === declared) return whole;
  req.unshift(whole);
  return undefined;
}

function streamBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        reject(errors.tooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) reject(errors.badRequest(`error reading the request body: ${e.message}`));
    });
  });
}

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Parses a JSON or YAML body; 400 with Kubernetes-like wording when it is malformed or nests objects
 * and arrays deeper than `MAX_NESTING_DEPTH` (checked without recursion, before any engine walks it).
 */
export function parseBody(buf: Buffer, media: string): unknown {
  const text = buf.toString('utf8');
  if (isBlank(text)) throw errors.badRequest('the request body is empty; an object is required');
  const what = 'the body of the request';
  if (
    media === 'application/yaml' ||
    media === 'application/apply-patch+yaml' ||
    media === 'text/yaml' ||
    media === 'application/x-yaml'
  ) {
    // JSON is YAML: a body that parses as JSON gives the same value without the YAML composer
    // (kubectl and client libraries send apply patches as JSON); anything else goes to YAML
    const c = text.trimStart().charCodeAt(0);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      checkJsonTextDepth(text, what);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        // not JSON: YAML flow syntax, comments, or malformed; the YAML parser decides and words the error
      }
    }
    checkJsonTextDepth(text, what, true);
    try {
      const docs = parseYaml(text, { uniqueKeys: false, maxAliasCount: 100 }) as unknown;
      checkValueDepth(docs, what);
      return docs;
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw new ApiError(
        400,
        'BadRequest',
        `error converting YAML to JSON: ${(e as Error).message.split('\n')[0]}`,
        undefined,
        e,
      );
    }
  }
  checkJsonTextDepth(text, what);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ApiError(
      400,
      'BadRequest',
      `the body of the request could not be decoded: ${(e as Error).message}`,
      undefined,
      e,
    );
  }
}

/** Whether `text` is empty or only whitespace (without the copy `trim()` makes of a body). */
function isBlank(text: string): boolean {
  const c = text.charCodeAt(0);
  // a JSON body starts with `{` or `[`: settled at the first character
  if (c === 0x7b || c === 0x5b) return false;
  return text.trim() === '';
}
