import type https from 'node:https';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { proxyFromEnvironment } from './environment-proxy.js';
import { ExecCredentialPlugin } from './exec-credential.js';
import { checkCluster, checkProxyUrl, checkUser, collect } from './kube-config-entries.js';
import type { ClusterEntry, ContextEntry, NamedEntry, UserEntry } from './kube-config-entries.js';
import { KubeConfigError } from './kube-config-error.js';
import { definesSomething, readKubeConfigFile } from './kube-config-file.js';
import type { KubeConfigDocument } from './kube-config-file.js';
import type { ExecCredentials } from './exec-credential.js';

// node:fs imported as an ES module builds its namespace by reading every export, which runs fs's lazy
// `promises` getter and loads fs/promises, streams and readline (~1 MB of RSS in an idle operator).
// The CommonJS object does not (issue 15 §3).
const { existsSync, readFileSync } = process.getBuiltinModule('node:fs');

/**
 * The part of a KubeConfig tosdk reads. @kubernetes/client-node's `KubeConfig` has it, and so has
 * the lighter {@link LoadedKubeConfig} of {@link loadKubeConfig}; every tosdk API that takes a
 * KubeConfig takes either.
 */
export interface KubeConfigSource {
  /** Name of the current context. */
  getCurrentContext(): string;
  /** A context by name (its `namespace` is the operator's default namespace). */
  getContextObject(name: string): { namespace?: string } | null | undefined;
  /** The current context's cluster: `server`, and `proxyUrl` when one is set. */
  getCurrentCluster(): { name: string; server: string; proxyUrl?: string } | null;
  /** The current context's user; `exec` or `authProvider` mark credentials that change. */
  getCurrentUser(): { name: string; exec?: unknown; authProvider?: unknown } | null;
  /** Puts the TLS settings and credential headers of the current context into `options`. */
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
  /** Whether credentials must be read again from time to time (a rotated token file). Defaults to false. */
  hasDynamicCredentials?(): boolean;
  /**
   * The API server rejected the credentials last put into options (401): the next
   * {@link applyToHTTPSOptions} gets fresh ones (an exec plugin whose credentials carry no expiry
   * runs again, as client-go does). Optional.
   */
  invalidateCredentials?(): void;
}

export { KubeConfigError } from './kube-config-error.js';

/** Options of {@link loadKubeConfig}. */
export interface LoadKubeConfigOptions {
  /**
   * Environment variables (`KUBECONFIG`, `KUBERNETES_SERVICE_HOST`/`_PORT`, `POD_NAMESPACE`, `HOME`,
   * and `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` for a cluster without `proxy-url`, as client-go reads
   * them). Defaults to `process.env`.
   */
  env?: Record<string, string | undefined>;
  /** Directory of the service account files (`token`, `ca.crt`, `namespace`). Defaults to `/var/run/secrets/kubernetes.io/serviceaccount`. */
  serviceAccountDir?: string;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * A kubeconfig read by tosdk itself ({@link loadKubeConfig}): enough for {@link KubernetesClient}
 * and the operator without loading @kubernetes/client-node (~90 MB of RSS). Exec credential
 * plugins run as kubectl runs them (`KUBERNETES_EXEC_INFO`, `provideClusterInfo`, `env`,
 * `interactiveMode`, run again after a 401). Users with an `auth-provider` (OIDC) load client-node
 * on the first request and let it do the work; a cluster's `proxy-url` (else, as client-go, the
 * proxy `HTTPS_PROXY`/`HTTP_PROXY` name for the server, unless `NO_PROXY` lists it) takes
 * client-node's tunnelling agent, the credentials staying tosdk's.
 */
export class LoadedKubeConfig implements KubeConfigSource {
  private constructor(
    private readonly clusters: Map<string, NamedEntry<ClusterEntry>>,
    private readonly users: Map<string, NamedEntry<UserEntry>>,
    private readonly contexts: Map<string, NamedEntry<ContextEntry>>,
    private readonly currentContext: string,
    /** Where it came from, for messages. */
    readonly source: string,
    /** The environment variables the proxy of a cluster without `proxy-url` comes from. */
    private readonly env: Record<string, string | undefined> = {},
  ) {}

  /** @internal Builds one from parsed documents (first definition of a name wins, as kubectl merges). */
  static fromDocuments(
    documents: KubeConfigDocument[],
    source: string,
    env: Record<string, string | undefined> = {},
  ): LoadedKubeConfig {
    const clusters = new Map<string, NamedEntry<ClusterEntry>>();
    const users = new Map<string, NamedEntry<UserEntry>>();
    const contexts = new Map<string, NamedEntry<ContextEntry>>();
    let current = '';
    for (const { file, doc } of documents) {
      const dir = dirname(file);
      collect(doc.clusters, 'cluster', dir, clusters, file);
      collect(doc.users, 'user', dir, users, file);
      collect(doc.contexts, 'context', dir, contexts, file);
      if (!current && typeof doc['current-context'] === 'string') current = doc['current-context'];
    }
    return new LoadedKubeConfig(clusters, users, contexts, current, source, env);
  }

  getCurrentContext(): string {
    return this.currentContext;
  }

  getContextObject(
    name: string,
  ): { name: string; cluster?: string; user?: string; namespace?: string } | null {
    const context = this.contexts.get(name);
    return context ? { name, ...context.value } : null;
  }

  getCurrentCluster(): { name: string; server: string; proxyUrl?: string; skipTLSVerify: boolean } | null {
    const name = this.contexts.get(this.currentContext)?.value.cluster;
    const cluster = name === undefined ? undefined : this.clusters.get(name);
    if (!cluster) return null;
    return {
      name: cluster.name,
      server: cluster.value.server ?? '',
      proxyUrl: this.proxyOf(cluster),
      skipTLSVerify: cluster.value['insecure-skip-tls-verify'] === true,
    };
  }

  getCurrentUser(): { name: string; exec?: unknown; authProvider?: unknown } | null {
    const name = this.contexts.get(this.currentContext)?.value.user;
    const user = name === undefined ? undefined : this.users.get(name);
    if (!user) return null;
    return { name: user.name, exec: user.value.exec, authProvider: user.value['auth-provider'] };
  }

  hasDynamicCredentials(): boolean {
    const user = this.currentUserEntry()?.value;
    return Boolean(user && (user.tokenFile || user.exec));
  }

  invalidateCredentials(): void {
    this.plugin?.rejected(this.lastExec);
  }

  async applyToHTTPSOptions(options: https.RequestOptions): Promise<void> {
    const context = this.contexts.get(this.currentContext)?.value;
    const cluster = context?.cluster === undefined ? undefined : this.clusters.get(context.cluster);
    const user = this.currentUserEntry();
    if (cluster) checkCluster(cluster);
    if (user) checkUser(user);
    if (user?.value['auth-provider']) {
      await this.viaClientNode(options);
      return;
    }
    if (cluster) {
      const c = cluster.value;
      // as client-go's transport (TLSConfigFor): a CA with insecure-skip-tls-verify is refused, not
      // silently dropped (a plain http: server has no TLS, so neither counts there)
      const hasCa = Boolean(c['certificate-authority-data'] || c['certificate-authority']);
      if (c['insecure-skip-tls-verify'] && hasCa && !(c.server ?? '').startsWith('http:')) {
        throw new KubeConfigError(
          `cluster "${cluster.name}" sets both insecure-skip-tls-verify and a certificate authority (certificate-authority${c['certificate-authority-data'] ? '-data' : ''}) in ${cluster.file}; ` +
            'remove insecure-skip-tls-verify to verify the server with that certificate authority, or remove the certificate authority',
          cluster.file,
        );
      }
      if (c['insecure-skip-tls-verify']) options.rejectUnauthorized = false;
      else {
        const ca = this.caOf(cluster);
        if (ca) options.ca = ca;
      }
      if (c['tls-server-name']) options.servername = c['tls-server-name'];
    }
    if (cluster?.value['proxy-url']) checkProxyUrl(cluster);
    const proxy = cluster && this.proxyOf(cluster);
    if (user) await this.applyUser(user, cluster, options);
    if (cluster && proxy) await this.proxyAgent(cluster, proxy, options);
  }

  /**
   * The proxy of a cluster: its `proxy-url`, else the one the environment names for its server
   * (client-go's transport falls back to Go's `http.ProxyFromEnvironment`).
   */
  private proxyOf(cluster: NamedEntry<ClusterEntry>): string | undefined {
    return cluster.value['proxy-url'] || proxyFromEnvironment(cluster.value.server ?? '', this.env);
  }

  private currentUserEntry(): NamedEntry<UserEntry> | undefined {
    const name = this.contexts.get(this.currentContext)?.value.user;
    return name === undefined ? undefined : this.users.get(name);
  }

  private caOf(cluster: NamedEntry<ClusterEntry>): Buffer | undefined {
    const c = cluster.value;
    if (c['certificate-authority-data']) return Buffer.from(c['certificate-authority-data'], 'base64');
    if (c['certificate-authority'])
      return this.read(cluster.dir, c['certificate-authority'], 'certificate-authority');
    return undefined;
  }

  private async applyUser(
    user: NamedEntry<UserEntry>,
    cluster: NamedEntry<ClusterEntry> | undefined,
    options: https.RequestOptions,
  ): Promise<void> {
    const u = user.value;
    const headers = (options.headers ?? {}) as Record<string, string | string[]>;
    options.headers = headers;
    let token = u.token;
    if (u.tokenFile) token = this.tokenFromFile(user.dir, u.tokenFile) ?? token;
    if (token) headers.Authorization = `Bearer ${token}`;
    if (u['client-certificate-data']) options.cert = Buffer.from(u['client-certificate-data'], 'base64');
    else if (u['client-certificate'])
      options.cert = this.read(user.dir, u['client-certificate'], 'client-certificate');
    if (u['client-key-data']) options.key = Buffer.from(u['client-key-data'], 'base64');
    else if (u['client-key']) options.key = this.read(user.dir, u['client-key'], 'client-key');
    const basic = u.username !== undefined && u.password !== undefined;
    if (basic) options.auth = `${u.username}:${u.password}`;
    // as client-go: a token, basic auth or a client certificate given with the plugin is used instead of it
    if (u.exec && !token && !basic && !options.cert) {
      this.plugin ??= new ExecCredentialPlugin(u.exec, user.name, user.dir, this.source, () =>
        this.clusterInfo(cluster),
      );
      const creds = await this.plugin.credentials();
      this.lastExec = creds;
      if (creds.token) headers.Authorization = `Bearer ${creds.token}`;
      if (creds.cert && creds.key) {
        options.cert = creds.cert;
        options.key = creds.key;
      }
    }
    // impersonation (kubectl --as): one header line per group and per extra value, as the API server reads them
    if (u.as) headers['Impersonate-User'] = u.as;
    if (u['as-uid']) headers['Impersonate-Uid'] = u['as-uid'];
    if (u['as-groups']?.length) headers['Impersonate-Group'] = u['as-groups'].map(String);
    for (const [key, values] of Object.entries(u['as-user-extra'] ?? {})) {
      const name = `Impersonate-Extra-${key.replace(/[^!#$&'*+\-.^_`|~0-9A-Za-z]/g, (c) => encodeURIComponent(c))}`;
      headers[name] = (Array.isArray(values) ? values : [values]).map(String);
    }
  }

  /** `spec.cluster` of an exec plugin's `KUBERNETES_EXEC_INFO` (provideClusterInfo), as client-go fills it. */
  private clusterInfo(cluster: NamedEntry<ClusterEntry> | undefined): Record<string, unknown> {
    const c = cluster?.value ?? {};
    const info: Record<string, unknown> = { server: c.server ?? '' };
    if (c['tls-server-name']) info['tls-server-name'] = c['tls-server-name'];
    if (c['insecure-skip-tls-verify']) info['insecure-skip-tls-verify'] = true;
    const ca = cluster ? this.caOf(cluster) : undefined;
    if (ca) info['certificate-authority-data'] = ca.toString('base64');
    if (c['proxy-url']) info['proxy-url'] = c['proxy-url'];
    if (c['disable-compression']) info['disable-compression'] = true;
    const extension = c.extensions?.find((e) => e?.name === 'client.authentication.k8s.io/exec');
    if (extension?.extension !== undefined) info.config = extension.extension;
    return info;
  }

  /**
   * A `proxy-url`: the agent that tunnels through it comes from @kubernetes/client-node (loaded now,
   * once), built with the TLS settings and client certificate already in `options`; the credentials
   * stay tosdk's own (a token file read again, an exec plugin, impersonation).
   */
  private async proxyAgent(
    cluster: NamedEntry<ClusterEntry>,
    proxyUrl: string,
    options: https.RequestOptions,
  ): Promise<void> {
    this.proxied ??= import('@kubernetes/client-node').then(({ KubeConfig }) => {
      const kc = new KubeConfig();
      const server = cluster.value.server ?? '';
      kc.loadFromOptions({
        clusters: [
          {
            name: cluster.name,
            server,
            proxyUrl,
            // client-node refuses an http: server without it (there is no TLS to verify)
            skipTLSVerify: cluster.value['insecure-skip-tls-verify'] === true || server.startsWith('http:'),
          },
        ],
        users: [{ name: 'tosdk' }],
        contexts: [{ name: 'tosdk', cluster: cluster.name, user: 'tosdk' }],
        currentContext: 'tosdk',
      });
      return kc;
    });
    const kc = await this.proxied;
    const headers = options.headers;
    await kc.applyToHTTPSOptions(options);
    options.headers = headers;
  }

  /**
   * auth-provider (OIDC and the like): @kubernetes/client-node does them (loaded now, once), from
   * the merged configuration as tosdk read it (the files are not merged again: client-node stops
   * at the first name defined twice and loses the rest of that file).
   */
  private async viaClientNode(options: https.RequestOptions): Promise<void> {
    this.full ??= import('@kubernetes/client-node').then(({ KubeConfig }) => {
      const kc = new KubeConfig();
      kc.loadFromString(JSON.stringify(this.mergedDocument()));
      return kc;
    });
    await (await this.full).applyToHTTPSOptions(options);
  }

  /** The merged configuration as one kubeconfig, file paths made absolute. */
  private mergedDocument(): Record<string, unknown> {
    const absolute = <T extends object>(entry: NamedEntry<T>, fields: string[]): T => {
      const value = { ...entry.value } as Record<string, unknown>;
      for (const field of fields) {
        const path = value[field];
        if (typeof path === 'string' && path && !isAbsolute(path)) value[field] = resolve(entry.dir, path);
      }
      return value as T;
    };
    return {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [...this.clusters.values()].map((e) => {
        // the environment's proxy written in, as client-node reads no proxy variables
        const proxy = this.proxyOf(e);
        return { name: e.name, cluster: { ...absolute(e, ['certificate-authority']), 'proxy-url': proxy } };
      }),
      users: [...this.users.values()].map((e) => ({
        name: e.name,
        user: absolute(e, ['client-certificate', 'client-key']),
      })),
      contexts: [...this.contexts.values()].map((e) => ({ name: e.name, context: e.value })),
      'current-context': this.currentContext,
    };
  }

  private plugin?: ExecCredentialPlugin;
  /** The exec credentials last put into options (the ones a 401 rejects). */
  private lastExec?: ExecCredentials;
  private proxied?: Promise<import('@kubernetes/client-node').KubeConfig>;
  private full?: Promise<import('@kubernetes/client-node').KubeConfig>;

  /**
   * The token of a user's `tokenFile`, as client-go's cached file token source reads it: the file
   * is read for every refresh and wins over a static token while it holds one; while it is
   * unreadable or empty (being rewritten) the last token read from it stands in, else the static
   * token (undefined). With neither, an unreadable or empty file is an error: client-go refuses
   * to send a request without the token (it never goes out anonymous).
   */
  private tokenFromFile(dir: string, path: string): string | undefined {
    const hasStatic = Boolean(this.currentUserEntry()?.value.token);
    let text: string;
    try {
      text = this.read(dir, path, 'tokenFile').toString('utf8').trim();
    } catch (error) {
      if (this.fileToken !== undefined || hasStatic) return this.fileToken;
      throw error;
    }
    if (text) {
      this.fileToken = text;
      return text;
    }
    if (this.fileToken !== undefined || hasStatic) return this.fileToken;
    const file = isAbsolute(path) ? path : resolve(dir, path);
    throw new KubeConfigError(
      `the token file ${file} (tokenFile in ${this.source}) is empty; write the bearer token into it, or fix the path in the kubeconfig`,
      file,
    );
  }

  /** The last token read from the current user's tokenFile. */
  private fileToken?: string;

  private read(dir: string, path: string, field: string): Buffer {
    const file = isAbsolute(path) ? path : resolve(dir, path);
    try {
      return readFileSync(file);
    } catch (cause) {
      throw new KubeConfigError(
        `cannot read ${file} (${field} in ${this.source}): ${(cause as Error).message}; fix the path in the kubeconfig or create the file`,
        file,
        { cause },
      );
    }
  }
}

/**
 * Loads the configuration the way kubectl finds it, without @kubernetes/client-node: the files of
 * `KUBECONFIG` (a path list, merged: the first file's `current-context`, and the first definition
 * of each name, win; files that do not exist are skipped), else `~/.kube/config`, else the
 * in-cluster service account (`KUBERNETES_SERVICE_HOST`, the token and CA files; the token is read
 * again as it rotates; the namespace is `POD_NAMESPACE`, else the service account's). As with
 * client-go, a `KUBECONFIG` whose files are all missing falls back to the in-cluster service account
 * when there is one.
 *
 * ```ts
 * import { loadKubeConfig, Operator } from '@tosdk/core';
 * const operator = new Operator({ kubeConfig: loadKubeConfig() });
 * ```
 *
 * @throws KubeConfigError naming the file that is missing, unreadable or not a kubeconfig, or
 *   saying what to set when no configuration is found.
 */
export function loadKubeConfig(options: LoadKubeConfigOptions = {}): LoadedKubeConfig {
  const env = options.env ?? process.env;
  const list = env['KUBECONFIG'];
  const serviceAccountDir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  if (list) {
    const paths = list.split(process.platform === 'win32' ? ';' : ':').filter(Boolean);
    const existing = paths.filter((p) => existsSync(p));
    const documents = existing.map((p) => readKubeConfigFile(p, 'KUBECONFIG'));
    if (documents.some(definesSomething))
      return LoadedKubeConfig.fromDocuments(documents, `KUBECONFIG (${existing.join(', ')})`, env);
    // as client-go's loading rules: missing files are skipped, and with nothing loaded (or only
    // empty files) the in-cluster configuration is used when there is one (never ~/.kube/config)
    if (inClusterPossible(env, serviceAccountDir)) return inCluster(env, serviceAccountDir);
    throw new KubeConfigError(
      existing.length === 0
        ? `KUBECONFIG names no existing file (${list}); point it at a kubeconfig file, or unset it to use ~/.kube/config or the in-cluster service account`
        : `the files of KUBECONFIG (${existing.join(', ')}) define no cluster, user or context; point KUBECONFIG at a kubeconfig file (e.g. one written by \`kubectl config view --raw\`)`,
      existing[0] ?? paths[0],
    );
  }
  const home = join(env['HOME'] ?? homedir(), '.kube', 'config');
  const homeDocument = existsSync(home) ? readKubeConfigFile(home, '~/.kube/config') : undefined;
  if (homeDocument && (definesSomething(homeDocument) || !inClusterPossible(env, serviceAccountDir)))
    return LoadedKubeConfig.fromDocuments([homeDocument], home, env);
  if (env['KUBERNETES_SERVICE_HOST']) return inCluster(env, serviceAccountDir);
  throw new KubeConfigError(
    'no Kubernetes configuration found: set KUBECONFIG to a kubeconfig file, create ~/.kube/config, or run in a cluster (KUBERNETES_SERVICE_HOST and the service account files)',
  );
}

/** Whether the in-cluster configuration can be used: the service host is set and the token file is there (client-go's `inClusterClientConfig.Possible`). */
function inClusterPossible(env: Record<string, string | undefined>, dir: string): boolean {
  return Boolean(env['KUBERNETES_SERVICE_HOST']) && existsSync(join(dir, 'token'));
}

/** The in-cluster configuration (client-go's `rest.InClusterConfig`). */
function inCluster(env: Record<string, string | undefined>, dir: string): LoadedKubeConfig {
  const host = env['KUBERNETES_SERVICE_HOST']!;
  const port = env['KUBERNETES_SERVICE_PORT'] ?? '443';
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) {
    throw new KubeConfigError(
      `KUBERNETES_SERVICE_HOST is set but the service account token ${tokenFile} is missing; mount the service account token (automountServiceAccountToken) or set KUBECONFIG`,
      tokenFile,
    );
  }
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // as rest.InClusterConfig: without the CA file, the API server is verified with the system's roots
  // (and the missing file is said)
  const caFile = join(dir, 'ca.crt');
  const cluster: ClusterEntry = { server };
  if (existsSync(caFile)) cluster['certificate-authority'] = caFile;
  else {
    process.emitWarning(
      `the service account CA ${caFile} is missing; verifying the API server ${server} with the system's root certificates, as client-go does. ` +
        "If its certificate is not publicly trusted, mount the service account's ca.crt (automountServiceAccountToken, or the kube-root-ca.crt ConfigMap in a projected volume)",
      { code: 'TOSDK_IN_CLUSTER_CA_MISSING' },
    );
  }
  const doc = {
    clusters: [{ name: 'in-cluster', cluster }],
    users: [{ name: 'in-cluster', user: { tokenFile } }],
    contexts: [
      {
        name: 'in-cluster',
        context: {
          cluster: 'in-cluster',
          user: 'in-cluster',
          // as client-go's inClusterClientConfig.Namespace: the downward API's POD_NAMESPACE first
          namespace: env['POD_NAMESPACE'] || readNamespace(dir),
        },
      },
    ],
    'current-context': 'in-cluster',
  };
  return LoadedKubeConfig.fromDocuments(
    [{ text: JSON.stringify(doc), file: join(dir, 'token'), doc }],
    `the in-cluster service account (${dir})`,
    env,
  );
}

function readNamespace(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
