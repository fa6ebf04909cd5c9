import type { RetryInfo } from '../../api/context.js';
import type { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { ExecutionKind } from '../../metrics/metrics.js';

/** One reconciliation handed to the dispatcher (JOSDK's `ExecutionScope`). */
export interface ExecutionScope<P extends KubernetesResource> {
  readonly id: ResourceID;
  /** The newest cached resource at the start of the run. */
  readonly resource: P;
  /** Undefined on a first try. */
  readonly retryInfo: RetryInfo | undefined;
  /** Whether another event arrived since the run was submitted. */
  isNextReconciliationImminent(): boolean;
  /** The retry info `updateErrorStatus` sees if this run fails (attempt count 0 on a first try). */
  retryInfoOnFailure(): RetryInfo;
}

/** What the dispatcher reports back to the event processor (JOSDK's `PostExecutionControl`). */
export interface PostExecutionControl<P extends KubernetesResource> {
  /** Reconcile or cleanup; undefined when neither ran (finalizer added, or skipped). */
  readonly kind?: ExecutionKind;
  /** The failure; undefined on success. */
  readonly error?: unknown;
  /**
   * A failure the reconciler ended with `ErrorStatusUpdateControl.withNoRetry()` (or its
   * `rescheduleAfter`, then with `rescheduleDelayMs`): not retried, but
   * counted as failed (`Metrics.reconcileFailed`), as a failed execution.
   */
  readonly noRetryError?: unknown;
  /** The finalizer was removed after cleanup: the resource is about to go. */
  readonly finalizerRemoved?: boolean;
  /** The resource as the last write returned it. */
  readonly updatedResource?: P;
  /** Reconcile again after this delay at the latest. */
  readonly rescheduleDelayMs?: number;
  /** The priority of the rescheduled run (the control's `withPriority`); defaults to normal. */
  readonly reschedulePriority?: number;
}

/** Runs one reconciliation (the reconciliation dispatcher). Never rejects: failures are in the result. */
export interface ExecutionHandler<P extends KubernetesResource> {
  handleExecution(scope: ExecutionScope<P>): Promise<PostExecutionControl<P>>;
}

/** Read access to the controller's cache of primaries. */
export interface PrimaryCache<P extends KubernetesResource> {
  get(id: ResourceID): P | undefined;
}
