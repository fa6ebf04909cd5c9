/** Why a workflow cannot be built. */
export type WorkflowConfigurationErrorCode =
  'WorkflowCycle' | 'UnknownDependsOn' | 'DuplicateDependentName' | 'InvalidWorkflow';

/**
 * A workflow cannot be built: a cycle, a `dependsOn` naming no dependent, two dependents of one
 * name, or a malformed declaration. Thrown when the workflow is built (for managed workflows: at
 * registration). The message names the dependents at fault.
 */
export class WorkflowConfigurationError extends Error {
  constructor(
    /** Stable error code. */
    readonly code: WorkflowConfigurationErrorCode,
    message: string,
    /** The dependents at fault. */
    readonly dependents: readonly string[] = [],
  ) {
    super(message);
    this.name = 'WorkflowConfigurationError';
  }
}

/**
 * Several dependents failed in one workflow run (JOSDK's `AggregatedOperatorException`). Thrown by
 * a workflow unless it runs silently; the reconciler's `updateErrorStatus` receives it.
 */
export class AggregatedOperatorError extends Error {
  /** Stable error code. */
  readonly code = 'AggregatedOperatorError';
  /** The errors by dependent name. */
  readonly errorsByDependent: ReadonlyMap<string, unknown>;

  constructor(message: string, errors: ReadonlyMap<string, unknown>) {
    super(`${message}: ${[...errors].map(([n, e]) => `${n}: ${messageOf(e)}`).join('; ')}`, {
      cause: errors.size === 1 ? [...errors.values()][0] : undefined,
    });
    this.name = 'AggregatedOperatorError';
    this.errorsByDependent = errors;
  }

  /** The errors in dependent order. */
  get errors(): unknown[] {
    return [...this.errorsByDependent.values()];
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A workflow API was used where it cannot work (e.g. `reconcileManagedWorkflow()` without a managed workflow). */
export class WorkflowUsageError extends Error {
  /** Stable error code. */
  readonly code = 'WorkflowUsage';
  constructor(message: string) {
    super(message);
    this.name = 'WorkflowUsageError';
  }
}
