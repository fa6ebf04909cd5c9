import type { KubernetesResource, ResourceType } from '../api/resource-type.js';
import type { EventHandler } from './event.js';

/** Health of one event source, as runtime info reports it. */
export interface EventSourceHealth {
  /** Whether the source works (an informer: synced and watching). */
  healthy: boolean;
  /** A short state word, e.g. `watching`, `reconnecting`, `stopped`. */
  status: string;
  /** Why it is unhealthy, when it is. */
  reason?: string;
}

/**
 * When an event source starts relative to the others of its controller (JOSDK's
 * `EventSourceStartPriority`): the controller's own source first, then `resourceStateLoader`
 * sources (those whose state other sources or the reconciler read at once), then `default` ones.
 * Every source has started (caches synced) before the first reconciliation.
 */
export type EventSourceStartPriority = 'resourceStateLoader' | 'default';

/**
 * A source of events for a controller (JOSDK's `EventSource`): an informer on secondary resources,
 * a poller, a webhook. Registered through {@link Reconciler.prepareEventSources}; the controller
 * starts it before processing events and stops it on stop.
 */
export interface EventSource {
  /** A name unique within the controller. Defaults to the key in the map returned by `prepareEventSources`, else a generated one. */
  readonly name?: string;
  /** Called once before {@link EventSource.start} with the controller's event handler. */
  setEventHandler(handler: EventHandler): void;
  /** Starts emitting; resolves when the source's cache (if any) is ready. */
  start(): Promise<void>;
  /** Stops emitting and releases resources. */
  stop(): Promise<void>;
  /** Current health. Optional: a source without this method is reported healthy. */
  health?(): EventSourceHealth;
  /** Start order among the controller's sources. Defaults to `default`. */
  readonly startPriority?: EventSourceStartPriority;
  /**
   * Whether the source follows the controller's namespace changes
   * (`RegisteredController.changeNamespaces`); it then gets {@link EventSource.changeNamespaces}.
   */
  followsControllerNamespaces?(): boolean;
  /** Watches other namespaces (`[]` for all); called when the controller's namespaces change. */
  changeNamespaces?(namespaces: readonly string[]): Promise<void>;
}

/**
 * An event source that caches resources of one kind and knows which belong to a primary. The
 * context's secondary access methods ({@link Context.getSecondaryResources}) read through it.
 *
 * @typeParam R - the secondary kind.
 * @typeParam P - the primary kind.
 */
export interface ResourceEventSource<
  R extends KubernetesResource = KubernetesResource,
  P extends KubernetesResource = KubernetesResource,
> extends EventSource {
  /** The kind this source caches. */
  readonly resourceType: ResourceType<R>;
  /** The cached secondaries of a primary. */
  getSecondaryResources(primary: P): R[];
}

/** Whether an event source caches resources (is a {@link ResourceEventSource}). */
export function isResourceEventSource(source: EventSource): source is ResourceEventSource {
  const s = source as Partial<ResourceEventSource>;
  return typeof s.getSecondaryResources === 'function' && typeof s.resourceType === 'object';
}
