import { advice } from './internal/list-advice.js';
import type { InformerListTarget } from './internal/list-advice.js';

export type { InformerListTarget } from './internal/list-advice.js';

/**
 * The first list of an informer failed and `failFast` is on: the informer did not start. The
 * message says what to do where the cause is known: a kind the server does not serve (404) names
 * the CustomResourceDefinition to apply, a 403 the permission to grant; connection and TLS
 * failures name the server URL (see `KubernetesTransportError`).
 */
export class InformerStartError extends Error {
  /** Stable error code. */
  readonly code = 'InformerStart';
  constructor(
    /** The informer's name. */
    readonly informer: string,
    /** The failure of the list (usually a `KubernetesApiError`, e.g. 403, or a `KubernetesTransportError`). */
    cause: unknown,
    target?: InformerListTarget,
  ) {
    super(
      `informer ${informer} could not list its resources: ${(cause as Error)?.message ?? String(cause)}${advice(cause, target)}`,
      { cause },
    );
    this.name = 'InformerStartError';
  }
}

/** Informer options are not valid, or a method was called in a state that does not allow it. */
export class InformerUsageError extends Error {
  /** Stable error code. */
  readonly code = 'InformerUsage';
  constructor(message: string) {
    super(message);
    this.name = 'InformerUsageError';
  }
}
