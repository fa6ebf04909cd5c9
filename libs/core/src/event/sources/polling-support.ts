import type { Clock } from '../../util/clock.js';
import { FetchTimeoutError } from './errors.js';

/** Runs `fetch` and rejects with a {@link FetchTimeoutError} after `timeoutMs` (the fetch is abandoned, not cancelled). */
export function withTimeout<T>(
  fetch: () => Promise<T>,
  timeoutMs: number,
  clock: Clock,
  what: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimeout(
      () => reject(new FetchTimeoutError(`${what} did not settle within ${timeoutMs} ms`, timeoutMs)),
      timeoutMs,
    );
    let started: Promise<T>;
    try {
      started = Promise.resolve(fetch());
    } catch (error) {
      clock.clearTimeout(timer);
      reject(asError(error));
      return;
    }
    started.then(
      (value) => {
        clock.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clock.clearTimeout(timer);
        reject(asError(error));
      },
    );
  });
}

/** Checks a period option. */
export function positive(name: string, value: number): number {
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0))
    throw new RangeError(`${name} must be a positive number of milliseconds, got ${String(value)}`);
  return value;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
