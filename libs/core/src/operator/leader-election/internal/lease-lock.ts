import { defineResource } from '../../../api/resource-type.js';
import type { KubernetesResource } from '../../../api/resource-type.js';
import { ResourceID } from '../../../api/resource-id.js';
import type { KubernetesClient } from '../../../client/kubernetes-client.js';

/** The client methods leader election uses; a `KubernetesClient` has them all. */
export type LeaseClient = Pick<KubernetesClient, 'get' | 'create' | 'update'>;

/** `coordination.k8s.io/v1` LeaseSpec as it travels as JSON (times are MicroTime strings). */
export interface LeaseSpecJson {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | Date | null;
  renewTime?: string | Date | null;
  leaseTransitions?: number | null;
  [field: string]: unknown;
}

/** A Lease as JSON. */
export interface LeaseJson extends KubernetesResource {
  spec?: LeaseSpecJson;
}

/** The Lease kind, typed by its JSON form. */
export const LeaseType = defineResource<LeaseJson>({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
});

/** client-go's `LeaderElectionRecord`: what a Lease says about the election. */
export interface LeaderElectionRecord {
  /** The holder; `''` when nobody holds it (released). */
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  /** MicroTime string, or `''` when unset. */
  readonly acquireTime: string;
  /** MicroTime string, or `''` when unset. */
  readonly renewTime: string;
  readonly leaseTransitions: number;
  /**
   * The process that wrote the record as its holder (annotation {@link LEADER_INCARNATION_ANNOTATION});
   * `''` when the writer published none (a release, another client, an older tosdk).
   */
  readonly holderIncarnation?: string;
}

/**
 * Annotation on the Lease: a random token of the process holding it, new at every start of an
 * elector. Two processes given one identity (a hostname set in the pod template, hostNetwork) would
 * otherwise both take the Lease as their own and lead at once.
 */
export const LEADER_INCARNATION_ANNOTATION = 'tosdk.io/leader-incarnation';

/**
 * A Kubernetes `MicroTime` (RFC 3339 with exactly six fractional digits, UTC), as client-go writes
 * `acquireTime` and `renewTime`.
 */
export function microTime(epochMs: number): string {
  const iso = new Date(epochMs).toISOString(); // 2026-01-02T03:04:05.678Z
  return `${iso.slice(0, -1)}000Z`;
}

function timeString(value: string | Date | null | undefined): string {
  if (value instanceof Date) return microTime(value.getTime());
  return typeof value === 'string' ? value : '';
}

/** Reads the election record out of a Lease. */
export function recordOf(lease: LeaseJson): LeaderElectionRecord {
  const spec = lease.spec ?? {};
  return {
    holderIdentity: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    leaseDurationSeconds: typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : 0,
    acquireTime: timeString(spec.acquireTime),
    renewTime: timeString(spec.renewTime),
    leaseTransitions: typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0,
    holderIncarnation: lease.metadata?.annotations?.[LEADER_INCARNATION_ANNOTATION] ?? '',
  };
}

/** A canonical string of a record: two observations differ exactly when this differs. */
export function recordKey(record: LeaderElectionRecord): string {
  return JSON.stringify([
    record.holderIdentity,
    record.leaseDurationSeconds,
    record.acquireTime,
    record.renewTime,
    record.leaseTransitions,
    record.holderIncarnation ?? '',
  ]);
}

function specOf(record: LeaderElectionRecord): LeaseSpecJson {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: record.acquireTime || undefined,
    renewTime: record.renewTime || undefined,
    leaseTransitions: record.leaseTransitions,
  };
}

/**
 * client-go's `LeaseLock`: reads and writes the election record of one Lease. Every update is
 * conditional on the resourceVersion of the Lease this lock last read or wrote, so of two candidates
 * racing for the same Lease only one can win; the other gets a 409 Conflict.
 */
export class LeaseLock {
  private lease: LeaseJson | undefined;
  readonly id: ResourceID;

  constructor(
    private readonly client: LeaseClient,
    namespace: string,
    name: string,
  ) {
    this.id = new ResourceID(name, namespace);
  }

  /** `namespace/name` of the Lease, for messages. */
  describe(): string {
    return this.id.key;
  }

  /**
   * Reads the Lease; undefined when it does not exist. Remembers its resourceVersion. Every method
   * takes a `signal` that aborts its request (and frees its connection).
   */
  async get(signal?: AbortSignal): Promise<LeaderElectionRecord | undefined> {
    const lease = await this.client.get(LeaseType, this.id, { signal });
    this.lease = lease;
    return lease ? recordOf(lease) : undefined;
  }

  /** Creates the Lease with `record` (409 AlreadyExists when another candidate created it first). */
  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    this.lease = await this.client.create(
      LeaseType,
      {
        apiVersion: LeaseType.apiVersion,
        kind: LeaseType.kind,
        metadata: {
          name: this.id.name,
          namespace: this.id.namespace,
          annotations: { [LEADER_INCARNATION_ANNOTATION]: record.holderIncarnation ?? '' },
        },
        spec: specOf(record),
      },
      { signal },
    );
  }

  /**
   * Replaces the election record of the Lease last seen, conditional on its resourceVersion.
   * @throws LeaseNotObservedError when the lock has not read or written the Lease yet.
   */
  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    const base = this.lease;
    if (!base?.metadata?.resourceVersion) throw new LeaseNotObservedError(this.describe());
    this.lease = await this.client.update(
      LeaseType,
      {
        ...base,
        metadata: {
          ...base.metadata,
          annotations: {
            ...base.metadata.annotations,
            [LEADER_INCARNATION_ANNOTATION]: record.holderIncarnation ?? '',
          },
        },
        spec: { ...base.spec, ...specOf(record) },
      },
      { signal },
    );
  }
}

/** An update was attempted before the lock read or created the Lease. */
export class LeaseNotObservedError extends Error {
  /** Stable error code. */
  readonly code = 'LeaseNotObserved';
  constructor(lease: string) {
    super(`lease ${lease} has not been read yet, so it cannot be updated`);
    this.name = 'LeaseNotObservedError';
  }
}
