import type * as http from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { KubernetesApiError, KubernetesClientUsageError, KubernetesTransportError } from '../errors.js';
import type { KubernetesStatus } from '../errors.js';
import type { Connection, Prepared, SlotWaiter } from './connection.js';
import type { IdleEntry } from './idle-sweeper.js';
import type { WireExchange, WireHeaders, WireListener, WirePool } from './wire.js';
import { WRITE_PIECE, writeInPieces } from './wire.js';

/** Header fields of an answer by lower-case name (Node's `IncomingHttpHeaders` fits). */
export type AnswerHeaders = Readonly<Record<string, string | string[] | undefined>>;

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
  /** Set when sent: the credentials the request carried (what a 401 to it rejects, {@link Connection.invalidateAuth}). */
  credentials?: object;
}

/** A buffered answer. */
export interface HttpAnswer {
  status: number;
  headers: AnswerHeaders;
  body: Buffer;
}

/** An answer whose body is read as it arrives (a watch). */
export interface StreamedAnswer extends AsyncIterable<Buffer> {
  readonly status: number;
  readonly headers: AnswerHeaders;
  /** Whether the body arrived in full (false when the connection was cut or the answer destroyed first). */
  readonly complete: boolean;
  /** Ends the answer (its connection closes unless the body was complete). */
  destroy(): void;
}

class TimeoutMarker extends Error {}
class AbortMarker extends Error {}
/** The request's idle time ran out while it waited for a request slot: it was never sent. */
class SlotTimeoutMarker extends Error {
  constructor(readonly maxSockets: number) {
    super('no request slot');
  }
}

/** Characters a request path may hold as they are (visible ASCII; anything else must be percent-encoded). */
const UNSAFE_PATH = /[^\u0021-\u007e]/;
/** A method is a token (RFC 9110). */
const METHOD = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a header value may not hold (line breaks and other control characters, beyond Latin-1). */
const UNSAFE_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** Values already checked (the handful of methods and media types a client sends). */
const checkedValues = new Set<string>();

/**
 * Why the request cannot be sent as it is, naming what to fix: a path, method, content type or
 * accept value that would break the request's framing (a line break would smuggle header fields).
 */
function requestError(exchange: HttpExchange): KubernetesClientUsageError | undefined {
  if (UNSAFE_PATH.test(exchange.path)) {
    return new KubernetesClientUsageError(
      `the request path "${exchange.path.slice(0, 200)}" holds characters a URL cannot carry unescaped ` +
        '(spaces, control or non-ASCII characters): percent-encode them (encodeURIComponent)',
    );
  }
  const { method, contentType, accept } = exchange;
  if (!checkedValues.has(method)) {
    if (!METHOD.test(method)) {
      return new KubernetesClientUsageError(
        `the request method ${JSON.stringify(method.slice(0, 60))} is not an HTTP method name (letters, digits and !#$%&'*+-.^_\`|~ only): use GET, POST, PUT, PATCH or DELETE`,
      );
    }
    remember(method);
  }
  for (const [what, value] of [
    ['content type', contentType],
    ['accept', accept],
  ] as const) {
    if (value === undefined || checkedValues.has(value)) continue;
    if (UNSAFE_VALUE.test(value)) {
      return new KubernetesClientUsageError(
        `the request's ${what} ${JSON.stringify(value.slice(0, 100))} holds a line break or another character a header cannot carry: give a media type such as application/json`,
      );
    }
    remember(value);
  }
  return undefined;
}

function remember(value: string): void {
  if (checkedValues.size < 256) checkedValues.add(value);
}

/** A request's head and body as sent on the wire. */
function wireText(conn: Connection, exchange: HttpExchange, prepared: Prepared): string {
  let text = `${exchange.method} ${conn.basePath}${exchange.path} HTTP/1.1\r\n${prepared.head}Accept: ${exchange.accept ?? 'application/json'}\r\n`;
  if (exchange.body === undefined) return `${text}\r\n`;
  text += `Content-Type: ${exchange.contentType ?? 'application/json'}\r\nContent-Length: ${Buffer.byteLength(exchange.body)}\r\n\r\n`;
  return text + exchange.body;
}

/** Whether a failure is the connection closing under a request (ECONNRESET, EPIPE). */
function isReset(cause: unknown): boolean {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/**
 * Sends a long-lived request (a watch) and resolves with the answer once its head arrived; it
 * takes no request slot (see Connection). A request that fails on a reused keep-alive socket with
 * a reset before any answer (the server closed the idle socket as we wrote, or restarted) is sent
 * once more on a fresh socket, as Node's documentation recommends; the other idle sockets are
 * dropped first, since they are most likely dead too.
 */
export async function open(conn: Connection, exchange: HttpExchange): Promise<StreamedAnswer> {
  const unsafe = requestError(exchange);
  if (unsafe) throw unsafe;
  const pending = conn.prepare();
  const prepared = pending instanceof Promise ? await abortable(pending, exchange) : pending;
  exchange.credentials = prepared.credentials;
  const requestInfo = { method: exchange.method, path: exchange.path };
  if (exchange.signal?.aborted) {
    throw new KubernetesTransportError('the request was aborted', 'aborted', { request: requestInfo });
  }
  if (prepared.pool === undefined) return openViaAgent(conn, exchange, prepared);
  const pool = prepared.pool;
  const text = wireText(conn, exchange, prepared);
  return new Promise((resolve, reject) => {
    const stream = new WireStream(exchange, (error) => {
      if (error === undefined) resolve(stream);
      else if (!stream.retried && exchange.resendable !== false && stream.reusedReset(error)) {
        stream.retried = true;
        conn.dropIdleSockets();
        stream.send(pool, text);
      } else reject(transportError(error, exchange, requestInfo, conn.url));
    });
    stream.send(pool, text);
  });
}

/** Bytes a watch may hold unread before its socket stops reading. */
const STREAM_HIGH_WATER = 1024 * 1024;

/** A streamed answer on the wire: chunks are queued for the consumer's async iteration. */
class WireStream implements WireListener, StreamedAnswer {
  status = 0;
  headers: AnswerHeaders = {};
  complete = false;
  retried = false;
  private exchange: WireExchange | undefined;
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private headDone = false;
  private waiting: ((r: IteratorResult<Buffer>) => void) | undefined;
  private headTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = () => this.finish(new AbortMarker('aborted'));

  constructor(
    private readonly request: HttpExchange,
    /** The head arrived (no argument) or the exchange failed before it. */
    private readonly settle: (error?: unknown) => void,
  ) {
    request.signal?.addEventListener('abort', this.onAbort, { once: true });
    request.inFlight?.add(this.onAbort);
    if (request.idleTimeoutMs > 0) {
      this.headTimer = setTimeout(() => this.finish(new TimeoutMarker('timeout')), request.idleTimeoutMs);
      this.headTimer.unref();
    }
  }

  send(pool: WirePool, text: string): void {
    try {
      this.exchange = pool.exchange(text, this, this.request.method === 'HEAD');
    } catch (error) {
      this.finish(error);
    }
  }

  /** Whether `error` is a reset of a reused socket before any answer (worth one more try). */
  reusedReset(error: unknown): boolean {
    return this.exchange?.reusedSocket === true && !this.exchange.answered && isReset(error);
  }

  head(status: number, headers: WireHeaders): void {
    clearTimeout(this.headTimer);
    this.status = status;
    this.headers = headers;
    this.headDone = true;
    this.settle();
  }

  data(chunk: Buffer): void {
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting({ value: chunk, done: false });
      return;
    }
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued > STREAM_HIGH_WATER) this.exchange?.pause();
  }

  end(): void {
    this.complete = true;
    // the socket is back in the pool: this stream must not pause or resume it any more
    this.exchange = undefined;
    this.finish(undefined);
  }

  error(cause: Error): void {
    this.finish(cause);
  }

  destroy(): void {
    this.finish(new AbortMarker('destroyed'));
  }

  /** Ends the stream; before the head, the open fails with `cause` (or sends the request again). */
  private finish(cause: unknown): void {
    if (this.ended) return;
    const beforeHead = cause !== undefined && !this.headDone;
    const external = cause instanceof AbortMarker || cause instanceof TimeoutMarker;
    if (beforeHead && !external) {
      // the exchange failed: the open may send it once more (the same stream, a new exchange)
      const exchange = this.exchange;
      this.settle(cause);
      if (this.exchange !== exchange) return;
    }
    this.ended = true;
    clearTimeout(this.headTimer);
    this.request.signal?.removeEventListener('abort', this.onAbort);
    this.request.inFlight?.delete(this.onAbort);
    if (!this.complete) this.exchange?.destroy(cause instanceof Error ? cause : new AbortMarker('destroyed'));
    if (beforeHead && external) this.settle(cause);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return {
      next: () => {
        const chunk = this.queue.shift();
        if (chunk !== undefined) {
          this.queued -= chunk.length;
          if (this.queued <= STREAM_HIGH_WATER / 2) this.exchange?.resume();
          return Promise.resolve({ value: chunk, done: false });
        }
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
      return: () => {
        this.destroy();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** {@link open} through Node's client and the KubeConfig's agent (a proxy-url). */
function openViaAgent(conn: Connection, exchange: HttpExchange, prepared: Prepared): Promise<StreamedAnswer> {
  const requestInfo = { method: exchange.method, path: exchange.path };
  return new Promise((resolve, reject) => {
    const req = agentRequest(conn, exchange, prepared);
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
      headTimer = setTimeout(() => {
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
      reject(transportError(cause, exchange, requestInfo, conn.url));
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
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        get complete() {
          return res.complete;
        },
        destroy() {
          res.destroy();
          req.destroy();
        },
        [Symbol.asyncIterator]: () => (res as AsyncIterable<Buffer>)[Symbol.asyncIterator](),
      });
    });
    req.end(exchange.body);
  });
}

/**
 * Sends a request and buffers the whole answer, in one promise and without timers of its own: the
 * connection's {@link IdleSweeper} fails it when no answer starts within `idleTimeoutMs` or its
 * socket is idle that long while the body arrives (a timer per request costs a measurable share of
 * a request's CPU, issue 15 §2). A request that fails on a reused keep-alive socket with a reset
 * before any answer is sent once more on a fresh socket, as {@link open} does, when a repeat is
 * harmless ({@link HttpExchange.resendable}). It holds one of the connection's request slots from
 * its start to its end (waiting for one first when all are taken).
 */
export function send(conn: Connection, exchange: HttpExchange): Promise<HttpAnswer> {
  const unsafe = requestError(exchange);
  if (unsafe) return Promise.reject(unsafe);
  const prepared = conn.prepare();
  if (prepared instanceof Promise)
    return abortable(prepared, exchange).then((p) => sendPrepared(conn, exchange, p));
  return sendPrepared(conn, exchange, prepared);
}

/**
 * The credentials being read (an exec plugin running, a token file read), or an `aborted` error as
 * soon as the exchange's signal aborts or `close()` aborts the requests in flight: a plugin that
 * takes long (or never ends) holds no aborted or closed request. Credentials that come afterwards
 * send nothing.
 */
function abortable(pending: Promise<Prepared>, exchange: HttpExchange): Promise<Prepared> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      cleanup();
      reject(
        new KubernetesTransportError('the request was aborted', 'aborted', {
          request: { method: exchange.method, path: exchange.path },
        }),
      );
    };
    const cleanup = () => {
      exchange.signal?.removeEventListener('abort', abort);
      exchange.inFlight?.delete(abort);
    };
    if (exchange.signal?.aborted) {
      abort();
      return;
    }
    exchange.signal?.addEventListener('abort', abort, { once: true });
    exchange.inFlight?.add(abort);
    pending.then(
      (prepared) => {
        cleanup();
        resolve(prepared);
      },
      (error: Error) => {
        cleanup();
        reject(error);
      },
    );
  });
}

function sendPrepared(conn: Connection, exchange: HttpExchange, prepared: Prepared): Promise<HttpAnswer> {
  exchange.credentials = prepared.credentials;
  if (exchange.signal?.aborted) {
    return Promise.reject(
      new KubernetesTransportError('the request was aborted', 'aborted', {
        request: { method: exchange.method, path: exchange.path },
      }),
    );
  }
  return new Promise((resolve, reject) => {
    new BufferedCall(conn, exchange, prepared, resolve, reject).begin();
  });
}

/**
 * One buffered request: its slot, idle deadline, abort and answer in one object (the listener of
 * its wire exchange), rather than a closure per concern.
 */
class BufferedCall implements WireListener, IdleEntry, SlotWaiter {
  last = Date.now();
  readonly timeoutMs: number;
  cancelled = false;
  private settled = false;
  private retried = false;
  private holding = false;
  private status = 0;
  private headers: AnswerHeaders = {};
  private chunks: Buffer[] = [];
  private exchange: WireExchange | undefined;
  private req: http.ClientRequest | undefined;
  private answered = false;
  private readonly onAbort = () => {
    const aborted = new AbortMarker('aborted');
    this.exchange?.destroy(aborted);
    this.req?.destroy(aborted);
    this.fail(aborted);
  };

  constructor(
    private readonly conn: Connection,
    private readonly request: HttpExchange,
    private readonly prepared: Prepared,
    private readonly resolve: (answer: HttpAnswer) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.timeoutMs = request.idleTimeoutMs;
  }

  begin(): void {
    this.request.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.request.inFlight?.add(this.onAbort);
    if (this.timeoutMs > 0) this.conn.idle.add(this);
    // the time a request waits for a slot counts toward its idle deadline
    if (this.conn.acquire(this)) this.start();
  }

  /** The slot is this request's: send it. */
  start(): void {
    this.holding = true;
    this.sendOnce();
  }

  private sendOnce(): void {
    const pool = this.prepared.pool;
    if (pool === undefined) {
      this.sendViaAgent();
      return;
    }
    try {
      this.exchange = pool.exchange(
        wireText(this.conn, this.request, this.prepared),
        this,
        this.request.method === 'HEAD',
      );
    } catch (error) {
      this.fail(error);
    }
  }

  expire(): void {
    if (!this.holding) {
      // still queued for a slot: nothing went to the server
      this.fail(new SlotTimeoutMarker(this.conn.maxSockets));
      return;
    }
    const timeout = new TimeoutMarker('timeout');
    this.exchange?.destroy(timeout);
    this.req?.destroy(timeout);
    this.fail(timeout);
  }

  head(status: number, headers: WireHeaders): void {
    this.answered = true;
    this.last = Date.now();
    this.status = status;
    this.headers = headers;
  }

  data(chunk: Buffer): void {
    this.last = Date.now();
    this.chunks.push(chunk);
  }

  sent(): void {
    this.last = Date.now();
  }

  end(): void {
    // most answers come in one chunk: no copy then
    const chunks = this.chunks;
    this.chunks = [];
    if (this.settled) return;
    this.settled = true;
    this.cleanup();
    this.resolve({
      status: this.status,
      headers: this.headers,
      body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
    });
  }

  error(cause: Error): void {
    this.fail(cause);
  }

  private fail(cause: unknown): void {
    this.chunks = [];
    if (this.settled) return;
    if (
      !this.answered &&
      !this.retried &&
      this.request.resendable !== false &&
      (this.exchange?.reusedSocket === true || this.req?.reusedSocket === true) &&
      !(this.exchange?.answered ?? false) &&
      isReset(cause)
    ) {
      // the server closed the idle socket as we wrote (or restarted): once more on a fresh one
      this.retried = true;
      this.conn.dropIdleSockets();
      this.last = Date.now();
      this.sendOnce();
      return;
    }
    this.settled = true;
    this.cleanup();
    this.reject(
      transportError(
        cause,
        this.request,
        { method: this.request.method, path: this.request.path },
        this.conn.url,
      ),
    );
  }

  private cleanup(): void {
    this.request.signal?.removeEventListener('abort', this.onAbort);
    this.request.inFlight?.delete(this.onAbort);
    if (this.timeoutMs > 0) this.conn.idle.remove(this);
    if (this.holding) {
      this.holding = false;
      this.conn.release();
    } else {
      this.cancelled = true;
    }
  }

  /** The same exchange through Node's client and the KubeConfig's agent (a proxy-url). */
  private sendViaAgent(): void {
    const current = agentRequest(this.conn, this.request, this.prepared);
    this.req = current;
    current.on('error', (cause) => this.fail(cause));
    current.on('response', (res) => {
      this.answered = true;
      this.last = Date.now();
      if (this.settled) {
        res.destroy();
        return;
      }
      this.status = res.statusCode ?? 0;
      this.headers = res.headers;
      res.on('data', (chunk: Buffer) => this.data(chunk));
      res.on('end', () => this.end());
      res.on('error', (cause) => this.fail(cause));
      // cut off before its end (no 'end' came)
      res.on('close', () => {
        if (!this.settled) this.fail(new Error('response aborted'));
      });
    });
    const body = this.request.body;
    if (body === undefined || body.length <= WRITE_PIECE) {
      current.end(body);
      return;
    }
    // a large body in pieces, one at a time, each counted as progress when it left (see
    // writeInPieces): a server reading slowly behind the proxy is not an idle one
    writeInPieces(body, (piece, next) => current.write(piece, next), {
      going: () => this.req === current && !this.settled,
      sent: () => this.sent(),
      stopped: (how) => {
        if (how === 'all') current.end();
        // answered (or failed) before the whole body was written: the rest is not sent, and the
        // connection, in the middle of a request, is not reused
        else if (how === 'stopped' && this.req === current) current.destroy();
      },
    });
  }
}

/** A request through Node's client and the KubeConfig's agent, its headers a name/value list sent as is. */
function agentRequest(conn: Connection, exchange: HttpExchange, prepared: Prepared): http.ClientRequest {
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
  const module = process.getBuiltinModule(conn.protocol === 'https:' ? 'node:https' : 'node:http');
  return module.request(options);
}

/** Reason phrases of the statuses an API server answers with (for an answer without a body). */
const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

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
  if (cause instanceof SlotTimeoutMarker) {
    return new KubernetesTransportError(
      `no free request slot within ${exchange.idleTimeoutMs} ms: all ${cause.maxSockets} slots (the client's maxSockets) were taken by requests in flight, ` +
        'so this request was not sent; raise maxSockets (or requestTimeoutMs), or look for requests that hold their slot long (large lists, a slow server)',
      'timeout',
      { request },
    );
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

/** Who the client talked to as whom, for the messages of failure answers. */
export interface AnswerContext {
  /** The server URL. */
  server: string;
  /** The kubeconfig's user, if it names one. */
  user?: string;
}

/**
 * Turns a failure answer (status >= 400) into a typed error. With `context`, a 401 and an answer
 * that is not a Kubernetes Status (a proxy's or load balancer's page) say what they mean and what
 * to do.
 */
export function apiError(
  status: number,
  headers: AnswerHeaders,
  body: Buffer,
  request: { method: string; path: string },
  context?: AnswerContext,
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
            : (STATUS_TEXT[status] ?? `HTTP ${status}`),
        };
  const retryAfter = Number(headers['retry-after']);
  return new KubernetesApiError(status, statusBody, {
    request,
    retryAfterSeconds:
      Number.isFinite(retryAfter) && headers['retry-after'] !== undefined ? retryAfter : undefined,
    hint: context && failureHint(status, statusBody !== parsed, headers['content-type'], context),
  });
}

/** Whether a content type is Go's `http.Error` one (`text/plain; charset=utf-8`). */
function isPlainNotFound(contentType: string | string[] | undefined): boolean {
  return /^text\/plain\b/i.test(String(contentType ?? ''));
}

/** What a 401, or a failure answer that is not a Status, means and what to do. */
function failureHint(
  status: number,
  notStatus: boolean,
  contentType: string | string[] | undefined,
  context: AnswerContext,
): string | undefined {
  if (status === 401) {
    const user = context.user ? `the kubeconfig's user "${context.user}"` : 'the kubeconfig';
    return (
      `the API server at ${context.server} rejected the credentials of ${user}: its token or client certificate ` +
      "has expired, been revoked or belongs to another cluster; get fresh credentials (`kubectl config view --raw`, or your provider's " +
      'get-credentials command), or in a pod check that its service account token is mounted and valid'
    );
  }
  // kube-apiserver's own answer to a path it does not serve (its NotFound handler is Go's
  // http.NotFound): a group or version that is not served, e.g. the CRD is not installed
  if (notStatus && status === 404 && isPlainNotFound(contentType)) {
    return (
      `the API server at ${context.server} does not serve this path: its group or version is not served ` +
      '(a CustomResourceDefinition that is not installed, or that does not serve this version); check with `kubectl api-resources`'
    );
  }
  if (notStatus) {
    const type =
      contentType === undefined ? 'no content type' : `content type ${JSON.stringify(String(contentType))}`;
    return (
      `the answer is not a Kubernetes Status (${type}): it most likely comes from a proxy or load balancer in front of the ` +
      `API server at ${context.server}; check that the API server is up and that the kubeconfig's server URL reaches it`
    );
  }
  return undefined;
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
  private pendingChars = 0;

  /**
   * @param maxLineChars - longest line taken; a longer one (complete or in progress) makes
   *   {@link push} throw what `tooLong` returns. Defaults to no limit.
   */
  constructor(
    private readonly maxLineChars = Infinity,
    private readonly tooLong: () => Error = () => new Error('line too long'),
  ) {}

  /** Appends the non-blank lines this chunk completes to `out`. */
  push(chunk: Buffer | string, out: string[]): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const pending = this.pending;
    let start = 0;
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      const piece = text.slice(start, nl);
      if (this.pendingChars + piece.length > this.maxLineChars) throw this.tooLong();
      const line = pending.length ? pending.join('') + piece : piece;
      pending.length = 0;
      this.pendingChars = 0;
      if (NON_BLANK.test(line)) out.push(line);
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    if (start < text.length) {
      this.pendingChars += text.length - start;
      if (this.pendingChars > this.maxLineChars) throw this.tooLong();
      pending.push(start ? text.slice(start) : text);
    }
  }

  /** The final line without a newline, if it is not blank. */
  end(): string | undefined {
    const last = this.pending.join('') + this.decoder.end();
    this.pending.length = 0;
    this.pendingChars = 0;
    return NON_BLANK.test(last) ? last : undefined;
  }
}

const NON_BLANK = /\S/;
