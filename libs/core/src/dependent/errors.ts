/** Why a dependent resource failed. */
export type DependentResourceErrorCode =
  | 'DependentNotConfigured'
  | 'AmbiguousDependentSecondary'
  | 'DependentOwnerReference'
  | 'InvalidDependentConfiguration'
  | 'MissingResource'
  | 'SecondaryNameTaken';

/**
 * A dependent resource cannot work as configured or used: no event source yet, several
 * secondaries and no way to tell its own, an owner reference that Kubernetes would refuse, a bad
 * option, a `desired()`, `create` or `update` that returned nothing, a create whose name another
 * object has. The message says what to change.
 */
export class DependentResourceError extends Error {
  constructor(
    /** Stable error code. */
    readonly code: DependentResourceErrorCode,
    message: string,
    /** The dependent's name. */
    readonly dependent: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DependentResourceError';
  }
}
