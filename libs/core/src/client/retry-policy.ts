import { KubernetesClientUsageError } from './errors.js';

/**
 * How {@link KubernetesClient} retries transient failures itself, before the caller (a reconcile
 * retry) has to. Every field is optional; each says its default.
 *
 * Which requests are retried, and on what:
 * - **429 Too Many Requests, and 503 with `Retry-After`**: every request, after the delay the
 *   server asks for. The server refused the request before acting on it (API Priority and Fairness
 *   rejects before processing), so even a create cannot land twice. client-go does the same.
 * - **500, 503 without `Retry-After`, 504, a connection reset or refused, a timeout**: only requests
 *   whose repetition cannot do harm, because the first attempt may have landed:
 *   GET (reads, lists, discovery); server-side apply (the same apply twice gives the same object);
 *   JSON merge patch (RFC 7386 patches are idempotent: patching twice equals patching once); a
 *   JSON patch whose `test` operations a landed patch makes fail (a test of
 *   `/metadata/resourceVersion`, or tests covering every path the patch changes: the repeat fails
 *   with a conflict instead of applying twice); PUT with `metadata.resourceVersion` (a repeat of
 *   a landed replace gets 409 Conflict); DELETE with a `uid` or `resourceVersion` precondition (a
 *   repeat of a landed delete finds 404, which `delete()` reports as "already gone", and cannot
 *   delete an object of the same name created in between); a named create (POST with `metadata.name`): a repeat of
 *   a landed create answers 409 AlreadyExists, which the caller sees as for any create race (the
 *   error's `cause` is the transient failure that led to the repeat).
 * - **Never retried on those**: a create with only `generateName` (a repeat makes a second object),
 *   PUT without resourceVersion, DELETE without a precondition, strategic merge patch, a JSON patch without such tests, and raw
 *   `request()` calls other than GET; watches (informers resume them).
 *
 * Delays: exponential from `initialDelayMs`, doubled per retry up to `maxDelayMs`, each drawn from
 * its upper half (jitter, so clients hit by one fault do not come back in step); `Retry-After`
 * wins when longer. A server that asks for more than `maxRetryAfterMs` is not waited for: the
 * error goes to the caller at once, with its `retryAfterSeconds`.
 *
 * Budget: per request `maxRetries`; across the client a retry budget (as gRPC's and Finagle's) —
 * a reserve of `budgetReserve` retries for bursts, refilled by `budgetRatio` per first attempt — so
 * a server in trouble sees at most that fraction of extra load, not a multiple of it.
 */
export interface ClientRetryOptions {
  /** Retries of one request after its first attempt; 0 turns retrying off. Defaults to 3. */
  maxRetries?: number;
  /** Delay before the first retry (the upper end; jitter draws from its upper half). Defaults to 50 ms. */
  initialDelayMs?: number;
  /** Largest backoff delay between attempts. Defaults to 1,000 ms. */
  maxDelayMs?: number;
  /** Longest `Retry-After` the client waits inside a request; longer ones go to the caller. Defaults to 5,000 ms. */
  maxRetryAfterMs?: number;
  /** Retries the budget earns per first attempt (0.2: at most 20% extra requests in the long run). Defaults to 0.2. */
  budgetRatio?: number;
  /** Retries the budget holds for bursts (also its starting balance). Defaults to 50. */
  budgetReserve?: number;
}

/** {@link ClientRetryOptions} with every default filled in. */
export type ResolvedClientRetryOptions = Readonly<Required<ClientRetryOptions>>;

/** The defaults of {@link ClientRetryOptions}. */
export const DEFAULT_CLIENT_RETRY: ResolvedClientRetryOptions = Object.freeze({
  maxRetries: 3,
  initialDelayMs: 50,
  maxDelayMs: 1_000,
  maxRetryAfterMs: 5_000,
  budgetRatio: 0.2,
  budgetReserve: 50,
});

/** Why the client retried a request (the label of the `clientRetry` metric). */
export type ClientRetryReason = '429' | '500' | '503' | '504' | 'connection' | 'timeout';

/**
 * Fills the defaults and checks ranges; `false` turns retrying off.
 * @throws KubernetesClientUsageError naming the option that is out of range.
 */
export function resolveClientRetryOptions(
  options: ClientRetryOptions | false | undefined,
): ResolvedClientRetryOptions {
  if (options === false) return Object.freeze({ ...DEFAULT_CLIENT_RETRY, maxRetries: 0 });
  const r = { ...DEFAULT_CLIENT_RETRY, ...stripUndefined(options ?? {}) };
  const check = (name: keyof ClientRetryOptions, ok: boolean, what: string) => {
    if (!ok) throw new KubernetesClientUsageError(`retry.${name} must be ${what}, got ${String(r[name])}`);
  };
  check('maxRetries', Number.isInteger(r.maxRetries) && r.maxRetries >= 0, 'an integer >= 0');
  check('initialDelayMs', r.initialDelayMs >= 0 && Number.isFinite(r.initialDelayMs), 'a number >= 0');
  check('maxDelayMs', r.maxDelayMs >= r.initialDelayMs && Number.isFinite(r.maxDelayMs), '>= initialDelayMs');
  check('maxRetryAfterMs', r.maxRetryAfterMs >= 0 && Number.isFinite(r.maxRetryAfterMs), 'a number >= 0');
  check('budgetRatio', r.budgetRatio >= 0 && Number.isFinite(r.budgetRatio), 'a number >= 0');
  check('budgetReserve', r.budgetReserve >= 0 && Number.isFinite(r.budgetReserve), 'a number >= 0');
  return Object.freeze(r);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
