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
 * Fault injection for reliability tests: failing requests, latency, dropped watches, compacted
 * history and restarts.
 */
export class FaultInjector {
  private failures: ActiveFailure[] = [];
  private latencies: LatencySpec[] = [];

  constructor(private readonly host: FaultHost) {}

  /** Fails the next `times` requests that match with `code`. */
  failNext(spec: FailureSpec): void {
    if (!Number.isInteger(spec.code) || spec.code < 400 || spec.code > 599)
      throw new RangeError(`code must be 400..599, got ${spec.code}`);
    this.failures.push({ ...spec, remaining: spec.times ?? 1 });
  }

  /** Adds `ms` of latency to every matching request until {@link clear}. */
  addLatency(spec: LatencySpec): void {
    if (!(spec.ms >= 0)) throw new RangeError('ms must be >= 0');
    this.latencies.push(spec);
  }

  /** Removes every pending failure and latency. */
  clear(): void {
    this.failures = [];
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
    if (this.failures.length === 0) return undefined;
    const i = this.failures.findIndex((f) => matches(f, req));
    if (i < 0) return undefined;
    const f = this.failures[i];
    f.remaining--;
    if (f.remaining <= 0) this.failures.splice(i, 1);
    return f;
  }

  /** @internal Total latency for a request. */
  latencyFor(req: FaultMatch): number {
    if (this.latencies.length === 0) return 0;
    return this.latencies.filter((l) => matches(l, req)).reduce((n, l) => n + l.ms, 0);
  }
}

function matches(f: FaultMatch, r: FaultMatch): boolean {
  return (
    (f.verb === undefined || f.verb === r.verb) &&
    (f.resource === undefined || f.resource === r.resource) &&
    (f.namespace === undefined || f.namespace === r.namespace) &&
    (f.subresource === undefined || f.subresource === r.subresource)
  );
}
