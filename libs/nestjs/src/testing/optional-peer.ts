/**
 * Thrown when a feature needs an optional peer dependency that is not installed (e.g.
 * `createOperatorTestingModule` without `@nestjs/testing`). The message names the package and the
 * command that installs it.
 */
export class MissingPeerDependencyError extends Error {
  /** Stable error code. */
  readonly code = 'MissingPeerDependency';
  constructor(
    /** The package to install, e.g. `@nestjs/testing`. */
    readonly packageName: string,
    /** What needs it, e.g. `createOperatorTestingModule`. */
    readonly feature: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${feature} needs the package ${packageName}, which is not installed; install it as a dev ` +
        `dependency: npm install --save-dev ${packageName}`,
      options,
    );
    this.name = 'MissingPeerDependencyError';
  }
}

function isModuleNotFound(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    error instanceof Error &&
    error.message.includes(name)
  );
}

/**
 * Imports an optional peer on first use, so the entry point that mentions it loads without it.
 * @throws MissingPeerDependencyError when the package is not installed.
 */
export async function importOptionalPeer<T>(
  name: string,
  feature: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isModuleNotFound(error, name)) throw new MissingPeerDependencyError(name, feature, { cause: error });
    throw error;
  }
}
