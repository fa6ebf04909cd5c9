import type * as http from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { KubernetesApiError, KubernetesTransportError } from '../errors.js';
import type { KubernetesStatus } from '../errors.js';
import type { Connection, Prepared, SlotWaiter } from './connection.js';
import type { IdleEntry } from './idle-sweeper.js';

// node:http imported as an ES module builds its namespace by reading every export, which runs
// http's lazy getters and loads the WebSocket client (undici): ~9 MB of RSS an operator never uses.
// The CommonJS object does not (issue 15 §3).
const httpModule = process.getBuiltinModule('node:http');

/** One HTTP exchange, fully resolved. */
export interface HttpExchange {
  method: string;
  /** Path plus query string, without the server's base path. */
  path: string;
  body?: string;
  contentType?: string;
  signal?: AbortSignal;
  /**
   * Where the request registers its abort while it is open (the client's in-flight set, emptied by
   * `close()`): a set costs O(1) per request, where a listener on one shared `AbortSignal` costs a
   * scan of every other request's listener.
   */
  inFlight?: Set<() => void>;
  /** Destroys the request when the socket is idle this long; 0 disables. */
  idleTimeoutMs: number;
  /** The Accept header. Defaults to `application/json`. */
  accept?: string;
  /**
   * Whether a repeat is harmless (a read, or a write whose landed repeat changes nothing): only then
   * is a request reset on a kept-alive socket before any answer sent once more on a fresh one. The
   * server may have processed it before the reset (a load balancer's idle cut looks the same), so a
   * create with generateName or an appending JSON patch is not repeated (as Go's transport and
   * client-go). Defaults to true (reads and watches).
   */
  resendable?: boolean;
}

/** A buffered answer. */
export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

class TimeoutMarker extends Error {}
class AbortMarker extends Error {}

/**
 * Sends a long-lived request (a watch) and resolves with the response head; it takes no request
 * slot (see Connection). A request that fails on a reused keep-alive
 * socket with ECONNRESET before any answer (the server closed the idle socket as we wrote, or
 * restarted) is sent once more on a fresh socket, as Node's documentation recommends; the other idle
 * sockets are dropped first, since they are most likely dead too.
 */
export async function open(
  conn: Connection,
  exchange: HttpExchange,
): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  try {
    return await openOnce(conn, exchange);
  } catch (error) {
    if ((error as { retryOnFreshSocket?: boolean }).retryOnFreshSocket) {
      conn.dropIdleSockets();
      return openOnce(conn, exchange);
    }
    throw error;
  }
}

async function openOnce(
  conn: Connection,
  exchange: HttpExchange,
): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  const pending = conn.prepare();
  const prepared = pending instanceof Promise ? await pending : pending;
  const requestInfo = { method: exchange.method, path: exchange.path };
  if (exchange.signal?.aborted) {
    throw new KubernetesTransportError('the request was aborted', 'aborted', { request: requestInfo });
  }
  return new Promise((resolve, reject) => {
    const req = request(conn, exchange, prepared);
    const onAbort = () => {
      const aborted = new AbortMarker('aborted');
      req.destroy(aborted);
      fail(aborted);
    };
    exchange.signal?.addEventListener('abort', onAbort, { once: true });
    exchange.inFlight?.add(onAbort);
    const cleanup = () => {
      exchange.signal?.removeEventListener('abort', onAbort);
      exchange.inFlight?.delete(onAbort);
    };
    let headTimer: NodeJS.Timeout | undefined;
    if (exchange.idleTimeoutMs > 0) {
      // Idle socket after the answer started; before that (no socket yet, a proxy tunnel or TLS
      // handshake that never completes) a plain timer, since socket timeouts arm only with a socket.
      req.setTimeout(exchange.idleTimeoutMs, () => req.destroy(new TimeoutMarker('timeout')));
      headTimer = setTimeout(() => {
        // destroy() of a request still waiting for its socket only takes effect once a socket
        // comes, which may be never: settle here.
        const timeout = new TimeoutMarker('timeout');
        req.destroy(timeout);
        fail(timeout);
      }, exchange.idleTimeoutMs);
      headTimer.unref();
    }
    let settled = false;
    const fail = (cause: unknown) => {
      clearTimeout(headTimer);
      if (settled) return;
      settled = true;
      cleanup();
      const error = transportError(cause, exchange, requestInfo, conn.url);
      if (resetOnKeptSocket(exchange, req, cause)) {
        Object.assign(error, { retryOnFreshSocket: true });
      }
      reject(error);
    };
    req.on('error', fail);
    req.on('response', (res) => {
      clearTimeout(headTimer);
      if (settled) {
        res.destroy();
        return;
      }
      settled = true;
      res.on('close', cleanup);
      resolve({ req, res });
    });
    req.end(exchange.body);
  });
}

/**
 * Sends a request and buffers the whole answer, in one promise (no separate promise for the
 * response head) and without timers of its own: the connection's {@link IdleSweeper} fails it when
 * no answer starts within `idleTimeoutMs` or its socket is idle that long while the body arrives
 * (a timer and a socket timeout per request cost a measurable share of a request's CPU, issue 15
 * §2). A request that fails on a reused keep-alive socket with ECONNRESET before any answer is
 * sent once more on a fresh socket, as {@link open} does, when a repeat is harmless
 * ({@link HttpExchange.resendable}). It holds one of the connection's request
 * slots from its start to its end (waiting for one first when all are taken).
 */
export function send(conn: Connection, exchange: HttpExchange): Promise<HttpAnswer> {
  const prepared = conn.prepare();
  if (prepared instanceof Promise) return prepared.then((p) => sendPrepared(conn, exchange, p));
  return sendPrepared(conn, exchange, prepared);
}

function sendPrepared(conn: Connection, exchange: HttpExchange, prepared: Prepared): Promise<HttpAnswer> {
  const requestInfo = { method: exchange.method, path: exchange.path };
  if (exchange.signal?.aborted) {
    return Promise.reject(
      new KubernetesTransportError('the request was aborted', 'aborted', { request: requestInfo }),
    );
  }
  return new Promise((resolve, reject) => {
    let req: http.ClientRequest | undefined;
    let settled = false;
    let answered = false;
    let retried = false;
    let holding = false;
    const idle: IdleEntry = {
      last: Date.now(),
      timeoutMs: exchange.idleTimeoutMs,
      expire: () => {
        const timeout = new TimeoutMarker('timeout');
        req?.destroy(timeout);
        fail(timeout);
      },
    };
    const onAbort = () => {
      const aborted = new AbortMarker('aborted');
      req?.destroy(aborted);
      fail(aborted);
    };
    const cleanup = () => {
      exchange.signal?.removeEventListener('abort', onAbort);
      exchange.inFlight?.delete(onAbort);
      if (idle.timeoutMs > 0) conn.idle.remove(idle);
      if (holding) {
        holding = false;
        conn.release();
      } else {
        waiter.cancelled = true;
      }
    };
    const fail = (cause: unknown) => {
      if (settled) return;
      if (!answered && !retried && resetOnKeptSocket(exchange, req, cause)) {
        // the server closed the idle socket as we wrote (or restarted): once more on a fresh one
        retried = true;
        conn.dropIdleSockets();
        idle.last = Date.now();
        start();
        return;
      }
      settled = true;
      cleanup();
      reject(transportError(cause, exchange, requestInfo, conn.url));
    };
    const start = () => {
      const current = request(conn, exchange, prepared);
      req = current;
      current.on('error', fail);
      current.on('response', (res) => {
        answered = true;
        idle.last = Date.now();
        if (settled) {
          res.destroy();
          return;
        }
        // Let go once the body is built: Node keeps a keep-alive socket's first request (and so
        // its response and these listeners' scope) reachable for the socket's life.
        let chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          idle.last = Date.now();
          chunks.push(chunk);
        });
        res.on('end', () => {
          // most answers come in one chunk: no copy then
          const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          chunks = [];
          if (settled) return;
          settled = true;
          cleanup();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        res.on('error', (cause) => {
          chunks = [];
          fail(cause);
        });
        // cut off before its end (no 'end' came)
        res.on('close', () => {
          chunks = [];
          if (!settled) fail(new Error('response aborted'));
        });
      });
      current.end(exchange.body);
    };
    // the time a request waits for a slot counts toward its idle deadline, as it did in the agent's queue
    const waiter: SlotWaiter = {
      cancelled: false,
      start: () => {
        holding = true;
        start();
      },
    };
    exchange.signal?.addEventListener('abort', onAbort, { once: true });
    exchange.inFlight?.add(onAbort);
    if (idle.timeoutMs > 0) conn.idle.add(idle);
    if (conn.acquire(waiter)) {
      holding = true;
      start();
    }
  });
}

/**
 * Whether a failure is a reset of a reused keep-alive socket (the server closed it as we wrote, or
 * restarted) on a request a repeat cannot harm ({@link HttpExchange.resendable}): such a request is
 * sent once more on a fresh socket.
 */
function resetOnKeptSocket(
  exchange: HttpExchange,
  req: http.ClientRequest | undefined,
  cause: unknown,
): boolean {
  return (
    exchange.resendable !== false &&
    req?.reusedSocket === true &&
    (cause as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET'
  );
}

/** The request of an exchange, its headers a name/value list sent as is (see Connection's headerList). */
function request(conn: Connection, exchange: HttpExchange, prepared: Prepared): http.ClientRequest {
  const allHeaders = prepared.headers.slice();
  allHeaders.push('Accept', exchange.accept ?? 'application/json');
  if (exchange.body !== undefined) {
    allHeaders.push(
      'Content-Type',
      exchange.contentType ?? 'application/json',
      'Content-Length',
      String(Buffer.byteLength(exchange.body)),
    );
  }
  const options: http.RequestOptions = {
    host: conn.hostname,
    port: conn.port,
    method: exchange.method,
    path: conn.basePath + exchange.path,
    headers: allHeaders,
    agent: prepared.agent,
  };
  return conn.protocol === 'https:' ? https.request(options) : httpModule.request(options);
}

/** Errors of certificate verification that mean "the CA in the kubeconfig did not sign this server's certificate". */
const UNTRUSTED_CERTIFICATE = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

/** Whether a low-level error is a TLS failure (certificate verification or handshake). */
function isTlsFailure(code: string | undefined): boolean {
  return (
    code !== undefined &&
    (UNTRUSTED_CERTIFICATE.has(code) ||
      code.startsWith('CERT_') ||
      code.startsWith('ERR_TLS_') ||
      code.startsWith('ERR_SSL_'))
  );
}

/**
 * Classifies a low-level failure. Connection and TLS failures name the server URL and say what to
 * check; a certificate the kubeconfig's CA did not sign says the kubeconfig is stale and how to
 * refresh it (the usual cause: a dev API server restarted with a new CA).
 */
export function transportError(
  cause: unknown,
  exchange: Pick<HttpExchange, 'idleTimeoutMs'>,
  request: { method: string; path: string },
  server?: string,
): KubernetesTransportError {
  if (cause instanceof KubernetesTransportError) return cause;
  if (cause instanceof TimeoutMarker) {
    return new KubernetesTransportError(`no answer within ${exchange.idleTimeoutMs} ms`, 'timeout', {
      request,
    });
  }
  if (cause instanceof AbortMarker || (cause as Error)?.name === 'AbortError') {
    return new KubernetesTransportError('the request was aborted', 'aborted', { request, cause });
  }
  const code = (cause as NodeJS.ErrnoException)?.code;
  const detail = code ?? (cause as Error)?.message ?? String(cause);
  const at = server ? ` at ${server}` : '';
  if (isTlsFailure(code)) {
    const what =
      code && UNTRUSTED_CERTIFICATE.has(code)
        ? `its certificate is not signed by the certificate authority in the kubeconfig (${detail}): the kubeconfig is stale. ` +
          'A dev API server (tosdk-apiserver, KubeApiServer) makes a new CA every time it starts: write the kubeconfig again ' +
          'from the running server (restart `tosdk-apiserver --kubeconfig <file>`, or `await server.writeKubeconfig(path)`) and load that file again; ' +
          "for a real cluster get fresh credentials (`kubectl config view --raw`, or your provider's get-credentials command)"
        : `${detail}: check the server URL and the certificate authority, client certificate and insecure-skip-tls-verify settings of the kubeconfig`;
    return new KubernetesTransportError(`TLS with the API server${at} failed: ${what}`, 'tls', {
      request,
      cause,
    });
  }
  return new KubernetesTransportError(
    `connection to the API server${at} failed: ${detail}; check that the server is running and reachable and that the kubeconfig's server URL is right`,
    'connection',
    { request, cause },
  );
}

/** Turns a failure answer (status >= 400) into a typed error. */
export function apiError(
  status: number,
  headers: http.IncomingHttpHeaders,
  body: Buffer,
  request: { method: string; path: string },
): KubernetesApiError {
  let parsed: KubernetesStatus | undefined;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) parsed = value as KubernetesStatus;
  } catch {
    // not JSON: keep the text as the message
  }
  const statusBody: KubernetesStatus =
    parsed && parsed.kind === 'Status'
      ? parsed
      : {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: status,
          message: body.length
            ? body.toString('utf8').slice(0, 500)
            : (httpModule.STATUS_CODES[status] ?? 'unknown error'),
        };
  const retryAfter = Number(headers['retry-after']);
  return new KubernetesApiError(status, statusBody, {
    request,
    retryAfterSeconds:
      Number.isFinite(retryAfter) && headers['retry-after'] !== undefined ? retryAfter : undefined,
  });
}

/**
 * Splits a byte stream into lines (newline-delimited JSON). Chunk boundaries may fall anywhere,
 * including inside a multi-byte UTF-8 character; empty lines are skipped. A final line without a
 * newline is yielded too (the caller decides whether it is complete).
 */
export async function* readLines(stream: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  for await (const chunk of stream) {
    splitter.push(chunk, lines);
    for (const line of lines) yield line;
    lines.length = 0;
  }
  const last = splitter.end();
  if (last !== undefined) yield last;
}

/**
 * The synchronous part of {@link readLines}: splits chunks into complete lines, so a consumer that
 * already iterates chunks (the watch) needs no second async generator per line.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  // Pieces of the line in progress: each chunk is scanned once, so a long line arriving in many
  // small chunks costs linear time.
  private readonly pending: string[] = [];

  /** Appends the non-blank lines this chunk completes to `out`. */
  push(chunk: Buffer | string, out: string[]): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const pending = this.pending;
    let start = 0;
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      const piece = text.slice(start, nl);
      const line = pending.length ? pending.join('') + piece : piece;
      pending.length = 0;
      if (NON_BLANK.test(line)) out.push(line);
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    if (start < text.length) pending.push(start ? text.slice(start) : text);
  }

  /** The final line without a newline, if it is not blank. */
  end(): string | undefined {
    const last = this.pending.join('') + this.decoder.end();
    this.pending.length = 0;
    return NON_BLANK.test(last) ? last : undefined;
  }
}

const NON_BLANK = /\S/;
