/**
 * Runs async tasks with at most `limit` in flight; the rest wait in FIFO order. Shared by every
 * controller of an operator (JOSDK's reconciliation executor with `concurrentReconciliationThreads`).
 */
export class BoundedExecutor {
  private running = 0;
  private readonly queue: Array<() => Promise<void>> = [];
  private accepting = true;
  private idleWaiters: Array<() => void> = [];

  constructor(
    readonly limit: number,
    private readonly onChange: (queued: number, inFlight: number) => void = () => undefined,
  ) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`executor limit must be a positive integer, got ${limit}`);
  }

  /** Tasks running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.queue.length;
  }

  /** Runs `task` when a slot is free. Returns false (and drops it) after {@link BoundedExecutor.shutdown}. */
  submit(task: () => Promise<void>): boolean {
    if (!this.accepting) return false;
    if (this.running < this.limit) this.run(task);
    else this.queue.push(task);
    this.onChange(this.queue.length, this.running);
    return true;
  }

  /** Stops accepting and drops waiting tasks; running ones finish. Returns the dropped count. */
  shutdown(): number {
    this.accepting = false;
    const dropped = this.queue.length;
    this.queue.length = 0;
    this.onChange(0, this.running);
    return dropped;
  }

  /** Accepts tasks again after a shutdown. */
  restart(): void {
    this.accepting = true;
  }

  /** Resolves when nothing runs. */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private run(task: () => Promise<void>): void {
    this.running++;
    let promise: Promise<void>;
    try {
      promise = task();
    } catch {
      promise = Promise.resolve();
    }
    void promise
      .catch(() => undefined)
      .then(() => {
        this.running--;
        const next = this.accepting ? this.queue.shift() : undefined;
        if (next) this.run(next);
        this.onChange(this.queue.length, this.running);
        if (this.running === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const w of waiters) w();
        }
      });
  }
}
