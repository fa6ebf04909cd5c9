import { randomUUID } from 'node:crypto';
import type { KubeConfigSource } from '../../config/kube-config.js';
import { InvalidLeaderElectionConfigurationError } from './leader-election-errors.js';

// not an ES import of node:fs, whose namespace loads fs/promises and streams (see config/kube-config.ts)
const { readFileSync } = process.getBuiltinModule('node:fs');

/**
 * How an operator takes part in leader election on a `coordination.k8s.io/v1` Lease (JOSDK's
 * `LeaderElectionConfiguration`). Every instance runs its informers; only the holder of the lease
 * processes events.
 */
export interface LeaderElectionConfiguration {
  /** Name of the Lease object. Required; a DNS subdomain such as `my-operator-leader`. */
  leaseName: string;
  /**
   * Namespace of the Lease. Defaults to the operator's namespace: the namespace of the KubeConfig's
   * current context, else the in-cluster service account namespace file, else `default`.
   */
  leaseNamespace?: string;
  /**
   * This instance's identity, written as the lease holder. Defaults to the `HOSTNAME` environment
   * variable (the pod name in a cluster), else a random UUID. Two instances must never share one:
   * an instance that finds the lease held under its identity by another process (each elector
   * writes a random token in the annotation `tosdk.io/leader-incarnation`) logs an error (code
   * `LeaderElectionDuplicateIdentity`) and stands by until that lease goes unrenewed for its
   * duration, so a process restarted under the name of one that died without releasing the lease
   * waits up to `leaseDurationMs` before it leads.
   */
  identity?: string;
  /**
   * How long a standby waits, after it last saw the lease change, before it may take the lease over.
   * Stored in the Lease in whole seconds, so it must be a multiple of 1000. Defaults to 15000.
   */
  leaseDurationMs?: number;
  /**
   * How long the leader keeps leading without a successful renewal, counted from the moment it sent
   * its last successful one. Must be below `leaseDurationMs`. Defaults to 10000.
   */
  renewDeadlineMs?: number;
  /**
   * Interval between tries to acquire (jittered up to 2.2x, as client-go does) and to renew. Must be
   * below `renewDeadlineMs / 1.2`. Defaults to 2000.
   */
  retryPeriodMs?: number;
  /**
   * Whether losing leadership ends the process with exit code 1, as JOSDK does, so that no
   * reconciliation of the old leader can overlap the new leader's. When false, the instance stops
   * leading and goes back to standing by. Defaults to true. A graceful `stop()` never exits.
   */
  exitOnStopLeading?: boolean;
}

/** A {@link LeaderElectionConfiguration} with every default filled and every rule checked. */
export interface ResolvedLeaderElectionConfiguration {
  readonly leaseName: string;
  readonly leaseNamespace: string;
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly exitOnStopLeading: boolean;
}

/** Where {@link leaderElectionConfiguration} looks for defaults. */
export interface LeaderElectionEnvironment {
  /** The KubeConfig whose current context's namespace is the fallback lease namespace. */
  kubeConfig?: KubeConfigSource;
  /**
   * The in-cluster namespace file. Defaults to
   * `/var/run/secrets/kubernetes.io/serviceaccount/namespace`.
   */
  namespaceFile?: string;
  /** Environment variables (for `HOSTNAME`). Defaults to `process.env`. */
  env?: Record<string, string | undefined>;
}

/** client-go's `JitterFactor`: acquire tries wait `retryPeriod * (1 + random * 1.2)`. */
export const LEADER_ELECTION_JITTER_FACTOR = 1.2;

const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * The namespace the operator runs in, as client-go's `DeferredLoadingClientConfig.Namespace` (and
 * fabric8's configuration, JOSDK's) finds it: the KubeConfig current context's namespace, else the
 * in-cluster service account namespace file, else `default`. (A KubeConfig loaded in a pod by
 * `loadKubeConfig` carries the pod's namespace, `POD_NAMESPACE` or that file, in its context.)
 */
export function operatorNamespace(environment: LeaderElectionEnvironment = {}): string {
  const kc = environment.kubeConfig;
  const fromContext = kc?.getContextObject(kc.getCurrentContext())?.namespace;
  if (fromContext) return fromContext;
  try {
    const fromFile = readFileSync(environment.namespaceFile ?? IN_CLUSTER_NAMESPACE_FILE, 'utf8').trim();
    if (fromFile) return fromFile;
  } catch {
    // not in a cluster
  }
  return 'default';
}

function positiveMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new InvalidLeaderElectionConfigurationError(
      `${name} must be a positive number of milliseconds, got ${value}`,
    );
  }
  return value;
}

/**
 * Checks a {@link LeaderElectionConfiguration} and fills its defaults.
 *
 * @throws InvalidLeaderElectionConfigurationError when the lease name or namespace is not a valid
 *   name, a duration is not positive, `leaseDurationMs` is not whole seconds, or the durations break
 *   `leaseDurationMs > renewDeadlineMs > 1.2 * retryPeriodMs` (client-go's rules).
 */
export function leaderElectionConfiguration(
  configuration: LeaderElectionConfiguration,
  environment: LeaderElectionEnvironment = {},
): ResolvedLeaderElectionConfiguration {
  if (configuration === null || typeof configuration !== 'object') {
    throw new InvalidLeaderElectionConfigurationError('expected an object with at least a leaseName');
  }
  const { leaseName } = configuration;
  if (typeof leaseName !== 'string' || leaseName.length > 253 || !DNS_SUBDOMAIN.test(leaseName)) {
    throw new InvalidLeaderElectionConfigurationError(
      `leaseName "${String(leaseName)}" must be a lower-case DNS subdomain such as "my-operator-leader"`,
    );
  }
  const leaseNamespace = configuration.leaseNamespace ?? operatorNamespace(environment);
  if (typeof leaseNamespace !== 'string' || leaseNamespace.length > 63 || !DNS_LABEL.test(leaseNamespace)) {
    throw new InvalidLeaderElectionConfigurationError(
      `leaseNamespace "${String(leaseNamespace)}" must be a lower-case DNS label`,
    );
  }
  const env = environment.env ?? process.env;
  const identity = configuration.identity ?? (env['HOSTNAME'] || randomUUID());
  if (typeof identity !== 'string' || identity.trim() === '') {
    throw new InvalidLeaderElectionConfigurationError('identity must be a non-empty string');
  }
  const leaseDurationMs = positiveMs('leaseDurationMs', configuration.leaseDurationMs ?? 15_000);
  const renewDeadlineMs = positiveMs('renewDeadlineMs', configuration.renewDeadlineMs ?? 10_000);
  const retryPeriodMs = positiveMs('retryPeriodMs', configuration.retryPeriodMs ?? 2_000);
  if (leaseDurationMs % 1000 !== 0) {
    throw new InvalidLeaderElectionConfigurationError(
      `leaseDurationMs (${leaseDurationMs}) must be whole seconds: the Lease stores leaseDurationSeconds`,
    );
  }
  if (leaseDurationMs <= renewDeadlineMs) {
    throw new InvalidLeaderElectionConfigurationError(
      `leaseDurationMs (${leaseDurationMs}) must be greater than renewDeadlineMs (${renewDeadlineMs}), ` +
        'or a standby could take the lease while the leader still leads',
    );
  }
  if (renewDeadlineMs <= LEADER_ELECTION_JITTER_FACTOR * retryPeriodMs) {
    throw new InvalidLeaderElectionConfigurationError(
      `renewDeadlineMs (${renewDeadlineMs}) must be greater than ${LEADER_ELECTION_JITTER_FACTOR} x ` +
        `retryPeriodMs (${retryPeriodMs}), so the leader can retry a failed renewal before its deadline`,
    );
  }
  const exitOnStopLeading = configuration.exitOnStopLeading ?? true;
  if (typeof exitOnStopLeading !== 'boolean') {
    throw new InvalidLeaderElectionConfigurationError('exitOnStopLeading must be a boolean');
  }
  return Object.freeze({
    leaseName,
    leaseNamespace,
    identity,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    exitOnStopLeading,
  });
}
