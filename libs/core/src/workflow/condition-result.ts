// A leaf of the workflow types (it imports no Context): `workflow-result.ts`, which `api/context.ts`
// uses, reads it without pulling in conditions and dependents.

/** Which role a condition plays on a workflow node (JOSDK's `Condition.Type`). */
export type ConditionType = 'activation' | 'reconcile' | 'ready' | 'delete';

/**
 * The outcome of a {@link DetailedCondition}: whether it holds plus a detail the reconciler can
 * read from the workflow result (JOSDK's `DetailedCondition.Result`).
 *
 * @typeParam T - the type of the detail.
 */
export interface ConditionResult<T = unknown> {
  /** Whether the condition holds. */
  readonly met: boolean;
  /** Extra information (an error message, a count, ...). Defaults to none. */
  readonly detail?: T;
}

/** Factories of {@link ConditionResult}s. */
export const ConditionResult = Object.freeze({
  /** A met result. */
  met<T>(detail?: T): ConditionResult<T> {
    return Object.freeze({ met: true, detail });
  },
  /** An unmet result. */
  unmet<T>(detail?: T): ConditionResult<T> {
    return Object.freeze({ met: false, detail });
  },
  /** A result of a boolean. */
  of<T>(met: boolean, detail?: T): ConditionResult<T> {
    return Object.freeze({ met, detail });
  },
});
