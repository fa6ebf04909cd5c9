/** An opaque handle of a scheduled callback. */
export type TimerHandle = { readonly __timer: true } | object;

/**
 * Time as tosdk sees it. Everything that waits or measures takes a clock, so tests can move time
 * with a fake one instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `callback` after `delayMs`. */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a callback scheduled with {@link Clock.setTimeout}; ignores handles that already ran. */
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The real clock. Its timers are unref'ed: a pending retry or reschedule never keeps the process alive
 * on its own (the informers' connections do while the operator runs).
 */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout: (callback: () => void, delayMs: number): TimerHandle => {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    timer.unref();
    return timer;
  },
  clearTimeout: (handle: TimerHandle) => clearTimeout(handle as NodeJS.Timeout),
});
