/** Thrown when a condition awaited with {@link waitFor} did not hold in time. */
export class WaitForTimeoutError extends Error {
  /** Stable error code. */
  readonly code = 'WaitForTimeout';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WaitForTimeoutError';
  }
}

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this many ms. Defaults to 10 000. */
  timeoutMs?: number;
  /** Poll interval in ms. Defaults to 50. */
  intervalMs?: number;
  /**
   * What is awaited, for the timeout message: a text, or a function asked at the timeout (so the
   * message can say what was last seen). Defaults to `condition did not hold`.
   */
  description?: string | (() => string);
}

/**
 * Polls `check` until it returns a value other than `undefined`, `null` or `false` and returns it.
 * A `check` that throws counts as not yet (the last error becomes the timeout's cause).
 * @throws WaitForTimeoutError after `timeoutMs`.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Exclude<T, undefined | null | false>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) {
        return value as Exclude<T, undefined | null | false>;
      }
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      const what =
        typeof options.description === 'function'
          ? options.description()
          : `${options.description ?? 'condition'} did not hold`;
      throw new WaitForTimeoutError(`${what} within ${timeoutMs} ms${why}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
