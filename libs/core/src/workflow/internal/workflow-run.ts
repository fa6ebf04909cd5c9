import type { Context } from '../../api/context.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { isDeletable, isDeleter, isEventSourceProvider } from '../../dependent/dependent-resource.js';
import type { AnyCondition, ConditionResult, ConditionType } from '../condition.js';
import { evaluateCondition } from '../condition.js';
import type { EventSource } from '../../event/event-source.js';
import type { WorkflowNode } from '../workflow.js';
import type { Limiter } from './limiter.js';

/**
 * State and helpers shared by one reconcile or cleanup run (JOSDK's `AbstractWorkflowExecutor`).
 * Node steps are submitted through the workflow's limiter when it has a bound, else started inline;
 * bookkeeping runs synchronously between awaits, so the sets need no locking. `done` resolves once
 * nothing is running or queued.
 */
export abstract class WorkflowRun<P extends KubernetesResource> {
  protected readonly visited = new Set<WorkflowNode<P>>();
  protected readonly executing = new Set<WorkflowNode<P>>();
  protected readonly errors = new Map<WorkflowNode<P>, unknown>();
  protected readonly conditions = new Map<string, Map<ConditionType, ConditionResult>>();
  private pending = 0;
  private finish!: () => void;
  /** Resolves when the run is complete. */
  readonly done = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(
    protected readonly primary: P,
    protected readonly context: Context<P>,
    private readonly limiter: Limiter | undefined,
  ) {}

  /** Starts the run at the given nodes; resolves when it is complete. */
  protected async runFrom(nodes: readonly WorkflowNode<P>[]): Promise<void> {
    this.pending++;
    for (const node of nodes) this.handle(node);
    this.settle();
    await this.done;
  }

  /** Decides what to do with a node; may submit work. */
  protected abstract handle(node: WorkflowNode<P>): void;

  /**
   * Runs `step` for `node`: through the limiter when the workflow has a bound, else at once (one
   * promise per step, no queue). An error is recorded for the node. `after` runs once the node has
   * left the executing set and before the run can settle, so it may submit work for the same node
   * (a node whose precondition turned false deletes itself).
   */
  protected submit(node: WorkflowNode<P>, step: () => Promise<void>, after?: () => void): void {
    this.executing.add(node);
    this.pending++;
    let running: Promise<void>;
    if (this.limiter) running = this.limiter.run(step);
    else {
      try {
        running = step();
      } catch (error) {
        // a step may throw anything; it is recorded as thrown
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        running = Promise.reject(error);
      }
    }
    running.then(
      () => this.stepDone(node, after),
      (error: unknown) => {
        this.errors.set(node, error);
        this.stepDone(node, after);
      },
    );
  }

  private stepDone(node: WorkflowNode<P>, after: (() => void) | undefined): void {
    this.executing.delete(node);
    try {
      after?.();
    } catch (error: unknown) {
      this.errors.set(node, error);
    }
    this.settle();
  }

  private settle(): void {
    if (--this.pending === 0) this.finish();
  }

  /**
   * Evaluates a condition and records its outcome; an absent condition holds. A condition already
   * evaluated for the node in this run is not evaluated again (as JOSDK's `isConditionMet`): the
   * activation condition a reconcile step read is the one its deletion goes by.
   */
  protected async isMet(
    node: WorkflowNode<P>,
    type: ConditionType,
    condition: AnyCondition<unknown, P> | undefined,
  ): Promise<boolean> {
    if (!condition) return true; // callers skip the await when there is none
    const known = this.conditions.get(node.name)?.get(type);
    if (known) return known.met;
    const result = await evaluateCondition(condition, node.dependent, this.primary, this.context);
    let byType = this.conditions.get(node.name);
    if (!byType) this.conditions.set(node.name, (byType = new Map<ConditionType, ConditionResult>()));
    byType.set(type, result);
    return result.met;
  }

  /**
   * Registers the event source of a dependent with an activation condition while it is active, and
   * deregisters it otherwise (JOSDK's `registerOrDeregisterEventSourceBasedOnActivation`).
   */
  protected async syncEventSource(node: WorkflowNode<P>, active: boolean): Promise<void> {
    const dependent = node.dependent;
    if (!node.activationCondition || !isEventSourceProvider(dependent)) return;
    const retriever = this.context.eventSourceRetriever();
    if (active) {
      let created: EventSource | undefined;
      const registered = await retriever.dynamicallyRegisterEventSource(
        dependent.eventSourceName,
        () => (created = dependent.eventSource(retriever.eventSourceContext)),
      );
      // a source of that name registered by another dependent (several dependents of one kind
      // naming one informer, as JOSDK's docs advise) is this one's too: as JOSDK's
      // EventSourceManager.dynamicallyRegisterEventSource, the name decides which source serves
      if (registered !== created) dependent.useEventSource(registered);
    } else {
      await retriever.dynamicallyDeregisterEventSource(dependent.eventSourceName);
    }
  }

  /**
   * Calls `delete` on the dependent when it is a deleter; in cleanup (`cleanup` true) not when its
   * secondary is garbage collected (the owner reference removes it). Returns whether it was called.
   */
  protected async deleteIfDeletable(node: WorkflowNode<P>, cleanup: boolean): Promise<boolean> {
    const dependent = node.dependent;
    const deletes = cleanup ? isDeletable(dependent) : isDeleter(dependent);
    if (!deletes || typeof dependent.delete !== 'function') return false;
    await dependent.delete(this.primary, this.context);
    return true;
  }

  protected errorsByName(): Map<string, unknown> {
    return new Map([...this.errors].map(([n, e]) => [n.name, e]));
  }

  protected conditionResults(): Map<string, Map<ConditionType, ConditionResult>> {
    return this.conditions;
  }
}
