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
  /**
   * Milliseconds on a clock that only moves forward at the pace of real time and never jumps (not
   * wall time: only differences mean something), for deadlines and expiries that must not move when
   * the wall clock is stepped (NTP, a resumed VM). Optional: without it, `now()` is used.
   */
  monotonic?(): number;
}

/** The longest delay Node's timers take (2^31 - 1 ms, ~24.8 days); a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timer longer than {@link MAX_TIMER_MS}: a chain of Node timers, of which `timer` is the current one. */
class LongTimer {
  timer: NodeJS.Timeout | undefined;
}

/** A Node timer, unref'ed. */
function unrefTimer(callback: () => void, delayMs: number): NodeJS.Timeout {
  const timer = setTimeout(callback, delayMs);
  timer.unref();
  return timer;
}

/**
 * The real clock. Its timers are unref'ed: a pending retry or reschedule never keeps the process alive
 * on its own (the informers' connections do while the operator runs). A delay longer than Node's
 * timers take (~24.8 days: a `maxReconciliationIntervalMs` or `rescheduleAfter` of 30 days, say) is
 * waited in steps, where Node would run the callback after 1 ms; `Infinity` never runs it.
 */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout: (callback: () => void, delayMs: number): TimerHandle => {
    if (!(delayMs > MAX_TIMER_MS)) return unrefTimer(callback, Math.max(0, delayMs));
    const long = new LongTimer();
    const due = Date.now() + delayMs;
    const step = (): void => {
      const left = due - Date.now();
      long.timer =
        left > MAX_TIMER_MS ? unrefTimer(step, MAX_TIMER_MS) : unrefTimer(callback, Math.max(0, left));
    };
    step();
    return long;
  },
  clearTimeout: (handle: TimerHandle) =>
    clearTimeout(handle instanceof LongTimer ? handle.timer : (handle as NodeJS.Timeout)),
});
