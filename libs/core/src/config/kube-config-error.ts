/**
 * A kubeconfig or in-cluster configuration could not be loaded; the message names the file or the
 * setting and what to do.
 */
export class KubeConfigError extends Error {
  /** Stable error code. */
  readonly code = 'KubeConfig';
  constructor(
    message: string,
    /** The file concerned, when there is one. */
    readonly file?: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = 'KubeConfigError';
  }
}
