import { describe, expect, it } from '@jest/globals';
import { chaosSummary, runChaos } from '../bench/lib/chaos-workload.js';

// The chaos suite of issue 18: N custom resources (TOSDK_CHAOS_N, 300 by default; 1,000 in
// `npm run bench -- chaos`) created, all updated, 20% deleted, while 9% of all writes answer 500 or
// 429, every watch drops every 1.5 s, watch history expires twice (410), the API server restarts once
// and the operator is replaced by a new instance mid-run. The same workload runs fault-free first
// as the baseline of the printed time ratio (the 2x target is reported, not asserted).
const N = Number(process.env.TOSDK_CHAOS_N ?? 300);
// TOSDK_CHAOS_CLIENT_RETRY=off runs the operator without the client's own retries of transient
// failures: every failure then costs a reconcile retry; the suite must converge either way
const CLIENT_RETRY = process.env.TOSDK_CHAOS_CLIENT_RETRY !== 'off';
const PHASE_TIMEOUT_MS = Number(process.env.TOSDK_CHAOS_PHASE_TIMEOUT_MS ?? 100_000);

describe('chaos: convergence under injected API faults', () => {
  it(
    `[RL-CHAOS] ${N} resources converge with 0 overlapping reconciles, 0 lost deletes and no unhandled rejection`,
    async () => {
      const log = (line: string): void => console.log(line);
      const options = { resources: N, phaseTimeoutMs: PHASE_TIMEOUT_MS, clientRetry: CLIENT_RETRY, log };
      const baseline = await runChaos({ ...options, faults: false });
      expect(baseline.converged).toBe(baseline.remaining);
      const chaos = await runChaos({ ...options, faults: true });
      console.log(chaosSummary(chaos, baseline));

      expect(chaos.remaining).toBe(N - Math.ceil(N / 5));
      expect({ unconverged: chaos.unconverged, converged: chaos.converged }).toEqual({
        unconverged: [],
        converged: chaos.remaining,
      });
      expect({ overlaps: chaos.overlaps, overlapping: chaos.overlapping }).toEqual({
        overlaps: 0,
        overlapping: [],
      });
      expect({ lostDeletes: chaos.lostDeletes, lost: chaos.lost }).toEqual({ lostDeletes: 0, lost: [] });
      // an unhandled rejection anywhere in the process during the test fails it: Jest reports it
      // as an error of the running test (the run's own counter sees them only outside Jest, in
      // `npm run bench -- chaos` and the soak)
      // the faults happened: writes failed, watches dropped, history expired, the server restarted
      // and a second operator instance took over
      expect(chaos.injectedFailures).toBeGreaterThan(0);
      expect(chaos.watchDrops).toBeGreaterThan(0);
      expect(chaos.compactions).toBe(2);
      expect(chaos.restarts).toBe(1);
      expect(chaos.operatorsStarted).toBe(2);
    },
    2 * 3 * PHASE_TIMEOUT_MS,
  );
});
