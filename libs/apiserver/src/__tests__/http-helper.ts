import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { KubeApiServer } from '../server.js';

/** A raw HTTP answer. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: <T = Record<string, unknown>>() => T;
}

/** Sends one request to the server with the admin token (or `token`), trusting its CA. */
export function call(
  server: KubeApiServer,
  method: string,
  path: string,
  body?: unknown,
  opts: {
    contentType?: string;
    token?: string | null;
    accept?: string;
    raw?: boolean;
    /** More request headers (a list repeats the header). */
    headers?: Record<string, string | string[]>;
  } = {},
): Promise<RawResponse> {
  const url = new URL(path, server.url);
  const headers: Record<string, string | string[]> = { ...opts.headers };
  const token = opts.token === undefined ? server.tokenOf() : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let payload: Buffer | undefined;
  if (body !== undefined) {
    payload = Buffer.isBuffer(body)
      ? body
      : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    headers['content-type'] = opts.contentType ?? 'application/json';
    headers['content-length'] = String(payload.length);
  }
  if (opts.accept) headers.accept = opts.accept;
  const doRequest = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = doRequest(url, { method, headers, ca: server.caPem, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text,
          json: <T>() => JSON.parse(text) as T,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A streaming watch over raw HTTP that collects parsed event lines. */
export function rawWatch(
  server: KubeApiServer,
  path: string,
  opts: { accept?: string } = {},
): { events: { type: string; object: Record<string, unknown> }[]; ended: Promise<void>; close: () => void } {
  const url = new URL(path, server.url);
  const events: { type: string; object: Record<string, unknown> }[] = [];
  const doRequest = url.protocol === 'https:' ? httpsRequest : httpRequest;
  let closeFn = (): void => undefined;
  const ended = new Promise<void>((resolve, reject) => {
    const req = doRequest(
      url,
      {
        method: 'GET',
        headers: {
          authorization: `Bearer ${server.tokenOf()}`,
          ...(opts.accept !== undefined ? { accept: opts.accept } : {}),
        },
        ca: server.caPem,
      },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let i: number;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim())
              events.push(JSON.parse(line) as { type: string; object: Record<string, unknown> });
          }
        });
        res.on('end', () => resolve());
        res.on('close', () => resolve());
        res.on('error', () => resolve());
      },
    );
    req.on('error', (e) => (events.length >= 0 ? resolve() : reject(e)));
    req.end();
    closeFn = () => req.destroy();
  });
  return { events, ended, close: () => closeFn() };
}

/** The fieldsV1 of `manager`'s managedFields entry in an answer's object (undefined when it has none). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- read loosely, as the tests read JSON answers
export function fieldsOf(o: { metadata?: { managedFields?: unknown } }, manager: string): any {
  const entries = o.metadata?.managedFields as Array<{ manager?: string; fieldsV1?: unknown }> | undefined;
  return entries?.find((e) => e.manager === manager)?.fieldsV1;
}

/** A ConfigMap body: `extra` beside metadata (data, ...), `meta` inside it. */
export function configMapBody(
  name: string,
  extra: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, ...extra };
}

/** POSTs `body` to `path` and returns the created object; fails unless the answer is 201. */
export async function created<T = Record<string, unknown>>(
  server: KubeApiServer,
  path: string,
  body: unknown,
): Promise<T> {
  const r = await call(server, 'POST', path, body);
  if (r.status !== 201) throw new Error(`POST ${path}: expected 201, got ${r.status}: ${r.text}`);
  return r.json<T>();
}

/** GETs `path` and returns the object; fails unless the answer is 200. */
export async function fetched<T = Record<string, unknown>>(server: KubeApiServer, path: string): Promise<T> {
  const r = await call(server, 'GET', path);
  if (r.status !== 200) throw new Error(`GET ${path}: expected 200, got ${r.status}: ${r.text}`);
  return r.json<T>();
}
