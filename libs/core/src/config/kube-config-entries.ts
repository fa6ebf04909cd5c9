import { KubeConfigError } from './kube-config-error.js';
import type { ExecConfig } from './exec-credential.js';

// The entries of a kubeconfig (clusters, users, contexts): their shape, how they are collected
// from the files, and the checks client-go makes on them. Internal: not exported from index.ts.

/** A named entry of a kubeconfig list, with where it came from. */
export interface NamedEntry<T> {
  name: string;
  value: T;
  /** Directory of the file the entry came from (relative paths resolve against it). */
  dir: string;
  /** The file the entry came from (for messages). */
  file: string;
}

/** A `clusters[].cluster` as tosdk reads it. */
export interface ClusterEntry {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  extensions?: Array<{ name?: string; extension?: unknown }>;
}

/** A `users[].user` as tosdk reads it. */
export interface UserEntry {
  token?: string;
  tokenFile?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
  'auth-provider'?: unknown;
  as?: string;
  'as-uid'?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
}

/** A `contexts[].context`. */
export interface ContextEntry {
  cluster?: string;
  user?: string;
  namespace?: string;
}

/**
 * Adds the entries of one file's list (`clusters`, `users` or `contexts`) to `into`: a name already
 * there (from an earlier file) keeps its first definition, as client-go merges.
 * @throws KubeConfigError for an entry without a name, a name twice in the list, or a `*-data`
 *   field that is not base64.
 */
export function collect<T>(
  list: unknown,
  field: string,
  dir: string,
  into: Map<string, NamedEntry<T>>,
  file: string,
): void {
  if (!Array.isArray(list)) return;
  const seen = new Set<string>();
  for (const item of list as Array<Record<string, unknown>>) {
    const name = item?.name;
    if (typeof name !== 'string') {
      throw new KubeConfigError(`${file} is not a valid kubeconfig: a ${field} entry has no name`, file);
    }
    // as client-go's conversion of the file: a name twice in one list is an error (across files,
    // the first file's entry wins)
    if (seen.has(name)) {
      throw new KubeConfigError(
        `${file} defines ${field} "${name}" twice; remove or rename one of the two entries`,
        file,
      );
    }
    seen.add(name);
    const value = (item[field] ?? {}) as Record<string, unknown>;
    for (const key of BASE64_FIELDS[field] ?? []) checkBase64(value[key], key, `${field} "${name}"`, file);
    if (!into.has(name)) into.set(name, { name, value: value as T, dir, file });
  }
}

/** As client-go's `parseProxyURL`: a cluster's proxy-url must be an http, https or socks5 URL. */
export function checkProxyUrl(cluster: NamedEntry<ClusterEntry>): void {
  const proxyUrl = cluster.value['proxy-url'] ?? '';
  let protocol = '';
  try {
    protocol = new URL(proxyUrl).protocol;
  } catch {
    // not a URL: refused below
  }
  if (protocol === 'http:' || protocol === 'https:' || protocol === 'socks5:') return;
  throw new KubeConfigError(
    `proxy-url "${proxyUrl}" of cluster "${cluster.name}" in ${cluster.file} is not an http, https or socks5 URL; ` +
      'write it with its scheme (e.g. http://proxy.example:3128), as kubectl requires',
    cluster.file,
  );
}

/**
 * The check of client-go's `validateClusterInfo` that changes what is trusted: a certificate
 * authority given once, as a file or as data (client-go refuses both, where the data would win).
 */
export function checkCluster(cluster: NamedEntry<ClusterEntry>): void {
  const c = cluster.value;
  if (c['certificate-authority'] && c['certificate-authority-data']) {
    throw new KubeConfigError(
      `cluster "${cluster.name}" in ${cluster.file} sets both certificate-authority and certificate-authority-data; keep one of them (kubectl refuses this configuration too)`,
      cluster.file,
    );
  }
}

/**
 * The checks of client-go's `validateAuthInfo` that change what is sent: one authentication
 * method among a token and a username/password, an exec plugin or an auth-provider but not both,
 * a client certificate and its key each given once (file or data) and the key not missing, and
 * impersonated groups, uid or extras only with an impersonated user.
 */
export function checkUser(user: NamedEntry<UserEntry>): void {
  const u = user.value;
  const refuse = (what: string): never => {
    throw new KubeConfigError(`user "${user.name}" in ${user.file} ${what}`, user.file);
  };
  if (u.token && (u.username || u.password)) {
    refuse('has more than one authentication method (token and username/password); keep only one of them');
  }
  if (u.exec && u['auth-provider']) refuse('has both an exec plugin and an auth-provider; keep one of them');
  for (const field of ['client-certificate', 'client-key'] as const) {
    if (u[field] && u[`${field}-data`]) {
      refuse(
        `sets both ${field} and ${field}-data; keep one of them (kubectl refuses this configuration too)`,
      );
    }
  }
  if (!u.as) {
    const asked = (['as-groups', 'as-uid', 'as-user-extra'] as const).find((field) => {
      const value = u[field];
      return Array.isArray(value)
        ? value.length > 0
        : typeof value === 'object'
          ? Object.keys(value ?? {}).length > 0
          : Boolean(value);
    });
    if (asked) {
      refuse(
        `asks for impersonated groups, uid or extras without impersonating a user (as); set as, or remove ${asked}`,
      );
    }
  }
  const cert = u['client-certificate-data']
    ? 'client-certificate-data'
    : u['client-certificate']
      ? 'client-certificate'
      : '';
  if (cert && !u['client-key-data'] && !u['client-key']) {
    throw new KubeConfigError(
      `user "${user.name}" has a client certificate (${cert}) but no client-key or client-key-data in ${user.file}; add the private key of the certificate`,
      user.file,
    );
  }
}

/** The fields of an entry that hold base64 (Go's `[]byte` of the kubeconfig). */
const BASE64_FIELDS: Record<string, string[]> = {
  cluster: ['certificate-authority-data'],
  user: ['client-certificate-data', 'client-key-data'],
};

/**
 * As client-go decoding the file (standard base64 with padding; line breaks are skipped): a value
 * that is not base64, typically a PEM pasted as it is, is an error naming the field, the entry and
 * the file, not bytes that fail later as an unexplained TLS error.
 */
function checkBase64(value: unknown, key: string, entry: string, file: string): void {
  if (value === undefined || value === null || value === '') return;
  const text = typeof value === 'string' ? value.replace(/[\r\n]/g, '') : undefined;
  if (text !== undefined && text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text)) return;
  const pem = typeof value === 'string' && value.includes('-----BEGIN');
  throw new KubeConfigError(
    `${key} of ${entry} in ${file} is not base64${pem ? ' (it holds a PEM as it is)' : ''}; ` +
      `put the base64 of the PEM file there (\`base64 -w0 <file>\`), or name the file in ${key.replace(/-data$/, '')} instead`,
    file,
  );
}
