/** Stable codes of {@link TosdkCliError}. */
export type TosdkCliErrorCode =
  'ConfigNotFound' | 'InvalidConfig' | 'AppLoadFailed' | 'InvalidDefinition' | 'Drift' | 'Usage';

/** A failure of the `tosdk` command line with a stable code; the message says what to do. */
export class TosdkCliError extends Error {
  constructor(
    /** Stable code. */
    readonly code: TosdkCliErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TosdkCliError';
  }
}
