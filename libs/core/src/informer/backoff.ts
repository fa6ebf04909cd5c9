/** Options of {@link ExponentialBackoff}. */
export interface BackoffOptions {
  /** First delay. Defaults to 800 ms. */
  initialMs?: number;
  /** Largest delay. Defaults to 30,000 ms. */
  maxMs?: number;
  /** Growth per attempt. Defaults to 2. */
  factor?: number;
  /** Relative spread: a delay is drawn from `d * (1 ± jitter)`. Defaults to 0.2. */
  jitter?: number;
  /** The informer resets the backoff when it ran this long without a failure (clean reconnects and re-lists do not count) before failing. Defaults to 120,000 ms. */
  resetAfterMs?: number;
}

/** Thrown when backoff options are out of range. */
export class InvalidBackoffError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidBackoff';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidBackoffError';
  }
}

/**
 * Exponential backoff with jitter and reset (the `backoff` of kube-rs' watcher and client-go's
 * reflector): attempt n waits `min(maxMs, initialMs * factor^n)` spread by ±`jitter`, never more than `maxMs`.
 */
export class ExponentialBackoff {
  /** The resolved options. */
  readonly options: Readonly<Required<BackoffOptions>>;
  private attempt = 0;

  /**
   * @param options - see {@link BackoffOptions}; defaults fill what is missing.
   * @param random - source of randomness in [0, 1). Defaults to `Math.random`.
   * @throws InvalidBackoffError when a value is out of range.
   */
  constructor(
    options: BackoffOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    const resolved = {
      initialMs: options.initialMs ?? 800,
      maxMs: options.maxMs ?? 30_000,
      factor: options.factor ?? 2,
      jitter: options.jitter ?? 0.2,
      resetAfterMs: options.resetAfterMs ?? 120_000,
    };
    if (!(resolved.initialMs > 0))
      throw new InvalidBackoffError(`backoff initialMs must be > 0, got ${resolved.initialMs}`);
    if (!(resolved.maxMs >= resolved.initialMs)) {
      throw new InvalidBackoffError(`backoff maxMs must be >= initialMs, got ${resolved.maxMs}`);
    }
    if (!(resolved.factor >= 1))
      throw new InvalidBackoffError(`backoff factor must be >= 1, got ${resolved.factor}`);
    if (!(resolved.jitter >= 0 && resolved.jitter < 1)) {
      throw new InvalidBackoffError(`backoff jitter must be in [0, 1), got ${resolved.jitter}`);
    }
    if (!(resolved.resetAfterMs >= 0)) {
      throw new InvalidBackoffError(`backoff resetAfterMs must be >= 0, got ${resolved.resetAfterMs}`);
    }
    this.options = Object.freeze(resolved);
  }

  /** The delay before the next attempt; each call counts one attempt. */
  next(): number {
    const { initialMs, maxMs, factor, jitter } = this.options;
    const base = Math.min(maxMs, initialMs * Math.pow(factor, this.attempt));
    this.attempt++;
    const spread = 1 + jitter * (2 * this.random() - 1);
    return Math.round(Math.min(maxMs, base * spread));
  }

  /** Back to the first delay. */
  reset(): void {
    this.attempt = 0;
  }

  /** Attempts since the last reset. */
  get attempts(): number {
    return this.attempt;
  }
}
