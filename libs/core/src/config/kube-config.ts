import type https from 'node:https';
import { homedir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';

// node:fs imported as an ES module builds its namespace by reading every export, which runs fs's lazy
// `promises` getter and loads fs/promises, streams and readline (~1 MB of RSS in an idle operator).
// The CommonJS object does not (issue 15 §3).
const { existsSync, readFileSync } = process.getBuiltinModule('node:fs');

/**
 * Parses a kubeconfig file. A file written as JSON (JSON is YAML; the in-memory API server and many
 * generators write it) is read by `JSON.parse`; anything else by the YAML parser (eemeli/yaml),
 * loaded on the first such file. An operator in a pod reads its in-cluster configuration, and one
 * given a JSON kubeconfig reads it, without loading the YAML parser (~10 MB of RSS).
 */
function parseYaml(text: string): unknown {
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // YAML's flow style is wider than JSON (unquoted keys, comments): the YAML parser decides
    }
  }
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text);
}

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
}

/**
 * A kubeconfig or in-cluster configuration could not be loaded; the message names the file or the
 * setting and what to do.
 */
export class KubeConfigError extends Error {
  /** Stable error code. */
  readonly code = 'KubeConfig';
  constructor(
    message: string,
    /** The file concerned, when there is one. */
    readonly file?: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'KubeConfigError';
  }
}

/** Options of {@link loadKubeConfig}. */
export interface LoadKubeConfigOptions {
  /** Environment variables (`KUBECONFIG`, `KUBERNETES_SERVICE_HOST`/`_PORT`, `HOME`). Defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /** Directory of the service account files (`token`, `ca.crt`, `namespace`). Defaults to `/var/run/secrets/kubernetes.io/serviceaccount`. */
  serviceAccountDir?: string;
}

interface NamedEntry<T> {
  name: string;
  value: T;
  /** Directory of the file the entry came from (relative paths resolve against it). */
  dir: string;
}

interface ClusterEntry {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
}

interface UserEntry {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  username?: string;
  password?: string;
  exec?: unknown;
  'auth-provider'?: unknown;
}

interface ContextEntry {
  cluster?: string;
  user?: string;
  namespace?: string;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * A kubeconfig read by tosdk itself ({@link loadKubeConfig}): enough for {@link KubernetesClient}
 * and the operator without loading @kubernetes/client-node (~90 MB of RSS). Users with an `exec`
 * plugin or an `auth-provider`, and clusters with a `proxy-url`, load client-node on the first
 * request and let it do the work, so they behave exactly as with client-node's `KubeConfig`.
 */
export class LoadedKubeConfig implements KubeConfigSource {
  private constructor(
    private readonly clusters: Map<string, NamedEntry<ClusterEntry>>,
    private readonly users: Map<string, NamedEntry<UserEntry>>,
    private readonly contexts: Map<string, NamedEntry<ContextEntry>>,
    private readonly currentContext: string,
    /** The files read, for client-node when it has to take over (exec, auth-provider, proxy-url). */
    private readonly files: string[],
    /** Where it came from, for messages. */
    readonly source: string,
  ) {}

  /** @internal Builds one from parsed documents (first definition of a name wins, as kubectl merges). */
  static fromDocuments(
    documents: Array<{ text: string; file: string; doc: Record<string, unknown> }>,
    source: string,
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
    return new LoadedKubeConfig(
      clusters,
      users,
      contexts,
      current,
      documents.map((d) => d.file),
      source,
    );
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
      proxyUrl: cluster.value['proxy-url'],
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
    const name = this.contexts.get(this.currentContext)?.value.user;
    return Boolean(name && this.users.get(name)?.value.tokenFile);
  }

  async applyToHTTPSOptions(options: https.RequestOptions): Promise<void> {
    const contextName = this.currentContext;
    const context = this.contexts.get(contextName)?.value;
    const cluster = context?.cluster === undefined ? undefined : this.clusters.get(context.cluster);
    const user = context?.user === undefined ? undefined : this.users.get(context.user);
    if (user?.value.exec || user?.value['auth-provider'] || cluster?.value['proxy-url']) {
      await this.delegate(options);
      return;
    }
    if (cluster) {
      const c = cluster.value;
      if (c['insecure-skip-tls-verify']) options.rejectUnauthorized = false;
      else if (c['certificate-authority-data'])
        options.ca = Buffer.from(c['certificate-authority-data'], 'base64');
      else if (c['certificate-authority'])
        options.ca = this.read(cluster.dir, c['certificate-authority'], 'certificate-authority');
      if (c['tls-server-name']) options.servername = c['tls-server-name'];
    }
    if (!user) return;
    const u = user.value;
    const headers = (options.headers ?? {}) as Record<string, string>;
    const token =
      u.token ??
      (u.tokenFile ? this.read(user.dir, u.tokenFile, 'tokenFile').toString('utf8').trim() : undefined);
    if (token) headers.Authorization = `Bearer ${token}`;
    options.headers = headers;
    if (u['client-certificate-data']) options.cert = Buffer.from(u['client-certificate-data'], 'base64');
    else if (u['client-certificate'])
      options.cert = this.read(user.dir, u['client-certificate'], 'client-certificate');
    if (u['client-key-data']) options.key = Buffer.from(u['client-key-data'], 'base64');
    else if (u['client-key']) options.key = this.read(user.dir, u['client-key'], 'client-key');
    if (u.username !== undefined && u.password !== undefined) options.auth = `${u.username}:${u.password}`;
  }

  /** exec plugins, auth providers and proxies: @kubernetes/client-node does them (loaded now, once). */
  private async delegate(options: https.RequestOptions): Promise<void> {
    this.full ??= import('@kubernetes/client-node').then(({ KubeConfig }) => {
      const kc = new KubeConfig();
      kc.loadFromFile(this.files[0]);
      for (const file of this.files.slice(1)) {
        const more = new KubeConfig();
        more.loadFromFile(file);
        try {
          kc.mergeConfig(more, true);
        } catch {
          // a name defined twice: the first file's definition stays, as kubectl merges
        }
      }
      kc.setCurrentContext(this.currentContext);
      return kc;
    });
    await (await this.full).applyToHTTPSOptions(options);
  }

  private full?: Promise<import('@kubernetes/client-node').KubeConfig>;

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
 * of each name, win), else `~/.kube/config`, else the in-cluster service account
 * (`KUBERNETES_SERVICE_HOST`, the token and CA files; the token is read again as it rotates).
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
  if (list) {
    const paths = list.split(process.platform === 'win32' ? ';' : ':').filter(Boolean);
    const existing = paths.filter((p) => existsSync(p));
    if (existing.length === 0) {
      throw new KubeConfigError(
        `KUBECONFIG names no existing file (${list}); point it at a kubeconfig file, or unset it to use ~/.kube/config or the in-cluster service account`,
        paths[0],
      );
    }
    return LoadedKubeConfig.fromDocuments(
      existing.map((p) => readKubeConfigFile(p, 'KUBECONFIG')),
      `KUBECONFIG (${existing.join(', ')})`,
    );
  }
  const home = join(env['HOME'] ?? homedir(), '.kube', 'config');
  if (existsSync(home))
    return LoadedKubeConfig.fromDocuments([readKubeConfigFile(home, '~/.kube/config')], home);
  if (env['KUBERNETES_SERVICE_HOST']) return inCluster(env, options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
  throw new KubeConfigError(
    'no Kubernetes configuration found: set KUBECONFIG to a kubeconfig file, create ~/.kube/config, or run in a cluster (KUBERNETES_SERVICE_HOST and the service account files)',
  );
}

/** Reads one kubeconfig file; `via` says how it was found (for messages). */
function readKubeConfigFile(
  file: string,
  via: string,
): { text: string; file: string; doc: Record<string, unknown> } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new KubeConfigError(
      `cannot read the kubeconfig ${file} (from ${via}): ${(cause as Error).message}`,
      file,
      { cause },
    );
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (cause) {
    throw notAKubeConfig(file, via, `it is not YAML (${(cause as Error).message.split('\n')[0]})`, cause);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw notAKubeConfig(file, via, 'it is not a YAML mapping');
  }
  const d = doc as Record<string, unknown>;
  if (d.kind !== undefined && d.kind !== 'Config')
    throw notAKubeConfig(file, via, `its kind is ${JSON.stringify(d.kind)}, not Config`);
  for (const key of ['clusters', 'users', 'contexts']) {
    if (d[key] !== undefined && d[key] !== null && !Array.isArray(d[key]))
      throw notAKubeConfig(file, via, `its ${key} is not a list`);
  }
  if (!Array.isArray(d.clusters) && !Array.isArray(d.contexts)) {
    throw notAKubeConfig(file, via, 'it has neither clusters nor contexts');
  }
  return { text, file, doc: d };
}

function notAKubeConfig(file: string, via: string, why: string, cause?: unknown): KubeConfigError {
  return new KubeConfigError(
    `${file} (from ${via}) is not a kubeconfig: ${why}; point ${via === 'KUBECONFIG' ? 'KUBECONFIG' : 'it'} at a kubeconfig file (e.g. one written by \`kubectl config view --raw\`)`,
    file,
    { cause },
  );
}

function collect<T>(
  list: unknown,
  field: string,
  dir: string,
  into: Map<string, NamedEntry<T>>,
  file: string,
): void {
  if (!Array.isArray(list)) return;
  for (const item of list as Array<Record<string, unknown>>) {
    const name = item?.name;
    if (typeof name !== 'string') {
      throw new KubeConfigError(`${file} is not a valid kubeconfig: a ${field} entry has no name`, file);
    }
    if (!into.has(name)) into.set(name, { name, value: (item[field] ?? {}) as T, dir });
  }
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
  const doc = {
    clusters: [{ name: 'in-cluster', cluster: { server, 'certificate-authority': join(dir, 'ca.crt') } }],
    users: [{ name: 'in-cluster', user: { tokenFile } }],
    contexts: [
      {
        name: 'in-cluster',
        context: { cluster: 'in-cluster', user: 'in-cluster', namespace: readNamespace(dir) },
      },
    ],
    'current-context': 'in-cluster',
  };
  return LoadedKubeConfig.fromDocuments(
    [{ text: JSON.stringify(doc), file: join(dir, 'token'), doc }],
    `the in-cluster service account (${dir})`,
  );
}

function readNamespace(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
