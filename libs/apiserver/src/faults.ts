/** Which requests a fault applies to; every given field must match. */
export interface FaultMatch {
  /** Kubernetes verb (get, list, watch, create, update, patch, delete, deletecollection). */
  verb?: string;
  /** Resource plural. */
  resource?: string;
  namespace?: string;
  subresource?: string;
}

/** A failure to inject. */
export interface FailureSpec extends FaultMatch {
  /** HTTP code to answer with (e.g. 429, 500, 503, 409). */
  code: number;
  /** How many matching requests fail. Defaults to 1. */
  times?: number;
  /** Retry-After seconds (sent with 429 and 503). Defaults to 1. */
  retryAfterSeconds?: number;
  /** Message of the Status. */
  message?: string;
}

/**
 * A failure injected into a fraction of the matching requests (see {@link FaultInjector.failRate}).
 * Unlike "fail the next N", a retried request has the same chance as a fresh one, so failures do
 * not pile up on retries.
 */
export interface RateFailureSpec extends FaultMatch {
  /** The fraction of matching requests that fail, 0..1 (e.g. 0.09 fails about 9 in 100). */
  rate: number;
  /**
   * HTTP code to answer with, or several: each failure picks one of them at random (seeded).
   * Every code must be 400..599.
   */
  code: number | readonly number[];
  /**
   * Verbs that match (any of them), e.g. `['create', 'update', 'patch', 'delete']` for "writes".
   * Combined with {@link FaultMatch.verb} when both are given. Defaults to every verb.
   */
  verbs?: readonly string[];
  /**
   * Seed of the random choice, so a run can be replayed: the same seed and the same sequence of
   * matching requests fail the same requests. Defaults to 1.
   */
  seed?: number;
  /** Retry-After seconds (sent with 429 and 503). Defaults to 1. */
  retryAfterSeconds?: number;
  /** Message of the Status. Defaults to `injected fault: <code>`. */
  message?: string;
}

/** A live rate-based fault: what it did so far, and a way to end it. */
export interface RateFault {
  /** How many requests matched the fault so far. */
  readonly matched: number;
  /** How many of them were failed. */
  readonly injected: number;
  /** Ends the fault: later requests are no longer failed by it. */
  remove(): void;
}

/** Latency to add to matching requests. */
export interface LatencySpec extends FaultMatch {
  ms: number;
}

interface ActiveFailure extends FailureSpec {
  remaining: number;
}

/** The hooks the server gives fault injection (set by the server). */
export interface FaultHost {
  closeAllWatches(): void;
  compact(): void;
  restart(): Promise<void>;
}

/**
 * Fault injection for reliability tests: failing requests (the next N, or a seeded fraction),
 * latency, dropped watches, compacted history and restarts.
 */
export class FaultInjector {
  private failures: ActiveFailure[] = [];
  private rates: RateFaultState[] = [];
  private latencies: LatencySpec[] = [];
  private injectedTotal = 0;

  constructor(private readonly host: FaultHost) {}

  /** How many requests were failed by injection (both modes) since the server started. */
  get injectedFailures(): number {
    return this.injectedTotal;
  }

  /** Fails the next `times` requests that match with `code`. */
  failNext(spec: FailureSpec): void {
    checkCode(spec.code);
    this.failures.push({ ...spec, remaining: spec.times ?? 1 });
  }

  /**
   * Fails a fraction `rate` of the matching requests, chosen by a seeded random generator, until
   * the returned fault is removed or {@link clear} is called. Several rate faults may be active; a
   * request is failed by the first one that picks it ("next N" failures are checked first).
   *
   * ```ts
   * const writes = server.faults.failRate({
   *   verbs: ['create', 'update', 'patch', 'delete'],
   *   rate: 0.09,
   *   code: [500, 429],
   *   seed: 42,
   * });
   * // ... run the workload; writes.injected says how many were failed
   * writes.remove();
   * ```
   *
   * @throws RangeError when `rate` is not within 0..1 or a code is not 400..599.
   */
  failRate(spec: RateFailureSpec): RateFault {
    if (!(spec.rate >= 0 && spec.rate <= 1)) throw new RangeError(`rate must be 0..1, got ${spec.rate}`);
    const codes = typeof spec.code === 'number' ? [spec.code] : [...spec.code];
    if (codes.length === 0) throw new RangeError('code must name at least one HTTP code');
    codes.forEach(checkCode);
    const state = new RateFaultState(spec, codes, () => {
      this.rates = this.rates.filter((r) => r !== state);
    });
    this.rates.push(state);
    return state;
  }

  /** Adds `ms` of latency to every matching request until {@link clear}. */
  addLatency(spec: LatencySpec): void {
    if (!(spec.ms >= 0)) throw new RangeError('ms must be >= 0');
    this.latencies.push(spec);
  }

  /** Removes every pending failure (both modes) and latency. */
  clear(): void {
    this.failures = [];
    this.rates = [];
    this.latencies = [];
  }

  /** Ends every open watch; clients must re-watch. */
  closeAllWatches(): void {
    this.host.closeAllWatches();
  }

  /** Drops watch history: any earlier resourceVersion now gives 410 Expired. */
  compact(): void {
    this.host.compact();
  }

  /** Restarts the listener on the same port, keeping state; every connection is dropped. */
  restart(): Promise<void> {
    return this.host.restart();
  }

  /** @internal The failure for a request, consuming one use. */
  takeFailure(req: Required<Pick<FaultMatch, 'verb' | 'resource'>> & FaultMatch): FailureSpec | undefined {
    const f = this.takeNext(req) ?? this.takeRate(req);
    if (f) this.injectedTotal++;
    return f;
  }

  /** @internal Total latency for a request. */
  latencyFor(req: FaultMatch): number {
    if (this.latencies.length === 0) return 0;
    return this.latencies.filter((l) => matches(l, req)).reduce((n, l) => n + l.ms, 0);
  }

  private takeNext(req: FaultMatch): FailureSpec | undefined {
    if (this.failures.length === 0) return undefined;
    const i = this.failures.findIndex((f) => matches(f, req));
    if (i < 0) return undefined;
    const f = this.failures[i];
    f.remaining--;
    if (f.remaining <= 0) this.failures.splice(i, 1);
    return f;
  }

  private takeRate(req: FaultMatch): FailureSpec | undefined {
    for (const r of this.rates) {
      const f = r.take(req);
      if (f) return f;
    }
    return undefined;
  }
}

class RateFaultState implements RateFault {
  matched = 0;
  injected = 0;
  private readonly random: () => number;

  constructor(
    private readonly spec: RateFailureSpec,
    private readonly codes: readonly number[],
    private readonly onRemove: () => void,
  ) {
    this.random = mulberry32(spec.seed ?? 1);
  }

  take(req: FaultMatch): FailureSpec | undefined {
    if (!matches(this.spec, req)) return undefined;
    if (this.spec.verbs && !this.spec.verbs.includes(req.verb ?? '')) return undefined;
    this.matched++;
    // one draw per matching request (whether it fails or not), so a replay with the same seed
    // and the same request sequence fails the same requests
    if (this.random() >= this.spec.rate) return undefined;
    this.injected++;
    const code =
      this.codes.length === 1 ? this.codes[0] : this.codes[Math.floor(this.random() * this.codes.length)];
    const failure: FailureSpec = { code };
    if (this.spec.retryAfterSeconds !== undefined) failure.retryAfterSeconds = this.spec.retryAfterSeconds;
    if (this.spec.message !== undefined) failure.message = this.spec.message;
    return failure;
  }

  remove(): void {
    this.onRemove();
  }
}

/** A small seeded generator (mulberry32): uniform in [0, 1), the same sequence for the same seed. */
function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function checkCode(code: number): void {
  if (!Number.isInteger(code) || code < 400 || code > 599)
    throw new RangeError(`code must be 400..599, got ${code}`);
}

function matches(f: FaultMatch, r: FaultMatch): boolean {
  return (
    (f.verb === undefined || f.verb === r.verb) &&
    (f.resource === undefined || f.resource === r.resource) &&
    (f.namespace === undefined || f.namespace === r.namespace) &&
    (f.subresource === undefined || f.subresource === r.subresource)
  );
}
