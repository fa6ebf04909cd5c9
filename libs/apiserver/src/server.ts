import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { writeFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiError, errors, PageNotFound, toStatus } from './internal/common/errors.js';
import type { ResolvedOptions, KubeApiServerOptions, ApiUser } from './options.js';
import { resolveOptions } from './options.js';
import { Store } from './internal/storage/store.js';
import { ResourceRegistry } from './internal/resources/registry.js';
import { builtinResources } from './internal/resources/builtin-kinds.js';
import { loadPeers } from './internal/common/peers.js';
import type { Peers } from './internal/common/peers.js';
import { ObjectService } from './internal/storage/object-service.js';
import { WatchHub } from './internal/watch/watch-hub.js';
import { generateTls } from './internal/http/tls.js';
import type { TlsMaterial } from './internal/http/tls.js';
import { parseRequestInfo } from './internal/http/request-info.js';
import { splitTarget } from './internal/http/request-target.js';
import type { RequestInfo } from './internal/http/request-info.js';
import { sendJson } from './internal/http/resource-handler.js';
import { ServerAdmission } from './admission/server-admission.js';
import type { HandlerDeps } from './internal/http/resource-handler.js';
import { handleNonResource } from './internal/http/non-resource.js';
import { RequestAccounting } from './request-log.js';
import { FaultInjector } from './faults.js';
import { authorizeOrThrow } from './internal/authz/access-review.js';
import type { AuthUser } from './internal/authz/access-review.js';
import { withEscalationPrevention } from './internal/authz/escalation-prevention.js';
import { actingUser, impersonates } from './internal/authz/impersonation.js';
import { requestAttributes, selectedName } from './internal/authz/request-attributes.js';
import { ClusterRoleAggregation } from './internal/authz/cluster-role-aggregation.js';
import { Controllers } from './internal/controllers/controllers.js';
import { ServiceAccountsController } from './internal/controllers/service-accounts.js';
import { InternalClient } from './internal/storage/internal-client.js';
import { WorkloadSimulator } from './internal/controllers/workload-simulator.js';
import { bootstrapPolicy } from './internal/authz/bootstrap-policy.js';
import { SYSTEM_PRIORITY_CLASSES } from './internal/resources/infrastructure-kinds.js';
import { ServiceAccountTokens, TOKEN_ISSUER } from './internal/authz/service-account-tokens.js';
import { loadStateFile, saveStateFile } from './internal/storage/state-file.js';

/** The admin-only path that answers the request accounting as JSON. */
export const REQUEST_ACCOUNTING_PATH = '/debug/tosdk/requests';

/**
 * An in-memory Kubernetes API server over HTTPS (or HTTP) that kubectl and client libraries accept.
 *
 * ```ts
 * const server = await KubeApiServer.start();
 * const kc = server.kubeConfig();
 * // ... use any Kubernetes client
 * await server.stop();
 * ```
 */
export class KubeApiServer {
  /** Request accounting: counts by user, verb and resource, and the request log. */
  readonly requests: RequestAccounting;
  /** Fault injection hooks for reliability tests. */
  readonly faults: FaultInjector;

  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly deps: HandlerDeps;
  /** Admission and conversion webhooks in front of the resource handler. */
  private readonly admission: ServerAdmission;
  private readonly tokens: Map<string, Required<ApiUser>>;
  /** Accepted `Authorization` headers and their users (the same answer as a fresh lookup). */
  private readonly authenticated = new Map<string, AuthUser>();
  private readonly controllers: Controllers;
  private readonly serviceAccounts: ServiceAccountsController;
  private readonly aggregation: ClusterRoleAggregation;
  private readonly simulator: WorkloadSimulator | undefined;
  private boundPort = 0;
  private stopped = false;
  private saveTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly opts: ResolvedOptions,
    private readonly tlsMaterial: TlsMaterial | undefined,
    peers: Peers,
  ) {
    const store = new Store(opts.historySize);
    const registry = new ResourceRegistry();
    for (const rt of builtinResources((g, v, k) => peers.patch.builtinPatchSchema(g, v, k))) registry.add(rt);
    const service = new ObjectService(store, registry, peers);
    const hub = new WatchHub(store, opts.maxWatchBufferBytes);
    this.deps = {
      store,
      registry,
      // RBAC's escalation prevention applies to requests; the server's own controllers bypass it
      service: opts.rbac ? withEscalationPrevention(service, store, peers) : service,
      hub,
      peers,
      bookmarkIntervalMs: opts.bookmarkIntervalMs,
      rbacEnabled: opts.rbac,
      serviceAccountTokens: new ServiceAccountTokens(store),
      reviewToken: (token, audiences) => this.reviewToken(token, audiences),
    };
    this.admission = new ServerAdmission(this.deps);
    this.tokens = new Map(opts.users.map((u) => [u.token, u]));
    this.requests = new RequestAccounting(opts.requestLogSize);
    this.faults = new FaultInjector({
      closeAllWatches: () => hub.closeAll(),
      compact: () => store.compact(),
      restart: () => this.restart(),
    });
    this.controllers = new Controllers(store, registry, service, peers);
    this.serviceAccounts = new ServiceAccountsController(store, registry, service);
    if (opts.workloadReadyDelayMs !== undefined) {
      this.simulator = new WorkloadSimulator(store, registry, service, opts.workloadReadyDelayMs);
    }
    if (opts.stateFile !== undefined) {
      loadStateFile(opts.stateFile, store);
      const file = opts.stateFile;
      store.onChange(() => {
        this.saveTimer ??= setTimeout(() => {
          this.saveTimer = undefined;
          saveStateFile(file, store);
        }, 200).unref();
      });
    }
    const system = { user: { name: 'system:apiserver', groups: ['system:masters'] } };
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      if (store.getJson('/namespaces', '', ns) !== undefined) continue;
      service.create(
        registry.resolve('', 'v1', 'namespaces')!.rt,
        registry.resolve('', 'v1', 'namespaces')!.version,
        '',
        { metadata: { name: ns } },
        { ...system, fieldManager: 'kube-apiserver' },
      );
    }
    this.ensureBootstrapPolicy();
    // the scheduling API's post-start hook creates the system priority classes (and again if deleted)
    const priorityClasses = registry.resolve('scheduling.k8s.io', 'v1', 'priorityclasses')!;
    for (const pc of SYSTEM_PRIORITY_CLASSES) {
      const name = (pc.metadata as { name: string }).name;
      if (store.getJson('scheduling.k8s.io/priorityclasses', '', name) === undefined)
        service.create(priorityClasses.rt, priorityClasses.version, '', structuredClone(pc), {
          ...system,
          fieldManager: 'kube-apiserver',
        });
    }
    this.aggregation = new ClusterRoleAggregation(store, registry, service, peers);
    if (store.getJson('/serviceaccounts', 'default', 'default') === undefined)
      service.create(
        registry.resolve('', 'v1', 'serviceaccounts')!.rt,
        registry.resolve('', 'v1', 'serviceaccounts')!.version,
        'default',
        { metadata: { name: 'default' } },
        { ...system, fieldManager: 'kube-apiserver' },
      );
  }

  /**
   * Creates the bootstrap ClusterRoles and ClusterRoleBindings that are missing, as kube-apiserver
   * does at each start (it re-creates deleted ones); existing ones are left as they are.
   */
  private ensureBootstrapPolicy(): void {
    const { registry, service, store } = this.deps;
    const ctx = {
      user: { name: 'system:apiserver', groups: ['system:masters'] },
      fieldManager: 'kube-apiserver',
    };
    const policy = bootstrapPolicy();
    for (const [plural, objects] of [
      ['clusterroles', policy.clusterRoles],
      ['clusterrolebindings', policy.clusterRoleBindings],
    ] as const) {
      const { rt, version } = registry.resolve('rbac.authorization.k8s.io', 'v1', plural)!;
      for (const o of objects) {
        const name = String((o.metadata as { name: string }).name);
        if (!store.get(`rbac.authorization.k8s.io/${plural}`, '', name))
          service.create(rt, version, '', o, ctx);
      }
    }
  }

  /** Starts a server; resolves once it listens. */
  static async start(options: KubeApiServerOptions = {}): Promise<KubeApiServer> {
    const opts = resolveOptions(options);
    const [tls, peers] = await Promise.all([
      opts.tls ? generateTls(opts.host === '127.0.0.1' ? [] : [opts.host]) : Promise.resolve(undefined),
      loadPeers(),
    ]);
    const s = new KubeApiServer(opts, tls, peers);
    await s.listen(opts.port);
    return s;
  }

  /** The base URL, e.g. `https://127.0.0.1:40123`. */
  get url(): string {
    const host = this.opts.host.includes(':') ? `[${this.opts.host}]` : this.opts.host;
    return `${this.opts.tls ? 'https' : 'http'}://${host}:${this.boundPort}`;
  }

  /** The port the server listens on. */
  get port(): number {
    return this.boundPort;
  }

  /** The CA certificate (PEM) that signed the server certificate; undefined without TLS. */
  get caPem(): string | undefined {
    return this.tlsMaterial?.caPem;
  }

  /** The users the server accepts (the admin included). */
  get users(): readonly Required<ApiUser>[] {
    return this.opts.users;
  }

  /** The token of a user (the admin by default). */
  tokenOf(user = 'admin'): string {
    const u = this.opts.users.find((x) => x.name === user);
    if (!u) throw new RangeError(`no user named ${user}`);
    return u.token;
  }

  /** A @kubernetes/client-node KubeConfig for a user (the admin by default) with the CA data. */
  kubeConfig(user = 'admin'): KubeConfig {
    const token = this.tokenOf(user);
    const kc = new KubeConfig();
    const cluster: { name: string; server: string; caData?: string; skipTLSVerify: boolean } = {
      name: 'tosdk',
      server: this.url,
      // client-node refuses a plain http:// server unless TLS verification is marked skipped
      skipTLSVerify: !this.tlsMaterial,
    };
    if (this.tlsMaterial) cluster.caData = Buffer.from(this.tlsMaterial.caPem).toString('base64');
    kc.loadFromOptions({
      clusters: [cluster],
      users: [{ name: user, token }],
      contexts: [{ name: `tosdk-${user}`, cluster: 'tosdk', user, namespace: 'default' }],
      currentContext: `tosdk-${user}`,
    });
    return kc;
  }

  /** Writes a kubeconfig file for a user (the admin by default). */
  async writeKubeconfig(path: string, user = 'admin'): Promise<void> {
    await writeFile(path, this.kubeConfig(user).exportConfig(), { mode: 0o600 });
  }

  /** An in-process client over the storage semantics (for controllers and test tooling). */
  internalClient(): InternalClient {
    return new InternalClient(this.deps.store, this.deps.registry, this.deps.service);
  }

  /** Stops the server: ends watches, closes every connection and the listener. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.controllers.dispose();
    this.serviceAccounts.dispose();
    this.aggregation.dispose();
    this.simulator?.dispose();
    this.deps.hub.dispose();
    await this.closeListener();
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (this.opts.stateFile !== undefined) saveStateFile(this.opts.stateFile, this.deps.store);
  }

  /** Restarts the listener on the same port keeping all state; every connection is dropped. */
  async restart(): Promise<void> {
    if (this.stopped) throw new Error('the server is stopped');
    this.deps.hub.closeAll();
    await this.closeListener();
    this.ensureBootstrapPolicy();
    await this.listen(this.boundPort);
  }

  private async closeListener(): Promise<void> {
    const srv = this.server;
    if (!srv) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => srv.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    srv.closeAllConnections?.();
    await closed;
  }

  private async listen(port: number): Promise<void> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      void this.handle(req, res);
    };
    const srv = this.tlsMaterial
      ? createHttpsServer(
          { cert: this.tlsMaterial.certPem, key: this.tlsMaterial.keyPem, keepAlive: true },
          handler,
        )
      : createHttpServer({ keepAlive: true }, handler);
    srv.keepAliveTimeout = 60_000;
    srv.headersTimeout = 65_000;
    srv.requestTimeout = 0;
    // Every accepted TCP socket is tracked from 'connection', also with TLS: a connection still in
    // its handshake has no 'secureConnection' yet, and if it were left out, close() would wait for
    // it (up to the handshake timeout) and it could finish the handshake on the old listener and be
    // served after a restart. Destroying the TCP socket also ends the TLS socket over it.
    const onSocket = (s: Socket): void => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    };
    srv.on('connection', onSocket);
    srv.on('clientError', (e: NodeJS.ErrnoException, socket) => answerClientError(e, socket));
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, this.opts.host, () => {
        srv.off('error', reject);
        resolve();
      });
    });
    this.boundPort = (srv.address() as AddressInfo).port;
    this.server = srv;
  }

  /**
   * A TokenReview's answer: the user a token stands for and the audiences it was accepted for.
   * The configured users' tokens are audience-agnostic (kube's static tokens): they count only when
   * the review asks for the API server's own audience.
   */
  private reviewToken(
    token: string,
    audiences: readonly string[],
  ): { user: AuthUser; audiences: string[] } | undefined {
    const u = this.tokens.get(token);
    if (u !== undefined)
      return audiences.includes(TOKEN_ISSUER)
        ? { user: { name: u.name, groups: u.groups }, audiences: [TOKEN_ISSUER] }
        : undefined;
    return this.deps.serviceAccountTokens?.authenticate(token, audiences);
  }

  private authenticate(req: IncomingMessage): AuthUser {
    const h = req.headers.authorization;
    if (h !== undefined) {
      // a client sends the same header on every request: its user is looked up once (the users
      // are fixed at start; only accepted headers are kept, so the map is bounded by them)
      const known = this.authenticated.get(h);
      if (known !== undefined) return known;
      const m = /^Bearer\s+(.+)$/i.exec(h);
      const u = m ? this.tokens.get(m[1].trim()) : undefined;
      if (!u) {
        // a service account token (TokenRequest) is checked on every request: it expires, and
        // it stops working once its account is deleted
        const sa = m ? this.deps.serviceAccountTokens?.authenticate(m[1].trim()) : undefined;
        if (sa !== undefined) return sa.user;
        throw errors.unauthorized();
      }
      const user: AuthUser = { name: u.name, groups: u.groups };
      if (this.authenticated.size < MAX_AUTHENTICATED_HEADERS) this.authenticated.set(h, user);
      return user;
    }
    if (this.opts.authentication) throw errors.unauthorized();
    return { name: 'system:anonymous', groups: ['system:unauthenticated', 'system:masters'] };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    let info: RequestInfo | undefined;
    let user = 'system:anonymous';
    const url = splitTarget(req.url ?? '/');
    try {
      checkPathEscapes(req.url ?? '/');
      info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
      const isHealth = !info.isResource && /^\/(healthz|livez|readyz)(\/|$)/.test(info.path);
      if (!isHealth) {
        // kubectl --as: the request acts as the impersonated user once the requester may impersonate it
        const requester = this.authenticate(req);
        // (headersDistinct builds an object of arrays per request: only for a request that impersonates)
        const u = impersonates(req.headers)
          ? actingUser(req.headersDistinct, requester, this.deps)
          : requester;
        user = u.name;
        if (info.isResource) {
          const match = {
            verb: info.verb,
            resource: info.resource,
            namespace: info.namespace,
            subresource: info.subresource,
          };
          const latency = this.faults.latencyFor(match);
          if (latency > 0) await new Promise((r) => setTimeout(r, latency));
          const fault = this.faults.takeFailure(match);
          if (fault) {
            const retry = fault.retryAfterSeconds ?? 1;
            throw new ApiError(
              fault.code,
              reasonOf(fault.code),
              fault.message ?? `injected fault: ${fault.code}`,
              fault.code === 429 || fault.code === 503 ? { retryAfterSeconds: retry } : undefined,
            );
          }
          if (this.opts.rbac) {
            const attrs = requestAttributes(info, url.searchParams, u, this.deps.peers);
            authorizeOrThrow(this.deps.store, this.deps.peers, attrs);
          }
          await this.admission.handle(req, res, info, url.searchParams, u);
        } else if (info.path === REQUEST_ACCOUNTING_PATH) {
          if (!u.groups.includes('system:masters'))
            throw errors.forbidden(
              `User "${u.name}" cannot get path "${info.path}": request accounting is for system:masters only`,
            );
          sendJson(res, 200, {
            kind: 'RequestAccounting',
            apiVersion: 'tosdk.io/v1',
            total: this.requests.log.length,
            writes: this.requests.writes(),
            summary: this.requests.summary(),
            recent: this.requests.log.slice(-100),
          });
        } else {
          if (this.opts.rbac) {
            // discovery, openapi and version are allowed by the bootstrap role system:discovery
            authorizeOrThrow(this.deps.store, this.deps.peers, {
              user: u.name,
              groups: u.groups,
              verb: info.verb,
              apiGroup: '',
              resource: '',
              nonResourceURL: info.path,
            });
          }
          await handleNonResource(this.deps, req, res, info.path, this.hostPort());
        }
      } else if (!info.isResource) {
        await handleNonResource(this.deps, req, res, info.path, this.hostPort());
      }
    } catch (err) {
      const st = toStatus(err);
      if (!res.headersSent && err instanceof PageNotFound) {
        res.writeHead(404, {
          'Content-Type': 'text/plain; charset=utf-8',
          'X-Content-Type-Options': 'nosniff',
          'Content-Length': Buffer.byteLength(PageNotFound.TEXT),
        });
        res.end(PageNotFound.TEXT);
      } else if (!res.headersSent) {
        if (st.retryAfter !== undefined) res.setHeader('Retry-After', String(st.retryAfter));
        sendJson(res, st.status, st.body);
      } else if (!res.writableEnded) res.end();
      // drain what the client still sends so the connection can be reused
      if (!req.complete) req.resume();
    } finally {
      this.record(req, res, info, user, started, url.searchParams);
    }
  }

  private hostPort(): string {
    return `${this.opts.host}:${this.boundPort}`;
  }

  private record(
    req: IncomingMessage,
    res: ServerResponse,
    info: RequestInfo | undefined,
    user: string,
    started: number,
    query: URLSearchParams,
  ): void {
    const r = info?.isResource ? info : undefined;
    // a list or watch of one object (fieldSelector metadata.name=x) is about that name, as the
    // authorizer sees it (requestAttributes): RBAC proofs replay the log against resourceNames
    let name = r?.name;
    if (r && name === undefined && (r.verb === 'list' || r.verb === 'watch'))
      name = selectedName(query.get('fieldSelector'), this.deps.peers);
    this.requests.record({
      time: started,
      user,
      verb: info?.verb ?? (req.method ?? '').toLowerCase(),
      group: r?.group ?? '',
      resource: r?.resource ?? '',
      subresource: r?.subresource,
      namespace: r?.namespace,
      name,
      path: req.url ?? '',
      code: res.statusCode,
    });
  }
}

/** Distinct accepted `Authorization` headers remembered (a few per user in practice). */
const MAX_AUTHENTICATED_HEADERS = 1024;

/**
 * Answers a request Node's HTTP parser rejected (a broken request line or header, headers past the
 * size limit) with a Status, as kube-apiserver answers with a 4xx, then closes the connection.
 */
function answerClientError(e: NodeJS.ErrnoException, socket: Duplex): void {
  // as Node's own default: no answer on a reset connection or in the middle of a response (the
  // response of the connection's last request is Node's private `_httpMessage`)
  const inResponse =
    (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage?.headersSent === true;
  if (e.code === 'ECONNRESET' || !socket.writable || inResponse) {
    socket.destroy();
    return;
  }
  const code = e.code === 'HPE_HEADER_OVERFLOW' ? 431 : e.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const reason = code === 431 ? 'RequestHeaderFieldsTooLarge' : code === 408 ? 'Timeout' : 'BadRequest';
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      code === 431
        ? 'the request headers are too large (Node limit: 16 KiB by default); send fewer or smaller headers'
        : `the request is not valid HTTP (${e.code ?? 'parse error'}); check the request line, headers and body framing`,
    reason,
    code,
  });
  const head = `HTTP/1.1 ${code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  socket.end(head + body);
}

/**
 * 400 for a percent sign in the path that does not start a two-digit hex escape, as kube-apiserver
 * (Go's URL parser) rejects it, instead of serving the path with the escape left undecoded.
 */
function checkPathEscapes(rawUrl: string): void {
  if (!rawUrl.includes('%')) return;
  const q = rawUrl.indexOf('?');
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const bad = /%(?![0-9a-fA-F]{2})/.exec(path);
  if (bad) {
    const escape = path.slice(bad.index, bad.index + 3);
    throw errors.badRequest(
      `invalid URL escape ${JSON.stringify(escape)} in the request path ${JSON.stringify(path)}; write a literal % as %25`,
    );
  }
}

function reasonOf(code: number): string {
  switch (code) {
    case 429:
      return 'TooManyRequests';
    case 409:
      return 'Conflict';
    case 404:
      return 'NotFound';
    case 403:
      return 'Forbidden';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return code >= 500 ? 'InternalError' : 'BadRequest';
  }
}
