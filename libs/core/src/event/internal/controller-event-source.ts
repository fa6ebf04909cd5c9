import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { ResolvedControllerConfiguration } from '../../config/controller-configuration.js';
import type { Logger } from '../../util/logger.js';
import type { EventHandler, ResourceEvent } from '../event.js';
import type { EventSource, EventSourceHealth } from '../event-source.js';

/** Handlers an informer calls (the informer module's `ResourceEventHandler`). */
export interface InformerEventHandler<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T, finalStateUnknown: boolean): void;
}

/** What the controller needs of the informer on its primaries. */
export interface PrimaryInformer<P extends KubernetesResource> {
  start(): Promise<void>;
  stop(): Promise<void>;
  addEventHandler(handler: InformerEventHandler<P>): () => void;
  get(id: ResourceID): P | undefined;
  list(namespace?: string): P[];
  hasSynced(): boolean;
  health(): EventSourceHealth;
  cacheIfNewer(obj: P, previousResourceVersion?: string): boolean;
  changeNamespaces?(namespaces: string[] | 'all'): Promise<void>;
  /** Adds an index on primaries (secondary-to-primary mapping through an index). */
  addIndexer?(name: string, fn: (obj: P) => string[]): void;
  /** Primaries whose index `name` includes `value`. */
  byIndex?(name: string, value: string): P[];
}

/** The name under which a controller's own event source is registered. */
export const CONTROLLER_EVENT_SOURCE_NAME = 'ControllerResourceEventSource';

function finalizerChanged(newR: KubernetesResource, oldR: KubernetesResource, finalizer: string): boolean {
  const had = oldR.metadata?.finalizers?.includes(finalizer) ?? false;
  const has = newR.metadata?.finalizers?.includes(finalizer) ?? false;
  return had !== has;
}

function generationIncreased(newR: KubernetesResource, oldR: KubernetesResource): boolean {
  const next = newR.metadata?.generation;
  if (next === undefined || next === null) return true;
  const prev = oldR.metadata?.generation;
  return prev === undefined || prev === null || next > prev;
}

/**
 * The event source of a controller's primaries (JOSDK's `ControllerEventSource`): an informer whose
 * events pass the controller's filters before they reach the event processor.
 *
 * Update filtering with the default filters on: an update reconciles when the generation grew
 * (or the kind has none, or generation awareness is off), the controller's finalizer was added or
 * removed, or the resource is marked for deletion; then the user's update and generic filters must
 * accept it too. With the default filters off, only the user's filters decide.
 */
export class ControllerEventSource<P extends KubernetesResource> implements EventSource {
  readonly name = CONTROLLER_EVENT_SOURCE_NAME;
  private handler: EventHandler | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly informer: PrimaryInformer<P>,
    private readonly config: ResolvedControllerConfiguration<P>,
    private readonly usesFinalizer: boolean,
    private readonly logger: Logger,
  ) {}

  setEventHandler(handler: EventHandler): void {
    this.handler = handler;
  }

  async start(): Promise<void> {
    this.unsubscribe ??= this.informer.addEventHandler({
      onAdd: (obj) => this.guard(() => this.onAdd(obj)),
      onUpdate: (oldObj, newObj) => this.guard(() => this.onUpdate(oldObj, newObj)),
      onDelete: (obj, unknown) => this.guard(() => this.onDelete(obj, unknown)),
    });
    await this.informer.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.informer.stop();
  }

  health(): EventSourceHealth {
    return this.informer.health();
  }

  /** The cached primary. */
  get(id: ResourceID): P | undefined {
    return this.informer.get(id);
  }

  /** Puts an own write into the cache unless the cache already has something newer. */
  cacheIfNewer(resource: P, previousResourceVersion?: string): boolean {
    return this.informer.cacheIfNewer(resource, previousResourceVersion);
  }

  /**
   * Changes the informer's namespaces. Primaries of namespaces no longer watched leave the cache
   * without informer events, so they are reported deleted here: the event processor drops their state.
   */
  async changeNamespaces(namespaces: readonly string[]): Promise<void> {
    if (!this.informer.changeNamespaces) return;
    const before = this.informer.list();
    await this.informer.changeNamespaces(namespaces.length === 0 ? 'all' : [...namespaces]);
    for (const obj of before) {
      const id = ResourceID.fromResource(obj);
      if (this.informer.get(id) === undefined)
        this.handler?.handleEvent({ resourceId: id, action: 'DELETED', resource: obj } as ResourceEvent<P>);
    }
  }

  /** Whether an update passes the filters (exposed for tests of the rules). */
  acceptsUpdate(newR: P, oldR: P): boolean {
    const c = this.config;
    if (c.useDefaultEventFilters) {
      const internal =
        (this.usesFinalizer && finalizerChanged(newR, oldR, c.finalizerName)) ||
        !c.generationAware ||
        generationIncreased(newR, oldR) ||
        Boolean(newR.metadata?.deletionTimestamp);
      if (!internal) return false;
    }
    return (c.onUpdateFilter?.(newR, oldR) ?? true) && (c.genericFilter?.(newR) ?? true);
  }

  private onAdd(obj: P): void {
    const c = this.config;
    if (!(c.onAddFilter?.(obj) ?? true) || !(c.genericFilter?.(obj) ?? true)) return;
    this.emit('ADDED', obj);
  }

  private onUpdate(oldObj: P, newObj: P): void {
    if (this.acceptsUpdate(newObj, oldObj)) this.emit('UPDATED', newObj);
  }

  private onDelete(obj: P, finalStateUnknown: boolean): void {
    const c = this.config;
    if (!(c.onDeleteFilter?.(obj, finalStateUnknown) ?? true) || !(c.genericFilter?.(obj) ?? true)) return;
    this.emit('DELETED', obj);
  }

  private emit(action: ResourceEvent['action'], resource: P): void {
    const event: ResourceEvent<P> = { resourceId: ResourceID.fromResource(resource), action, resource };
    this.handler?.handleEvent(event);
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.logger.error('an event filter or handler threw; event dropped', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
