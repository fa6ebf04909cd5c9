/** A waiting task: it can be moved to a higher priority until it starts. */
export interface QueuedTask {
  /** Moves the task to `priority` when that is higher than its own (no effect once it started). */
  promote(priority: number): void;
}

interface Waiting {
  readonly task: () => Promise<void>;
  priority: number;
  /** Order of submission: FIFO within a priority. */
  readonly seq: number;
  started: boolean;
}

/**
 * One priority's FIFO of waiting tasks: an array read from `head` on, so taking the next task is
 * O(1) (`Array.shift` moves every other element of a long backlog, e.g. an initial list of 5,000).
 */
interface Lane {
  items: Array<Waiting | undefined>;
  head: number;
}

/** How many taken slots a lane keeps before it compacts its array. */
const COMPACT_AFTER = 1024;

/**
 * Runs async tasks with at most `limit` in flight; the rest wait by priority (higher first), in
 * FIFO order within one priority. Shared by every controller of an operator (JOSDK's
 * reconciliation executor with `concurrentReconciliationThreads`).
 */
export class BoundedExecutor {
  private running = 0;
  /** Waiting tasks, one FIFO lane per priority, lanes by priority (highest first). */
  private readonly lanes = new Map<number, Lane>();
  private order: number[] = [];
  private waiting = 0;
  private seq = 0;
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
    return this.waiting;
  }

  /**
   * Runs `task` when a slot is free, before waiting tasks of a lower `priority` (default 0).
   * Returns false (and drops it) after {@link BoundedExecutor.shutdown}; else a handle that can
   * promote the task while it waits.
   */
  submit(task: () => Promise<void>, priority = 0): QueuedTask | false {
    if (!this.accepting) return false;
    if (this.running < this.limit) {
      this.run(task);
      this.onChange(this.waiting, this.running);
      return STARTED;
    }
    const entry: Waiting = { task, priority, seq: this.seq++, started: false };
    this.enqueue(entry);
    this.onChange(this.waiting, this.running);
    return {
      promote: (to: number) => {
        if (entry.started || to <= entry.priority) return;
        const lane = this.lanes.get(entry.priority)!;
        lane.items.splice(lane.items.indexOf(entry, lane.head), 1);
        this.waiting--;
        if (lane.head >= lane.items.length) this.dropLane(entry.priority);
        entry.priority = to;
        // promoted tasks keep their submission order among the tasks of their new lane
        this.enqueue(entry, true);
      },
    };
  }

  /** Stops accepting and drops waiting tasks; running ones finish. Returns the dropped count. */
  shutdown(): number {
    this.accepting = false;
    const dropped = this.waiting;
    for (const lane of this.lanes.values()) {
      for (let i = lane.head; i < lane.items.length; i++) lane.items[i]!.started = true;
    }
    this.lanes.clear();
    this.order = [];
    this.waiting = 0;
    this.onChange(0, this.running);
    return dropped;
  }

  private enqueue(entry: Waiting, bySeq = false): void {
    let lane = this.lanes.get(entry.priority);
    if (!lane) {
      lane = { items: [], head: 0 };
      this.lanes.set(entry.priority, lane);
      this.order = [...this.lanes.keys()].sort((a, b) => b - a);
    }
    const items = lane.items;
    if (bySeq) {
      let i = items.length;
      while (i > lane.head && items[i - 1]!.seq > entry.seq) i--;
      items.splice(i, 0, entry);
    } else items.push(entry);
    this.waiting++;
  }

  private dropLane(priority: number): void {
    this.lanes.delete(priority);
    this.order = this.order.filter((p) => p !== priority);
  }

  private next(): (() => Promise<void>) | undefined {
    for (const priority of this.order) {
      const lane = this.lanes.get(priority)!;
      if (lane.head >= lane.items.length) continue;
      const entry = lane.items[lane.head]!;
      lane.items[lane.head++] = undefined;
      if (lane.head >= lane.items.length) this.dropLane(priority);
      else if (lane.head >= COMPACT_AFTER && lane.head * 2 >= lane.items.length) {
        lane.items = lane.items.slice(lane.head);
        lane.head = 0;
      }
      this.waiting--;
      entry.started = true;
      return entry.task;
    }
    return undefined;
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
    // one reaction for success and failure alike (no intermediate promise per task)
    void promise.then(this.taskDone, this.taskDone);
  }

  /** A task settled: its slot goes to the next waiting task. */
  private readonly taskDone = (): void => {
    this.running--;
    const next = this.accepting ? this.next() : undefined;
    if (next) this.run(next);
    this.onChange(this.waiting, this.running);
    if (this.running === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  };
}

/** The handle of a task that started at once (nothing to promote). */
const STARTED: QueuedTask = Object.freeze({ promote: () => undefined });
