/** An event could not be built (no kind/apiVersion/name on the object, bad type, no reason). Logged, never thrown to callers of the recorder. */
export class InvalidEventError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidEvent';
  constructor(message: string) {
    super(`invalid event: ${message}`);
    this.name = 'InvalidEventError';
  }
}

/** Thrown by the `EventRecorder` constructor when an option is missing or out of range. */
export class InvalidEventRecorderOptionsError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidEventRecorderOptions';
  constructor(message: string) {
    super(`invalid event recorder options: ${message}`);
    this.name = 'InvalidEventRecorderOptionsError';
  }
}
