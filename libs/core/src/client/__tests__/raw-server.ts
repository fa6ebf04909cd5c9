// A server that writes raw bytes (plain TCP or TLS) for the HTTP/1.1 wire tests: every answer is
// written byte for byte as a test scripts it, so framing a real HTTP server never produces (chunk
// extensions, split heads, bodies cut off, garbage after an answer) can be thrown at the client.
import { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
// @peculiar/x509 (installed for @tosdk/apiserver's certificates) resolves its providers through
// tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { loadKubeConfig } from '../../config/kube-config.js';
import type { LoadedKubeConfig } from '../../config/kube-config.js';

/** A request as the raw server parsed it off the wire. */
export interface RawRequest {
  method: string;
  /** The request target as sent (path and query). */
  target: string;
  path: string;
  query: URLSearchParams;
  /** The head exactly as received, up to and including the blank line. */
  head: string;
  /** Header lines in the order sent, names as sent. */
  headers: Array<[string, string]>;
  /** The body (Content-Length or chunked), as bytes. */
  body: Buffer;
  /** The connection it came on. */
  conn: RawConnection;
  /** Its place on its connection (0 for the first request). */
  seq: number;
}

/** The last path segment of a request (the object's name), decoded. */
export const nameOf = (req: RawRequest): string => decodeURIComponent(req.path.split('/').at(-1) ?? '');

/** Resolves with the thrown error (or fails the test when nothing was thrown). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got a value');
}

/** The values of a header (case-insensitive name) in a request. */
export function headerValues(req: RawRequest, name: string): string[] {
  const lower = name.toLowerCase();
  return req.headers.filter(([n]) => n.toLowerCase() === lower).map(([, v]) => v);
}

/** One accepted connection. */
export class RawConnection {
  /** Every byte the client sent on it. */
  private readonly chunks: Buffer[] = [];
  /** Whether the socket closed (either side). */
  closed = false;
  /** Requests parsed on it so far. */
  requests = 0;
  /** TLS: the server name the client sent (SNI), false when none. */
  servername: string | false = false;
  /** TLS: the common name of the client certificate, when one was presented. */
  clientCertCN?: string;

  constructor(
    readonly id: number,
    readonly socket: net.Socket,
  ) {
    socket.on('close', () => {
      this.closed = true;
    });
    socket.on('error', () => undefined);
  }

  /** Every byte received, as latin1 text (byte for character). */
  get received(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }

  /** @internal */
  record(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  /** Writes bytes; resolves once they are handed to the kernel. */
  write(data: string | Buffer): Promise<void> {
    if (this.closed || this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => this.socket.write(data, () => resolve()));
  }

  /**
   * Writes `data` in pieces of `size` bytes, each its own write, one event loop turn (and for
   * `gapMs` > 0 that many milliseconds) apart: the client reads each piece on its own.
   */
  async trickle(data: string | Buffer, size = 1, gapMs = 0): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    for (let at = 0; at < bytes.length && !this.closed; at += size) {
      await this.write(bytes.subarray(at, at + size));
      await pause(gapMs);
    }
  }

  /** Writes the pieces one after the other, an event loop turn apart. */
  async pieces(parts: Array<string | Buffer>, gapMs = 0): Promise<void> {
    for (const part of parts) {
      if (this.closed) return;
      await this.write(part);
      await pause(gapMs);
    }
  }

  /** Ends the connection cleanly (FIN) after what was written. */
  end(): void {
    this.socket.end();
  }

  /** Cuts the connection with a TCP reset (RST); a TLS connection is destroyed (FIN) instead. */
  reset(): void {
    if (this.socket instanceof tls.TLSSocket) this.socket.destroy();
    else this.socket.resetAndDestroy();
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}

/** Answers one request by writing to its connection (or not: a handler may hold it, cut it, ...). */
export type RawHandler = (req: RawRequest) => void | Promise<void>;

/** TLS settings of a raw TLS server. */
export interface RawTlsOptions {
  cert: string;
  key: string;
  /** CA of client certificates; with it the server asks for and verifies one. */
  clientCa?: string | string[];
}

/**
 * A server on 127.0.0.1 that parses requests (head, Content-Length or chunked body) and leaves the
 * answer to the test's handler, which writes raw bytes. It counts connections and keeps every byte
 * each one received.
 */
export class RawServer {
  readonly connections: RawConnection[] = [];
  readonly requests: RawRequest[] = [];
  /** TLS connections whose handshake failed (e.g. the client refused the certificate). */
  tlsErrors = 0;
  /** Kubeconfig files written by {@link kubeConfig}, removed by {@link stop}. */
  private readonly files: Array<{ remove: () => void }> = [];
  /** Called with every accepted connection before anything is read from it. */
  onConnection?: (conn: RawConnection) => void;
  private handler: RawHandler = (req) => {
    void req.conn.write(response(404, [['Content-Type', 'application/json']], '{"kind":"Status"}'));
  };

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    readonly protocol: 'http' | 'https',
  ) {}

  /** A plain TCP (http:) server. */
  static startPlain(): Promise<RawServer> {
    return RawServer.listen(net.createServer(), 'http', 'connection');
  }

  /** A TLS (https:) server, on `port` when given (e.g. the port of a stopped one: a restart). */
  static startTls(options: RawTlsOptions, port = 0): Promise<RawServer> {
    const server = tls.createServer({
      cert: options.cert,
      key: options.key,
      ca: options.clientCa,
      requestCert: options.clientCa !== undefined,
      rejectUnauthorized: options.clientCa !== undefined,
    });
    return RawServer.listen(server, 'https', 'secureConnection', port);
  }

  private static async listen(
    server: net.Server,
    protocol: 'http' | 'https',
    event: 'connection' | 'secureConnection',
    port = 0,
  ): Promise<RawServer> {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    const self = new RawServer(server, (server.address() as AddressInfo).port, protocol);
    server.on(event, (socket: net.Socket) => self.accept(socket));
    server.on('tlsClientError', () => {
      self.tlsErrors++;
    });
    return self;
  }

  /** Sets how the next requests are answered. */
  handle(handler: RawHandler): void {
    this.handler = handler;
  }

  /** Connections still open. */
  get openConnections(): number {
    return this.connections.filter((c) => !c.closed).length;
  }

  private accept(socket: net.Socket): void {
    socket.setNoDelay(true);
    const conn = new RawConnection(this.connections.length, socket);
    if (socket instanceof tls.TLSSocket) {
      conn.servername = socket.servername ?? false;
      const cn = socket.getPeerCertificate()?.subject?.CN;
      conn.clientCertCN = Array.isArray(cn) ? cn.join(',') : cn;
    }
    this.connections.push(conn);
    this.onConnection?.(conn);
    // bytes not yet parsed, joined only once a request can be complete: joining every chunk into
    // one growing buffer made a large body cost quadratic copying (a 20 MB upload: gigabytes)
    let parts: Buffer[] = [];
    let size = 0;
    let need = 0;
    socket.on('data', (chunk: Buffer) => {
      conn.record(chunk);
      parts.push(chunk);
      size += chunk.length;
      if (size < need) return;
      let buffer = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
      for (;;) {
        const parsed = parseRequest(buffer);
        if (!parsed || 'need' in parsed) {
          parts = [buffer];
          size = buffer.length;
          need = parsed?.need ?? 0;
          return;
        }
        buffer = buffer.subarray(parsed.used);
        const req: RawRequest = { ...parsed.request, conn, seq: conn.requests++ };
        this.requests.push(req);
        void Promise.resolve(this.handler(req)).catch(() => socket.destroy());
      }
    });
  }

  /**
   * A kubeconfig for this server loaded by tosdk's own loader (as an operator does), from a file
   * kept until {@link stop}. Plain servers get `http://<host>:<port>`.
   */
  kubeConfig(options: KubeconfigOptions = {}): LoadedKubeConfig {
    // kept until stop(): the loader reads the file again for exec plugins and proxies
    const file = this.kubeConfigFile(options);
    this.files.push(file);
    return loadKubeConfig({ env: { KUBECONFIG: file.path, HOME: '/nonexistent' } });
  }

  /** Writes a kubeconfig for this server into a fresh directory; `remove` deletes it. */
  kubeConfigFile(options: KubeconfigOptions = {}): { path: string; remove: () => void } {
    const host = options.host ?? '127.0.0.1';
    const cluster: Record<string, unknown> = {
      server: `${options.scheme ?? this.protocol}://${host}:${this.port}${options.basePath ?? ''}`,
    };
    if (options.ca) cluster['certificate-authority-data'] = Buffer.from(options.ca).toString('base64');
    if (options.insecure) cluster['insecure-skip-tls-verify'] = true;
    if (options.tlsServerName) cluster['tls-server-name'] = options.tlsServerName;
    if (options.proxyUrl) cluster['proxy-url'] = options.proxyUrl;
    const user: Record<string, unknown> = {};
    if (options.tokenFile !== undefined) user.tokenFile = options.tokenFile;
    else if (options.token !== null) user.token = options.token ?? 'raw-token';
    if (options.clientCert)
      user['client-certificate-data'] = Buffer.from(options.clientCert).toString('base64');
    if (options.username !== undefined) user.username = options.username;
    if (options.password !== undefined) user.password = options.password;
    if (options.clientKey) user['client-key-data'] = Buffer.from(options.clientKey).toString('base64');
    Object.assign(user, options.user);
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'raw', cluster }],
      users: [{ name: 'raw', user }],
      contexts: [{ name: 'raw', context: { cluster: 'raw', user: 'raw' } }],
      'current-context': 'raw',
    };
    const dir = mkdtempSync(join(tmpdir(), 'tosdk-raw-'));
    const path = join(dir, 'kubeconfig');
    writeFileSync(path, JSON.stringify(doc));
    return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
  }

  async stop(): Promise<void> {
    for (const file of this.files.splice(0)) file.remove();
    for (const c of this.connections) c.socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** What goes into a raw server's kubeconfig. */
export interface KubeconfigOptions {
  /** Host name of the server URL. Defaults to `127.0.0.1`. */
  host?: string;
  /** CA PEM (certificate-authority-data). */
  ca?: string;
  /** tls-server-name: the name to send (SNI) and to verify the certificate against. */
  tlsServerName?: string;
  /** proxy-url: an HTTP proxy the client tunnels through (CONNECT). */
  proxyUrl?: string;
  insecure?: boolean;
  /** Bearer token; null for none. Defaults to `raw-token`. */
  token?: string | null;
  /** A file the bearer token is read from (re-read when it may have changed); takes `token`'s place. */
  tokenFile?: string;
  clientCert?: string;
  clientKey?: string;
  /** Basic authentication (with `token: null`). */
  username?: string;
  password?: string;
  /** The scheme of the server URL, when it is not the server's own (a protocol mismatch). */
  scheme?: 'http' | 'https';
  /** More fields of the kubeconfig's user entry (e.g. an `exec` plugin). */
  user?: Record<string, unknown>;
  /** A path after the port in the server URL (a proxy's prefix, e.g. `/k8s/clusters/c-1`). */
  basePath?: string;
}

/** Parses one request off the front of `buffer`; undefined while incomplete. */
/**
 * The first request in `buffer` and the bytes it used; when it is not all there, undefined, or
 * `need`: the bytes it takes at least (its head is there and gives a Content-Length).
 */
function parseRequest(
  buffer: Buffer,
): { request: Omit<RawRequest, 'conn' | 'seq'>; used: number } | { need: number } | undefined {
  const end = buffer.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = buffer.subarray(0, end + 4).toString('latin1');
  const [requestLine, ...lines] = head.slice(0, -4).split('\r\n');
  const [method, target] = requestLine.split(' ');
  const headers: Array<[string, string]> = lines.map((line) => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon), line.slice(colon + 1).trim()];
  });
  const get = (name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1];
  let at = end + 4;
  let body: Buffer;
  if (/chunked/i.test(get('transfer-encoding') ?? '')) {
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = buffer.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1'), 16);
      if (size === 0) {
        // no trailers: the blank line follows at once
        if (buffer.length < lineEnd + 4) return undefined;
        at = lineEnd + 4;
        break;
      }
      if (buffer.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else {
    const length = Number(get('content-length') ?? 0);
    if (buffer.length < at + length) return { need: at + length };
    body = Buffer.from(buffer.subarray(at, at + length));
    at += length;
  }
  const url = new URL(target ?? '/', 'http://127.0.0.1');
  return {
    request: { method, target, path: url.pathname, query: url.searchParams, head, headers, body },
    used: at,
  };
}

/** The bytes of a response: status line, the headers as given, blank line, body. */
export function response(
  status: number,
  headers: Array<[string, string | number]>,
  body: string | Buffer = '',
  reason = 'OK',
): Buffer {
  const head = `HTTP/1.1 ${status} ${reason}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), typeof body === 'string' ? Buffer.from(body) : body]);
}

/** A JSON answer with Content-Length (keep-alive). */
export function jsonResponse(
  status: number,
  value: unknown,
  extra: Array<[string, string | number]> = [],
  reason = 'OK',
): Buffer {
  const body = Buffer.from(JSON.stringify(value));
  return response(
    status,
    [['Content-Type', 'application/json'], ['Content-Length', body.length], ...extra],
    body,
    reason,
  );
}

/** One chunk of a chunked body: hex size, CRLF, data, CRLF. */
export function chunk(data: string | Buffer, extension = ''): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([
    Buffer.from(`${bytes.length.toString(16)}${extension}\r\n`, 'latin1'),
    bytes,
    Buffer.from('\r\n'),
  ]);
}

/** The last chunk (size 0), optionally with trailers, and the blank line that ends the body. */
export function lastChunk(trailers: Array<[string, string]> = []): Buffer {
  return Buffer.from(`0\r\n${trailers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`, 'latin1');
}

/** Polls `condition` until it holds (or throws after `timeoutMs`). */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** PEM certificates for TLS tests. */
export interface TestPki {
  caPem: string;
  /** Server certificate for 127.0.0.1 and localhost, signed by the CA. */
  serverCert: string;
  serverKey: string;
  /** Client certificate (CN=raw-client unless named otherwise), signed by the CA. */
  clientCert: string;
  clientKey: string;
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = bytes[0] & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key)).toString('base64');
  return `-----BEGIN PRIVATE KEY-----\n${der.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

/** A subject alternative name of a server certificate. */
export interface San {
  type: 'ip' | 'dns';
  value: string;
}

/**
 * A fresh CA with a server certificate (by default IP SAN 127.0.0.1 and DNS SAN localhost) and a
 * client certificate.
 */
export async function makePki(
  serverSans: San[] = [
    { type: 'ip', value: '127.0.0.1' },
    { type: 'dns', value: 'localhost' },
  ],
  clientCN = 'raw-client',
): Promise<TestPki> {
  // x509's parameters are typed with the DOM's WebCrypto types
  const provider = webcrypto as never;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const gen = () => webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const [caKeys, serverKeys, clientKeys] = await Promise.all([gen(), gen(), gen()]);
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial(),
      // a name of its own: two test CAs of one name would be taken for each other
      name: `CN=raw-test-ca-${serial().slice(0, 8)}`,
      notBefore,
      notAfter,
      signingAlgorithm: ALG,
      keys: caKeys as never,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      ],
    },
    provider,
  );
  const leaf = (subject: string, keys: webcrypto.CryptoKeyPair, server: boolean) =>
    x509.X509CertificateGenerator.create(
      {
        serialNumber: serial(),
        subject,
        issuer: ca.subject,
        notBefore,
        notAfter,
        signingAlgorithm: ALG,
        publicKey: keys.publicKey as never,
        signingKey: caKeys.privateKey as never,
        extensions: [
          ...(server ? [new x509.SubjectAlternativeNameExtension(serverSans)] : []),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([
            server ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth,
          ]),
        ],
      },
      provider,
    );
  const [serverCert, clientCert] = await Promise.all([
    leaf('CN=raw-server', serverKeys, true),
    leaf(`CN=${clientCN}`, clientKeys, false),
  ]);
  return {
    caPem: `${ca.toString('pem')}\n`,
    serverCert: `${serverCert.toString('pem')}\n`,
    serverKey: await keyPem(serverKeys.privateKey),
    clientCert: `${clientCert.toString('pem')}\n`,
    clientKey: await keyPem(clientKeys.privateKey),
  };
}
