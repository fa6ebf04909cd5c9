import type { Context } from '../../api/context.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { DependentResource } from '../../dependent/dependent-resource.js';
import { isDeletable } from '../../dependent/dependent-resource.js';
import { isCondition } from '../condition.js';
import type { AnyCondition, ConditionDeclaration } from '../condition.js';
import { WorkflowConfigurationError } from '../errors.js';
import type { WorkflowCleanupResult, WorkflowReconcileResult } from '../workflow-result.js';
import type { DependentNodeOptions, Workflow, WorkflowNode } from '../workflow.js';
import { Limiter } from './limiter.js';
import { WorkflowCleanupRun } from './workflow-cleanup-run.js';
import { WorkflowReconcileRun } from './workflow-reconcile-run.js';

/** One declared dependent: the dependent and its options. */
export interface NodeDeclaration<P extends KubernetesResource> {
  readonly dependent: DependentResource<unknown, P>;
  readonly options: DependentNodeOptions<unknown, P>;
}

/**
 * What keeps a run's workflow results for the reconciliation (the context's
 * `managedWorkflowAndDependentResourceContext()`, JOSDK's RECONCILE_RESULT_KEY / CLEANUP_RESULT_KEY).
 */
export interface WorkflowResultKeeper {
  keepWorkflowReconcileResult(result: WorkflowReconcileResult): void;
  keepWorkflowCleanupResult(result: WorkflowCleanupResult): void;
}

/** The context's result keeper, when it has one (a hand-made context in a unit test may not). */
function keeperOf(context: Context<KubernetesResource>): WorkflowResultKeeper | undefined {
  const get = (context as Partial<Context<KubernetesResource>>).managedWorkflowAndDependentResourceContext;
  if (typeof get !== 'function') return undefined;
  const keeper = get.call(context) as Partial<WorkflowResultKeeper> | undefined;
  return typeof keeper?.keepWorkflowReconcileResult === 'function'
    ? (keeper as WorkflowResultKeeper)
    : undefined;
}

/** Resolved settings of a {@link DefaultWorkflow}. */
export interface WorkflowSettings {
  /** Most node steps at once, across the runs of this workflow; `Infinity` for no bound of its own. */
  readonly executorSize: number;
  /** Collect errors in the result instead of throwing. */
  readonly silent: boolean;
}

interface MutableNode<P extends KubernetesResource> extends WorkflowNode<P> {
  dependsOn: WorkflowNode<P>[];
  dependents: WorkflowNode<P>[];
}

const CONDITIONS = [
  'reconcilePrecondition',
  'readyPostcondition',
  'deletePostcondition',
  'activationCondition',
] as const;

/**
 * Builds the DAG from declarations, checking names, references and cycles.
 * @throws WorkflowConfigurationError naming the dependents at fault.
 */
export function buildNodes<P extends KubernetesResource>(
  declarations: readonly NodeDeclaration<P>[],
): WorkflowNode<P>[] {
  const byName = new Map<string, MutableNode<P>>();
  const nodes: MutableNode<P>[] = [];
  for (const { dependent, options } of declarations) {
    if (!dependent || typeof dependent.reconcile !== 'function') {
      throw new WorkflowConfigurationError(
        'InvalidWorkflow',
        `workflow dependent ${options?.name ?? typeof dependent} must be a DependentResource (with reconcile(primary, context))`,
      );
    }
    const name = options.name ?? dependent.name;
    if (!name || typeof name !== 'string') {
      throw new WorkflowConfigurationError(
        'InvalidWorkflow',
        'a workflow dependent has no name; give it one',
      );
    }
    if (byName.has(name)) {
      throw new WorkflowConfigurationError(
        'DuplicateDependentName',
        `two workflow dependents are named "${name}"; give each a unique name`,
        [name],
      );
    }
    for (const key of CONDITIONS) {
      if (options[key] !== undefined && !isCondition(options[key])) {
        throw new WorkflowConfigurationError(
          'InvalidWorkflow',
          `${key} of dependent "${name}" must be a function or an object with isMet or detailedIsMet`,
          [name],
        );
      }
    }
    const node: MutableNode<P> = {
      name,
      dependent,
      dependsOn: [],
      dependents: [],
      reconcilePrecondition: conditionOf(options.reconcilePrecondition),
      readyPostcondition: conditionOf(options.readyPostcondition),
      deletePostcondition: conditionOf(options.deletePostcondition),
      activationCondition: conditionOf(options.activationCondition),
    };
    byName.set(name, node);
    nodes.push(node);
  }
  declarations.forEach(({ options }, i) => {
    const node = nodes[i];
    for (const dep of options.dependsOn ?? []) {
      const target = byName.get(dep);
      if (!target) {
        throw new WorkflowConfigurationError(
          'UnknownDependsOn',
          `dependent "${node.name}" depends on "${dep}", which is not a dependent of the workflow (known: ${[...byName.keys()].join(', ')})`,
          [node.name, dep],
        );
      }
      if (!node.dependsOn.includes(target)) {
        node.dependsOn.push(target);
        target.dependents.push(node);
      }
    }
  });
  checkAcyclic(nodes);
  return nodes;
}

/** A condition class (with `isMet` or `detailedIsMet` on its prototype) becomes an instance. */
function conditionOf<P extends KubernetesResource>(
  condition: ConditionDeclaration<unknown, P> | undefined,
): AnyCondition<unknown, P> | undefined {
  if (typeof condition !== 'function') return condition;
  const proto = (condition as { prototype?: Record<string, unknown> }).prototype;
  if (proto && (typeof proto['isMet'] === 'function' || typeof proto['detailedIsMet'] === 'function')) {
    return new (condition as new () => AnyCondition<unknown, P>)();
  }
  return condition as AnyCondition<unknown, P>;
}

function checkAcyclic<P extends KubernetesResource>(nodes: readonly WorkflowNode<P>[]): void {
  const state = new Map<WorkflowNode<P>, 'visiting' | 'done'>();
  const path: WorkflowNode<P>[] = [];
  const visit = (node: WorkflowNode<P>): void => {
    const s = state.get(node);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = path.slice(path.indexOf(node)).map((n) => n.name);
      cycle.push(node.name);
      throw new WorkflowConfigurationError(
        'WorkflowCycle',
        `the workflow's dependsOn relations form a cycle: ${cycle.join(' -> ')}`,
        cycle.slice(0, -1),
      );
    }
    state.set(node, 'visiting');
    path.push(node);
    for (const d of node.dependsOn) visit(d);
    path.pop();
    state.set(node, 'done');
  };
  for (const n of nodes) visit(n);
}

/** The workflow engine (JOSDK's `DefaultWorkflow`). */
export class DefaultWorkflow<P extends KubernetesResource> implements Workflow<P> {
  readonly nodes: readonly WorkflowNode<P>[];
  private readonly roots: readonly WorkflowNode<P>[];
  private readonly leaves: readonly WorkflowNode<P>[];
  /** Undefined when the workflow has no bound of its own: steps then start inline. */
  private readonly limiter: Limiter | undefined;
  private readonly byName: ReadonlyMap<string, DependentResource<unknown, P>>;

  constructor(
    declarations: readonly NodeDeclaration<P>[],
    private readonly settings: WorkflowSettings,
  ) {
    const size = settings.executorSize;
    if (size !== Number.POSITIVE_INFINITY && (!Number.isInteger(size) || size < 1)) {
      throw new WorkflowConfigurationError(
        'InvalidWorkflow',
        `the workflow executor size must be a positive integer, got ${String(size)}`,
      );
    }
    this.nodes = Object.freeze(buildNodes(declarations));
    this.roots = this.nodes.filter((n) => n.dependsOn.length === 0);
    this.leaves = this.nodes.filter((n) => n.dependents.length === 0);
    this.limiter = size === Number.POSITIVE_INFINITY ? undefined : new Limiter(size);
    this.byName = new Map(this.nodes.map((n) => [n.name, n.dependent]));
  }

  async reconcile(primary: P, context: Context<P>): Promise<WorkflowReconcileResult> {
    const result = await new WorkflowReconcileRun(primary, context, this.limiter).execute(this.roots);
    // as JOSDK's DefaultWorkflow: kept in the context before throwing, for any workflow (managed or
    // standalone), so the reconciler and updateErrorStatus can read it
    keeperOf(context)?.keepWorkflowReconcileResult(result);
    if (!this.settings.silent) result.throwAggregatedErrorIfErrorsPresent();
    return result;
  }

  async cleanup(primary: P, context: Context<P>): Promise<WorkflowCleanupResult> {
    const result = await new WorkflowCleanupRun(primary, context, this.limiter).execute(this.leaves);
    keeperOf(context)?.keepWorkflowCleanupResult(result);
    if (!this.settings.silent) result.throwAggregatedErrorIfErrorsPresent();
    return result;
  }

  getDependentResourcesByName(): ReadonlyMap<string, DependentResource<unknown, P>> {
    return this.byName;
  }

  hasCleaner(): boolean {
    return this.nodes.some((n) => isDeletable(n.dependent));
  }

  isEmpty(): boolean {
    return this.nodes.length === 0;
  }
}
