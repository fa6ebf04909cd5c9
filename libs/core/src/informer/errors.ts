/** The first list of an informer failed and `failFast` is on: the informer did not start. */
export class InformerStartError extends Error {
  /** Stable error code. */
  readonly code = 'InformerStart';
  constructor(
    /** The informer's name. */
    readonly informer: string,
    /** The failure of the list (usually a `KubernetesApiError`, e.g. 403, or a `KubernetesTransportError`). */
    cause: unknown,
  ) {
    super(
      `informer ${informer} could not list its resources: ${(cause as Error)?.message ?? String(cause)}`,
      {
        cause,
      },
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
