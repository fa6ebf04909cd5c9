/** Runs async tasks with at most `limit` at once, the others queued in order. */
export class Limiter {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Runs `task` when a slot is free; resolves or rejects with it. */
  run<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        let promise: Promise<T>;
        try {
          promise = task();
        } catch (error) {
          // a task may throw anything; it is passed on as thrown
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          promise = Promise.reject(error);
        }
        promise.then(resolve, reject).finally(() => {
          this.running--;
          this.queue.shift()?.();
        });
      };
      if (this.running < this.limit) start();
      else this.queue.push(start);
    });
  }
}
