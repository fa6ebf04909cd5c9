import { randomUUID } from 'node:crypto';
import type { KubernetesResource } from '../api/resource-type.js';
import type { KubeConfigSource } from '../config/kube-config.js';
import {
  LEADER_ELECTION_JITTER_FACTOR,
  operatorNamespace,
} from '../operator/leader-election/leader-election-configuration.js';

/**
 * Automatic sharding of every controller's primary resources across the replicas of one operator
 * (issue 19). Each replica holds a membership Lease; the live members form a consistent-hash ring;
 * a replica reconciles a resource only when the ring assigns the resource's key to it. See the
 * README's "Sharding" section for the protocol and its limits.
 */
export interface ShardingOptions {
  /** Whether sharding is on. Defaults to true when the `sharding` object is given. */
  enabled?: boolean;
  /**
   * Name of the shard group: the value of the `tosdk.io/shard-group` label on every membership
   * Lease and the prefix of their names (`<name>-<identity>`). All replicas of one operator use the
   * same name. A lower-case DNS label. Defaults to `tosdk-shards`.
   */
  name?: string;
  /** Namespace of the membership Leases. Defaults to the operator's namespace (as leader election). */
  leaseNamespace?: string;
  /**
   * This replica's identity (part of its Lease name). Defaults to the `HOSTNAME` environment
   * variable (the pod name), else a random UUID. Two replicas must never share one.
   */
  identity?: string;
  /** How long a member's Lease counts as live after it was last seen renewed. Whole seconds. Defaults to 15000. */
  leaseDurationMs?: number;
  /**
   * A replica that could not renew its Lease for this long stops reconciling anything (it has left
   * the ring from the others' point of view soon after). Must be below `leaseDurationMs`. Defaults to 10000.
   */
  renewDeadlineMs?: number;
  /**
   * Interval of renewals (and of reads of the watched group from its cache; a fresh list every 4
   * lease durations). Must be below `renewDeadlineMs / 1.2`. Defaults to 2000.
   */
  retryPeriodMs?: number;
  /** Points per member on the hash ring (more points: a more even split). Defaults to 128. */
  virtualNodes?: number;
  /**
   * The key a resource is placed on the ring by. Defaults to `namespace/name` (`name` when
   * cluster-scoped). Must depend only on fields that never change, or a change moves the resource.
   */
  shardKey?: (resource: KubernetesResource) => string;
}

/** {@link ShardingOptions} with every default filled and every rule checked. */
export interface ResolvedShardingConfiguration {
  readonly name: string;
  readonly leaseNamespace: string;
  readonly identity: string;
  /** Name of this replica's membership Lease: `<name>-<identity>`. */
  readonly leaseName: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly virtualNodes: number;
  readonly shardKey: ((resource: KubernetesResource) => string) | undefined;
}

/** Label on every membership Lease naming its shard group. */
export const SHARD_GROUP_LABEL = 'tosdk.io/shard-group';
/** Annotation on a membership Lease: the fingerprint of the ring its holder has drained for. */
export const SHARD_ACK_ANNOTATION = 'tosdk.io/shard-ring';
/** Annotation on a membership Lease: changes each time its holder (re)joins the group. */
export const SHARD_INCARNATION_ANNOTATION = 'tosdk.io/shard-incarnation';
/** Annotation on a membership Lease: the holder's identity (the name is derived from it). */
export const SHARD_IDENTITY_ANNOTATION = 'tosdk.io/shard-identity';
/**
 * Annotation on a membership Lease its holder released (empty holder, written before it deletes the
 * Lease): the incarnation that released it. Only a Lease released so leaves the ring at once; one
 * deleted or changed otherwise counts until `leaseDurationMs` after its last renewal was seen.
 */
export const SHARD_RELEASED_ANNOTATION = 'tosdk.io/shard-released';
/**
 * Annotation on a membership Lease: its holder's `virtualNodes`. Replicas with different values
 * compute different rings and never settle; a mismatch is logged as an error.
 */
export const SHARD_VIRTUAL_NODES_ANNOTATION = 'tosdk.io/shard-virtual-nodes';
/** Annotation on a membership Lease: its holder's controller names (a JSON array, sorted). */
export const SHARD_CONTROLLERS_ANNOTATION = 'tosdk.io/shard-controllers';
/**
 * Annotation on a membership Lease: the primary kinds of its holder's controllers (a JSON array of
 * `plural.group`, sorted). Members sharing no kind are left out of each other's rings.
 */
export const SHARD_KINDS_ANNOTATION = 'tosdk.io/shard-kinds';

/** Thrown when a {@link ShardingOptions} value is missing or out of range. */
export class InvalidShardingConfigurationError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidShardingConfiguration';
  constructor(message: string, options?: { cause?: unknown }) {
    super(`invalid sharding configuration: ${message}`, options);
    this.name = 'InvalidShardingConfigurationError';
  }
}

/**
 * Thrown by `ShardMembership.start()` (so by `Operator.start()`) when this replica's membership Lease
 * cannot be created because its namespace does not exist.
 */
export class ShardingLeaseNamespaceNotFoundError extends Error {
  /** Stable error code. */
  readonly code = 'ShardingLeaseNamespaceNotFound';
  constructor(
    /** The lease namespace (`sharding.leaseNamespace`). */
    readonly namespace: string,
    /** The Lease that could not be created. */
    readonly leaseName: string,
    options?: { cause?: unknown },
  ) {
    super(
      `the shard membership Lease "${leaseName}" cannot be created: namespace "${namespace}" does not exist. ` +
        `Set sharding.leaseNamespace (or TOSDK_SHARDING_NAMESPACE) to an existing namespace, or create "${namespace}"`,
      options,
    );
    this.name = 'ShardingLeaseNamespaceNotFoundError';
  }
}

/**
 * Thrown by `ShardMembership.start()` (so by `Operator.start()`) when the API server denies a request
 * on this replica's membership Lease (403).
 */
export class ShardingLeasePermissionError extends Error {
  /** Stable error code. */
  readonly code = 'ShardingLeasePermission';
  constructor(
    /** The verb denied (`get`, `create`, `update`). */
    readonly verb: string,
    /** The lease namespace (`sharding.leaseNamespace`). */
    readonly namespace: string,
    /** The Lease concerned. */
    readonly leaseName: string,
    options?: { cause?: unknown },
  ) {
    super(
      `sharding needs permission to ${verb} leases.coordination.k8s.io in namespace "${namespace}" ` +
        `(lease "${leaseName}"), which was denied. Grant get, list, watch, create, update and delete on ` +
        `leases in "${namespace}" to the operator's service account (\`tosdk generate rbac\` emits the Role ` +
        `<name>-shards), or set sharding.leaseNamespace (TOSDK_SHARDING_NAMESPACE) to a namespace where it has them`,
      options,
    );
    this.name = 'ShardingLeasePermissionError';
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function positive(name: string, value: number, integer = false): number {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value <= 0 ||
    (integer && !Number.isInteger(value))
  ) {
    throw new InvalidShardingConfigurationError(
      `sharding.${name} must be a positive ${integer ? 'integer' : 'number of milliseconds'}, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * Whether `options` turn sharding on (`enabled` defaults to true when the object is given).
 * @throws InvalidShardingConfigurationError when `enabled` is given and not a boolean (e.g. the
 * string `'false'` of an untyped configuration file, which would otherwise turn sharding on).
 */
export function shardingEnabled(options: ShardingOptions | undefined): options is ShardingOptions {
  if (options === undefined || options === null) return false;
  checkEnabled(options);
  return options.enabled !== false;
}

function checkEnabled(options: ShardingOptions): void {
  const enabled: unknown = options.enabled;
  if (enabled !== undefined && typeof enabled !== 'boolean') {
    throw new InvalidShardingConfigurationError(
      `sharding.enabled must be true or false (a boolean), got ${typeof enabled === 'string' || typeof enabled === 'number' ? JSON.stringify(enabled) : typeof enabled}`,
    );
  }
}

/**
 * Checks {@link ShardingOptions} and fills their defaults.
 * @throws InvalidShardingConfigurationError naming the option and what to change.
 */
export function shardingConfiguration(
  options: ShardingOptions,
  environment: { kubeConfig?: KubeConfigSource; env?: Record<string, string | undefined> } = {},
): ResolvedShardingConfiguration {
  if (options === null || typeof options !== 'object') {
    throw new InvalidShardingConfigurationError('expected an object such as { enabled: true }');
  }
  checkEnabled(options);
  const name = options.name ?? 'tosdk-shards';
  if (typeof name !== 'string' || name.length > 63 || !DNS_LABEL.test(name)) {
    throw new InvalidShardingConfigurationError(
      `sharding.name "${String(name)}" must be a lower-case DNS label such as "my-operator-shards"`,
    );
  }
  const leaseNamespace = options.leaseNamespace ?? operatorNamespace({ kubeConfig: environment.kubeConfig });
  if (typeof leaseNamespace !== 'string' || leaseNamespace.length > 63 || !DNS_LABEL.test(leaseNamespace)) {
    throw new InvalidShardingConfigurationError(
      `sharding.leaseNamespace "${String(leaseNamespace)}" must be a lower-case DNS label`,
    );
  }
  const env = environment.env ?? process.env;
  const identity = options.identity ?? (env['HOSTNAME'] || randomUUID());
  const leaseName = `${name}-${String(identity)}`;
  if (typeof identity !== 'string' || leaseName.length > 253 || !DNS_SUBDOMAIN.test(leaseName)) {
    throw new InvalidShardingConfigurationError(
      `sharding.identity "${String(identity)}" must make "${leaseName}" a lower-case DNS subdomain (use the pod name)`,
    );
  }
  const leaseDurationMs = positive('leaseDurationMs', options.leaseDurationMs ?? 15_000);
  const renewDeadlineMs = positive('renewDeadlineMs', options.renewDeadlineMs ?? 10_000);
  const retryPeriodMs = positive('retryPeriodMs', options.retryPeriodMs ?? 2_000);
  if (leaseDurationMs % 1000 !== 0) {
    throw new InvalidShardingConfigurationError(
      `sharding.leaseDurationMs (${leaseDurationMs}) must be whole seconds: the Lease stores leaseDurationSeconds`,
    );
  }
  if (leaseDurationMs <= renewDeadlineMs) {
    throw new InvalidShardingConfigurationError(
      `sharding.leaseDurationMs (${leaseDurationMs}) must be greater than renewDeadlineMs (${renewDeadlineMs}), ` +
        'or another replica could take a share over while its owner still reconciles it',
    );
  }
  if (renewDeadlineMs <= LEADER_ELECTION_JITTER_FACTOR * retryPeriodMs) {
    throw new InvalidShardingConfigurationError(
      `sharding.renewDeadlineMs (${renewDeadlineMs}) must be greater than ${LEADER_ELECTION_JITTER_FACTOR} x retryPeriodMs (${retryPeriodMs})`,
    );
  }
  const virtualNodes = positive('virtualNodes', options.virtualNodes ?? 128, true);
  if (options.shardKey !== undefined && typeof options.shardKey !== 'function') {
    throw new InvalidShardingConfigurationError('sharding.shardKey must be a function of the resource');
  }
  return Object.freeze({
    name,
    leaseNamespace,
    identity,
    leaseName,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    virtualNodes,
    shardKey: options.shardKey,
  });
}

/**
 * Sharding options from `TOSDK_SHARDING*` environment variables, or undefined when
 * `TOSDK_SHARDING` is not set. `TOSDK_SHARDING` (`true`/`false`), `TOSDK_SHARDING_NAME`,
 * `TOSDK_SHARDING_NAMESPACE`, `TOSDK_SHARDING_IDENTITY`, `TOSDK_SHARDING_LEASE_DURATION_MS`,
 * `TOSDK_SHARDING_RENEW_DEADLINE_MS`, `TOSDK_SHARDING_RETRY_PERIOD_MS`, `TOSDK_SHARDING_VIRTUAL_NODES`.
 * @throws InvalidShardingConfigurationError when a value is not a boolean or a number.
 */
export function shardingFromEnvironment(
  env: Record<string, string | undefined> = process.env,
): ShardingOptions | undefined {
  const flag = env['TOSDK_SHARDING'];
  if (flag === undefined || flag === '') return undefined;
  if (flag !== 'true' && flag !== 'false') {
    throw new InvalidShardingConfigurationError(`TOSDK_SHARDING must be "true" or "false", got "${flag}"`);
  }
  const num = (variable: string): number | undefined => {
    const raw = env[variable];
    if (raw === undefined || raw === '') return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value)) {
      throw new InvalidShardingConfigurationError(`${variable} must be a number, got "${raw}"`);
    }
    return value;
  };
  const text = (variable: string): string | undefined => env[variable] || undefined;
  const options: ShardingOptions = { enabled: flag === 'true' };
  const fields: Array<[keyof ShardingOptions, unknown]> = [
    ['name', text('TOSDK_SHARDING_NAME')],
    ['leaseNamespace', text('TOSDK_SHARDING_NAMESPACE')],
    ['identity', text('TOSDK_SHARDING_IDENTITY')],
    ['leaseDurationMs', num('TOSDK_SHARDING_LEASE_DURATION_MS')],
    ['renewDeadlineMs', num('TOSDK_SHARDING_RENEW_DEADLINE_MS')],
    ['retryPeriodMs', num('TOSDK_SHARDING_RETRY_PERIOD_MS')],
    ['virtualNodes', num('TOSDK_SHARDING_VIRTUAL_NODES')],
  ];
  for (const [key, value] of fields)
    if (value !== undefined) (options as Record<string, unknown>)[key] = value;
  return options;
}
