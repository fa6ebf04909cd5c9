import type { EventSource } from '../event/event-source.js';
import type { KubernetesClient } from '../client/kubernetes-client.js';
import type { Context } from './context.js';
import type { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from './controls.js';
import type { ResourceID } from './resource-id.js';
import type { KubernetesResource, ResourceType } from './resource-type.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

/** What {@link Reconciler.prepareEventSources} gets (JOSDK's `EventSourceContext`). */
export interface EventSourceContext<P extends KubernetesResource = KubernetesResource> {
  /** The primary kind of the controller. */
  readonly primaryResourceType: ResourceType<P>;
  /** The operator's client. */
  readonly client: KubernetesClient;
  /** The controller's name. */
  readonly controllerName: string;
  /** The namespaces the controller watches (`[]` for all). */
  readonly namespaces: readonly string[];
  /** The controller's cache of primaries (for mapping secondaries to primaries). */
  readonly primaryCache: PrimaryResourceCache<P>;
  /** The controller's logger (lines carry the controller name). Defaults to no logging. */
  readonly logger?: Logger;
  /** The operator's clock. Defaults to the system clock. */
  readonly clock?: Clock;
  /** The controller's field manager (whose managedFields entries caches keep). Defaults to the controller name. */
  readonly fieldManager?: string;
}

/** Read access to a controller's cached primaries. */
export interface PrimaryResourceCache<P extends KubernetesResource = KubernetesResource> {
  /** The cached primary, if any. */
  get(id: ResourceID): P | undefined;
  /** The cached primaries, of one namespace or all. */
  list(namespace?: string): P[];
  /**
   * Adds an index on primaries (e.g. by the name of a secondary they reference), filled at once and
   * kept current. Absent when the primary cache has no indexes.
   */
  addIndexer?(name: string, fn: (primary: P) => string[]): void;
  /** Cached primaries whose index `name` includes `value`. Absent when the cache has no indexes. */
  byIndex?(name: string, value: string): P[];
}

/** Event sources as `prepareEventSources` returns them: a list, or a map by name. */
export type EventSources = EventSource[] | Record<string, EventSource>;

/**
 * The logic of a controller (JOSDK's `Reconciler`): brings the cluster in line with one primary
 * resource. Called for every relevant change, never twice at once for the same resource. Sync or
 * async; a thrown error is retried by the controller's retry policy.
 *
 * @typeParam P - the primary kind.
 */
export interface Reconciler<P extends KubernetesResource = KubernetesResource> {
  /** Reconciles one resource; returns what to write back. */
  reconcile(resource: P, context: Context<P>): UpdateControl<P> | Promise<UpdateControl<P>>;
  /**
   * Called after every failed `reconcile` (also when no retry is configured) to record the error in
   * the status and decide on retrying. Defaults to no status update and the retry policy.
   */
  updateErrorStatus?(
    resource: P,
    context: Context<P>,
    error: unknown,
  ): ErrorStatusUpdateControl<P> | Promise<ErrorStatusUpdateControl<P>>;
  /** Event sources whose events reconcile a primary (informers on secondaries, pollers, ...). */
  prepareEventSources?(context: EventSourceContext<P>): EventSources;
}

/**
 * Implemented by reconcilers that must clean up before their primary goes away (JOSDK's
 * `Cleaner`). The framework then adds a finalizer before the first reconcile, calls `cleanup`
 * instead of `reconcile` once the resource is marked for deletion, and removes the finalizer when
 * cleanup returns {@link DeleteControl.defaultDelete}.
 */
export interface Cleaner<P extends KubernetesResource = KubernetesResource> {
  cleanup(resource: P, context: Context<P>): DeleteControl | Promise<DeleteControl>;
}

/** Whether a reconciler implements {@link Cleaner}. */
export function isCleaner<P extends KubernetesResource>(
  reconciler: Reconciler<P>,
): reconciler is Reconciler<P> & Cleaner<P> {
  return typeof (reconciler as Partial<Cleaner<P>>).cleanup === 'function';
}
