import type { EventSource } from '../event/event-source.js';
import type { Context } from './context.js';
import type { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from './controls.js';
import type { KubernetesResource } from './resource-type.js';
import type { EventSourceContext } from './event-source-context.js';

export type { EventSourceContext, PrimaryResourceCache } from './event-source-context.js';

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
