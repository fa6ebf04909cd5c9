/** An operation does not fit the operator's state (register after start, start twice, start after stop). */
export class OperatorStateError extends Error {
  /** Stable error code. */
  readonly code = 'OperatorState';
  constructor(message: string) {
    super(message);
    this.name = 'OperatorStateError';
  }
}

/** The operator's options cannot be used; the message names the option. */
export class InvalidOperatorConfigurationError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidOperatorConfiguration';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidOperatorConfigurationError';
  }
}

/** Two controllers were registered under one name, or a controller's event sources share a name. */
export class DuplicateNameError extends Error {
  /** Stable error code. */
  readonly code = 'DuplicateName';
  constructor(message: string) {
    super(message);
    this.name = 'DuplicateNameError';
  }
}

/** With `checkCrdAndValidateLocalModel`, a controller's custom resource is not served by the API server. */
export class MissingCustomResourceDefinitionError extends Error {
  /** Stable error code. */
  readonly code = 'MissingCustomResourceDefinition';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MissingCustomResourceDefinitionError';
  }
}

/** An event source did not sync within `cacheSyncTimeoutMs`, or failed to start. */
export class EventSourceStartError extends Error {
  /** Stable error code. */
  readonly code = 'EventSourceStart';
  constructor(
    message: string,
    /** The controller. */
    readonly controller: string,
    /** The event source. */
    readonly eventSource: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EventSourceStartError';
  }
}
