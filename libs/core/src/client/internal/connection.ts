import type * as http from 'node:http';
import https from 'node:https';
import type { KubeConfigSource } from '../../config/kube-config.js';
import { KubernetesClientClosedError, KubernetesClientConfigError } from '../errors.js';

// node:http imported as an ES module builds its namespace by reading every export, which runs
// http's lazy getters and loads the WebSocket client (undici): ~9 MB of RSS an operator never uses.
// The CommonJS object does not (issue 15 §3).
const httpModule = process.getBuiltinModule('node:http');

/** Resolved connection settings of a client (engine side: every default filled in). */
export interface ConnectionOptions {
  userAgent: string;
  maxSockets: number;
  /** How long dynamic credentials (exec plugins, auth providers, token files) are reused before asking the KubeConfig again. */
  authRefreshMs: number;
}

/** TLS and credential settings read from a KubeConfig. */
interface ResolvedAuth {
  headers: Record<string, string>;
  tls: https.AgentOptions;
}

/**
 * The transport of one client: the server's base URL, two keep-alive agents (one pooled for
 * ordinary requests, one unbounded for long-lived watches so they never starve writes) and the
 * credential headers, refreshed from the KubeConfig when they can change (exec plugins, auth providers).
 */
export class Connection {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: number;
  /** Path prefix of the server URL (usually empty). */
  readonly basePath: string;
  private requestAgent?: http.Agent;
  private watchAgent?: http.Agent;
  private proxyAgent?: http.Agent;
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
    if (!cluster) {
      throw new KubernetesClientConfigError(
        `the KubeConfig has no current cluster (current context "${kubeConfig.getCurrentContext()}")`,
      );
    }
    let url: URL;
    try {
      url = new URL(cluster.server);
    } catch (cause) {
      throw new KubernetesClientConfigError(
        `cluster "${cluster.name}" has an invalid server URL "${cluster.server}"`,
        {
          cause,
        },
      );
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new KubernetesClientConfigError(
        `cluster "${cluster.name}" server URL "${cluster.server}" must use https: or http:`,
      );
    }
    this.protocol = url.protocol;
    this.hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.usesProxy = Boolean(cluster.proxyUrl);
    const user = kubeConfig.getCurrentUser();
    this.dynamicAuth =
      Boolean(user && (user.exec || user.authProvider)) || kubeConfig.hasDynamicCredentials?.() === true;
  }

  /** Credential headers and the agent for a request; resolves the KubeConfig once (again when dynamic credentials are due). */
  async prepare(watch: boolean): Promise<{ headers: Record<string, string>; agent: http.Agent }> {
    const auth = await this.resolveAuth(false);
    return { headers: auth.headers, agent: this.agentFor(watch, auth) };
  }

  /** Forgets cached credentials (after a 401) so the next request asks the KubeConfig again. */
  invalidateAuth(): void {
    this.auth = undefined;
  }

  /** Whether credentials may change between requests (worth one retry after a 401). */
  get hasDynamicAuth(): boolean {
    return this.dynamicAuth;
  }

  /** The server URL (for messages). */
  get url(): string {
    const host = this.hostname.includes(':') ? `[${this.hostname}]` : this.hostname;
    return `${this.protocol}//${host}:${this.port}${this.basePath}`;
  }

  /** Destroys the idle keep-alive sockets (after one turned out dead, e.g. the server restarted: the others are too). */
  dropIdleSockets(): void {
    for (const agent of [this.requestAgent, this.watchAgent]) {
      for (const sockets of Object.values(agent?.freeSockets ?? {})) {
        for (const socket of sockets ?? []) socket.destroy();
      }
    }
  }

  /**
   * Closes the pools for good: their sockets are destroyed (requests on them fail) and no request
   * gets an agent afterwards ({@link KubernetesClientClosedError}).
   */
  close(): void {
    this.closed = true;
    this.dropPools();
  }

  private dropPools(): void {
    this.requestAgent?.destroy();
    this.watchAgent?.destroy();
    this.requestAgent = undefined;
    this.watchAgent = undefined;
  }

  private agentFor(watch: boolean, auth: ResolvedAuth): http.Agent {
    if (this.closed) throw new KubernetesClientClosedError();
    if (this.proxyAgent) return this.proxyAgent;
    if (watch) {
      this.watchAgent ??= this.makeAgent(auth, Infinity);
      return this.watchAgent;
    }
    this.requestAgent ??= this.makeAgent(auth, this.options.maxSockets);
    return this.requestAgent;
  }

  private makeAgent(auth: ResolvedAuth, maxSockets: number): http.Agent {
    const common = {
      keepAlive: true,
      keepAliveMsecs: 30_000,
      maxSockets,
      maxFreeSockets: 256,
      scheduling: 'lifo' as const,
    };
    return this.protocol === 'https:'
      ? new https.Agent({ ...auth.tls, ...common })
      : new httpModule.Agent(common);
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
    if (this.usesProxy && opts.agent instanceof httpModule.Agent) this.proxyAgent = opts.agent;
    const headers: Record<string, string> = { 'User-Agent': this.options.userAgent };
    for (const [name, value] of Object.entries((opts.headers ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'string' || typeof value === 'number') headers[name] = String(value);
      else if (Array.isArray(value)) headers[name] = value.join(', ');
    }
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    const tls: https.AgentOptions = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      pfx: opts.pfx,
      passphrase: opts.passphrase,
      servername: opts.servername,
    };
    if (opts.rejectUnauthorized !== undefined) tls.rejectUnauthorized = opts.rejectUnauthorized;
    const auth = { headers, tls };
    if (this.auth && !sameCredentials(this.auth.tls, tls)) {
      // An exec plugin rotated the client certificate: new connections must present the new one.
      this.dropPools();
    }
    this.auth = auth;
    this.authAt = Date.now();
    return auth;
  }
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
