import type { KubernetesResource } from '../../api/resource-type.js';
import { WorkflowCleanupResult } from '../workflow-result.js';
import type { WorkflowNode } from '../workflow.js';
import { WorkflowRun } from './workflow-run.js';

/**
 * One cleanup of a workflow (JOSDK's `WorkflowCleanupExecutor`): from the nodes nothing depends on
 * towards the roots; a node is deleted once every node depending on it was deleted without error
 * and with its delete postcondition met.
 */
export class WorkflowCleanupRun<P extends KubernetesResource> extends WorkflowRun<P> {
  private readonly deleteCalled: string[] = [];
  private readonly postConditionNotMet = new Set<WorkflowNode<P>>();

  /** Runs from the leaves; resolves with the result when nothing is left to do. */
  async execute(leaves: readonly WorkflowNode<P>[]): Promise<WorkflowCleanupResult> {
    await this.runFrom(leaves);
    return new WorkflowCleanupResult(
      this.deleteCalled,
      [...this.postConditionNotMet].map((n) => n.name),
      this.errorsByName(),
      this.conditionResults(),
    );
  }

  protected handle(node: WorkflowNode<P>): void {
    if (this.visited.has(node) || this.executing.has(node)) return;
    const dependentsCleaned = node.dependents.every(
      (d) => this.visited.has(d) && !this.postConditionNotMet.has(d) && !this.errors.has(d),
    );
    if (!dependentsCleaned) return;
    this.submit(node, async () => {
      const active = await this.isMet(node, 'activation', node.activationCondition);
      await this.syncEventSource(node, active);
      let postConditionMet = true;
      if (active) {
        if (await this.deleteIfDeletable(node, true)) this.deleteCalled.push(node.name);
        postConditionMet = await this.isMet(node, 'delete', node.deletePostcondition);
      }
      this.visited.add(node);
      if (!postConditionMet) {
        this.postConditionNotMet.add(node);
        return;
      }
      for (const parent of node.dependsOn) this.handle(parent);
    });
  }
}
