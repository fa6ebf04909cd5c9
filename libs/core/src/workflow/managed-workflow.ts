import type { KubernetesResource } from '../api/resource-type.js';
import type { DependentResource } from '../dependent/dependent-resource.js';
import type { DependentNodeOptions } from './workflow.js';

/**
 * One dependent of a managed workflow (JOSDK's `@Dependent`): the dependent (or a factory of it)
 * with its node options.
 *
 * @typeParam P - the primary kind.
 */
export interface ManagedDependentSpec<
  P extends KubernetesResource = KubernetesResource,
> extends DependentNodeOptions<unknown, P> {
  /** The dependent, a factory called once at registration, or a class with a no-argument constructor. */
  dependent:
    | DependentResource<unknown, P>
    | (() => DependentResource<unknown, P>)
    | (new () => DependentResource<unknown, P>);
  /** Use the controller's event source of this name (declared in `prepareEventSources` or by another dependent) instead of the dependent's own. Defaults to the dependent's own. */
  useEventSourceWithName?: string;
}

/**
 * A workflow declared on a reconciler (JOSDK's `@Workflow`), through the `workflow` option of
 * `@ControllerConfiguration` or of registration. The framework registers the dependents' event
 * sources, reconciles the workflow before `reconcile` and cleans it up on deletion.
 */
export interface ManagedWorkflowSpec<P extends KubernetesResource = KubernetesResource> {
  /** The dependents in declaration order. */
  dependents: ReadonlyArray<ManagedDependentSpec<P>>;
  /** The reconciler runs the workflow itself through the context (`reconcileManagedWorkflow()`, and `cleanupManagedWorkflow()` when it is a Cleaner). Defaults to false. */
  explicitInvocation?: boolean;
  /** Errors of dependents do not fail the reconciliation; the reconciler reads them from the result (silent mode). Defaults to false. */
  handleExceptionsInReconciler?: boolean;
  /**
   * Most dependent steps worked on at once by this workflow, across all primaries of the controller.
   * Defaults to the operator's `defaultWorkflowExecutorSize`, else no bound of the workflow's own
   * ({@link DEFAULT_WORKFLOW_EXECUTOR_SIZE}): the controller's `concurrentReconciliationThreads`
   * then bound it, as they bound the reconciler's own writes.
   */
  executorSize?: number;
}
