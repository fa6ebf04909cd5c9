import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { Event } from '../../event/event.js';
import type { EventSourceHealth } from '../../event/event-source.js';
import type { InformerEventHandler, PrimaryInformer } from '../../event/internal/controller-event-source.js';
import type { ShardAssignment, ShardMembership, ShardParticipant } from '../shard-membership.js';

/** What a sharded informer needs of its controller's event processor. */
export interface ShardProcessing {
  /** Whether a reconciliation of the resource is queued or running. */
  isUnderProcessing(id: ResourceID): boolean;
  /** Hands an event to the controller. */
  handleEvent(event: Event): void;
  /** Refuses the framework writes of the reconciliations running now (later ones may write). */
  fenceWrites?(): void;
}

/** The hooks of an informer whose store can be restricted (a `MultiNamespaceInformer` has them). */
interface Restrictable<P> {
  restrictTo(admit: (obj: P) => boolean): void;
  readmit(): Promise<void>;
}

/**
 * A controller's primary informer seen through the shard: the cache and the events show only the
 * resources this replica owns now. When the assignment changes, a lost resource gets a DELETED event
 * (its queued work and timers are dropped; a running reconciliation finishes) and is drained; a
 * gained one is queued for reconciliation.
 *
 * When the inner informer can be restricted (`restrictTo`/`readmit`), its store keeps only the
 * primaries in the membership's cache scope ({@link ShardMembership.caches}: what this replica owns,
 * still drains, or moves to), refilled before the membership acknowledges a new ring; so the
 * primaries of other replicas cost no memory, and a gained primary is in the store before it starts.
 */
export class ShardedInformer<P extends KubernetesResource> implements PrimaryInformer<P>, ShardParticipant {
  private processing: ShardProcessing | undefined;
  /** Lost resources whose reconciliation may still run: by resource key, with their ring key. */
  private readonly draining = new Map<string, { id: ResourceID; ringKey: string }>();
  private readonly detach: () => void;

  constructor(
    private readonly inner: PrimaryInformer<P>,
    private readonly membership: ShardMembership,
  ) {
    this.detach = membership.attach(this);
    const restrictable = inner as Partial<Restrictable<P>>;
    if (typeof restrictable.restrictTo === 'function' && typeof restrictable.readmit === 'function') {
      restrictable.restrictTo((obj) => membership.caches().owns(membership.keyOf(obj)));
      // one refill at a time; each lists after it was asked for, so it sees the scope of then
      let queue: Promise<void> = Promise.resolve();
      this.rescope = () => {
        const next = queue.catch(() => undefined).then(() => restrictable.readmit!());
        queue = next;
        return next;
      };
    }
    if (inner.changeNamespaces) this.changeNamespaces = (ns) => inner.changeNamespaces!(ns);
    if (inner.addIndexer) this.addIndexer = (name, fn) => inner.addIndexer!(name, fn);
    if (inner.byIndex)
      this.byIndex = (name, value) => inner.byIndex!(name, value).filter((o) => this.mine(o));
  }

  /** Connects the controller's event processor (after the controller is built). */
  connect(processing: ShardProcessing): void {
    this.processing = processing;
  }

  private mine(obj: P, assignment: ShardAssignment = this.membership.current()): boolean {
    return assignment.owns(this.membership.keyOf(obj));
  }

  reassign(before: ShardAssignment, after: ShardAssignment): void {
    const processing = this.processing;
    if (!processing) return;
    for (const obj of this.inner.list()) {
      const was = this.mine(obj, before);
      const is = this.mine(obj, after);
      if (was === is) continue;
      const resourceId = ResourceID.fromResource(obj);
      if (was) {
        this.draining.set(resourceId.key, { id: resourceId, ringKey: this.membership.keyOf(obj) });
        processing.handleEvent({ resourceId, action: 'DELETED', resource: obj } as Event);
      } else {
        this.draining.delete(resourceId.key);
        processing.handleEvent({ resourceId });
      }
    }
  }

  fence(): void {
    this.processing?.fenceWrites?.();
  }

  drained(keep?: ShardAssignment): boolean {
    const processing = this.processing;
    let pending = 0;
    for (const [key, { id, ringKey }] of this.draining) {
      if (!processing?.isUnderProcessing(id)) this.draining.delete(key);
      else if (!keep?.owns(ringKey)) pending++;
    }
    return pending === 0;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  stop(): Promise<void> {
    this.detach();
    return this.inner.stop();
  }

  addEventHandler(handler: InformerEventHandler<P>): () => void {
    return this.inner.addEventHandler({
      onAdd: (obj) => {
        if (this.mine(obj)) handler.onAdd?.(obj);
      },
      onUpdate: (oldObj, obj) => {
        const was = this.mine(oldObj);
        const is = this.mine(obj);
        if (was && is) handler.onUpdate?.(oldObj, obj);
        else if (is) handler.onAdd?.(obj);
        else if (was) handler.onDelete?.(oldObj, false);
      },
      onDelete: (obj, finalStateUnknown) => {
        if (this.mine(obj)) handler.onDelete?.(obj, finalStateUnknown);
      },
    });
  }

  get(id: ResourceID): P | undefined {
    const obj = this.inner.get(id);
    return obj && this.mine(obj) ? obj : undefined;
  }

  list(namespace?: string): P[] {
    return this.inner.list(namespace).filter((o) => this.mine(o));
  }

  hasSynced(): boolean {
    return this.inner.hasSynced();
  }

  health(): EventSourceHealth {
    return this.inner.health();
  }

  cacheIfNewer(obj: P, previousResourceVersion?: string): boolean {
    return this.inner.cacheIfNewer(obj, previousResourceVersion);
  }

  /** Refills the restricted store after the cache scope changed (see the class). */
  rescope?(): Promise<void>;
  changeNamespaces?(namespaces: string[] | 'all'): Promise<void>;
  addIndexer?(name: string, fn: (obj: P) => string[]): void;
  byIndex?(name: string, value: string): P[];
}
