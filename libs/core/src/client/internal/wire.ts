import type * as net from 'node:net';
import type * as tls from 'node:tls';

// The CommonJS objects (see connection.ts): an ES namespace of a built-in reads every export.
const netModule = process.getBuiltinModule('node:net');
const tlsModule = process.getBuiltinModule('node:tls');

/**
 * The client's HTTP/1.1 over one server's TCP or TLS connections, for the connections that need no
 * proxy (issue 15 §2, §3).
 *
 * Why not Node's `http`/`https` client: per request it builds a `ClientRequest` (an outgoing
 * stream), an `IncomingMessage` (a readable stream), runs the agent's socket bookkeeping and emits
 * a dozen events; for a Kubernetes write that is about 40% of the request's CPU time, TLS included
 * (3,000 merge patches, 50 in flight: 0.6x the CPU per request of a bare `node:https` keep-alive
 * client, measured in separate processes against one API server). `undici` is as lean but loads
 * ~28 MB of code an idle operator never runs. Here a request is one string written to a kept-alive
 * socket, and its answer is read from the socket's chunks by a small parser of the subset of
 * HTTP/1.1 an API server answers with (RFC 9112: a status line, header fields, a body framed by
 * Content-Length, chunked transfer coding or the connection's close; interim 1xx answers skipped).
 * Nothing is pipelined: a socket carries one exchange at a time.
 */

/** Header fields of an answer: lower-case names; repeated fields joined with `, `. */
export type WireHeaders = Record<string, string>;

/** Receives one answer. Exactly one of `end` and `error` is called last. */
export interface WireListener {
  /** The answer's status and header fields (interim 1xx answers are not reported). */
  head(status: number, headers: WireHeaders): void;
  /** A piece of the body (already de-chunked). */
  data(chunk: Buffer): void;
  /** The body is complete. */
  end(): void;
  /** The exchange failed: connecting, TLS, a reset, a cut or malformed answer, or {@link WireExchange.destroy}. */
  error(cause: Error): void;
  /** A piece of a large request went out (the request is not idle while the server reads it). */
  sent?(): void;
}

/** Settings of a pool: where to connect and, for TLS, how. */
export interface WirePoolOptions {
  secure: boolean;
  host: string;
  port: number;
  /** TLS options (CA, client certificate, server name, verification). */
  tls?: tls.ConnectionOptions;
  /** TCP keep-alive probes on every socket after this long idle. */
  keepAliveMs: number;
  /** Idle sockets kept at most. */
  maxFree: number;
  /** The credentials the pool was made with, as the caller compares them (opaque here). */
  credentials?: object;
}

/** Heads larger than this are refused (Node's limit is 16 KB; an API server's heads are ~0.3 KB). */
const MAX_HEAD = 64 * 1024;
/** A field name is a token (RFC 9110): no whitespace before the colon. */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A status code: three digits. */
const STATUS_CODE = /^\d{3}$/;
/** The longest socket timer Node takes (32-bit signed ms, ~24.8 days); longer Keep-Alive hints are clamped. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * The idle time a `Keep-Alive: timeout=N` hint (seconds) leaves a socket: a second less than the
 * server's, clamped to what a timer holds; negative when that is 1 s or less (the socket is not
 * kept, as Node's agent decides); 0 without a timeout.
 */
function idleMsOf(hint: string): number {
  const m = /(?:^|,)\s*timeout\s*=\s*(\d+)/i.exec(hint);
  if (!m) return 0;
  const ms = Number(m[1]) * 1000 - 1000;
  return ms > 0 ? Math.min(ms, MAX_TIMER_MS) : -1;
}

/** Whether `buf` holds a line feed without a carriage return before it (`prev`: the byte before `buf`, -1 for none). */
function hasBareLf(buf: Buffer, prev: number): boolean {
  for (let i = buf.indexOf(10); i >= 0; i = buf.indexOf(10, i + 1)) {
    if ((i === 0 ? prev : buf[i - 1]) !== 13) return true;
  }
  return false;
}

/** Requests longer than this (in UTF-16 units) are written in pieces of this size. */
export const WRITE_PIECE = 64 * 1024;

/**
 * Writes a large request in pieces of {@link WRITE_PIECE} units, one at a time: `write` sends a
 * piece and calls its callback once the piece left, and only then is the next one written. (Pieces
 * written all at once wait in the socket's buffer behind the first and go out as one writev, whose
 * callbacks all come at its end: no progress for as long as the server takes to read nearly all of
 * it.) Before each further piece `going()` says whether the exchange still wants it; `sent()`
 * reports each piece that left; `stopped` says how the writing ended. A piece never splits a
 * surrogate pair (each half would be written as U+FFFD).
 */
export function writeInPieces(
  text: string,
  write: (piece: string, next: (error?: Error | null) => void) => void,
  step: { going(): boolean; sent(): void; stopped(how: 'all' | 'error' | 'stopped'): void },
): void {
  let from = 0;
  const next = (error?: Error | null): void => {
    if (error) return step.stopped('error');
    if (!step.going()) return step.stopped('stopped');
    if (from > 0) step.sent();
    if (from >= text.length) return step.stopped('all');
    let to = Math.min(text.length, from + WRITE_PIECE);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to++;
    const piece = text.slice(from, to);
    from = to;
    write(piece, next);
  };
  next();
}

const EMPTY = Buffer.alloc(0);
/** The blank line that ends a head. */
const CRLF2 = Buffer.from('\r\n\r\n', 'latin1');
/** A chunk-size or trailer line longer than this is malformed. */
const MAX_LINE = 8 * 1024;

/** The state of one exchange on a socket, as the caller sees it. */
export interface WireExchange {
  /** Whether the socket carried an exchange before this one (a reset may then be the server closing it as we wrote). */
  readonly reusedSocket: boolean;
  /** Whether any byte of an answer arrived. */
  readonly answered: boolean;
  /** Ends the exchange: unless its answer is complete, the socket is destroyed and `error(cause)` is called. */
  destroy(cause: Error): void;
  /** Stops reading (the body's consumer is behind); {@link resume} goes on. */
  pause(): void;
  resume(): void;
}

/** A low-level failure, with a code like Node's (`ECONNRESET` for a connection closed before the answer). */
export class WireError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'WireError';
  }
}

const enum Body {
  None,
  Length,
  Chunked,
  UntilClose,
}

const enum Chunk {
  Size,
  Data,
  DataEnd,
  Trailer,
}

/** One kept-alive connection of a {@link WirePool}. */
class WireSocket implements WireExchange {
  private listener: WireListener | undefined;
  reusedSocket = false;
  /** Whether the socket carried an exchange before. */
  private carried = false;
  answered = false;
  // parser state of the answer in progress
  private headParts: Buffer[] = [];
  private headBytes = 0;
  /** The last (up to) three bytes of the head so far: the blank line may begin in them. */
  private headTail: Buffer = EMPTY;
  private inBody = false;
  private body = Body.None;
  private remaining = 0;
  private chunk = Chunk.Size;
  private line = '';
  private keepAlive = true;
  private bodyless = false;
  private done = false;
  /**
   * How long the socket may idle once its answer is complete, from that answer's `Keep-Alive:
   * timeout` (a second less, as Node's agent does); 0: no limit; negative: too short to reuse it.
   */
  idleMs = 0;
  /** When the socket was last parked (Date.now()). */
  parkedAt = 0;
  private closed = false;
  /** A large request's pieces are still being written (see {@link start}). */
  private writing = false;

  constructor(
    private readonly pool: WirePool,
    readonly socket: net.Socket,
  ) {
    socket.on('data', (data: Buffer) => this.read(data));
    socket.on('error', (cause: Error) => this.fail(cause));
    socket.on('end', () => this.ended());
    socket.on('close', () => this.gone());
  }

  /** Sends one request (head and body as one string) and reports its answer to `listener`. */
  start(text: string, listener: WireListener, bodyless: boolean): void {
    this.listener = listener;
    this.reusedSocket = this.carried;
    this.carried = true;
    this.answered = false;
    this.inBody = false;
    this.bodyless = bodyless;
    this.socket.ref();
    if (text.length <= WRITE_PIECE) {
      this.socket.write(text);
      return;
    }
    // a large body goes in pieces, each reporting when it left: a server reading it slowly but
    // steadily is not an idle one; an answer before the whole body (or a failure, a close) ends it
    this.writing = true;
    writeInPieces(text, (piece, next) => this.socket.write(piece, next), {
      going: () => this.listener === listener && !this.closed,
      sent: () => listener.sent?.(),
      stopped: () => {
        this.writing = false;
      },
    });
  }

  destroy(cause: Error): void {
    if (this.listener === undefined) return;
    this.fail(cause);
  }

  pause(): void {
    if (this.listener !== undefined) this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Bytes from the server: the answer in progress, or (on an idle socket) a protocol error. */
  private read(data: Buffer): void {
    if (this.listener === undefined) {
      // nothing was asked: the connection is out of step
      this.fail(undefined);
      return;
    }
    this.answered = true;
    let at = 0;
    while (at < data.length && !this.done) {
      at = this.inBody ? this.readBody(data, at) : this.readHead(data, at);
      if (at < 0 || this.listener === undefined) return;
    }
    // bytes beyond a complete answer: the connection is out of step, never reuse it
    if (this.done) this.finish(at < data.length);
  }

  /** Consumes head bytes from `at`; returns where the body starts (`data.length` when more is needed), -1 when it failed. */
  private readHead(data: Buffer, at: number): number {
    const piece = at === 0 ? data : data.subarray(at);
    const before = this.headBytes;
    // where the blank line ends the head: in this piece, or across the end of the bytes before it
    // (their last three are searched with the piece's first three); the pieces are joined once
    let end = piece.indexOf(CRLF2);
    if (before > 0) {
      const across = Buffer.concat([this.headTail, piece.subarray(0, 3)]).indexOf(CRLF2);
      if (across >= 0) end = before - this.headTail.length + across;
      else if (end >= 0) end += before;
    }
    const found = end >= 0 && end <= MAX_HEAD;
    const consumed = found ? end + 4 - before : piece.length; // bytes of `piece` that belong to the head
    const prev = before === 0 ? -1 : this.headTail[this.headTail.length - 1];
    if (hasBareLf(found ? piece.subarray(0, consumed) : piece, prev)) {
      this.fail(
        new WireError('the answer ends a line of its head with a bare LF, not CRLF', 'HPE_LF_EXPECTED'),
      );
      return -1;
    }
    if (!found) {
      if (before + piece.length > MAX_HEAD) {
        this.fail(
          new WireError(`the answer's head is larger than ${MAX_HEAD / 1024} KB`, 'HPE_HEADER_OVERFLOW'),
        );
        return -1;
      }
      this.headParts.push(piece);
      this.headBytes = before + piece.length;
      this.headTail = (piece.length >= 3 ? piece : Buffer.concat([this.headTail, piece])).subarray(-3);
      return data.length;
    }
    const all = before === 0 ? piece : Buffer.concat([...this.headParts, piece]);
    this.headParts = [];
    this.headBytes = 0;
    this.headTail = EMPTY;
    if (!this.parseHead(all.toString('latin1', 0, end))) return -1;
    return at + consumed;
  }

  /** Reads a status line and header fields; false when the exchange failed. */
  private parseHead(head: string): boolean {
    const lines = head.split('\r\n');
    const statusLine = lines[0];
    const minor = statusLine.startsWith('HTTP/1.1 ') ? 1 : statusLine.startsWith('HTTP/1.0 ') ? 0 : -1;
    const code = statusLine.slice(9, 12);
    const status = minor < 0 || !STATUS_CODE.test(code) ? NaN : Number(code);
    if (!(status >= 100 && status <= 999) || (statusLine.length > 12 && statusLine.charCodeAt(12) !== 32)) {
      this.fail(
        new WireError(
          `the answer is not HTTP/1.1 (status line "${statusLine.slice(0, 40)}")`,
          'HPE_INVALID_CONSTANT',
        ),
      );
      return false;
    }
    const headers: WireHeaders = Object.create(null) as WireHeaders;
    let last: string | undefined;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const first = line.charCodeAt(0);
      if (first === 32 || first === 9) {
        // obsolete line folding: the value goes on
        if (last !== undefined) headers[last] += ` ${line.trim()}`;
        continue;
      }
      const colon = line.indexOf(':');
      if (colon <= 0 || !FIELD_NAME.test(line.slice(0, colon))) {
        this.fail(
          new WireError(
            `the answer has a malformed header field "${line.slice(0, 40)}"`,
            'HPE_INVALID_HEADER_TOKEN',
          ),
        );
        return false;
      }
      const name = line.slice(0, colon).toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      last = name;
    }
    if (status < 200) {
      if (status === 101) {
        this.fail(
          new WireError(
            'the server switched protocols, which no request asked for',
            'HPE_UNEXPECTED_UPGRADE',
          ),
        );
        return false;
      }
      // an interim answer (100 Continue, 103 Early Hints): the real one follows
      return true;
    }
    const connection = headers.connection?.toLowerCase();
    this.keepAlive =
      minor === 1
        ? !(connection !== undefined && /(^|,)\s*close\s*(,|$)/.test(connection))
        : connection === 'keep-alive';
    const te = headers['transfer-encoding'];
    const length = headers['content-length'];
    if (this.bodyless || status === 204 || status === 304) this.body = Body.None;
    else if (te !== undefined) {
      if (/(^|,)\s*chunked\s*$/i.test(te)) {
        this.body = Body.Chunked;
        this.chunk = Chunk.Size;
        this.line = '';
      } else {
        this.body = Body.UntilClose;
        this.keepAlive = false;
      }
    } else if (length !== undefined) {
      const values = length.split(',');
      const n = Number(values[0]);
      if (!/^\s*\d+\s*$/.test(values[0]) || values.some((v) => Number(v) !== n) || !Number.isSafeInteger(n)) {
        this.fail(
          new WireError(
            `the answer has an invalid Content-Length "${length.slice(0, 40)}"`,
            'HPE_INVALID_CONTENT_LENGTH',
          ),
        );
        return false;
      }
      this.body = n === 0 ? Body.None : Body.Length;
      this.remaining = n;
    } else {
      this.body = Body.UntilClose;
      this.keepAlive = false;
    }
    const keepAliveHint = headers['keep-alive'];
    this.inBody = true;
    this.done = false;
    this.listener!.head(status, headers);
    if (this.listener === undefined) return false; // destroyed by the listener
    this.idleMs = keepAliveHint === undefined ? 0 : idleMsOf(keepAliveHint);
    if (this.body === Body.None) this.done = true;
    return true;
  }

  /** Consumes body bytes from `at`; returns where this answer's bytes end, -1 when it failed. */
  private readBody(data: Buffer, at: number): number {
    switch (this.body) {
      case Body.UntilClose:
        this.listener!.data(at === 0 ? data : data.subarray(at));
        return data.length;
      case Body.Length: {
        const take = Math.min(this.remaining, data.length - at);
        this.remaining -= take;
        if (this.remaining === 0) this.done = true;
        this.listener!.data(at === 0 && take === data.length ? data : data.subarray(at, at + take));
        return at + take;
      }
      default:
        return this.readChunked(data, at);
    }
  }

  private readChunked(data: Buffer, at: number): number {
    while (at < data.length) {
      if (this.chunk === Chunk.Data) {
        const take = Math.min(this.remaining, data.length - at);
        this.remaining -= take;
        const listener = this.listener!;
        listener.data(data.subarray(at, at + take));
        if (this.listener !== listener) return -1;
        at += take;
        if (this.remaining === 0) {
          this.chunk = Chunk.DataEnd;
          this.line = '';
        }
        continue;
      }
      // a line: a chunk size, the CRLF after a chunk's data, or a trailer field
      const nl = data.indexOf(10, at);
      const upTo = nl < 0 ? data.length : nl;
      this.line += data.toString('latin1', at, upTo);
      if (this.line.length > MAX_LINE) {
        this.fail(
          new WireError(
            'the answer has a malformed chunked body (a line too long)',
            'HPE_INVALID_CHUNK_SIZE',
          ),
        );
        return -1;
      }
      if (nl < 0) return data.length;
      at = nl + 1;
      const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
      this.line = '';
      if (this.chunk === Chunk.DataEnd) {
        if (line !== '') {
          this.fail(
            new WireError(
              'the answer has a malformed chunked body (no CRLF after a chunk)',
              'HPE_INVALID_CHUNK_SIZE',
            ),
          );
          return -1;
        }
        this.chunk = Chunk.Size;
      } else if (this.chunk === Chunk.Size) {
        const hex = /^([0-9a-fA-F]{1,12})[ \t]*(;.*)?$/.exec(line);
        if (hex === null) {
          this.fail(
            new WireError(
              `the answer has a malformed chunk size "${line.slice(0, 20)}"`,
              'HPE_INVALID_CHUNK_SIZE',
            ),
          );
          return -1;
        }
        const size = parseInt(hex[1], 16);
        if (size === 0) this.chunk = Chunk.Trailer;
        else {
          this.remaining = size;
          this.chunk = Chunk.Data;
        }
      } else if (line === '') {
        // the empty line after the last chunk (and its trailer fields)
        this.done = true;
        return at;
      }
    }
    return at;
  }

  /**
   * The answer is complete: the socket goes back to the pool (or is closed: the server asked, or
   * sent bytes beyond the answer), then the listener hears of it.
   */
  private finish(outOfStep: boolean): void {
    const listener = this.listener;
    this.listener = undefined;
    this.inBody = false;
    this.done = false;
    // an answer that came before the whole request was written: the rest of the request must not
    // reach the server as the start of the next one, so the socket is not reused
    if (this.keepAlive && !outOfStep && !this.closed && !this.writing) this.pool.release(this);
    else this.close();
    listener?.end();
  }

  /** The server ended its side: the end of a body read to the close, else a cut. */
  private ended(): void {
    if (this.listener !== undefined && this.inBody && this.body === Body.UntilClose) {
      this.keepAlive = false;
      this.finish(false);
      return;
    }
    this.fail(undefined);
  }

  private gone(): void {
    this.close();
    this.fail(undefined);
  }

  /** Closes the connection and takes it out of the pool at once (its 'close' comes later). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.pool.forget(this);
    this.socket.destroy();
  }

  /** Ends the exchange in progress with `cause` (a cut when none is given) and closes the socket. */
  private fail(cause: Error | undefined): void {
    const listener = this.listener;
    this.listener = undefined;
    this.headParts = [];
    this.headBytes = 0;
    this.headTail = EMPTY;
    this.line = '';
    this.inBody = false;
    this.done = false;
    this.close();
    if (listener === undefined) return;
    listener.error(
      cause ??
        (this.answered
          ? new WireError('the answer was cut off', 'ECONNRESET')
          : new WireError('socket hang up', 'ECONNRESET')),
    );
  }

  /** Parks the socket as idle: it does not keep the process alive (the pool closes it after {@link idleMs}). */
  park(): void {
    // a watch's consumer may have paused it (its last read completed the answer): an idle socket
    // must still see a FIN or stray bytes, and the next exchange its answer
    this.socket.resume();
    this.socket.unref();
    this.parkedAt = Date.now();
  }
}

/**
 * The keep-alive connections to one server: idle ones are reused last in, first out (so a few
 * busy sockets stay warm and the rest time out), new ones are opened as needed; how many requests
 * run at once is the caller's business (Connection's slots).
 */
export class WirePool {
  private readonly free: WireSocket[] = [];
  /** Every open connection, idle or busy. */
  private readonly all = new Set<WireSocket>();
  private session: Buffer | undefined;
  /** Where exchanges go once this pool is retired. */
  private successor: WirePool | undefined;
  private closed = false;
  private sweeper: NodeJS.Timeout | undefined;
  private sweepPeriod = Infinity;

  constructor(private readonly options: WirePoolOptions) {}

  /** The credentials the pool was made with ({@link WirePoolOptions.credentials}). */
  get credentials(): object | undefined {
    return this.options.credentials;
  }

  /** Connections open (idle or busy). */
  get size(): number {
    return this.all.size;
  }

  /**
   * Sends `text` (a request's head and body) on an idle connection or a new one; the answer goes to
   * `listener`. `bodyless`: the answer has no body whatever its head says (a HEAD request).
   */
  exchange(text: string, listener: WireListener, bodyless = false): WireExchange {
    if (this.successor !== undefined) return this.successor.exchange(text, listener, bodyless);
    let socket = this.free.pop();
    // skipped: one Node destroyed whose 'close' has not come yet (an error is emitted a tick
    // later), and one past its Keep-Alive time that the sweep has not reached yet
    while (
      socket !== undefined &&
      (socket.socket.destroyed || (socket.idleMs > 0 && Date.now() - socket.parkedAt >= socket.idleMs))
    ) {
      socket.close();
      socket = this.free.pop();
    }
    if (socket === undefined) {
      if (this.closed) throw new WireError('the connection pool is closed', 'ERR_POOL_CLOSED');
      socket = this.connect();
    }
    socket.start(text, listener, bodyless);
    return socket;
  }

  /** Closes the idle connections (after one turned out dead: the others likely are too). */
  dropIdle(): void {
    for (const socket of this.free.splice(0)) socket.close();
  }

  /**
   * Takes no more exchanges: idle connections close now, busy ones when their exchange ends (a
   * credential rotation: requests in flight finish on the connections they were sent on), and an
   * exchange asked of it later (a request that waited for a slot, a resend) goes to `successor`.
   */
  retire(successor: WirePool): void {
    this.closed = true;
    this.successor = successor;
    this.dropIdle();
  }

  /** Closes every connection; exchanges in progress fail. */
  close(): void {
    this.closed = true;
    this.stopSweeping();
    this.free.length = 0;
    for (const socket of [...this.all]) {
      socket.destroy(new WireError('the client was closed', 'ERR_POOL_CLOSED'));
      socket.close();
    }
  }

  /** @internal */
  release(socket: WireSocket): void {
    if (this.closed || socket.idleMs < 0 || this.free.length >= this.options.maxFree) {
      socket.close();
      return;
    }
    socket.park();
    this.free.push(socket);
    if (socket.idleMs > 0) this.sweepEvery(socket.idleMs);
  }

  /**
   * Closes idle sockets past their time with one unreferenced interval timer for the pool (a
   * socket timer armed and cleared per request cost ~2 µs of each request's CPU). The period is an
   * eighth of the idle time, at most 500 ms, so a socket closes before the server's own timeout
   * (its hint less a second) runs out.
   */
  private sweepEvery(idleMs: number): void {
    const period = Math.max(25, Math.min(500, Math.floor(idleMs / 8)));
    if (this.sweeper !== undefined && period >= this.sweepPeriod) return;
    clearInterval(this.sweeper);
    this.sweepPeriod = period;
    this.sweeper = setInterval(() => this.sweep(), period);
    this.sweeper.unref();
  }

  private sweep(): void {
    const now = Date.now();
    let timed = false;
    for (const socket of [...this.free]) {
      if (socket.idleMs <= 0) continue;
      if (now - socket.parkedAt >= socket.idleMs) socket.close();
      else timed = true;
    }
    if (!timed) this.stopSweeping();
  }

  private stopSweeping(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.sweepPeriod = Infinity;
  }

  /** @internal */
  forget(socket: WireSocket): void {
    this.all.delete(socket);
    const i = this.free.indexOf(socket);
    if (i >= 0) this.free.splice(i, 1);
  }

  private connect(): WireSocket {
    const o = this.options;
    let socket: net.Socket;
    if (o.secure) {
      const tlsSocket = tlsModule.connect({ ...o.tls, host: o.host, port: o.port, session: this.session });
      // TLS session resumption for the next connection, as Node's agent does
      tlsSocket.on('session', (session: Buffer) => {
        this.session = session;
      });
      socket = tlsSocket;
    } else {
      socket = netModule.connect({ host: o.host, port: o.port });
    }
    socket.setNoDelay(true);
    socket.setKeepAlive(true, o.keepAliveMs);
    const wire = new WireSocket(this, socket);
    this.all.add(wire);
    return wire;
  }
}
