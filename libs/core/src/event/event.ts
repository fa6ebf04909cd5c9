import type { ResourceID } from '../api/resource-id.js';
import type { KubernetesResource } from '../api/resource-type.js';

/**
 * Something happened that concerns one primary resource (JOSDK's `Event`): the event processor
 * reconciles that resource. Secondary event sources emit these after mapping their object to the
 * primaries it affects.
 */
export interface Event {
  /** The primary resource to reconcile. */
  readonly resourceId: ResourceID;
  /**
   * How urgent the reconciliation is: when the reconciliation threads are all busy, waiting
   * reconciliations of a higher priority start first (FIFO within one). Defaults to
   * {@link ReconcilePriority.NORMAL}; the controller gives the adds of an initial list or re-list
   * and the max-interval resyncs {@link ReconcilePriority.LOW}, so new and changed resources are
   * not queued behind that backlog.
   */
  readonly priority?: number;
}

/** Priorities of reconciliations (any number works; higher starts first). */
export const ReconcilePriority = Object.freeze({
  /** Before normal work. */
  HIGH: 10,
  /** Events of changes (watch events, secondary events, timers of retries and reschedules). */
  NORMAL: 0,
  /** The backlog: what an initial list or re-list reports, and max-interval resyncs. */
  LOW: -10,
});

/** What happened to a primary resource in the cluster. */
export type ResourceAction = 'ADDED' | 'UPDATED' | 'DELETED';

/** A change of a primary resource itself (emitted by the controller's own event source). */
export interface ResourceEvent<P extends KubernetesResource = KubernetesResource> extends Event {
  readonly action: ResourceAction;
  /** The resource after the change (its last known state for `DELETED`). */
  readonly resource: P;
}

/** Whether an event is a {@link ResourceEvent}. */
export function isResourceEvent(event: Event): event is ResourceEvent {
  return 'action' in event && typeof (event as ResourceEvent).action === 'string';
}

/** Receives events (the event processor of a controller). */
export interface EventHandler {
  handleEvent(event: Event): void;
}
