import { describe, expect, it } from '@jest/globals';
import { BoundedExecutor } from '../internal/bounded-executor.js';
import type { QueuedTask } from '../internal/bounded-executor.js';

/**
 * Review s3 of 7200e2d (issue 15 §2/§4: the executor's priority lanes read from a head index, with
 * splices for promotions and a compaction once 1,024 slots were taken): a seeded model test. One
 * slot; tasks submitted with priorities 0-3, promoted while they wait, and taken one at a time, in a
 * random interleaving long enough to compact the lanes several times. The order the executor starts
 * them must be the model's: highest priority first, submission order within a priority (a promoted
 * task keeps its submission order among its new lane's tasks).
 */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ModelTask {
  id: number;
  priority: number;
}

/** Turns of the event loop until `done` holds (bounded). */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  if (!done()) throw new Error('the executor did not start the next task');
}

describe('review s3: BoundedExecutor against a model (7200e2d)', () => {
  it.each([1, 2, 3])(
    '[EP-11] seed %i: 6,000 seeded submissions, promotions and takes start tasks in the model’s order',
    async (seed) => {
      const random = prng(seed);
      const executor = new BoundedExecutor(1);
      const started: number[] = [];
      const release: Array<() => void> = [];
      const handles = new Map<number, QueuedTask>();
      const model: ModelTask[] = [];
      const expected: number[] = [];
      let next = 0;
      const submit = (priority: number): void => {
        const id = next++;
        const handle = executor.submit(
          () =>
            new Promise<void>((resolve) => {
              started.push(id);
              release.push(resolve);
            }),
          priority,
        );
        if (handle === false) throw new Error('refused');
        // a task given a free slot starts at once (synchronously); the others wait
        if (started[started.length - 1] === id) expected.push(id);
        else {
          handles.set(id, handle);
          model.push({ id, priority });
        }
      };
      const take = async (): Promise<void> => {
        if (model.length === 0) return;
        // the model's next: highest priority, then lowest id (submission order)
        let best = 0;
        for (let i = 1; i < model.length; i++) {
          const m = model[i];
          const b = model[best];
          if (m.priority > b.priority || (m.priority === b.priority && m.id < b.id)) best = i;
        }
        const [chosen] = model.splice(best, 1);
        handles.delete(chosen.id);
        expected.push(chosen.id);
        const count = started.length;
        release.shift()!();
        await until(() => started.length > count);
      };
      submit(0);
      await until(() => started.length === 1);
      // a backlog first (the initial list), mostly at priority 0, so lanes grow past the compaction point
      for (let i = 0; i < 2_500; i++) submit(random() < 0.85 ? 0 : Math.floor(random() * 4));
      for (let op = 0; op < 6_000; op++) {
        const r = random();
        if (r < 0.3) submit(Math.floor(random() * 4));
        else if (r < 0.45 && model.length > 0) {
          const m = model[Math.floor(random() * model.length)];
          const to = Math.floor(random() * 5);
          handles.get(m.id)!.promote(to);
          if (to > m.priority) m.priority = to;
        } else await take();
      }
      while (model.length > 0) await take();
      expect(executor.queued).toBe(0);
      expect(started).toEqual(expected);
      release.shift()?.();
      await executor.idle();
    },
    120_000,
  );
});
