/** Thrown when a condition awaited with {@link waitFor} did not hold in time. */
export class WaitForTimeoutError extends Error {
  /** Stable error code. */
  readonly code = 'WaitForTimeout';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WaitForTimeoutError';
  }
}

/**
 * Thrown when a wait is given up before its condition held or its timeout passed: its `signal`
 * fired, or the testing module (or environment) it belongs to was closed.
 */
export class WaitForAbortedError extends Error {
  /** Stable error code. */
  readonly code = 'WaitForAborted';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WaitForAbortedError';
  }
}

/** Thrown when {@link waitFor} is given a timeout or interval that is not a number >= 0. */
export class InvalidWaitForOptionsError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidWaitForOptions';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidWaitForOptionsError';
  }
}

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this many ms (`Infinity`: no limit of its own, the test runner's applies). Defaults to 10 000. */
  timeoutMs?: number;
  /** Poll interval in ms. Defaults to 50. */
  intervalMs?: number;
  /**
   * What is awaited, for the timeout message: a text, or a function asked at the timeout (so the
   * message can say what was last seen). Defaults to `condition did not hold`.
   */
  description?: string | (() => string);
  /**
   * Gives the wait up when it fires (e.g. Vitest's test-context `signal`, aborted when the test ends
   * or times out): the wait rejects at once with a {@link WaitForAbortedError}. Defaults to none.
   */
  signal?: AbortSignal;
}

const PENDING = Symbol('pending');

/** Node's timers take at most 2^31-1 ms; a longer delay (Infinity included) would fire after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function checkedMs(name: string, value: number): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new InvalidWaitForOptionsError(
      `waitFor: ${name} must be a number >= 0${name === 'timeoutMs' ? ' (Infinity for no limit)' : ''}, got ${String(value)}`,
    );
  }
  return value;
}

/** The check's value, or PENDING when it has not settled by the deadline. */
async function beforeDeadline<T>(
  check: () => T | Promise<T>,
  deadline: number,
  aborted: Promise<never>,
): Promise<T | typeof PENDING> {
  const value = check();
  if (typeof (value as { then?: unknown } | null | undefined)?.then !== 'function') return value;
  const result = Promise.resolve(value);
  const left = deadline - Date.now();
  let timer: NodeJS.Timeout | undefined;
  // no deadline a timer can hold (an infinite or a 25-day timeout): the check is simply awaited
  const late =
    left > MAX_TIMER_MS
      ? undefined
      : new Promise<typeof PENDING>((resolve) => {
          timer = setTimeout(() => resolve(PENDING), Math.max(0, left));
        });
  try {
    return await Promise.race(late ? [result, late, aborted] : [result, aborted]);
  } finally {
    clearTimeout(timer);
    // settled or not, its rejection after the deadline is nobody's: keep it from being unhandled
    result.catch(() => undefined);
  }
}

/**
 * Polls `check` until it returns a value other than `undefined`, `null` or `false` and returns it.
 * A `check` that throws counts as not yet (the error of the last check that settled becomes the
 * timeout's cause and is named in its message); one still pending at the deadline does not hold the
 * wait (the timeout says so only when no check ever settled).
 * @throws WaitForTimeoutError after `timeoutMs`.
 * @throws WaitForAbortedError when `signal` fires first.
 * @throws InvalidWaitForOptionsError when `timeoutMs` or `intervalMs` is not a number >= 0.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Exclude<T, undefined | null | false>> {
  const timeoutMs = checkedMs('timeoutMs', options.timeoutMs ?? 10_000);
  const intervalMs = Math.min(checkedMs('intervalMs', options.intervalMs ?? 50), MAX_TIMER_MS);
  const deadline = Date.now() + timeoutMs;
  const what = (): string =>
    typeof options.description === 'function'
      ? options.description()
      : `${options.description ?? 'condition'} did not hold`;
  const { signal } = options;
  // rejects when the signal fires; raced against each check and each pause
  let stopListening = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    if (!signal) return;
    const onAbort = () => {
      const reason: unknown = signal.reason;
      const why =
        reason instanceof Error ? `: ${reason.message}` : typeof reason === 'string' ? `: ${reason}` : '';
      reject(new WaitForAbortedError(`${what()} before the wait was aborted${why}`, { cause: reason }));
    };
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      stopListening = () => signal.removeEventListener('abort', onAbort);
    }
  });
  aborted.catch(() => undefined);
  try {
    // the outcome of the last check that settled: its error, or none when it returned
    let lastError: unknown;
    let settled = false;
    for (;;) {
      if (signal?.aborted) await aborted;
      try {
        // a check still pending at the deadline does not hold the wait (Awaitility's atMost also
        // bounds a condition that blocks): it is left to settle on its own, and what the checks
        // before it saw (e.g. a 403 on every read) stays the reported last error
        const value = await beforeDeadline(check, deadline, aborted);
        if (value === PENDING) {
          if (!settled) lastError = new Error(`the last check had not settled after ${timeoutMs} ms`);
        } else {
          settled = true;
          lastError = undefined;
          if (value !== undefined && value !== null && value !== false) {
            return value as Exclude<T, undefined | null | false>;
          }
        }
      } catch (error) {
        if (error instanceof WaitForAbortedError && signal?.aborted) throw error;
        settled = true;
        lastError = error;
      }
      if (Date.now() >= deadline) {
        const why = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
        throw new WaitForTimeoutError(`${what()} within ${timeoutMs} ms${why}`, { cause: lastError });
      }
      // never sleep past the deadline: the last check runs at it
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          new Promise((resolve) => {
            timer = setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now())));
          }),
          aborted,
        ]);
      } finally {
        clearTimeout(timer);
      }
    }
  } finally {
    stopListening();
  }
}
