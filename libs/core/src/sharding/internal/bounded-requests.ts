import type { Clock } from '../../util/clock.js';

/** A Lease request that got no answer in time, or was abandoned because membership stopped. */
export class LeaseRequestAbandonedError extends Error {
  /** Stable error code. */
  readonly code = 'LeaseRequestAbandoned';
  constructor(message: string) {
    super(message);
    this.name = 'LeaseRequestAbandonedError';
  }
}

/**
 * Bounds the membership's API requests by time (the renew deadline, on the injected clock) and lets
 * `stop()` abandon those in flight at once. `KubernetesClient.get/create/update/delete` take no
 * signal, so a bounded request is raced, not aborted: its late answer is dropped, and the client's
 * own timeout (or its `close()`) ends the connection.
 */
export class BoundedRequests {
  private readonly inFlight = new Set<(error: Error) => void>();

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
  ) {}

  /** Runs `work`, rejecting when it has no answer within the bound or {@link abandonAll} is called. */
  run<T>(what: string, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void) => {
        if (done) return;
        done = true;
        this.clock.clearTimeout(timer);
        this.inFlight.delete(abandon);
        settle();
      };
      const abandon = (error: Error) => finish(() => reject(error));
      const timer = this.clock.setTimeout(
        () => abandon(new LeaseRequestAbandonedError(`${what}: no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      this.inFlight.add(abandon);
      work().then(
        (value) => finish(() => resolve(value)),
        (error: unknown) => finish(() => reject(error instanceof Error ? error : new Error(String(error)))),
      );
    });
  }

  /** Rejects every request in flight (their answers, if any come, are dropped). */
  abandonAll(why: string): void {
    for (const abandon of [...this.inFlight]) abandon(new LeaseRequestAbandonedError(why));
  }
}
