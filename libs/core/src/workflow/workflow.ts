import type { Context } from '../api/context.js';
import type { KubernetesResource } from '../api/resource-type.js';
import type { DependentResource } from '../dependent/dependent-resource.js';
import type { AnyCondition, ConditionDeclaration } from './condition.js';
import type { WorkflowCleanupResult, WorkflowReconcileResult } from './workflow-result.js';

/**
 * Executor size of a workflow that sets none: no bound of its own. A workflow's steps then run as
 * soon as the DAG allows, inside the reconciliation that runs the workflow, so the controller's
 * reconcile concurrency (`concurrentReconciliationThreads`, 50 by default) and the client's socket
 * pool are what bound them. A bound below the controller's (the former default, 10) made every
 * managed dependent queue behind it: one dependent per primary cost ~1.9x the reconciler's own
 * write (issue 15).
 */
export const DEFAULT_WORKFLOW_EXECUTOR_SIZE = Number.POSITIVE_INFINITY;

/**
 * How a dependent takes part in a workflow (JOSDK's `@Dependent` attributes): its name, what it
 * depends on and its conditions.
 *
 * @typeParam R - the dependent's secondary type.
 * @typeParam P - the primary kind.
 */
export interface DependentNodeOptions<R = unknown, P extends KubernetesResource = KubernetesResource> {
  /** Name unique within the workflow. Defaults to the dependent's `name`. */
  name?: string;
  /** Names of the dependents reconciled (and ready) before this one. Defaults to none (a root). */
  dependsOn?: readonly string[];
  /** Must hold for the dependent to be reconciled; when false the dependent and all that depend on it are deleted. Defaults to none. */
  reconcilePrecondition?: ConditionDeclaration<R, P>;
  /** Must hold for the dependent to count as ready; dependents that depend on it wait. Defaults to none. */
  readyPostcondition?: ConditionDeclaration<R, P>;
  /** Must hold after deletion for what it depends on to be deleted. Defaults to none. */
  deletePostcondition?: ConditionDeclaration<R, P>;
  /** When false the dependent is neither reconciled nor deleted and its event source is deregistered. Defaults to none (always active). */
  activationCondition?: ConditionDeclaration<R, P>;
}

/** One dependent with its place in a workflow, as the engine takes it. */
export interface WorkflowNode<P extends KubernetesResource = KubernetesResource> {
  readonly name: string;
  readonly dependent: DependentResource<unknown, P>;
  readonly dependsOn: readonly WorkflowNode<P>[];
  /** The nodes that depend on this one. */
  readonly dependents: readonly WorkflowNode<P>[];
  readonly reconcilePrecondition?: AnyCondition<unknown, P>;
  readonly readyPostcondition?: AnyCondition<unknown, P>;
  readonly deletePostcondition?: AnyCondition<unknown, P>;
  readonly activationCondition?: AnyCondition<unknown, P>;
}

/**
 * A set of dependents ordered by their depends-on relation, a DAG (JOSDK's `Workflow`). Built with
 * {@link WorkflowBuilder} (standalone) or declared on a reconciler (managed).
 *
 * Reconciliation: roots first, then each node once all it depends on are reconciled and ready;
 * independent nodes run concurrently (at most `executorSize` at once when one is set); an error or unready node stops
 * only what depends on it. A false reconcile precondition deletes the node and all that depend on it,
 * in reverse order. Cleanup deletes in reverse order; a false delete postcondition or an error keeps
 * what the node depends on.
 */
export interface Workflow<P extends KubernetesResource = KubernetesResource> {
  /**
   * Reconciles every dependent that may be.
   * @throws AggregatedOperatorError when dependents failed, unless the workflow is silent.
   */
  reconcile(primary: P, context: Context<P>): Promise<WorkflowReconcileResult>;
  /**
   * Deletes the dependents in reverse order.
   * @throws AggregatedOperatorError when dependents failed, unless the workflow is silent.
   */
  cleanup(primary: P, context: Context<P>): Promise<WorkflowCleanupResult>;
  /** The nodes in declaration order. */
  readonly nodes: readonly WorkflowNode<P>[];
  /** Dependents by name. */
  getDependentResourcesByName(): ReadonlyMap<string, DependentResource<unknown, P>>;
  /** Whether cleanup calls `delete` on some dependent (a deleter not garbage collected): the primary then needs a finalizer. */
  hasCleaner(): boolean;
  /** Whether it has no dependent. */
  isEmpty(): boolean;
}
