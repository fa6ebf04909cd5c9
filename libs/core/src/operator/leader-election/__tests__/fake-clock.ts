import type { Clock, TimerHandle } from '../../../util/clock.js';

interface Timer {
  id: number;
  due: number;
  callback: () => void;
}

/** Lets every pending promise chain run (a macrotask turn drains the microtask queue). */
export async function flush(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A clock that moves only when told. `advance()` fires due timers in order, letting promise chains
 * settle after each, so async state machines run as they would in real time, only instantly.
 */
export class FakeClock implements Clock {
  private timers: Timer[] = [];
  private nextId = 1;
  /** Called after every timer fired (and its promise chains settled), with the time. */
  onTick: ((now: number) => void) | undefined;

  constructor(public time = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const timer = { id: this.nextId++, due: this.time + Math.max(0, delayMs), callback };
    this.timers.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    const id = (handle as { id?: number }).id;
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  /** How many timers are pending. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await flush();
    for (;;) {
      const next = this.timers.filter((t) => t.due <= target).sort((a, b) => a.due - b.due || a.id - b.id)[0];
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = Math.max(this.time, next.due);
      next.callback();
      await flush();
      this.onTick?.(this.time);
    }
    this.time = target;
    this.onTick?.(this.time);
  }
}
