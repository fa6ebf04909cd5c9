import { KubernetesApiError, KubernetesTransportError } from '../errors.js';
import type { ClientRetryReason, ResolvedClientRetryOptions } from '../retry-policy.js';

/**
 * How safe it is to send a request again (see `ClientRetryOptions` for which request is which):
 * - `repeatable`: a repeat cannot do harm even when the first attempt landed;
 * - `refused-only`: repeat only when the server surely did not act on the first attempt (429, 503
 *   with Retry-After, connection refused).
 */
export type RetrySafety = 'repeatable' | 'refused-only';

/** What to do after a failed attempt. */
export interface RetryDecision {
  delayMs: number;
  reason: ClientRetryReason;
}

/**
 * The client's retry engine: classifies a failure, checks the per-request and the global budget
 * and chooses the jittered delay.
 */
export class Retrier {
  private tokens: number;

  constructor(
    readonly options: ResolvedClientRetryOptions,
    private readonly random: () => number = Math.random,
  ) {
    this.tokens = options.budgetReserve;
  }

  /** A first attempt is made: the budget earns `budgetRatio` of a retry. */
  deposit(): void {
    if (this.options.maxRetries === 0) return;
    this.tokens = Math.min(this.options.budgetReserve, this.tokens + this.options.budgetRatio);
  }

  /** Retries the global budget allows right now (whole ones). */
  get available(): number {
    return Math.floor(this.tokens);
  }

  /**
   * Whether to retry after `error` (the `retries`-th retry would be next, counting from 0), and
   * after how long; undefined to give the error to the caller. Takes one retry from the budget.
   */
  decide(error: unknown, safety: RetrySafety, retries: number): RetryDecision | undefined {
    const { maxRetries, initialDelayMs, maxDelayMs, maxRetryAfterMs } = this.options;
    if (retries >= maxRetries) return undefined;
    const failure = classify(error);
    if (!failure) return undefined;
    if (!failure.refused && safety !== 'repeatable') return undefined;
    const backoff = Math.min(maxDelayMs, initialDelayMs * 2 ** retries);
    let delayMs = Math.round(backoff * (0.5 + 0.5 * this.random()));
    if (failure.retryAfterMs !== undefined) {
      if (failure.retryAfterMs > maxRetryAfterMs) return undefined;
      delayMs = Math.max(delayMs, failure.retryAfterMs);
    }
    if (this.tokens < 1) return undefined;
    this.tokens -= 1;
    return { delayMs, reason: failure.reason };
  }
}

interface Failure {
  reason: ClientRetryReason;
  /** The server surely did not act on the request. */
  refused: boolean;
  retryAfterMs?: number;
}

/** Connection errors raised before a request could reach the server. */
const NOT_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

function classify(error: unknown): Failure | undefined {
  if (error instanceof KubernetesApiError) {
    const retryAfterMs =
      error.retryAfterSeconds !== undefined && error.retryAfterSeconds >= 0
        ? error.retryAfterSeconds * 1000
        : undefined;
    switch (error.status) {
      case 429:
        return { reason: '429', refused: true, retryAfterMs };
      case 503:
        return { reason: '503', refused: retryAfterMs !== undefined, retryAfterMs };
      case 500:
        return { reason: '500', refused: false, retryAfterMs };
      case 504:
        return { reason: '504', refused: false, retryAfterMs };
      default:
        return undefined;
    }
  }
  if (error instanceof KubernetesTransportError) {
    if (error.failure === 'timeout') return { reason: 'timeout', refused: false };
    if (error.failure === 'connection') {
      const code = (error.cause as NodeJS.ErrnoException | undefined)?.code;
      return { reason: 'connection', refused: code !== undefined && NOT_SENT.has(code) };
    }
  }
  return undefined;
}
