import type { Clock, TimerHandle } from '../../util/clock.js';

interface Timer {
  id: number;
  at: number;
  delay: number;
  callback: () => void;
}

/** A clock that moves only when the test says so. */
export class FakeClock implements Clock {
  private time = 1_000_000;
  private nextId = 1;
  private timers: Timer[] = [];

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.time + Math.max(0, delayMs), delay: delayMs, callback };
    this.timers.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    const id = (handle as { id: number }).id;
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  /** Delays (as scheduled) of the timers not yet run. */
  pendingDelays(): number[] {
    return this.timers.map((t) => t.delay);
  }

  /** Moves time forward, running due timers in order. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.callback();
    }
    this.time = target;
  }
}
