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
}

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
