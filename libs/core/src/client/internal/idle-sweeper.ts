/** One buffered request's idle deadline, as the {@link IdleSweeper} watches it. */
export interface IdleEntry {
  /** When the request was sent or its socket last delivered data (Date.now()). */
  last: number;
  /** How long it may stay idle. */
  timeoutMs: number;
  /** Fails the request with a timeout. */
  expire(): void;
}

/**
 * The idle deadlines of a connection's buffered requests, checked by one unreferenced interval
 * timer (a quarter of the shortest timeout, at most a second) while any request is in flight,
 * instead of a timer and a socket timeout per request. A request times out between its timeout and
 * that plus one check period after it went idle.
 */
export class IdleSweeper {
  private readonly entries = new Set<IdleEntry>();
  private timer: NodeJS.Timeout | undefined;
  private periodMs = Infinity;

  add(entry: IdleEntry): void {
    this.entries.add(entry);
    const period = Math.max(1, Math.min(1000, Math.floor(entry.timeoutMs / 4)));
    if (this.timer === undefined || period < this.periodMs) {
      clearInterval(this.timer);
      this.periodMs = period;
      this.timer = setInterval(() => this.sweep(), period);
      this.timer.unref();
    }
  }

  remove(entry: IdleEntry): void {
    this.entries.delete(entry);
  }

  private sweep(): void {
    if (this.entries.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.periodMs = Infinity;
      return;
    }
    const now = Date.now();
    for (const entry of this.entries) {
      if (now - entry.last >= entry.timeoutMs) {
        this.entries.delete(entry);
        entry.expire();
      }
    }
  }
}
