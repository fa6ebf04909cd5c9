import type { EventSourceRetriever, ResourceEventRecorder } from '../../api/context.js';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import { isCleaner } from '../../api/reconciler.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import type { ResourceEventSource } from '../../event/event-source.js';
import type { ResourceOperationsHost } from '../../event/sources/resource-operations.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import type { ResolvedControllerConfiguration } from '../../config/controller-configuration.js';
import type {
  ExecutionHandler,
  ExecutionScope,
  PostExecutionControl,
} from '../../event/internal/execution.js';
import {
  currentResourceContext,
  resourceContextOf,
  runWithResourceContext,
} from '../../logging/resource-context.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { ManagedWorkflow } from '../../workflow/internal/managed-workflow.js';
import type { OwnWrite } from '../../event/sources/own-write.js';
import {
  InvalidControlError,
  ReconcileAbandonedError,
  ReconcileError,
  ReconcileTimeoutError,
} from '../errors.js';
import { cloneResource } from './clone.js';
import { DefaultContext } from './default-context.js';
import type { SecondaryResourceSources } from './default-context.js';
import { fencedClient } from './fenced-client.js';
import { PrimaryWriter, hasFinalizer } from './primary-writer.js';
import type { DispatcherClient, Written } from './primary-writer.js';
import type { WriteFence } from './write-fence.js';

/** Where the dispatcher puts resources it wrote, so the next reconcile sees them (the informer). */
export interface WritableCache<P extends KubernetesResource> {
  /** @param previousResourceVersion - the version the write was based on. */
  cacheIfNewer(resource: P, previousResourceVersion?: string): boolean;
  /** The cached primary now (own writes included); writes that would change nothing on it are not sent. */
  get?(id: ResourceID): P | undefined;
  /**
   * Caches the result of an own write when it holds only our change (see
   * `ControllerEventSource.cacheOwnWrite`). When absent, the dispatcher checks that itself and
   * calls {@link WritableCache.cacheIfNewer}.
   */
  cacheOwnWrite?(
    result: P,
    previousResourceVersion: string | undefined,
    cached: P | undefined,
    did: OwnWrite<P>,
  ): boolean;
  /**
   * A write of the primary `id` was not sent because `judgedOn` (the cached primary it was judged
   * on) already held it. The cache may lag the server, so the next change of `id` must reconcile
   * even where the default filters would drop it (see `ControllerEventSource.skippedWrite`).
   */
  skippedWrite?(id: ResourceID, judgedOn: P | undefined): void;
  /**
   * Whether the cached own write `written` (an `UpdateControl` resource patch) must reconcile again
   * because its watch event, reported against the cached write, will not (see
   * `ControllerEventSource.ownWriteReconciles`). When absent, it never does.
   */
  ownWriteReconciles?(written: P, before: P): boolean;
  /**
   * Runs an own write of the primary whose watch event must not trigger the controller again
   * (`resourceOperations()` primary writes); caches the result. When absent, they are only cached.
   */
  write?(
    id: ResourceID,
    previousResourceVersion: string | undefined,
    write: () => Promise<P>,
    did: OwnWrite<P>,
  ): Promise<P>;
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
  /**
   * Closed when processing stops for good for running reconciliations (after the operator's
   * `terminationTimeoutMs`, or at once on the loss of leadership): their writes are then refused
   * with `ReconcileAbandonedError`. Defaults to always open.
   */
  readonly fence?: WriteFence;
}

/** One dispatch: its scope, its write ticket (see {@link WriteFence}) and logger. */
interface Run<P extends KubernetesResource> {
  readonly scope: ExecutionScope<P>;
  readonly ticket: number;
  readonly logger: Logger;
}

/**
 * When a cleanup keeps the finalizer because a delete postcondition of the workflow did not hold,
 * it is run again after this long (besides the dependents' delete events, which usually come first).
 */
export const POSTCONDITION_RECHECK_MS = 5_000;

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
  /** What every reconciliation's `resourceOperations()` shares (see {@link RunOperations}). */
  private readonly shared: SharedOperations<P>;

  constructor(private readonly o: ReconciliationDispatcherOptions<P>) {
    this.writer = new PrimaryWriter({
      type: o.config.resourceType,
      client: o.client,
      fieldManager: o.config.fieldManager,
      useSSA: o.config.useSSA,
      finalizerName: o.config.finalizerName,
    });
    this.reconcilerIsCleaner = isCleaner(o.reconciler);
    this.shared = {
      primaryType: o.config.resourceType,
      fieldManager: o.config.fieldManager,
      cachePrimary: (resource, previous, did) =>
        void this.cacheWritten({ resource, did }, previous, ResourceID.fromResource(resource)),
      writePrimary: o.cache.write
        ? (id, previous, write, did) => o.cache.write!(id, previous, write, did)
        : undefined,
      checkFence: (run) => this.checkFence(run, 'resourceOperations() write'),
      sourcesFor: (type) => o.secondary.sourcesFor(type),
    };
    this.cleaner = this.reconcilerIsCleaner || (o.managedWorkflow?.hasCleaner() ?? false);
  }

  handleExecution(scope: ExecutionScope<P>): Promise<PostExecutionControl<P>> {
    const context = resourceContextOf(scope.resource, this.o.config.name);
    const ticket = this.o.fence?.ticket() ?? 0;
    // the operator's logger adds the resource context to every line written in this scope
    const logger = this.o.logger;
    return runWithResourceContext(context, () =>
      this.dispatchSafely({ scope, ticket, logger }).catch((error: unknown) => {
        if (error instanceof ReconcileAbandonedError) return this.abandoned(error, logger);
        logger.error('dispatch failed', { error: messageOf(error) });
        return { error: this.wrap(error, scope.id, 'dispatch failed') };
      }),
    );
  }

  /** Whether the reconciliation holding `ticket` may still write. */
  private allows(ticket: number): boolean {
    return this.o.fence?.allows(ticket) ?? true;
  }

  /** @throws ReconcileAbandonedError when the reconciliation holding `ticket` may no longer write. */
  private checkFence(run: Run<P>, write: string): void {
    if (!this.allows(run.ticket)) throw new ReconcileAbandonedError(this.o.config.name, run.scope.id, write);
  }

  /** A refused write: logged, nothing else written (no error status, no Event); failed for a later start. */
  private abandoned(error: ReconcileAbandonedError, logger: Logger): PostExecutionControl<P> {
    logger.warn('write refused: the reconciliation outlived stop or leadership', {
      write: error.write,
      errorCode: error.code,
    });
    return { error };
  }

  /**
   * Caches a write of the primary for the next reconciliation when it holds only our change
   * (see `ControllerEventSource.cacheOwnWrite`); a result that also carries someone else's change
   * (a write that changed nothing returns the current version) is left to the events.
   */
  private cacheWritten(
    written: Written<P>,
    previousResourceVersion: string | undefined,
    id: ResourceID,
    dispatched?: P,
  ): boolean {
    const cache = this.o.cache;
    if (cache.cacheOwnWrite)
      return cache.cacheOwnWrite(written.resource, previousResourceVersion, undefined, written.did);
    const current = cache.get ? cache.get(id) : dispatched;
    if (current?.metadata?.resourceVersion === written.resource.metadata?.resourceVersion) return false;
    const ours =
      (written.did.certain?.(written.resource) ?? false) || written.did.explains(current, written.resource);
    return ours && cache.cacheIfNewer(written.resource, previousResourceVersion);
  }

  /** {@link dispatch}, with a synchronous throw turned into a rejection. */
  private dispatchSafely(run: Run<P>): Promise<PostExecutionControl<P>> {
    try {
      return this.dispatch(run);
    } catch (error) {
      // passed on as thrown (wrapped by the caller)
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(error);
    }
  }

  /** Not async itself (one promise less per reconciliation): each branch returns its own promise. */
  private dispatch(run: Run<P>): Promise<PostExecutionControl<P>> {
    const { resource } = run.scope;
    const { finalizerName } = this.o.config;
    const marked = Boolean(resource.metadata?.deletionTimestamp);
    if (this.cleaner && !marked && !hasFinalizer(resource, finalizerName)) return this.addFinalizer(run);
    if (marked) {
      if (this.cleaner && hasFinalizer(resource, finalizerName)) return this.cleanup(run);
      run.logger.debug('marked for deletion; nothing to do (no finalizer of this controller)');
      return Promise.resolve({});
    }
    return this.reconcile(run);
  }

  /** A Cleaner's finalizer, added in a write of its own before the first reconcile. */
  private async addFinalizer(run: Run<P>): Promise<PostExecutionControl<P>> {
    const { scope, logger } = run;
    const { resource, id } = scope;
    const { finalizerName } = this.o.config;
    try {
      this.checkFence(run, `add finalizer ${finalizerName}`);
      const written = await this.writerFor(run.ticket).addFinalizer(resource, id);
      // Once the cache holds the own write, its watch event no longer looks like a finalizer
      // change to the filters; reconcile right away instead (JOSDK's instant reschedule). When
      // it is not cached (it carries someone else's change too), that event reconciles.
      const cached = written
        ? this.cacheWritten(written, resource.metadata?.resourceVersion, id, resource)
        : false;
      logger.debug('finalizer added', { finalizer: finalizerName });
      return { updatedResource: written?.resource, rescheduleDelayMs: cached ? 0 : undefined };
    } catch (error) {
      if (error instanceof ReconcileAbandonedError) return this.abandoned(error, logger);
      logger.warn('adding the finalizer failed', { error: messageOf(error) });
      return { error: this.wrap(error, id, `adding finalizer ${finalizerName} failed`) };
    }
  }

  private async reconcile(run: Run<P>): Promise<PostExecutionControl<P>> {
    const { scope, logger } = run;
    const { resource: original, id } = scope;
    const copy = cloneResource(original);
    const context = this.context(run, copy, scope.retryInfo);
    try {
      const workflow = this.o.managedWorkflow;
      const control = await this.withTimeout(
        id,
        workflow && !workflow.explicitInvocation
          ? async () => {
              await context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
              return this.o.reconciler.reconcile(copy, context);
            }
          : () => this.o.reconciler.reconcile(copy, context),
      );
      this.checkUpdateControl(control, id);
      const keepFinalizer = this.cleaner;
      let updated: P | undefined;
      let previous = original.metadata?.resourceVersion;
      // JOSDK: the event of a resource patch that grew the generation reconciles again
      let again = false;
      // a write that would change nothing on the cached primary is not sent (and suppresses nothing)
      if (control.isPatchResource()) {
        this.checkFence(run, 'patch resource');
        const current = this.o.cache.get?.(id);
        const sending = this.writerFor(run.ticket).patchResource(
          original,
          control.resource!,
          id,
          keepFinalizer,
          current,
        );
        const written = sending && (await sending);
        if (written) {
          const cached = this.cacheWritten(written, previous, id, original);
          // not cached (it carries someone else's change too): its event passes the filters as is
          again =
            cached && (this.o.cache.ownWriteReconciles?.(written.resource, current ?? original) ?? false);
          updated = written.resource;
          previous = updated.metadata?.resourceVersion;
        } else this.o.cache.skippedWrite?.(id, current ?? original);
      }
      if (control.isPatchStatus()) {
        this.checkFence(run, 'patch status');
        const current = this.o.cache.get?.(id);
        const sending = this.writerFor(run.ticket).patchStatus(
          original,
          control.resource!,
          id,
          current ?? updated,
        );
        const written = sending && (await sending);
        if (written) {
          this.cacheWritten(written, previous, id, updated ?? original);
          updated = written.resource;
        } else this.o.cache.skippedWrite?.(id, current ?? updated ?? original);
      }
      // the follow-up replaces a requested reschedule, as JOSDK's event does (an event wins)
      return again
        ? { kind: 'reconcile', updatedResource: updated, rescheduleDelayMs: 0 }
        : {
            kind: 'reconcile',
            updatedResource: updated,
            rescheduleDelayMs: control.scheduleDelayMs,
            reschedulePriority: control.priority,
          };
    } catch (error) {
      if (error instanceof ReconcileAbandonedError)
        return { kind: 'reconcile', ...this.abandoned(error, logger) };
      return this.handleReconcileError(run, original, error, context);
    }
  }

  private async handleReconcileError(
    run: Run<P>,
    original: P,
    error: unknown,
    failed: DefaultContext<P>,
  ): Promise<PostExecutionControl<P>> {
    const { scope, logger } = run;
    const { id } = scope;
    if (!this.allows(run.ticket)) {
      // no Warning Event, no error status: this reconciliation may no longer write
      const refused =
        error instanceof ReconcileAbandonedError
          ? error
          : new ReconcileAbandonedError(this.o.config.name, id, 'error handling');
      return { kind: 'reconcile', ...this.abandoned(refused, logger) };
    }
    const wrapped = this.wrap(error, id, 'reconcile failed');
    logger.warn('reconcile failed', {
      error: messageOf(error),
      errorCode: (error as { code?: unknown })?.code,
    });
    this.recordWarning(original, RECONCILE_FAILED_REASON, messageOf(error), logger);
    const reconciler = this.o.reconciler;
    if (!reconciler.updateErrorStatus) return { kind: 'reconcile', error: wrapped };
    const copy = cloneResource(original);
    // the reconciliation's context with the failure's retry info: the managed workflow's result too
    const context = failed.forErrorStatus(copy, scope.retryInfoOnFailure());
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
        this.checkFence(run, 'patch error status');
        const current = this.o.cache.get?.(id);
        const sending = this.writerFor(run.ticket).patchStatus(original, control.resource, id, current);
        const written = sending && (await sending);
        if (written) {
          updated = written.resource;
          this.cacheWritten(written, original.metadata?.resourceVersion, id, original);
        } else this.o.cache.skippedWrite?.(id, current ?? original);
      } catch (patchError) {
        if (patchError instanceof ReconcileAbandonedError)
          return { kind: 'reconcile', ...this.abandoned(patchError, logger) };
        logger.warn('patching the error status failed', { error: messageOf(patchError) });
      }
    }
    if (control.noRetry) {
      return {
        kind: 'reconcile',
        noRetryError: wrapped,
        updatedResource: updated,
        rescheduleDelayMs: control.scheduleDelayMs,
      };
    }
    return { kind: 'reconcile', error: wrapped, updatedResource: updated };
  }

  private async cleanup(run: Run<P>): Promise<PostExecutionControl<P>> {
    const { scope, logger } = run;
    const { resource: original, id } = scope;
    const cleaner = this.o.reconciler as unknown as {
      cleanup(r: P, c: DefaultContext<P>): DeleteControl | Promise<DeleteControl>;
    };
    const copy = cloneResource(original);
    const context = this.context(run, copy, scope.retryInfo);
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
        // JOSDK's Controller.cleanup: the reconciler's noFinalizerRemoval() wins; a defaultDelete()
        // removes the finalizer when every delete postcondition of the workflow cleanup held. A
        // dependent whose delete failed is an error (thrown, so retried) unless errors are handled in
        // the reconciler (silent mode): then it does not keep the finalizer, the reconciler decides
        // with what it read from the cleanup result.
        const cleaned = workflowContext.getWorkflowCleanupResult();
        if (
          result instanceof DeleteControl &&
          result.removeFinalizer &&
          cleaned &&
          !cleaned.allPostConditionsMet()
        ) {
          // the dependents' delete events reconcile again; the reschedule is there for dependents
          // whose deletion brings no event (external ones), so the finalizer is never kept with
          // nothing scheduled
          return DeleteControl.noFinalizerRemoval().rescheduleAfter(POSTCONDITION_RECHECK_MS);
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
      if (!control.removeFinalizer)
        return {
          kind: 'cleanup',
          rescheduleDelayMs: control.scheduleDelayMs,
          reschedulePriority: control.priority,
        };
      this.checkFence(run, `remove finalizer ${this.o.config.finalizerName}`);
      const written = await this.writerFor(run.ticket).removeFinalizer(original, id);
      if (written) this.cacheWritten(written, original.metadata?.resourceVersion, id, original);
      logger.debug('finalizer removed', { finalizer: this.o.config.finalizerName });
      return { kind: 'cleanup', finalizerRemoved: true, updatedResource: written?.resource };
    } catch (error) {
      if (error instanceof ReconcileAbandonedError || !this.allows(run.ticket)) {
        const refused =
          error instanceof ReconcileAbandonedError
            ? error
            : new ReconcileAbandonedError(this.o.config.name, id, 'error handling');
        return { kind: 'cleanup', ...this.abandoned(refused, logger) };
      }
      logger.warn('cleanup failed', {
        error: messageOf(error),
        errorCode: (error as { code?: unknown })?.code,
      });
      this.recordWarning(original, CLEANUP_FAILED_REASON, messageOf(error), logger);
      return { kind: 'cleanup', error: this.wrap(error, id, 'cleanup failed') };
    }
  }

  /** The client of reconciliations holding `ticket`: its writes are refused once they may not write. */
  private clientFor(ticket: number): KubernetesClient {
    const base = (this.o.contextClient ?? this.o.client) as KubernetesClient;
    if (!this.o.fence) return base;
    if (this.fenced?.ticket !== ticket) {
      const client = fencedClient(
        base,
        () => this.allows(ticket),
        (write) => {
          const current = currentResourceContext();
          const id = new ResourceID(current?.['resource.name'] ?? '', current?.['resource.namespace']);
          return new ReconcileAbandonedError(this.o.config.name, id, write);
        },
      );
      this.fenced = { ticket, client };
    }
    return this.fenced.client;
  }

  private fenced?: { ticket: number; client: KubernetesClient };

  /**
   * The primary writer of reconciliations holding `ticket`: its writes, and the client's own
   * retries of them (a 429's Retry-After may outlast the stop), are refused once they may not write.
   */
  private writerFor(ticket: number): PrimaryWriter<P> {
    if (!this.o.fence) return this.writer;
    if (this.fencedWriter?.ticket !== ticket) {
      const client = fencedClient(
        this.o.client as KubernetesClient,
        () => this.allows(ticket),
        (write) => {
          const current = currentResourceContext();
          const id = new ResourceID(current?.['resource.name'] ?? '', current?.['resource.namespace']);
          return new ReconcileAbandonedError(this.o.config.name, id, write);
        },
      );
      this.fencedWriter = { ticket, writer: this.writer.withClient(client) };
    }
    return this.fencedWriter.writer;
  }

  private fencedWriter?: { ticket: number; writer: PrimaryWriter<P> };

  private context(run: Run<P>, primary: P, retryInfo: ExecutionScope<P>['retryInfo']) {
    const { scope, logger, ticket } = run;
    const client = this.clientFor(ticket);
    return new DefaultContext<P>({
      primary,
      retryInfo,
      isNextReconciliationImminent: () => scope.isNextReconciliationImminent(),
      client,
      logger,
      eventRecorder: this.o.eventRecorder,
      controllerName: this.o.config.name,
      secondary: this.o.secondary,
      eventSources: this.o.eventSources,
      managedWorkflow: this.o.managedWorkflow,
      operations: new RunOperations(this.shared, run, client),
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
    let run: Promise<T>;
    try {
      // a promise the reconciler returned is awaited as it is (no wrapping promise per call)
      run = Promise.resolve(fn());
    } catch (error) {
      // a reconciler may throw anything; it is passed on as thrown (and wrapped later)
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      run = Promise.reject(error);
    }
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

/** The part of {@link RunOperations} that is the same for every reconciliation of a controller. */
interface SharedOperations<P extends KubernetesResource> {
  readonly primaryType: ResourceType<P>;
  readonly fieldManager: string;
  readonly cachePrimary: ResourceOperationsHost<P>['cachePrimary'];
  readonly writePrimary: ResourceOperationsHost<P>['writePrimary'];
  readonly checkFence: (run: Run<P>) => void;
  readonly sourcesFor: ResourceOperationsHost<P>['sourcesFor'];
}

/**
 * What `resourceOperations()` of one reconciliation writes with and caches into: one object per
 * reconciliation over the controller's shared part, instead of a closure per member each time.
 */
class RunOperations<P extends KubernetesResource> implements ResourceOperationsHost<P> {
  readonly primaryType: ResourceType<P>;
  readonly fieldManager: string;
  readonly writePrimary: ResourceOperationsHost<P>['writePrimary'];

  constructor(
    private readonly shared: SharedOperations<P>,
    private readonly run: Run<P>,
    readonly client: KubernetesClient,
  ) {
    this.primaryType = shared.primaryType;
    this.fieldManager = shared.fieldManager;
    this.writePrimary = shared.writePrimary;
  }

  cachePrimary(resource: P, previousResourceVersion: string | undefined, did: OwnWrite<P>): void {
    this.shared.cachePrimary(resource, previousResourceVersion, did);
  }

  beforeWrite(): void {
    this.shared.checkFence(this.run);
  }

  sourcesFor(type: ResourceType): ReadonlyArray<{ name: string; source: ResourceEventSource }> {
    return this.shared.sourcesFor(type);
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined (did you forget to return?)';
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object of class ${value.constructor?.name ?? 'Object'}`;
  return typeof value;
}
