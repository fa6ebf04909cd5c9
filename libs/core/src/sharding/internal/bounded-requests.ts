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
 * `stop()` abandon those in flight at once. A request that runs out of time or is abandoned is
 * aborted through the signal `work` gets (the client closes its connection) and rejects with a
 * {@link LeaseRequestAbandonedError}; an answer that still comes is dropped.
 */
export class BoundedRequests {
  private readonly inFlight = new Set<(error: Error) => void>();

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
  ) {}

  /** Runs `work`, aborting it and rejecting when it has no answer within the bound or {@link abandonAll} is called. */
  run<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void) => {
        if (done) return;
        done = true;
        this.clock.clearTimeout(timer);
        this.inFlight.delete(abandon);
        settle();
      };
      const abandon = (error: Error) =>
        finish(() => {
          controller.abort(error);
          reject(error);
        });
      const timer = this.clock.setTimeout(
        () => abandon(new LeaseRequestAbandonedError(`${what}: no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      this.inFlight.add(abandon);
      let started: Promise<T>;
      try {
        started = work(controller.signal);
      } catch (error) {
        started = Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      started.then(
        (value) => finish(() => resolve(value)),
        (error: unknown) => finish(() => reject(error instanceof Error ? error : new Error(String(error)))),
      );
    });
  }

  /** Aborts and rejects every request in flight. */
  abandonAll(why: string): void {
    for (const abandon of [...this.inFlight]) abandon(new LeaseRequestAbandonedError(why));
  }
}
