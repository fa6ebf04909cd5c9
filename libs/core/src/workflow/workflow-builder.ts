import type { KubernetesResource } from '../api/resource-type.js';
import type { DependentResource } from '../dependent/dependent-resource.js';
import type { ConditionDeclaration } from './condition.js';
import { WorkflowConfigurationError } from './errors.js';
import { DefaultWorkflow } from './internal/default-workflow.js';
import type { NodeDeclaration } from './internal/default-workflow.js';
import { DEFAULT_WORKFLOW_EXECUTOR_SIZE } from './workflow.js';
import type { DependentNodeOptions, Workflow } from './workflow.js';

/**
 * Builds a standalone {@link Workflow} (JOSDK's `WorkflowBuilder`). Each `with...` call applies to
 * the dependent added last.
 *
 * ```ts
 * const workflow = new WorkflowBuilder<WebPage>()
 *   .addDependentResource(configMap)
 *   .addDependentResource(deployment).dependsOn(configMap)
 *   .addDependentResource(ingress).withReconcilePrecondition((_, page) => page.spec?.exposed === true)
 *   .build();
 * ```
 */
export class WorkflowBuilder<P extends KubernetesResource = KubernetesResource> {
  private readonly declarations: Array<{
    dependent: DependentResource<unknown, P>;
    options: DependentNodeOptions<unknown, P>;
  }> = [];
  private executorSize = DEFAULT_WORKFLOW_EXECUTOR_SIZE;
  private silent = false;

  /** Adds a dependent, optionally with all its node options at once. */
  addDependentResource<R>(
    dependent: DependentResource<R, P>,
    options: DependentNodeOptions<R, P> = {},
  ): this {
    this.declarations.push({
      dependent: dependent,
      options: { ...(options as DependentNodeOptions<unknown, P>) },
    });
    return this;
  }

  /** The last added dependent depends on these (dependents or their names). */
  dependsOn(...dependencies: Array<DependentResource<unknown, P> | string>): this {
    const last = this.last('dependsOn');
    last.dependsOn = [
      ...(last.dependsOn ?? []),
      ...dependencies.map((d) => (typeof d === 'string' ? d : this.nameOf(d))),
    ];
    return this;
  }

  /** Names the last added dependent. */
  withName(name: string): this {
    this.last('withName').name = name;
    return this;
  }

  /** Reconcile precondition of the last added dependent. */
  withReconcilePrecondition(condition: ConditionDeclaration<unknown, P>): this {
    this.last('withReconcilePrecondition').reconcilePrecondition = condition;
    return this;
  }

  /** Ready postcondition of the last added dependent. */
  withReadyPostcondition(condition: ConditionDeclaration<unknown, P>): this {
    this.last('withReadyPostcondition').readyPostcondition = condition;
    return this;
  }

  /** Delete postcondition of the last added dependent. */
  withDeletePostcondition(condition: ConditionDeclaration<unknown, P>): this {
    this.last('withDeletePostcondition').deletePostcondition = condition;
    return this;
  }

  /** Activation condition of the last added dependent. */
  withActivationCondition(condition: ConditionDeclaration<unknown, P>): this {
    this.last('withActivationCondition').activationCondition = condition;
    return this;
  }

  /**
   * Most dependent steps worked on at once, across every run of the built workflow. Defaults to
   * {@link DEFAULT_WORKFLOW_EXECUTOR_SIZE}: no bound of its own (steps start as soon as the DAG
   * allows, within the reconciliations that run the workflow).
   */
  withExecutorSize(size: number): this {
    this.executorSize = size;
    return this;
  }

  /** When false, errors are only collected in the result (silent mode). Defaults to true (JOSDK's `withThrowExceptionFurther`). */
  withThrowExceptionFurther(throwFurther: boolean): this {
    this.silent = !throwFurther;
    return this;
  }

  /**
   * Builds the workflow.
   * @throws WorkflowConfigurationError for a cycle, an unknown dependsOn name or duplicate names.
   */
  build(): Workflow<P> {
    const declarations: NodeDeclaration<P>[] = this.declarations.map((d) => ({
      dependent: d.dependent,
      options: { ...d.options },
    }));
    return new DefaultWorkflow(declarations, { executorSize: this.executorSize, silent: this.silent });
  }

  private last(method: string): DependentNodeOptions<unknown, P> {
    const last = this.declarations.at(-1);
    if (!last) {
      throw new WorkflowConfigurationError(
        'InvalidWorkflow',
        `${method}() needs a dependent: call addDependentResource first`,
      );
    }
    return last.options;
  }

  private nameOf(dependent: DependentResource<unknown, P>): string {
    const found = this.declarations.find((d) => d.dependent === dependent);
    return found?.options.name ?? dependent.name;
  }
}
