import type { EventSourceRetriever, ResourceEventRecorder } from '../../api/context.js';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import { isCleaner } from '../../api/reconciler.js';
import type { Reconciler } from '../../api/reconciler.js';
import type { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import type { ResolvedControllerConfiguration } from '../../config/controller-configuration.js';
import type {
  ExecutionHandler,
  ExecutionScope,
  PostExecutionControl,
} from '../../event/internal/execution.js';
import { resourceContextOf, runWithResourceContext } from '../../logging/resource-context.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { ManagedWorkflow } from '../../workflow/internal/managed-workflow.js';
import { InvalidControlError, ReconcileError, ReconcileTimeoutError } from '../errors.js';
import { cloneResource } from './clone.js';
import { DefaultContext } from './default-context.js';
import type { SecondaryResourceSources } from './default-context.js';
import { PrimaryWriter, hasFinalizer } from './primary-writer.js';
import type { DispatcherClient } from './primary-writer.js';

/** Where the dispatcher puts resources it wrote, so the next reconcile sees them (the informer). */
export interface WritableCache<P extends KubernetesResource> {
  /** @param previousResourceVersion - the version the write was based on. */
  cacheIfNewer(resource: P, previousResourceVersion?: string): boolean;
  /**
   * Runs an own write of the primary whose watch event must not trigger the controller again
   * (`resourceOperations()` primary writes); caches the result. When absent, they are only cached.
   */
  write?(id: ResourceID, previousResourceVersion: string | undefined, write: () => Promise<P>): Promise<P>;
}

/** Settings of a {@link ReconciliationDispatcher}. */
export interface ReconciliationDispatcherOptions<P extends KubernetesResource> {
  readonly config: ResolvedControllerConfiguration<P>;
  readonly reconciler: Reconciler<P>;
  readonly client: DispatcherClient;
  /** The client handed to reconcilers; defaults to `client`. */
  readonly contextClient?: KubernetesClient;
  readonly cache: WritableCache<P>;
  readonly secondary: SecondaryResourceSources;
  /** The controller's event sources with dynamic registration (for `context.eventSourceRetriever()`). */
  readonly eventSources?: EventSourceRetriever<P>;
  /** The controller's managed workflow, if any: run before reconcile and on cleanup. */
  readonly managedWorkflow?: ManagedWorkflow<P>;
  readonly eventRecorder: ResourceEventRecorder;
  /** Should add the resource context to its lines (see `resourceContextLogger`). */
  readonly logger: Logger;
  readonly clock: Clock;
}

/** Reason of the Warning Event published when a reconciliation fails. */
export const RECONCILE_FAILED_REASON = 'ReconcileFailed';
/** Reason of the Warning Event published when a cleanup fails. */
export const CLEANUP_FAILED_REASON = 'CleanupFailed';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Calls the reconciler and applies its result (JOSDK's `ReconciliationDispatcher`):
 * - a Cleaner's finalizer is added in its own write before the first reconcile (reconcile is not
 *   called in that pass; the write's event triggers the next);
 * - a resource marked for deletion goes to `cleanup` (Cleaners holding the finalizer only), then the
 *   finalizer is removed on `defaultDelete`;
 * - the {@link UpdateControl} is applied (resource first, then status) and the written object cached;
 * - a failure goes through `updateErrorStatus`, a Warning Event and the event processor's retry.
 * Every call runs inside the resource's logging context.
 */
export class ReconciliationDispatcher<P extends KubernetesResource> implements ExecutionHandler<P> {
  private readonly writer: PrimaryWriter<P>;
  /** Whether the primary carries the finalizer (a Cleaner, or a workflow deleting dependents). */
  private readonly cleaner: boolean;
  private readonly reconcilerIsCleaner: boolean;

  constructor(private readonly o: ReconciliationDispatcherOptions<P>) {
    this.writer = new PrimaryWriter({
      type: o.config.resourceType,
      client: o.client,
      fieldManager: o.config.fieldManager,
      useSSA: o.config.useSSA,
      finalizerName: o.config.finalizerName,
    });
    this.reconcilerIsCleaner = isCleaner(o.reconciler);
    this.cleaner = this.reconcilerIsCleaner || (o.managedWorkflow?.hasCleaner() ?? false);
  }

  handleExecution(scope: ExecutionScope<P>): Promise<PostExecutionControl<P>> {
    const context = resourceContextOf(scope.resource, this.o.config.name);
    return runWithResourceContext(context, async () => {
      // the operator's logger adds the resource context to every line written in this scope
      const logger = this.o.logger;
      try {
        return await this.dispatch(scope, logger);
      } catch (error) {
        logger.error('dispatch failed', { error: messageOf(error) });
        return { error: this.wrap(error, scope.id, 'dispatch failed') };
      }
    });
  }

  private async dispatch(scope: ExecutionScope<P>, logger: Logger): Promise<PostExecutionControl<P>> {
    const { resource, id } = scope;
    const { finalizerName } = this.o.config;
    const marked = Boolean(resource.metadata?.deletionTimestamp);
    if (this.cleaner && !marked && !hasFinalizer(resource, finalizerName)) {
      try {
        const updated = await this.writer.addFinalizer(resource, id);
        // Once the cache holds the own write, its watch event no longer looks like a finalizer
        // change to the filters; reconcile right away instead (JOSDK's instant reschedule).
        const cached = updated
          ? this.o.cache.cacheIfNewer(updated, resource.metadata?.resourceVersion)
          : false;
        logger.debug('finalizer added', { finalizer: finalizerName });
        return { updatedResource: updated, rescheduleDelayMs: cached ? 0 : undefined };
      } catch (error) {
        logger.warn('adding the finalizer failed', { error: messageOf(error) });
        return { error: this.wrap(error, id, `adding finalizer ${finalizerName} failed`) };
      }
    }
    if (marked) {
      if (this.cleaner && hasFinalizer(resource, finalizerName)) return this.cleanup(scope, logger);
      logger.debug('marked for deletion; nothing to do (no finalizer of this controller)');
      return {};
    }
    return this.reconcile(scope, logger);
  }

  private async reconcile(scope: ExecutionScope<P>, logger: Logger): Promise<PostExecutionControl<P>> {
    const { resource: original, id } = scope;
    const copy = cloneResource(original);
    const context = this.context(scope, copy, logger, scope.retryInfo);
    try {
      const workflow = this.o.managedWorkflow;
      const control = await this.withTimeout(id, async () => {
        if (workflow && !workflow.explicitInvocation) {
          await context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
        }
        return this.o.reconciler.reconcile(copy, context);
      });
      this.checkUpdateControl(control, id);
      const keepFinalizer = this.cleaner;
      let updated: P | undefined;
      let previous = original.metadata?.resourceVersion;
      if (control.isPatchResource()) {
        updated = await this.writer.patchResource(original, control.resource!, id, keepFinalizer);
        this.o.cache.cacheIfNewer(updated, previous);
        previous = updated.metadata?.resourceVersion;
      }
      if (control.isPatchStatus()) {
        updated = await this.writer.patchStatus(original, control.resource!, id);
        this.o.cache.cacheIfNewer(updated, previous);
      }
      return { kind: 'reconcile', updatedResource: updated, rescheduleDelayMs: control.scheduleDelayMs };
    } catch (error) {
      return this.handleReconcileError(scope, original, error, logger);
    }
  }

  private async handleReconcileError(
    scope: ExecutionScope<P>,
    original: P,
    error: unknown,
    logger: Logger,
  ): Promise<PostExecutionControl<P>> {
    const { id } = scope;
    const wrapped = this.wrap(error, id, 'reconcile failed');
    logger.warn('reconcile failed', {
      error: messageOf(error),
      errorCode: (error as { code?: unknown })?.code,
    });
    this.recordWarning(original, RECONCILE_FAILED_REASON, messageOf(error), logger);
    const reconciler = this.o.reconciler;
    if (!reconciler.updateErrorStatus) return { kind: 'reconcile', error: wrapped };
    const copy = cloneResource(original);
    const context = this.context(scope, copy, logger, scope.retryInfoOnFailure());
    let control: ErrorStatusUpdateControl<P>;
    try {
      control = await this.withTimeout(id, () => reconciler.updateErrorStatus!(copy, context, error));
      if (!(control instanceof ErrorStatusUpdateControl)) {
        throw new InvalidControlError(
          `${this.o.config.name}: updateErrorStatus must return an ErrorStatusUpdateControl, got ${describe(control)}`,
          this.o.config.name,
          id,
        );
      }
      this.checkSameResource(control.resource, id, 'ErrorStatusUpdateControl');
    } catch (handlerError) {
      logger.error('updateErrorStatus failed; default error processing', { error: messageOf(handlerError) });
      return { kind: 'reconcile', error: wrapped };
    }
    let updated: P | undefined;
    if (control.resource) {
      try {
        updated = await this.writer.patchStatus(original, control.resource, id);
        this.o.cache.cacheIfNewer(updated, original.metadata?.resourceVersion);
      } catch (patchError) {
        logger.warn('patching the error status failed', { error: messageOf(patchError) });
      }
    }
    if (control.noRetry) {
      return { kind: 'reconcile', updatedResource: updated, rescheduleDelayMs: control.scheduleDelayMs };
    }
    return {
      kind: 'reconcile',
      error: wrapped,
      updatedResource: updated,
      retryDelayOverrideMs: control.scheduleDelayMs,
    };
  }

  private async cleanup(scope: ExecutionScope<P>, logger: Logger): Promise<PostExecutionControl<P>> {
    const { resource: original, id } = scope;
    const cleaner = this.o.reconciler as unknown as {
      cleanup(r: P, c: DefaultContext<P>): DeleteControl | Promise<DeleteControl>;
    };
    const copy = cloneResource(original);
    const context = this.context(scope, copy, logger, scope.retryInfo);
    try {
      const workflow = this.o.managedWorkflow;
      const control = await this.withTimeout(id, async () => {
        const workflowContext = context.managedWorkflowAndDependentResourceContext();
        // with explicit invocation a Cleaner cleans the workflow up itself; otherwise it runs first
        if (workflow && (!workflow.explicitInvocation || !this.reconcilerIsCleaner)) {
          await workflowContext.cleanupManagedWorkflow();
        }
        const result = this.reconcilerIsCleaner
          ? await cleaner.cleanup(copy, context)
          : DeleteControl.defaultDelete();
        const cleaned = workflowContext.getWorkflowCleanupResult();
        // dependents not deleted yet (a delete postcondition, or errors handled in the reconciler) keep the finalizer;
        // the events of their deletion reconcile again
        if (
          result instanceof DeleteControl &&
          result.removeFinalizer &&
          cleaned &&
          (!cleaned.allPostConditionsMet() || cleaned.erroredDependentsExist())
        ) {
          return DeleteControl.noFinalizerRemoval();
        }
        return result;
      });
      if (!(control instanceof DeleteControl)) {
        throw new InvalidControlError(
          `${this.o.config.name}: cleanup must return a DeleteControl (DeleteControl.defaultDelete() or .noFinalizerRemoval()), got ${describe(control)}`,
          this.o.config.name,
          id,
        );
      }
      if (!control.removeFinalizer) return { kind: 'cleanup', rescheduleDelayMs: control.scheduleDelayMs };
      const updated = await this.writer.removeFinalizer(original, id);
      if (updated) this.o.cache.cacheIfNewer(updated, original.metadata?.resourceVersion);
      logger.debug('finalizer removed', { finalizer: this.o.config.finalizerName });
      return { kind: 'cleanup', finalizerRemoved: true, updatedResource: updated };
    } catch (error) {
      logger.warn('cleanup failed', {
        error: messageOf(error),
        errorCode: (error as { code?: unknown })?.code,
      });
      this.recordWarning(original, CLEANUP_FAILED_REASON, messageOf(error), logger);
      return { kind: 'cleanup', error: this.wrap(error, id, 'cleanup failed') };
    }
  }

  private context(
    scope: ExecutionScope<P>,
    primary: P,
    logger: Logger,
    retryInfo: ExecutionScope<P>['retryInfo'],
  ) {
    return new DefaultContext<P>({
      primary,
      retryInfo,
      isNextReconciliationImminent: () => scope.isNextReconciliationImminent(),
      client: (this.o.contextClient ?? this.o.client) as KubernetesClient,
      logger,
      eventRecorder: this.o.eventRecorder,
      controllerName: this.o.config.name,
      secondary: this.o.secondary,
      eventSources: this.o.eventSources,
      managedWorkflow: this.o.managedWorkflow,
      operations: {
        client: (this.o.contextClient ?? this.o.client) as KubernetesClient,
        primaryType: this.o.config.resourceType,
        fieldManager: this.o.config.fieldManager,
        cachePrimary: (resource, previous) => void this.o.cache.cacheIfNewer(resource, previous),
        writePrimary: this.o.cache.write
          ? (id, previous, write) => this.o.cache.write!(id, previous, write)
          : undefined,
        sourcesFor: (type) => this.o.secondary.sourcesFor(type),
      },
    });
  }

  private checkUpdateControl(control: unknown, id: ResourceID): asserts control is UpdateControl<P> {
    if (!(control instanceof UpdateControl)) {
      throw new InvalidControlError(
        `${this.o.config.name}: reconcile must return an UpdateControl (e.g. UpdateControl.noUpdate()), got ${describe(control)}`,
        this.o.config.name,
        id,
      );
    }
    this.checkSameResource((control as UpdateControl<P>).resource, id, 'UpdateControl');
  }

  private checkSameResource(resource: P | undefined, id: ResourceID, what: string): void {
    if (!resource) return;
    const name = resource.metadata?.name;
    const namespace = resource.metadata?.namespace || undefined;
    if (name !== id.name || (namespace !== undefined && namespace !== id.namespace)) {
      throw new InvalidControlError(
        `${this.o.config.name}: the ${what} carries ${namespace ? `${namespace}/` : ''}${String(name)}, not the reconciled ${id.key}`,
        this.o.config.name,
        id,
      );
    }
  }

  private withTimeout<T>(id: ResourceID, fn: () => T | Promise<T>): Promise<T> {
    const run = new Promise<T>((resolve, reject) => {
      try {
        resolve(fn());
      } catch (error) {
        // a reconciler may throw anything; it is passed on as thrown (and wrapped later)
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(error);
      }
    });
    const timeoutMs = this.o.config.reconcileTimeoutMs;
    if (timeoutMs === undefined) return run;
    return new Promise<T>((resolve, reject) => {
      const handle = this.o.clock.setTimeout(
        () => reject(new ReconcileTimeoutError(this.o.config.name, id, timeoutMs)),
        timeoutMs,
      );
      run.then(
        (value) => {
          this.o.clock.clearTimeout(handle);
          resolve(value);
        },
        (error: unknown) => {
          this.o.clock.clearTimeout(handle);
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          reject(error);
        },
      );
    });
  }

  private wrap(error: unknown, id: ResourceID, what: string): ReconcileError {
    if (error instanceof ReconcileError) return error;
    return new ReconcileError(
      `${this.o.config.name}: ${what} for ${id.key}: ${messageOf(error)}`,
      this.o.config.name,
      id,
      {
        cause: error,
      },
    );
  }

  private recordWarning(resource: P, reason: string, message: string, logger: Logger): void {
    if (!this.o.config.recordReconcileErrorEvents) return;
    try {
      this.o.eventRecorder.warning(resource, reason, message).catch((error: unknown) => {
        logger.debug('recording the Warning event failed', { error: messageOf(error) });
      });
    } catch (error) {
      logger.debug('recording the Warning event failed', { error: messageOf(error) });
    }
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined (did you forget to return?)';
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object of class ${value.constructor?.name ?? 'Object'}`;
  return typeof value;
}
