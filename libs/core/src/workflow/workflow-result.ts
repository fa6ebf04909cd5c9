import type { ReconcileResult } from '../dependent/reconcile-result.js';
import type { ConditionResult, ConditionType } from './condition-result.js';
import { AggregatedOperatorError } from './errors.js';

/** Condition outcomes of one run, by dependent name and condition type. */
export type ConditionResults = ReadonlyMap<string, ReadonlyMap<ConditionType, ConditionResult>>;

/** What both kinds of workflow results share. */
abstract class WorkflowResultBase {
  constructor(
    /** Errors by dependent name. */
    readonly erroredDependents: ReadonlyMap<string, unknown>,
    /** Outcomes of every condition evaluated, by dependent name and type. */
    readonly conditionResults: ConditionResults,
  ) {}

  /** Whether some dependent failed. */
  erroredDependentsExist(): boolean {
    return this.erroredDependents.size > 0;
  }

  /**
   * The outcome of one condition of a dependent in this run; undefined when it was not evaluated.
   * (JOSDK's `getDependentConditionResult`.)
   */
  getDependentConditionResult<T = unknown>(
    dependentName: string,
    type: ConditionType,
  ): ConditionResult<T> | undefined {
    return this.conditionResults.get(dependentName)?.get(type) as ConditionResult<T> | undefined;
  }

  /** @throws AggregatedOperatorError when some dependent failed. */
  throwAggregatedErrorIfErrorsPresent(): void {
    if (this.erroredDependentsExist()) {
      throw new AggregatedOperatorError(
        `${this.what()} failed for ${this.erroredDependents.size} dependent(s)`,
        this.erroredDependents,
      );
    }
  }

  protected abstract what(): string;
}

/** The outcome of {@link Workflow.reconcile} (JOSDK's `WorkflowReconcileResult`). */
export class WorkflowReconcileResult extends WorkflowResultBase {
  constructor(
    /** Dependents reconciled in this run, in completion order. */
    readonly reconciledDependents: readonly string[],
    /** Reconciled dependents whose ready postcondition did not hold. */
    readonly notReadyDependents: readonly string[],
    /** Dependents deleted because a reconcile precondition (theirs or a parent's) did not hold, or a parent was inactive. */
    readonly deletedDependents: readonly string[],
    /** What each reconciled dependent did, by name. */
    readonly reconcileResults: ReadonlyMap<string, ReconcileResult<unknown>>,
    erroredDependents: ReadonlyMap<string, unknown>,
    conditionResults: ConditionResults,
  ) {
    super(erroredDependents, conditionResults);
  }

  /** Whether every reconciled dependent is ready (no ready postcondition failed). */
  allDependentResourcesReady(): boolean {
    return this.notReadyDependents.length === 0;
  }

  protected what(): string {
    return 'workflow reconciliation';
  }
}

/** The outcome of {@link Workflow.cleanup} (JOSDK's `WorkflowCleanupResult`). */
export class WorkflowCleanupResult extends WorkflowResultBase {
  constructor(
    /** Dependents whose `delete` was called. */
    readonly deleteCalledOnDependents: readonly string[],
    /** Dependents whose delete postcondition did not hold (what they depend on was not deleted). */
    readonly postConditionNotMetDependents: readonly string[],
    erroredDependents: ReadonlyMap<string, unknown>,
    conditionResults: ConditionResults,
  ) {
    super(erroredDependents, conditionResults);
  }

  /** Whether every delete postcondition held (the cleanup is complete when no error occurred either). */
  allPostConditionsMet(): boolean {
    return this.postConditionNotMetDependents.length === 0;
  }

  protected what(): string {
    return 'workflow cleanup';
  }
}
