import type { KubernetesResource } from './resource-type.js';

/** Thrown by a control factory or `rescheduleAfter` given a value that cannot be used. */
export class InvalidControlArgumentError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidControlArgument';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidControlArgumentError';
  }
}

function checkPriority(priority: number): number {
  if (typeof priority !== 'number' || !Number.isFinite(priority)) {
    throw new InvalidControlArgumentError(
      `withPriority needs a finite number (e.g. ReconcilePriority.LOW), got ${String(priority)}`,
    );
  }
  return priority;
}

function checkDelay(delayMs: number): number {
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
    throw new InvalidControlArgumentError(
      `rescheduleAfter needs a finite, non-negative number of milliseconds, got ${String(delayMs)}`,
    );
  }
  return delayMs;
}

function checkResource<P>(resource: P, factory: string): P {
  if (resource === null || typeof resource !== 'object') {
    throw new InvalidControlArgumentError(`${factory} needs the resource to patch, got ${String(resource)}`);
  }
  return resource;
}

/** What the framework writes back after a reconciliation (see {@link UpdateControl}). */
export type UpdateControlPatch = 'none' | 'status' | 'resource' | 'resourceAndStatus';

/**
 * The outcome of {@link Reconciler.reconcile}: what to patch on the primary resource and whether to
 * reconcile again after a delay. Immutable: `rescheduleAfter` returns a new control.
 *
 * ```ts
 * return UpdateControl.patchStatus(resource).rescheduleAfter(10_000);
 * ```
 */
export class UpdateControl<P extends KubernetesResource = KubernetesResource> {
  private constructor(
    /** What is patched. */
    readonly patch: UpdateControlPatch,
    /** The resource carrying the desired state; undefined for {@link UpdateControl.noUpdate}. */
    readonly resource: P | undefined,
    /** Delay after which the resource is reconciled again at the latest; undefined for none. */
    readonly scheduleDelayMs: number | undefined,
    /** Priority of the rescheduled run (see `withPriority`); undefined for normal. */
    readonly priority?: number,
  ) {
    Object.freeze(this);
  }

  /** Patch nothing. */
  static noUpdate<P extends KubernetesResource = KubernetesResource>(): UpdateControl<P> {
    return new UpdateControl<P>('none', undefined, undefined);
  }

  /** Patch the status subresource with `resource.status`. */
  static patchStatus<P extends KubernetesResource>(resource: P): UpdateControl<P> {
    return new UpdateControl('status', checkResource(resource, 'UpdateControl.patchStatus'), undefined);
  }

  /** Patch the resource itself (metadata and spec; status is left alone). */
  static patchResource<P extends KubernetesResource>(resource: P): UpdateControl<P> {
    return new UpdateControl('resource', checkResource(resource, 'UpdateControl.patchResource'), undefined);
  }

  /** Patch the resource, then its status: two requests, in that order. */
  static patchResourceAndStatus<P extends KubernetesResource>(resource: P): UpdateControl<P> {
    return new UpdateControl(
      'resourceAndStatus',
      checkResource(resource, 'UpdateControl.patchResourceAndStatus'),
      undefined,
    );
  }

  /**
   * Reconcile again after `delayMs` at the latest (any event before then runs it earlier and replaces
   * this request).
   * @throws InvalidControlArgumentError when the delay is negative or not a finite number.
   */
  rescheduleAfter(delayMs: number): UpdateControl<P> {
    return new UpdateControl(this.patch, this.resource, checkDelay(delayMs), this.priority);
  }

  /**
   * The priority of the run `rescheduleAfter` asks for, e.g. `ReconcilePriority.LOW` for a
   * periodic check that may wait behind changed resources. Defaults to `ReconcilePriority.NORMAL`.
   * @throws InvalidControlArgumentError when the priority is not a finite number.
   */
  withPriority(priority: number): UpdateControl<P> {
    return new UpdateControl(this.patch, this.resource, this.scheduleDelayMs, checkPriority(priority));
  }

  /** Whether the resource (not its status) is patched. */
  isPatchResource(): boolean {
    return this.patch === 'resource' || this.patch === 'resourceAndStatus';
  }

  /** Whether the status is patched. */
  isPatchStatus(): boolean {
    return this.patch === 'status' || this.patch === 'resourceAndStatus';
  }
}

/**
 * The outcome of {@link Cleaner.cleanup}: whether the framework removes its finalizer (and lets
 * Kubernetes delete the resource) and whether cleanup runs again after a delay.
 */
export class DeleteControl {
  private constructor(
    /** Whether the controller's finalizer is removed. */
    readonly removeFinalizer: boolean,
    /** Delay after which cleanup runs again at the latest; undefined for none. */
    readonly scheduleDelayMs: number | undefined,
    /** Priority of the rescheduled run (see `withPriority`); undefined for normal. */
    readonly priority?: number,
  ) {
    Object.freeze(this);
  }

  /** Cleanup is done: remove the finalizer. */
  static defaultDelete(): DeleteControl {
    return new DeleteControl(true, undefined);
  }

  /** Keep the finalizer (cleanup is still in progress); usually combined with `rescheduleAfter`. */
  static noFinalizerRemoval(): DeleteControl {
    return new DeleteControl(false, undefined);
  }

  /**
   * Run cleanup again after `delayMs` at the latest. Only meaningful with
   * {@link DeleteControl.noFinalizerRemoval}: once the finalizer is gone the resource disappears.
   * @throws InvalidControlArgumentError when the delay is negative or not a finite number.
   */
  rescheduleAfter(delayMs: number): DeleteControl {
    return new DeleteControl(this.removeFinalizer, checkDelay(delayMs), this.priority);
  }

  /**
   * The priority of the run `rescheduleAfter` asks for. Defaults to `ReconcilePriority.NORMAL`.
   * @throws InvalidControlArgumentError when the priority is not a finite number.
   */
  withPriority(priority: number): DeleteControl {
    return new DeleteControl(this.removeFinalizer, this.scheduleDelayMs, checkPriority(priority));
  }
}

/**
 * The outcome of {@link Reconciler.updateErrorStatus}: whether to patch the status after a failed
 * reconciliation and whether the failure is retried (JOSDK's ErrorStatusUpdateControl).
 */
export class ErrorStatusUpdateControl<P extends KubernetesResource = KubernetesResource> {
  private constructor(
    /** The resource whose status is patched; undefined to patch nothing. */
    readonly resource: P | undefined,
    /** Whether retrying is off for this failure (treated as done, not failed). */
    readonly noRetry: boolean,
    /** With `noRetry`: reconcile again after this delay (a reschedule, not a retry). */
    readonly scheduleDelayMs: number | undefined,
    /** Made by {@link ErrorStatusUpdateControl.defaultErrorProcessing}: the failure is handled as if there were no `updateErrorStatus`. */
    readonly defaultErrorProcessing: boolean = false,
  ) {
    Object.freeze(this);
  }

  /** Patch the status subresource with `resource.status`, then retry as configured. */
  static patchStatus<P extends KubernetesResource>(resource: P): ErrorStatusUpdateControl<P> {
    return new ErrorStatusUpdateControl(
      checkResource(resource, 'ErrorStatusUpdateControl.patchStatus'),
      false,
      undefined,
    );
  }

  /**
   * Patch nothing and handle the failure as if the reconciler had no `updateErrorStatus`: retried by
   * the retry policy. Cannot be combined with `withNoRetry` or `rescheduleAfter` (use
   * {@link ErrorStatusUpdateControl.noStatusUpdate} for those).
   */
  static defaultErrorProcessing<
    P extends KubernetesResource = KubernetesResource,
  >(): ErrorStatusUpdateControl<P> {
    return new ErrorStatusUpdateControl<P>(undefined, false, undefined, true);
  }

  /** Patch nothing, then retry as configured; unlike `defaultErrorProcessing()` it takes `withNoRetry` and `rescheduleAfter`. */
  static noStatusUpdate<P extends KubernetesResource = KubernetesResource>(): ErrorStatusUpdateControl<P> {
    return new ErrorStatusUpdateControl<P>(undefined, false, undefined);
  }

  /**
   * Do not retry this failure (for errors no retry can fix). A new event still reconciles.
   * @throws InvalidControlArgumentError on a `defaultErrorProcessing()` control.
   */
  withNoRetry(): ErrorStatusUpdateControl<P> {
    this.refuseOnDefaultProcessing('withNoRetry()');
    return new ErrorStatusUpdateControl(this.resource, true, this.scheduleDelayMs);
  }

  /**
   * Reconcile again after `delayMs`. As in JOSDK this is a reschedule, not a retry: it cancels the
   * retry (implies `withNoRetry()`), so the next run starts with fresh retry info and the retry
   * policy's attempts and delays do not apply to it.
   * @throws InvalidControlArgumentError when the delay is negative or not a finite number, or on a
   * `defaultErrorProcessing()` control.
   */
  rescheduleAfter(delayMs: number): ErrorStatusUpdateControl<P> {
    this.refuseOnDefaultProcessing(`rescheduleAfter(${String(delayMs)})`);
    return new ErrorStatusUpdateControl(this.resource, true, checkDelay(delayMs));
  }

  private refuseOnDefaultProcessing(call: string): void {
    if (this.defaultErrorProcessing) {
      throw new InvalidControlArgumentError(
        `ErrorStatusUpdateControl.defaultErrorProcessing().${call}: default error processing retries as configured and cannot be changed; return ErrorStatusUpdateControl.noStatusUpdate().${call} (or patchStatus(resource).${call}) instead`,
      );
    }
  }
}
