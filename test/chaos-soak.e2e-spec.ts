import { describe, expect, it } from '@jest/globals';
import { runSoak, soakSummary } from '../bench/soak.js';

// The CI variant of the soak (issue 18; the full one is `npm run soak`, an hour by default): steady
// churn under injected faults with heap and RSS sampled; after the warm-up, the last samples may not
// grow past 1.3x (heap, after GC) and 1.5x (RSS) of the first. A second, shorter run retains memory
// on purpose and must be caught, so the check is known to bite.
describe('soak', () => {
  it('[RL-SOAK] 40 s of churn under faults: memory within its bounds after warm-up, all converged, no lost delete', async () => {
    const report = await runSoak({
      durationMs: 40_000,
      warmupMs: 12_000,
      sampleEveryMs: 1500,
      log: (line) => console.log(line),
    });
    console.log(soakSummary(report));
    expect(report.operations).toBeGreaterThan(100);
    expect(report.injectedFailures).toBeGreaterThan(0);
    expect(report.verifiedDeletes).toBeGreaterThan(0);
    expect({ converged: report.converged, lost: report.lostDeletes, overlaps: report.overlaps }).toEqual({
      converged: report.population,
      lost: 0,
      overlaps: 0,
    });
    expect({
      heapRatio: report.heapRatio,
      rssRatio: report.rssRatio,
      memoryOk: report.memoryOk,
    }).toMatchObject({
      memoryOk: true,
    });
    expect(report.ok).toBe(true);
  }, 200_000);

  it('the leak check fails a run that retains memory on every operation', async () => {
    const retained: number[][] = [];
    const report = await runSoak({
      durationMs: 12_000,
      // a short warm-up keeps the baseline small, so even a slow churn on a loaded machine leaks
      // well past the bound after it
      warmupMs: 2000,
      sampleEveryMs: 1000,
      // 2 MiB of heap kept per churn operation (up to 300 MiB): far past 1.3x of the baseline
      onOperation: () => {
        if (retained.length < 150) retained.push(new Array<number>(256 * 1024).fill(retained.length));
      },
    });
    console.log(`deliberate leak: ${soakSummary(report)}`);
    expect(report.memoryOk).toBe(false);
    expect(report.ok).toBe(false);
    retained.length = 0;
  }, 200_000);
});
