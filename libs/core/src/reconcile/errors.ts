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
