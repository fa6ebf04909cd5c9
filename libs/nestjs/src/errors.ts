/**
 * Thrown when the module's options cannot be used (a bad option, a request-scoped reconciler, a
 * controller handle asked for too early). The message says what to change.
 */
export class OperatorModuleConfigurationError extends Error {
  /** Stable error code. */
  readonly code = 'OperatorModuleConfiguration';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OperatorModuleConfigurationError';
  }
}

/** Thrown at bootstrap when a `TOSDK_*` environment variable has a value that cannot be used. */
export class EnvironmentConfigurationError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidEnvironmentConfiguration';
  constructor(
    /** The variable at fault, e.g. `TOSDK_CONTROLLER_WEBPAGE_RETRY_MAX_ATTEMPTS`. */
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'EnvironmentConfigurationError';
  }
}

/** Thrown when no KubeConfig can be found (no `KUBECONFIG`, no `~/.kube/config`, not in a cluster). */
export class KubeConfigNotFoundError extends Error {
  /** Stable error code. */
  readonly code = 'KubeConfigNotFound';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KubeConfigNotFoundError';
  }
}

/**
 * Thrown from the application's bootstrap when the operator cannot start; `cause` is core's error
 * (e.g. `MissingCustomResourceDefinitionError`, `LeaderElectionPermissionError`, `EventSourceStartError`).
 */
export class OperatorBootstrapError extends Error {
  /** Stable error code. */
  readonly code = 'OperatorBootstrap';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OperatorBootstrapError';
  }
}
