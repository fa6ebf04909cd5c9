import { effectiveGroups } from './rbac/rule-resolver.js';

/** A user the server accepts by bearer token. */
export interface ApiUser {
  /** User name (as RBAC subjects name it). */
  name: string;
  /** Bearer token that authenticates this user. */
  token: string;
  /**
   * Groups of the user. The server adds `system:authenticated` and, for a service account's name
   * (`system:serviceaccount:<ns>:<name>`), `system:serviceaccounts` and `system:serviceaccounts:<ns>`,
   * as kube-apiserver's authenticators do. Defaults to none beyond those.
   */
  groups?: string[];
}

/** Options of {@link KubeApiServer.start}. */
export interface KubeApiServerOptions {
  /** Port to listen on; 0 picks a free port. Defaults to 0. */
  port?: number;
  /** Host to listen on. Defaults to `127.0.0.1`. */
  host?: string;
  /** Serve HTTPS with a certificate made at start. Defaults to true; false serves plain HTTP. */
  tls?: boolean;
  /**
   * Users by bearer token. An `admin` user (group `system:masters`) is always added unless a user
   * named `admin` is given. Defaults to only the admin.
   */
  users?: ApiUser[];
  /** Require a bearer token (401 without a known one). Defaults to true. */
  authentication?: boolean;
  /**
   * Enforce RBAC for users outside `system:masters`, on resource and non-resource paths (health
   * checks excepted). The bootstrap policy of a cluster exists either way (`cluster-admin`, `admin`,
   * `edit`, `view`, `system:basic-user`, `system:discovery`, ...). Defaults to false.
   */
  rbac?: boolean;
  /** Changes kept for watch resume and paged lists. Defaults to 10,000. */
  historySize?: number;
  /** Interval of periodic watch bookmarks in milliseconds. Defaults to 30,000. */
  bookmarkIntervalMs?: number;
  /** Bytes a watch may fall behind before the server ends it. Defaults to 64 MiB. */
  maxWatchBufferBytes?: number;
  /** Entries kept in `server.requests.log`. Defaults to 100,000. */
  requestLogSize?: number;
  /**
   * Simulate workload controllers and a one-node kubelet: Deployments create ReplicaSets;
   * ReplicaSets, StatefulSets, DaemonSets and Jobs create Pods (with owner references); Pods reach
   * Running and Ready `readyDelayMs` (default 200) after they are created, Job pods then succeed;
   * workload statuses are derived from them. Defaults to false.
   */
  simulateWorkloads?: boolean | { readyDelayMs?: number };
  /**
   * A JSON file that keeps the stored objects across restarts: read at start when it exists (uids,
   * resourceVersions and CRDs kept), written shortly after changes and at `stop()`. Defaults to
   * none (state lives in memory only).
   */
  stateFile?: string;
}

/** Options with every default filled in. */
export interface ResolvedOptions {
  port: number;
  host: string;
  tls: boolean;
  users: Required<ApiUser>[];
  authentication: boolean;
  rbac: boolean;
  historySize: number;
  bookmarkIntervalMs: number;
  maxWatchBufferBytes: number;
  requestLogSize: number;
  /** Delay of simulated readiness, or undefined when workloads are not simulated. */
  workloadReadyDelayMs: number | undefined;
  /** The state file, if any. */
  stateFile: string | undefined;
}

/** Thrown for invalid server options. */
export class ApiServerOptionsError extends Error {
  readonly code = 'INVALID_OPTIONS';
  constructor(message: string) {
    super(message);
    this.name = 'ApiServerOptionsError';
  }
}

function positive(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isInteger(v) || v <= 0)
    throw new ApiServerOptionsError(`${name} must be a positive integer, got ${String(v)}`);
  return v;
}

/** Validates options and fills defaults. */
export function resolveOptions(o: KubeApiServerOptions = {}): ResolvedOptions {
  const port = o.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ApiServerOptionsError(`port must be 0..65535, got ${String(port)}`);
  const users: Required<ApiUser>[] = [];
  const tokens = new Set<string>();
  for (const u of o.users ?? []) {
    if (!u.name || !u.token) throw new ApiServerOptionsError('every user needs a name and a token');
    if (tokens.has(u.token)) throw new ApiServerOptionsError(`token of user ${u.name} is used twice`);
    tokens.add(u.token);
    // what kube's authenticators add: a service account's groups, then system:authenticated
    users.push({ name: u.name, token: u.token, groups: effectiveGroups(u.name, u.groups ?? []) });
  }
  if (!users.some((u) => u.name === 'admin')) {
    let token = 'tosdk-admin-token';
    while (tokens.has(token)) token += '-x';
    users.unshift({ name: 'admin', token, groups: ['system:masters', 'system:authenticated'] });
  }
  return {
    port,
    host: o.host ?? '127.0.0.1',
    tls: o.tls ?? true,
    users,
    authentication: o.authentication ?? true,
    rbac: o.rbac ?? false,
    historySize: positive('historySize', o.historySize, 10_000),
    bookmarkIntervalMs: positive('bookmarkIntervalMs', o.bookmarkIntervalMs, 30_000),
    maxWatchBufferBytes: positive('maxWatchBufferBytes', o.maxWatchBufferBytes, 64 * 1024 * 1024),
    requestLogSize: positive('requestLogSize', o.requestLogSize, 100_000),
    workloadReadyDelayMs: workloadDelay(o.simulateWorkloads),
    stateFile: o.stateFile,
  };
}

function workloadDelay(v: KubeApiServerOptions['simulateWorkloads']): number | undefined {
  if (v === undefined || v === false) return undefined;
  if (v === true) return 200;
  const d = v.readyDelayMs ?? 200;
  if (!Number.isInteger(d) || d < 0)
    throw new ApiServerOptionsError(
      `simulateWorkloads.readyDelayMs must be an integer >= 0, got ${String(d)}`,
    );
  return d;
}
