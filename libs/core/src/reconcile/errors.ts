import type { ResourceID } from '../api/resource-id.js';

/** A reconciliation (or cleanup) failed; `cause` is what the reconciler threw or the failed write. */
export class ReconcileError extends Error {
  /** Stable error code. */
  readonly code: string = 'ReconcileError';
  constructor(
    message: string,
    /** The controller. */
    readonly controller: string,
    /** The primary resource. */
    readonly resourceId: ResourceID,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ReconcileError';
  }
}

/** A reconcile or cleanup did not settle within the controller's `reconcileTimeoutMs`; it is retried. */
export class ReconcileTimeoutError extends ReconcileError {
  override readonly code = 'ReconcileTimeout';
  constructor(
    controller: string,
    resourceId: ResourceID,
    readonly timeoutMs: number,
  ) {
    super(
      `${controller}: reconciliation of ${resourceId.key} did not settle within ${timeoutMs} ms (it may still be running; it is retried)`,
      controller,
      resourceId,
    );
    this.name = 'ReconcileTimeoutError';
  }
}

/**
 * A reconciler returned something the framework cannot use: nothing, a value that is not the
 * expected control, or a control carrying another resource. Treated as a failed attempt.
 */
export class InvalidControlError extends ReconcileError {
  override readonly code = 'InvalidControl';
  constructor(message: string, controller: string, resourceId: ResourceID) {
    super(message, controller, resourceId);
    this.name = 'InvalidControlError';
  }
}

/**
 * A reconciliation that outlived `Operator.stop()` (its `terminationTimeoutMs`) or the loss of
 * leadership tried to write through the framework (status or resource patch, finalizer, dependent,
 * `context.client`, `context.resourceOperations()`); the write was refused and not sent. Another
 * instance may own the resource now. `write` names the refused request. Nothing to fix: raise
 * `terminationTimeoutMs` if such reconciles should finish their writes at a stop.
 */
export class ReconcileAbandonedError extends ReconcileError {
  override readonly code = 'ReconcileAbandoned';
  constructor(
    controller: string,
    resourceId: ResourceID,
    /** The refused write, e.g. `patch status` or `apply ConfigMap ns/name`. */
    readonly write: string,
  ) {
    super(
      `${controller}: ${write} for ${resourceId.key} refused: the reconciliation outlived the operator's stop (terminationTimeoutMs) or its leadership, so it must not write`,
      controller,
      resourceId,
    );
    this.name = 'ReconcileAbandonedError';
  }
}

/** `context.getSecondaryResource(s)` asked for a kind no event source of the controller caches. */
export class NoEventSourceForTypeError extends Error {
  /** Stable error code. */
  readonly code = 'NoEventSourceForType';
  constructor(message: string) {
    super(message);
    this.name = 'NoEventSourceForTypeError';
  }
}

/** `context.getSecondaryResource` found more than one secondary resource for the primary. */
export class AmbiguousSecondaryResourceError extends Error {
  /** Stable error code. */
  readonly code = 'AmbiguousSecondaryResource';
  constructor(message: string) {
    super(message);
    this.name = 'AmbiguousSecondaryResourceError';
  }
}
