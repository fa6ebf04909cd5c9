import type { Clock, TimerHandle } from '../../util/clock.js';

/** A clock whose time moves only when a test says so. */
export class FakeClock implements Clock {
  private time = 1_000_000;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; seq: number; cb: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(cb: () => void, delayMs: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { at: this.time + Math.max(0, delayMs), seq: id, cb });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete((handle as { id: number }).id);
  }

  /** Pending timers' due times relative to now, soonest first. */
  pending(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.time).sort((a, b) => a - b);
  }

  /** Moves time forward, firing due timers in order (and letting their async work settle). */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    for (;;) {
      const next = [...this.timers.entries()]
        .filter(([, t]) => t.at <= target)
        .sort((a, b) => a[1].at - b[1].at || a[1].seq - b[1].seq)[0];
      if (!next) break;
      this.timers.delete(next[0]);
      this.time = next[1].at;
      next[1].cb();
      await settle();
    }
    this.time = target;
    await settle();
  }
}

/** Lets pending promise callbacks and immediates run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
