// A leaf of the dependent types (it imports no Context): the workflow results, which
// `api/context.ts` uses, read it without pulling in dependents.

/** What reconciling a dependent did to one secondary resource. */
export type DependentOperation = 'created' | 'updated' | 'none';

/**
 * What {@link DependentResource.reconcile} did (JOSDK's `ReconcileResult`): one entry per secondary
 * (several for a bulk dependent).
 */
export interface ReconcileResult<R> {
  /** The secondaries after the reconciliation with what was done to each. */
  readonly results: ReadonlyArray<{
    readonly operation: DependentOperation;
    readonly resource: R | undefined;
  }>;
}

/** Builds a {@link ReconcileResult}. */
export function reconcileResult<R>(
  ...results: Array<{ operation: DependentOperation; resource: R | undefined }>
): ReconcileResult<R> {
  return Object.freeze({ results: Object.freeze(results) });
}
