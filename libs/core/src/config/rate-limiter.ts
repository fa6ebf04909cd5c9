import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';

/** Thrown when a rate limiter is configured with values it cannot use. */
export class InvalidRateLimiterConfigurationError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidRateLimiterConfiguration';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidRateLimiterConfigurationError';
  }
}

/**
 * Limits how often one resource is reconciled (JOSDK's `RateLimiter`). The framework keeps one state
 * per resource, made by {@link RateLimiter.initState}; a limited reconciliation is postponed, never
 * dropped.
 *
 * @typeParam S - the per-resource state.
 */
export interface RateLimiter<S = unknown> {
  /** A fresh per-resource state. */
  initState(): S;
  /**
   * Asks for one reconciliation now: undefined when allowed (and counted), else the milliseconds to
   * wait before asking again.
   */
  isLimited(state: S): number | undefined;
}

/** Options of {@link LinearRateLimiter}. */
export interface LinearRateLimiterOptions {
  /** Length of the window, in ms. Defaults to 10 000. */
  refreshPeriodMs?: number;
  /** Reconciliations allowed per window and resource; non-positive turns limiting off. Defaults to off (-1). */
  limitForPeriod?: number;
  /** Clock. Defaults to the system clock. */
  clock?: Clock;
}

/** Per-resource state of {@link LinearRateLimiter}. */
export interface LinearRateState {
  windowStart: number;
  count: number;
}

/**
 * At most `limitForPeriod` reconciliations of one resource per `refreshPeriodMs` window (JOSDK's
 * `LinearRateLimiter`). The window starts with the first reconciliation after the previous one ended.
 */
export class LinearRateLimiter implements RateLimiter<LinearRateState> {
  /** Limit value that turns limiting off. */
  static readonly NO_LIMIT_PERIOD = -1;
  /** Default window, 10 s. */
  static readonly DEFAULT_REFRESH_PERIOD_MS = 10_000;

  readonly refreshPeriodMs: number;
  readonly limitForPeriod: number;
  private readonly clock: Clock;

  /** @throws InvalidRateLimiterConfigurationError for a non-positive window or a non-integer limit. */
  constructor(options: LinearRateLimiterOptions = {}) {
    this.refreshPeriodMs = options.refreshPeriodMs ?? LinearRateLimiter.DEFAULT_REFRESH_PERIOD_MS;
    this.limitForPeriod = options.limitForPeriod ?? LinearRateLimiter.NO_LIMIT_PERIOD;
    this.clock = options.clock ?? systemClock;
    if (!Number.isFinite(this.refreshPeriodMs) || this.refreshPeriodMs <= 0) {
      throw new InvalidRateLimiterConfigurationError(
        `refreshPeriodMs must be a positive number, got ${this.refreshPeriodMs}`,
      );
    }
    if (!Number.isInteger(this.limitForPeriod)) {
      throw new InvalidRateLimiterConfigurationError(
        `limitForPeriod must be an integer, got ${this.limitForPeriod}`,
      );
    }
  }

  /** A limiter that never limits (the default of a controller). */
  static deactivatedRateLimiter(): LinearRateLimiter {
    return new LinearRateLimiter();
  }

  /** Whether this limiter limits at all. */
  isActivated(): boolean {
    return this.limitForPeriod > 0;
  }

  initState(): LinearRateState {
    return { windowStart: this.clock.now(), count: 0 };
  }

  isLimited(state: LinearRateState): number | undefined {
    if (!this.isActivated()) return undefined;
    const now = this.clock.now();
    if (now - state.windowStart >= this.refreshPeriodMs) {
      state.windowStart = now;
      state.count = 0;
    }
    if (state.count < this.limitForPeriod) {
      state.count++;
      return undefined;
    }
    return Math.max(0, state.windowStart + this.refreshPeriodMs - now);
  }
}
