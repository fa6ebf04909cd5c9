/**
 * Thrown by a validating or mutating webhook to deny a request; the API server shows
 * `admission webhook "<name>" denied the request: <message>`.
 */
export class AdmissionDeniedError extends Error {
  /** Stable error code. */
  readonly code = 'AdmissionDenied';
  /** Warnings sent with the denial (`Warning:` lines of kubectl above the error). Defaults to none. */
  readonly warnings: readonly string[];

  constructor(
    message: string,
    /** The HTTP status the API server answers the client with. Defaults to 403. */
    readonly status = 403,
    options?: { cause?: unknown; warnings?: readonly string[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AdmissionDeniedError';
    this.warnings = [...(options?.warnings ?? [])];
  }
}

/** A webhook declaration or the webhook module's options cannot be used; the message says what to change. */
export class WebhookConfigurationError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidWebhookConfiguration';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookConfigurationError';
  }
}

/** A conversion webhook could not convert; the API server fails the read or write with the message. */
export class ConversionFailedError extends Error {
  /** Stable error code. */
  readonly code = 'ConversionFailed';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConversionFailedError';
  }
}
