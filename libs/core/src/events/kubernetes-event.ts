import { defineResource } from '../api/resource-type.js';
import type { KubernetesResource } from '../api/resource-type.js';

/** The type of a Kubernetes Event: `Normal` for information, `Warning` for something to look at. */
export type EventType = 'Normal' | 'Warning';

/** `core/v1` ObjectReference of the object an Event is about. */
export interface EventObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/**
 * A `core/v1` Event as it travels as JSON (the timestamps are RFC 3339 strings). The type of
 * @kubernetes/client-node (`CoreV1Event`) models the times as `Date`; this one is what the wire holds.
 */
export interface KubernetesEvent extends KubernetesResource {
  involvedObject: EventObjectReference;
  type: EventType;
  /** Short, UpperCamelCase, machine-readable: `ProcessingError`, `Created`. */
  reason: string;
  message: string;
  /** What was done or failed, e.g. `Reconcile`. */
  action?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  source?: { component?: string; host?: string };
  /** The controller that emitted it (Go field `ReportingController`). */
  reportingComponent?: string;
  /** The instance of the controller (Go field `ReportingInstance`). */
  reportingInstance?: string;
}

/** The `core/v1` Event kind, typed by its JSON form. */
export const EventResourceType = defineResource<KubernetesEvent>({ group: '', version: 'v1', kind: 'Event' });
