import type { KubernetesResource, ResourceType } from '../../../api/resource-type.js';
import type { ResourceID } from '../../../api/resource-id.js';
import { KubernetesApiError } from '../../../client/errors.js';
import type { AccessReviewResult, ResourceAttributes } from '../../../client/types.js';
import type { LeaderElectorClient } from '../leader-elector.js';
import type { LeaseJson } from '../internal/lease-lock.js';

/** An in-memory API server for Leases only, with resourceVersion semantics like kube-apiserver. */
export class LeaseStore {
  private readonly leases = new Map<string, LeaseJson>();
  private rv = 100;
  /** Every successful write, in order, with the identity of the client that made it. */
  readonly writes: Array<{ by: string; verb: 'create' | 'update'; lease: LeaseJson }> = [];

  read(key: string): LeaseJson | undefined {
    const lease = this.leases.get(key);
    return lease && structuredClone(lease);
  }

  create(by: string, key: string, lease: LeaseJson): LeaseJson {
    if (this.leases.has(key)) {
      throw new KubernetesApiError(409, {
        reason: 'AlreadyExists',
        message: `leases "${key}" already exists`,
      });
    }
    const stored: LeaseJson = {
      ...structuredClone(lease),
      metadata: { ...lease.metadata, resourceVersion: String(++this.rv), uid: `uid-${this.rv}` },
    };
    this.leases.set(key, stored);
    this.writes.push({ by, verb: 'create', lease: structuredClone(stored) });
    return structuredClone(stored);
  }

  update(by: string, key: string, lease: LeaseJson): LeaseJson {
    const current = this.leases.get(key);
    if (!current)
      throw new KubernetesApiError(404, { reason: 'NotFound', message: `leases "${key}" not found` });
    const rv = lease.metadata?.resourceVersion;
    if (rv && rv !== current.metadata?.resourceVersion) {
      throw new KubernetesApiError(409, {
        reason: 'Conflict',
        message:
          'the object has been modified; please apply your changes to the latest version and try again',
      });
    }
    const stored: LeaseJson = {
      ...structuredClone(lease),
      metadata: { ...current.metadata, resourceVersion: String(++this.rv) },
    };
    this.leases.set(key, stored);
    this.writes.push({ by, verb: 'update', lease: structuredClone(stored) });
    return structuredClone(stored);
  }

  /** Writes a lease as some other party would (an admin, another elector implementation). */
  put(key: string, lease: LeaseJson): void {
    const current = this.leases.get(key);
    if (current) this.update('admin', key, { ...lease, metadata: { ...current.metadata } });
    else this.create('admin', key, lease);
  }
}

type Fault = 'fail' | 'hang';

/**
 * A `KubernetesClient` double bound to one identity: Lease get/create/update on a shared
 * {@link LeaseStore}, with faults and a gate the test controls, and scripted access reviews.
 */
export class LeaseClientDouble implements LeaderElectorClient {
  /** When set, every Lease request fails (500) or never answers. */
  fault: Fault | undefined;
  /** When true, requests wait until {@link LeaseClientDouble.openGate} is called. */
  gated = false;
  private waiting: Array<() => void> = [];
  /** Verbs on leases the access review allows. */
  allowedVerbs = new Set(['get', 'create', 'update']);
  readonly reviews: ResourceAttributes[] = [];
  requests = 0;

  constructor(
    readonly store: LeaseStore,
    readonly identity: string,
  ) {}

  /** Lets every gated request through. */
  openGate(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const go of waiting) go();
  }

  /** How many requests wait at the gate. */
  get blocked(): number {
    return this.waiting.length;
  }

  private async enter(): Promise<void> {
    this.requests++;
    if (this.gated) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.fault === 'hang') await new Promise<never>(() => undefined);
    if (this.fault === 'fail') {
      throw new KubernetesApiError(500, { reason: 'InternalError', message: 'injected failure' });
    }
  }

  async get<T extends KubernetesResource>(_type: ResourceType<T>, id: ResourceID): Promise<T | undefined> {
    await this.enter();
    return this.store.read(id.key) as T | undefined;
  }

  async create<T extends KubernetesResource>(_type: ResourceType<T>, obj: T): Promise<T> {
    await this.enter();
    const key = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
    return this.store.create(this.identity, key, obj) as T;
  }

  async update<T extends KubernetesResource>(_type: ResourceType<T>, obj: T): Promise<T> {
    await this.enter();
    const key = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
    return this.store.update(this.identity, key, obj) as T;
  }

  async selfSubjectAccessReview(attributes: ResourceAttributes): Promise<AccessReviewResult> {
    this.reviews.push(attributes);
    const allowed = attributes.resource === 'leases' && this.allowedVerbs.has(attributes.verb);
    return allowed ? { allowed } : { allowed, reason: `RBAC: ${attributes.verb} leases not allowed` };
  }
}
