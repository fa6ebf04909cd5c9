import type { Context, ManagedWorkflowAndDependentResourceContext } from '../../api/context.js';
import type { EventSourceContext } from '../../api/event-source-context.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { EventSource } from '../../event/event-source.js';
import { isEventSourceProvider } from '../../dependent/dependent-resource.js';
import { DependentResourceError } from '../../dependent/errors.js';
import { WorkflowConfigurationError, WorkflowUsageError } from '../errors.js';
import type { ManagedDependentSpec, ManagedWorkflowSpec } from '../managed-workflow.js';
import { WorkflowCleanupResult } from '../workflow-result.js';
import type { WorkflowReconcileResult } from '../workflow-result.js';
import { DEFAULT_WORKFLOW_EXECUTOR_SIZE } from '../workflow.js';
import { DefaultWorkflow } from './default-workflow.js';
import type { WorkflowResultKeeper } from './default-workflow.js';

/**
 * A controller's managed workflow (JOSDK's `DefaultManagedWorkflow`): the workflow built from the
 * declaration at registration, plus the event sources its dependents bring.
 */
export class ManagedWorkflow<P extends KubernetesResource> {
  readonly workflow: DefaultWorkflow<P>;
  readonly explicitInvocation: boolean;
  readonly handleExceptionsInReconciler: boolean;
  private readonly shared = new Map<string, string>();

  /**
   * @param defaults - what the declaration may leave out: `executorSize` (the operator's
   * `defaultWorkflowExecutorSize`; without it {@link DEFAULT_WORKFLOW_EXECUTOR_SIZE}, no bound of
   * the workflow's own).
   * @throws WorkflowConfigurationError for a bad declaration (cycle, unknown dependsOn, duplicates,
   * an executor size that is not a positive integer).
   */
  constructor(spec: ManagedWorkflowSpec<P>, defaults: { executorSize?: number } = {}) {
    const specs: ReadonlyArray<ManagedDependentSpec<P>> | undefined = spec?.dependents;
    if (!specs || typeof specs.map !== 'function') {
      throw new WorkflowConfigurationError(
        'InvalidWorkflow',
        'workflow.dependents must be an array of dependent declarations',
      );
    }
    const declarations = specs.map((d) => ({ dependent: instantiate(d.dependent), options: d }));
    this.workflow = new DefaultWorkflow(declarations, {
      executorSize: spec.executorSize ?? defaults.executorSize ?? DEFAULT_WORKFLOW_EXECUTOR_SIZE,
      silent: true,
    });
    specs.forEach((d, i) => {
      if (d.useEventSourceWithName) this.shared.set(this.workflow.nodes[i].name, d.useEventSourceWithName);
    });
    this.explicitInvocation = spec.explicitInvocation ?? false;
    this.handleExceptionsInReconciler = spec.handleExceptionsInReconciler ?? false;
  }

  /**
   * The event sources the dependents bring, to register with the controller at its creation:
   * dependents with an activation condition register theirs only while active, and dependents with
   * `useEventSourceWithName` get theirs from `lookup` once every source exists ({@link ManagedWorkflow.connectSharedSources}).
   */
  eventSources(context: EventSourceContext<P>): Array<[string, EventSource]> {
    const result: Array<[string, EventSource]> = [];
    for (const node of this.workflow.nodes) {
      const d = node.dependent;
      if (!isEventSourceProvider(d) || node.activationCondition || this.shared.has(node.name)) continue;
      result.push([d.eventSourceName, d.eventSource(context)]);
    }
    return result;
  }

  /**
   * Hands dependents declared with `useEventSourceWithName` the named source.
   * @throws WorkflowConfigurationError when no event source has that name.
   */
  connectSharedSources(lookup: (name: string) => EventSource | undefined): void {
    for (const node of this.workflow.nodes) {
      const name = this.shared.get(node.name);
      if (!name) continue;
      const source = lookup(name);
      if (!source || !isEventSourceProvider(node.dependent)) {
        throw new WorkflowConfigurationError(
          'InvalidWorkflow',
          source
            ? `dependent "${node.name}" cannot use a shared event source (it provides none of its own)`
            : `dependent "${node.name}" uses the event source "${name}", which the controller does not have`,
          [node.name],
        );
      }
      node.dependent.useEventSource(source);
    }
  }

  /** Whether the primary needs a finalizer for the workflow's cleanup. */
  hasCleaner(): boolean {
    return this.workflow.hasCleaner();
  }

  async reconcile(primary: P, context: Context<P>): Promise<WorkflowReconcileResult> {
    const result = await this.workflow.reconcile(primary, context);
    if (!this.handleExceptionsInReconciler) result.throwAggregatedErrorIfErrorsPresent();
    return result;
  }

  async cleanup(primary: P, context: Context<P>): Promise<WorkflowCleanupResult> {
    const result = await this.workflow.cleanup(primary, context);
    if (!this.handleExceptionsInReconciler) result.throwAggregatedErrorIfErrorsPresent();
    return result;
  }
}

/** The per-run {@link ManagedWorkflowAndDependentResourceContext}. */
export class ManagedWorkflowContext<P extends KubernetesResource>
  implements ManagedWorkflowAndDependentResourceContext<P>, WorkflowResultKeeper
{
  private reconcileResult: WorkflowReconcileResult | undefined;
  private cleanupResult: WorkflowCleanupResult | undefined;
  private readonly values = new Map<string, unknown>();

  constructor(
    private readonly managed: ManagedWorkflow<P> | undefined,
    readonly primary: P,
    private readonly context: Context<P>,
  ) {}

  async reconcileManagedWorkflow(): Promise<WorkflowReconcileResult> {
    const managed = this.require('reconcileManagedWorkflow');
    this.checkImplicitRun(managed, 'reconcileManagedWorkflow');
    // kept before throwing, so this context (and the one updateErrorStatus gets) still has it
    this.reconcileResult = await managed.workflow.reconcile(this.primary, this.context);
    if (!managed.handleExceptionsInReconciler) this.reconcileResult.throwAggregatedErrorIfErrorsPresent();
    return this.reconcileResult;
  }

  async cleanupManagedWorkflow(): Promise<WorkflowCleanupResult> {
    const managed = this.require('cleanupManagedWorkflow');
    this.checkImplicitRun(managed, 'cleanupManagedWorkflow');
    // As JOSDK (Controller.cleanup, cleanupManagedWorkflow): a workflow that deletes nothing itself
    // (only garbage-collected or read-only dependents) has no cleanup; run, its delete
    // postconditions would wait for secondaries that go only after the finalizer does.
    if (!managed.hasCleaner()) {
      return (this.cleanupResult = new WorkflowCleanupResult([], [], new Map(), new Map()));
    }
    this.cleanupResult = await managed.workflow.cleanup(this.primary, this.context);
    if (!managed.handleExceptionsInReconciler) this.cleanupResult.throwAggregatedErrorIfErrorsPresent();
    return this.cleanupResult;
  }

  /** This context's results and values, for `primary` in `context` (the error handler's). */
  carriedTo(primary: P, context: Context<P>): ManagedWorkflowContext<P> {
    const next = new ManagedWorkflowContext(this.managed, primary, context);
    next.reconcileResult = this.reconcileResult;
    next.cleanupResult = this.cleanupResult;
    for (const run of this.implicitRuns) next.implicitRuns.add(run);
    for (const [key, value] of this.values) next.values.set(key, value);
    return next;
  }

  /** Keeps the result of a workflow run in this reconciliation (managed or standalone). */
  keepWorkflowReconcileResult(result: WorkflowReconcileResult): void {
    this.reconcileResult = result;
  }

  /** Keeps the result of a workflow cleanup in this reconciliation (managed or standalone). */
  keepWorkflowCleanupResult(result: WorkflowCleanupResult): void {
    this.cleanupResult = result;
  }

  getWorkflowReconcileResult(): WorkflowReconcileResult | undefined {
    return this.reconcileResult;
  }

  getWorkflowCleanupResult(): WorkflowCleanupResult | undefined {
    return this.cleanupResult;
  }

  getSecondaryResource<R>(dependentName: string): R | undefined {
    const node = this.require('getSecondaryResource').workflow.nodes.find((n) => n.name === dependentName);
    if (!node) throw new WorkflowUsageError(`the managed workflow has no dependent named "${dependentName}"`);
    try {
      return node.dependent.getSecondaryResource(this.primary, this.context) as R | undefined;
    } catch (error) {
      // a dependent with an activation condition that never held has no event source yet: nothing is
      // found, as in JOSDK (WorkflowInactiveDependentAccessIT), where its kind has no source to read
      if (
        node.activationCondition &&
        error instanceof DependentResourceError &&
        error.code === 'DependentNotConfigured'
      ) {
        return undefined;
      }
      throw error;
    }
  }

  put(key: string, value: unknown): void {
    this.values.set(key, value);
  }

  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  /**
   * A workflow without `explicitInvocation` is run by the framework, once per reconciliation and
   * before the reconciler (the first call in this context is the framework's); a second call is the
   * reconciler's, which JOSDK refuses (`IllegalStateException`: explicit invocation is not set).
   * @throws WorkflowUsageError for that second call.
   */
  private checkImplicitRun(
    managed: ManagedWorkflow<P>,
    method: 'reconcileManagedWorkflow' | 'cleanupManagedWorkflow',
  ): void {
    if (managed.explicitInvocation) return;
    if (this.implicitRuns.has(method)) {
      throw new WorkflowUsageError(
        `${method}(): the managed workflow is not declared with explicitInvocation, so the framework runs it before the reconciler (it ran for this reconciliation); declare workflow.explicitInvocation: true to run it yourself`,
      );
    }
    this.implicitRuns.add(method);
  }

  /** The framework's runs of a workflow without explicit invocation in this reconciliation. */
  private readonly implicitRuns = new Set<string>();

  private require(method: string): ManagedWorkflow<P> {
    if (!this.managed) {
      throw new WorkflowUsageError(
        `${method}(): the controller has no managed workflow (declare one with the workflow option)`,
      );
    }
    return this.managed;
  }
}

type Factory<T> = T | (() => T) | (new () => T);

/** A dependent given as an instance, a factory or a class with a no-argument constructor. */
function instantiate<T>(value: Factory<T>): T {
  if (typeof value !== 'function') return value;
  const proto = (value as { prototype?: { reconcile?: unknown } }).prototype;
  if (proto && typeof proto.reconcile === 'function') return new (value as new () => T)();
  return (value as () => T)();
}
