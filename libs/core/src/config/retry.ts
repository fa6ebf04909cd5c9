/** Thrown when a retry policy is configured with values it cannot use. */
export class InvalidRetryConfigurationError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidRetryConfiguration';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidRetryConfigurationError';
  }
}

/**
 * The retry state of one resource between a failure and the next success (JOSDK's `RetryExecution`).
 * Created by {@link Retry.initExecution} after the first failure.
 */
export interface RetryExecution {
  /**
   * Counts one more attempt and returns the delay before it, in milliseconds; undefined when no
   * attempt is left.
   */
  nextDelay(): number | undefined;
  /** How many retries have been scheduled so far (0 after the first failure). */
  getAttemptCount(): number;
  /** Whether no retry is left after the current one. */
  isLastAttempt(): boolean;
}

/** A retry policy (JOSDK's `Retry`): makes a fresh {@link RetryExecution} per failing resource. */
export interface Retry {
  initExecution(): RetryExecution;
}

/** Options of {@link GenericRetry}. */
export interface GenericRetryOptions {
  /** Retries after the first failure; -1 for unlimited. Defaults to 5. */
  maxAttempts?: number;
  /** Delay before the first retry, in ms. Defaults to 2000. */
  initialInterval?: number;
  /** Factor applied to the delay from the third retry on (JOSDK's rule). Defaults to 1.5. */
  intervalMultiplier?: number;
  /** Upper bound of a delay in ms; -1 for none. Defaults to `initialInterval * multiplier ^ maxAttempts` of the defaults (15187). */
  maxInterval?: number;
}

/** JOSDK's defaults of {@link GenericRetry}. */
export const GradualRetryDefaults = Object.freeze({
  maxAttempts: 5,
  initialInterval: 2000,
  intervalMultiplier: 1.5,
  maxInterval: Math.floor(2000 * Math.pow(1.5, 5)),
});

/**
 * Limited exponential backoff (JOSDK's `GenericRetry`): with the defaults, 5 retries after 2 s,
 * 2 s, 3 s, 4.5 s and 6.75 s. Configure fluently or with options:
 *
 * ```ts
 * GenericRetry.defaultLimitedExponentialRetry().setInitialInterval(5000).setMaxAttempts(3);
 * new GenericRetry({ maxAttempts: 3 });
 * ```
 */
export class GenericRetry implements Retry {
  private maxAttempts: number = GradualRetryDefaults.maxAttempts;
  private initialInterval: number = GradualRetryDefaults.initialInterval;
  private intervalMultiplier: number = GradualRetryDefaults.intervalMultiplier;
  private maxInterval: number = GradualRetryDefaults.maxInterval;

  /** @throws InvalidRetryConfigurationError for a negative or non-numeric option. */
  constructor(options: GenericRetryOptions = {}) {
    if (options.maxAttempts !== undefined) this.setMaxAttempts(options.maxAttempts);
    if (options.initialInterval !== undefined) this.setInitialInterval(options.initialInterval);
    if (options.intervalMultiplier !== undefined) this.setIntervalMultiplier(options.intervalMultiplier);
    if (options.maxInterval !== undefined) this.setMaxInterval(options.maxInterval);
  }

  /** The default policy: 5 attempts, 2 s initial, x1.5. */
  static defaultLimitedExponentialRetry(): GenericRetry {
    return new GenericRetry();
  }

  /** A policy that never retries (a new event still reconciles). */
  static noRetry(): GenericRetry {
    return new GenericRetry().setMaxAttempts(0);
  }

  /** 10 retries, 10 s apart. */
  static every10second10TimesRetry(): GenericRetry {
    return new GenericRetry().withLinearRetry().setMaxAttempts(10).setInitialInterval(10_000);
  }

  /** Sets the number of retries; -1 for unlimited. */
  setMaxAttempts(maxAttempts: number): this {
    if (!Number.isInteger(maxAttempts) || maxAttempts < -1) {
      throw new InvalidRetryConfigurationError(`maxAttempts must be an integer >= -1, got ${maxAttempts}`);
    }
    this.maxAttempts = maxAttempts;
    return this;
  }

  /** Sets the delay before the first retry, in ms. */
  setInitialInterval(ms: number): this {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new InvalidRetryConfigurationError(
        `initialInterval must be a non-negative number of ms, got ${ms}`,
      );
    }
    this.initialInterval = ms;
    return this;
  }

  /** Sets the multiplier. */
  setIntervalMultiplier(multiplier: number): this {
    if (!Number.isFinite(multiplier) || multiplier < 1) {
      throw new InvalidRetryConfigurationError(`intervalMultiplier must be a number >= 1, got ${multiplier}`);
    }
    this.intervalMultiplier = multiplier;
    return this;
  }

  /** Sets the upper bound of a delay in ms; -1 for none. */
  setMaxInterval(ms: number): this {
    if (!Number.isFinite(ms) || (ms < 0 && ms !== -1)) {
      throw new InvalidRetryConfigurationError(
        `maxInterval must be a non-negative number of ms or -1, got ${ms}`,
      );
    }
    this.maxInterval = ms;
    return this;
  }

  /** Removes the upper bound of delays. */
  withoutMaxInterval(): this {
    this.maxInterval = -1;
    return this;
  }

  /** Retries forever. */
  withoutMaxAttempts(): this {
    this.maxAttempts = -1;
    return this;
  }

  /** Same delay every time (multiplier 1). */
  withLinearRetry(): this {
    this.intervalMultiplier = 1;
    return this;
  }

  /** Retries after the first failure; -1 for unlimited. */
  getMaxAttempts(): number {
    return this.maxAttempts;
  }
  /** Delay before the first retry, in ms. */
  getInitialInterval(): number {
    return this.initialInterval;
  }
  /** Factor applied to the delay from the third retry on. */
  getIntervalMultiplier(): number {
    return this.intervalMultiplier;
  }
  /** Upper bound of a delay in ms; -1 for none. */
  getMaxInterval(): number {
    return this.maxInterval;
  }

  initExecution(): RetryExecution {
    return new GenericRetryExecution(this);
  }
}

class GenericRetryExecution implements RetryExecution {
  private lastAttemptIndex = 0;
  private currentInterval: number;

  constructor(private readonly retry: GenericRetry) {
    this.currentInterval = retry.getInitialInterval();
  }

  nextDelay(): number | undefined {
    if (this.isLastAttempt()) return undefined;
    if (this.lastAttemptIndex > 1) {
      this.currentInterval = Math.floor(this.currentInterval * this.retry.getIntervalMultiplier());
      const max = this.retry.getMaxInterval();
      if (max > -1 && this.currentInterval > max) this.currentInterval = max;
    }
    this.lastAttemptIndex++;
    return this.currentInterval;
  }

  getAttemptCount(): number {
    return this.lastAttemptIndex;
  }

  isLastAttempt(): boolean {
    const max = this.retry.getMaxAttempts();
    return max > -1 && this.lastAttemptIndex >= max;
  }
}
