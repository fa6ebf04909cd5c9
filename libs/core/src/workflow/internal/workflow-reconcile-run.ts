import type { KubernetesResource } from '../../api/resource-type.js';
import type { ReconcileResult } from '../../dependent/dependent-resource.js';
import { WorkflowReconcileResult } from '../workflow-result.js';
import type { WorkflowNode } from '../workflow.js';
import { WorkflowRun } from './workflow-run.js';

/**
 * One reconciliation of a workflow (JOSDK's `WorkflowReconcileExecutor`); the rules are those of the
 * workflow documentation, see {@link Workflow}.
 */
export class WorkflowReconcileRun<P extends KubernetesResource> extends WorkflowRun<P> {
  private readonly notReady = new Set<WorkflowNode<P>>();
  private readonly markedForDelete = new Set<WorkflowNode<P>>();
  private readonly deleteNotDone = new Set<WorkflowNode<P>>();
  private readonly deleted: string[] = [];
  private readonly reconciled: string[] = [];
  private readonly results = new Map<string, ReconcileResult<unknown>>();

  /** Runs from the roots; resolves with the result when nothing is left to do. */
  async execute(roots: readonly WorkflowNode<P>[]): Promise<WorkflowReconcileResult> {
    await this.runFrom(roots);
    return new WorkflowReconcileResult(
      this.reconciled,
      [...this.notReady].map((n) => n.name),
      this.deleted,
      this.results,
      this.errorsByName(),
      this.conditionResults(),
    );
  }

  protected handle(node: WorkflowNode<P>): void {
    if (
      this.visited.has(node) ||
      this.executing.has(node) ||
      this.markedForDelete.has(node) ||
      !node.dependsOn.every((d) => this.visited.has(d) && !this.notReady.has(d) && !this.errors.has(d))
    ) {
      return;
    }
    // set when a condition is not met; handled after the step, once the node no longer executes
    let notMetWhileActive: boolean | undefined;
    this.submit(
      node,
      async () => {
        // absent conditions hold without an await (a node without any costs one promise)
        let active = true;
        if (node.activationCondition) {
          active = await this.isMet(node, 'activation', node.activationCondition);
          await this.syncEventSource(node, active);
        }
        const reconcile =
          active &&
          (!node.reconcilePrecondition || (await this.isMet(node, 'reconcile', node.reconcilePrecondition)));
        if (!reconcile) {
          notMetWhileActive = active;
          return;
        }
        const result = await node.dependent.reconcile(this.primary, this.context);
        this.results.set(node.name, result);
        this.reconciled.push(node.name);
        const ready = !node.readyPostcondition || (await this.isMet(node, 'ready', node.readyPostcondition));
        // visited only once readiness is known, so no dependent starts on an unready node meanwhile
        this.visited.add(node);
        if (ready) {
          for (const d of node.dependents) this.handle(d);
        } else {
          this.notReady.add(node);
        }
      },
      () => {
        if (notMetWhileActive !== undefined) this.conditionNotMet(node, notMetWhileActive);
      },
    );
  }

  /**
   * A false precondition deletes the node and its dependents; an inactive node only its dependents.
   * Every node marked now is offered to `handleDelete`, which starts those whose dependents are
   * all deleted: the leaves, but also a node whose dependents were already deleted for another node
   * whose precondition failed earlier in this run (their steps could not start it, it was not marked).
   */
  private conditionNotMet(node: WorkflowNode<P>, active: boolean): void {
    const marked: WorkflowNode<P>[] = [];
    this.markForDelete(node, marked, active);
    for (const m of marked) this.handleDelete(m);
  }

  private markForDelete(node: WorkflowNode<P>, marked: WorkflowNode<P>[], active: boolean): void {
    if (active) {
      if (this.markedForDelete.has(node)) return;
      this.markedForDelete.add(node);
      marked.push(node);
    } else {
      // inactive: kept as is (neither reconciled nor deleted), but what depends on it goes
      this.visited.add(node);
      this.notReady.delete(node);
    }
    for (const d of node.dependents) this.markForDelete(d, marked, true);
  }

  private handleDelete(node: WorkflowNode<P>): void {
    if (this.visited.has(node) || this.executing.has(node)) return;
    const dependentsDeleted = node.dependents.every(
      (d) =>
        !this.markedForDelete.has(d) ||
        (this.visited.has(d) && !this.deleteNotDone.has(d) && !this.errors.has(d)),
    );
    if (!dependentsDeleted) return;
    this.submit(node, async () => {
      let done = true;
      const active = await this.isMet(node, 'activation', node.activationCondition);
      // as JOSDK's NodeDeleteExecutor: the event source follows the activation condition here too,
      // so a node reconciled by no earlier run can read its secondary (delete, delete postcondition)
      await this.syncEventSource(node, active);
      if (active) {
        if (await this.deleteIfDeletable(node, false)) this.deleted.push(node.name);
        done = await this.isMet(node, 'delete', node.deletePostcondition);
      }
      this.visited.add(node);
      if (!done) {
        this.deleteNotDone.add(node);
        return;
      }
      for (const parent of node.dependsOn) if (this.markedForDelete.has(parent)) this.handleDelete(parent);
    });
  }
}
