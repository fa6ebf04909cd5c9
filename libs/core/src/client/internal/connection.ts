import type * as http from 'node:http';
import type * as https from 'node:https';
import { isIP } from 'node:net';
import type * as tls from 'node:tls';
import type { KubeConfigSource } from '../../config/kube-config.js';
import {
  KubernetesClientClosedError,
  KubernetesClientConfigError,
  KubernetesClientUsageError,
} from '../errors.js';
import { IdleSweeper } from './idle-sweeper.js';
import { WirePool } from './wire.js';

const tlsModule = process.getBuiltinModule('node:tls');

/**
 * What a request needs from the connection: the fixed header lines and the pool of its server, or,
 * behind a proxy, the headers as a name/value list and the KubeConfig's agent.
 */
export interface Prepared {
  /** `Name: value\r\n` for Host, Connection and the credential headers. */
  head: string;
  /** The keep-alive connections to the server (none behind a proxy). */
  pool?: WirePool;
  /** The same headers as a name/value list, for Node's client (behind a proxy). */
  headers: string[];
  /** The KubeConfig's agent that tunnels through the proxy. */
  agent?: http.Agent;
  /** The credentials these headers carry (identity only: what a 401 to this request rejects). */
  credentials: object;
}

/** Resolved connection settings of a client (engine side: every default filled in). */
export interface ConnectionOptions {
  userAgent: string;
  maxSockets: number;
  /** How long dynamic credentials (exec plugins, auth providers, token files) are reused before asking the KubeConfig again. */
  authRefreshMs: number;
}

/** TLS and credential settings read from a KubeConfig. */
interface ResolvedAuth {
  /**
   * The credential headers plus `Host` as a flat name/value list: Node sends a list as it is, without
   * validating and storing each header again per request (`setHeader`), which was a measurable
   * share of a request's CPU (issue 15 §2).
   */
  headerList: string[];
  /** The same as the lines of a request head (`Name: value\r\n`), validated once. */
  head: string;
  tls: https.AgentOptions;
}

/** Request headers the transport sets per request; a KubeConfig's own header of one of these names is dropped. */
const PER_REQUEST_HEADERS = new Set(['host', 'accept', 'content-type', 'content-length', 'connection']);
/** A header name (an RFC 9110 token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a header value may not hold (as Node's client checks). */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * A place in the queue for a request slot (see {@link Connection.acquire}): `start` runs when the
 * slot is its; a cancelled entry is skipped.
 */
export interface SlotWaiter {
  start(): void;
  cancelled: boolean;
}

/**
 * The transport of one client: the server's base URL, one pool of keep-alive connections shared by
 * ordinary requests and watches ({@link WirePool}; the KubeConfig's agent behind a proxy-url), and
 * the credential headers, refreshed from the KubeConfig when they can change (exec plugins, auth
 * providers).
 *
 * One pool, so that a socket an ordinary request let go of (an informer's list) carries the watch
 * that follows, and a socket a watch let go of carries requests: a no-change restart with two kinds
 * opens two TLS connections instead of four, and an idle operator holds one (issue 15 §2, §3). The
 * pool itself is unbounded; ordinary requests take one of `maxSockets` slots here, so a watch
 * (which takes none) never starves them, and no request waits behind a watch: a socket a watch
 * holds is never free, so a request takes another one or opens one.
 */
export class Connection {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: number;
  /** Path prefix of the server URL (usually empty). */
  readonly basePath: string;
  /** The idle deadlines of the buffered requests in flight (one timer for all of them). */
  readonly idle = new IdleSweeper();
  private pool?: WirePool;
  private proxyAgent?: http.Agent;
  /** Ordinary requests holding a slot. */
  private active = 0;
  /** Requests waiting for a slot, first come first served (from `head` on). */
  private waiting: SlotWaiter[] = [];
  private head = 0;
  private pumpQueued = false;
  private readonly usesProxy: boolean;
  private auth?: ResolvedAuth;
  private authAt = 0;
  private authPromise?: Promise<ResolvedAuth>;
  private readonly dynamicAuth: boolean;
  private closed = false;

  constructor(
    private readonly kubeConfig: KubeConfigSource,
    private readonly options: ConnectionOptions,
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new KubernetesClientConfigError(noClusterMessage(kubeConfig));
    // what to write: a server without its scheme (host:port) is not taken as plain http the way
    // client-go's DefaultServerURL takes it (which then sends no credentials)
    const fix = 'set it to the URL of the API server with its scheme, e.g. https://10.0.0.1:6443';
    let url: URL;
    try {
      url = new URL(cluster.server);
    } catch (cause) {
      throw new KubernetesClientConfigError(
        cluster.server
          ? `cluster "${cluster.name}" has an invalid server URL "${cluster.server}"; ${fix}`
          : `cluster "${cluster.name}" has no server; ${fix}`,
        { cause },
      );
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new KubernetesClientConfigError(
        `cluster "${cluster.name}" server URL "${cluster.server}" must use https: or http:; ${fix}`,
      );
    }
    this.protocol = url.protocol;
    this.hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.usesProxy = Boolean(cluster.proxyUrl);
    if (INVALID_VALUE.test(options.userAgent)) {
      throw new KubernetesClientUsageError(
        `the userAgent option ${JSON.stringify(options.userAgent.slice(0, 100))} holds a line break or another character a header cannot carry: give a single line such as "my-operator/1.2"`,
      );
    }
    const user = kubeConfig.getCurrentUser();
    this.dynamicAuth =
      Boolean(user && (user.exec || user.authProvider)) || kubeConfig.hasDynamicCredentials?.() === true;
  }

  /**
   * Credential headers (with `Host`) and the pool (or proxy agent) for a request; resolves the
   * KubeConfig once (again when dynamic credentials are due). Synchronous while the credentials are
   * fresh (no promise per request), else a promise.
   */
  prepare(): Prepared | Promise<Prepared> {
    const auth = this.freshAuth();
    if (auth) return this.prepared(auth);
    return this.resolveAuth(false).then((a) => this.prepared(a));
  }

  private prepared(auth: ResolvedAuth): Prepared {
    if (this.closed) throw new KubernetesClientClosedError();
    if (this.proxyAgent)
      return { head: auth.head, headers: auth.headerList, agent: this.proxyAgent, credentials: auth };
    this.pool ??= this.makePool(auth);
    return { head: auth.head, headers: auth.headerList, pool: this.pool, credentials: auth };
  }

  /**
   * Takes one of the `maxSockets` slots of ordinary requests (watches take none): true when one was
   * free; else `waiter` is queued and started when a slot is its (never after {@link close}).
   */
  acquire(waiter: SlotWaiter): boolean {
    if (this.active < this.options.maxSockets && this.head === this.waiting.length) {
      this.active++;
      return true;
    }
    this.waiting.push(waiter);
    return false;
  }

  /**
   * Gives a slot back. The next waiter starts in a microtask: after the socket of the request that
   * ended is back in the pool (Node frees it in a tick of the response's end) and never in the middle
   * of {@link KubernetesClient.close}'s loop over the requests in flight.
   */
  release(): void {
    this.active--;
    if (this.head < this.waiting.length && !this.pumpQueued) {
      this.pumpQueued = true;
      queueMicrotask(() => this.pump());
    }
  }

  private pump(): void {
    this.pumpQueued = false;
    const waiting = this.waiting;
    while (!this.closed && this.active < this.options.maxSockets && this.head < waiting.length) {
      const next = waiting[this.head++];
      if (next.cancelled) continue;
      this.active++;
      next.start();
    }
    if (this.head === waiting.length) {
      this.waiting = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > waiting.length) {
      this.waiting = waiting.slice(this.head);
      this.head = 0;
    }
  }

  /**
   * The server answered 401 to a request sent with `used` (its {@link Prepared.credentials}): the
   * cached credentials are forgotten, and the KubeConfig told ({@link KubeConfigSource.invalidateCredentials}:
   * an exec plugin runs again), so the next request asks it again. A 401 to credentials already
   * replaced (requests in flight when the first 401 came) changes nothing.
   */
  invalidateAuth(used?: object): void {
    if (used !== undefined && used !== this.auth) return;
    this.auth = undefined;
    this.kubeConfig.invalidateCredentials?.();
  }

  /** Most ordinary requests in flight at once (the request slots). */
  get maxSockets(): number {
    return this.options.maxSockets;
  }

  /** The name of the kubeconfig's current user, if any (for messages). */
  get userName(): string | undefined {
    return this.kubeConfig.getCurrentUser()?.name || undefined;
  }

  /** Whether credentials may change between requests (worth one retry after a 401). */
  get hasDynamicAuth(): boolean {
    return this.dynamicAuth;
  }

  /** The `Host` header Node would send: the host (IPv6 in brackets), and the port unless it is the protocol's default. */
  private hostHeader(): string {
    const host = this.hostname.includes(':') ? `[${this.hostname}]` : this.hostname;
    const defaultPort = this.protocol === 'https:' ? 443 : 80;
    return this.port === defaultPort ? host : `${host}:${this.port}`;
  }

  /** The server URL (for messages). */
  get url(): string {
    const host = this.hostname.includes(':') ? `[${this.hostname}]` : this.hostname;
    return `${this.protocol}//${host}:${this.port}${this.basePath}`;
  }

  /** Destroys the idle keep-alive sockets (after one turned out dead, e.g. the server restarted: the others are too). */
  dropIdleSockets(): void {
    this.pool?.dropIdle();
  }

  /** Connections open to the server (idle or busy; none counted behind a proxy). */
  get openConnections(): number {
    return this.pool?.size ?? 0;
  }

  /**
   * Closes the pool for good: its sockets are destroyed (requests on them fail) and no request
   * gets a pool afterwards ({@link KubernetesClientClosedError}).
   */
  close(): void {
    this.closed = true;
    this.pool?.close();
    this.pool = undefined;
    // the requests still waiting were aborted by the client (their waiters are cancelled)
    this.waiting = [];
    this.head = 0;
  }

  private makePool(auth: ResolvedAuth): WirePool {
    if (this.protocol !== 'https:') {
      return new WirePool({
        secure: false,
        host: this.hostname,
        port: this.port,
        keepAliveMs: 30_000,
        maxFree: 256,
        credentials: auth.tls,
      });
    }
    // The server name sent (SNI) and checked against the certificate: the KubeConfig's
    // tls-server-name, else the host name (none for an IP address, which is checked against the
    // certificate's IP addresses), as Node's https agent does.
    const servername = auth.tls.servername ?? (isIP(this.hostname) ? '' : this.hostname);
    const { ca, cert, key, pfx, passphrase, rejectUnauthorized } = auth.tls;
    // One TLS context for every connection of the pool (Node's agent built one per connection,
    // parsing the CA, certificate and key again), made here so that a key that does not fit its
    // certificate is a configuration error naming the user, not a connection failure per request.
    let secureContext: tls.SecureContext;
    try {
      secureContext = tlsModule.createSecureContext(definedOnly({ ca, cert, key, pfx, passphrase }));
    } catch (cause) {
      const user = this.kubeConfig.getCurrentUser()?.name ?? '(none)';
      throw new KubernetesClientConfigError(
        `the client certificate, key or certificate authority of user "${user}" (cluster at ${this.url}) cannot be used: ` +
          `${(cause as Error).message}${(cause as NodeJS.ErrnoException).code ? ` (${(cause as NodeJS.ErrnoException).code})` : ''}; ` +
          'check client-certificate(-data), client-key(-data) (the key must match the certificate) and certificate-authority(-data) in the kubeconfig',
        { cause },
      );
    }
    return new WirePool({
      secure: true,
      host: this.hostname,
      port: this.port,
      tls: definedOnly({ secureContext, servername, rejectUnauthorized }),
      keepAliveMs: 30_000,
      maxFree: 256,
      credentials: auth.tls,
    });
  }

  /** The cached credentials while they need no refresh. */
  private freshAuth(): ResolvedAuth | undefined {
    const auth = this.auth;
    if (!auth) return undefined;
    if (this.dynamicAuth && Date.now() - this.authAt >= this.options.authRefreshMs) return undefined;
    return auth;
  }

  private async resolveAuth(force: boolean): Promise<ResolvedAuth> {
    const fresh = this.auth && (!this.dynamicAuth || Date.now() - this.authAt < this.options.authRefreshMs);
    if (this.auth && fresh && !force) return this.auth;
    this.authPromise ??= this.readAuth().finally(() => {
      this.authPromise = undefined;
    });
    return this.authPromise;
  }

  private async readAuth(): Promise<ResolvedAuth> {
    const opts: https.RequestOptions = {};
    try {
      await this.kubeConfig.applyToHTTPSOptions(opts);
    } catch (cause) {
      throw new KubernetesClientConfigError(
        `cannot read the credentials of user "${this.kubeConfig.getCurrentUser()?.name ?? '(none)'}" from the KubeConfig: ${String((cause as Error)?.message ?? cause)}`,
        { cause },
      );
    }
    // applyToHTTPSOptions also hands out an agent from the KubeConfig's shared cache. We pool with
    // our own agents (keep-alive, sized), except behind a proxy-url, where its agent does the
    // tunnelling (HTTP CONNECT or SOCKS). Its agent is shared with other users of the KubeConfig:
    // never destroy it.
    if (this.usesProxy && opts.agent) this.proxyAgent = opts.agent as http.Agent;
    // a list value is sent as one header line per value (Impersonate-Group: the API server takes
    // each line as one group, so a comma-joined line would be one group named "a, b")
    const headers: Array<[string, string]> = [['User-Agent', this.options.userAgent]];
    for (const [name, value] of Object.entries((opts.headers ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'string' || typeof value === 'number') headers.push([name, String(value)]);
      else if (Array.isArray(value)) for (const v of value as unknown[]) headers.push([name, String(v)]);
    }
    if (opts.auth) {
      const basic = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
      const at = headers.findIndex(([name]) => name.toLowerCase() === 'authorization');
      if (at >= 0) headers[at] = ['Authorization', basic];
      else headers.push(['Authorization', basic]);
    }
    const tls: https.AgentOptions = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      pfx: opts.pfx,
      passphrase: opts.passphrase,
      servername: opts.servername,
    };
    if (opts.rejectUnauthorized !== undefined) tls.rejectUnauthorized = opts.rejectUnauthorized;
    const headerList = ['Host', this.hostHeader(), 'Connection', 'keep-alive'];
    for (const [name, value] of headers) {
      if (PER_REQUEST_HEADERS.has(name.toLowerCase())) continue;
      if (!TOKEN.test(name) || INVALID_VALUE.test(value)) {
        throw new KubernetesClientConfigError(
          `the header "${name.slice(0, 60)}" that the KubeConfig's user "${this.kubeConfig.getCurrentUser()?.name ?? '(none)'}" gives ` +
            'has a name or value a request cannot carry (a line break or other control character, or a character beyond Latin-1): ' +
            'fix the token, token file, exec plugin output or header in the kubeconfig',
        );
      }
      headerList.push(name, value);
    }
    let head = '';
    for (let i = 0; i < headerList.length; i += 2) head += `${headerList[i]}: ${headerList[i + 1]}\r\n`;
    const auth = { headerList, head, tls };
    if (this.pool && !sameCredentials(this.pool.credentials as https.AgentOptions, tls)) {
      // An exec plugin rotated the client certificate (compared with what the pool was made with,
      // so a rotation read at the refresh after a 401 counts too): new connections must present
      // the new one; requests and watches in flight finish on the old ones. A new certificate that
      // cannot be used throws here and leaves the pool as it is (close() still reaches it).
      const next = this.makePool(auth);
      this.pool.retire(next);
      this.pool = next;
    }
    this.auth = auth;
    this.authAt = Date.now();
    return auth;
  }
}

function definedOnly<O extends object>(options: O): O {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (value !== undefined) out[key] = value;
  return out as O;
}

function sameCredentials(a: https.AgentOptions, b: https.AgentOptions): boolean {
  const same = (x: unknown, y: unknown) => fingerprint(x) === fingerprint(y);
  return (
    same(a.cert, b.cert) &&
    same(a.key, b.key) &&
    same(a.ca, b.ca) &&
    a.rejectUnauthorized === b.rejectUnauthorized
  );
}

function fingerprint(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(fingerprint).join('|');
  return JSON.stringify(value) ?? '';
}

/** Why a KubeConfig has no current cluster, naming where it came from and what to do (as kubectl does). */
function noClusterMessage(kubeConfig: KubeConfigSource): string {
  const source = (kubeConfig as { source?: unknown }).source;
  const of = typeof source === 'string' && source !== '' ? `the KubeConfig from ${source}` : 'the KubeConfig';
  const context = kubeConfig.getCurrentContext();
  if (!context)
    return `${of} sets no current-context; choose a context with \`kubectl config use-context <name>\` (or set current-context in the file)`;
  const entry = kubeConfig.getContextObject(context) as { cluster?: unknown } | null | undefined;
  if (!entry)
    return `${of} has no context "${context}" (its current-context); add that context, or choose one it has with \`kubectl config use-context <name>\``;
  const cluster = typeof entry.cluster === 'string' ? entry.cluster : '';
  if (!cluster) return `context "${context}" of ${of} names no cluster; set the context's cluster`;
  return `context "${context}" of ${of} names cluster "${cluster}", which is not defined; add that cluster or fix the context's cluster`;
}
