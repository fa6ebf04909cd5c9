// Chaos benchmark (issue 18): the chaos workload of test/chaos.e2e-spec.ts at bench size, 1,000
// custom resources by default (TOSDK_CHAOS_N), under injected faults, printed against the same
// workload run fault-free in the same process (the baseline). See bench/lib/chaos-workload.ts.
import { chaosSummary, runChaos } from './lib/chaos-workload.js';

/** Runs the fault-free baseline, then the chaos run, and prints both and their ratio. */
export async function run(): Promise<void> {
  const resources = Number(process.env.TOSDK_CHAOS_N ?? 1000);
  const log = (line: string): void => console.log(`  ${line}`);
  console.log(`fault-free baseline, ${resources} resources`);
  const baseline = await runChaos({ resources, faults: false, log });
  console.log(`chaos run, ${resources} resources`);
  const chaos = await runChaos({ resources, faults: true, log });
  console.log(chaosSummary(chaos, baseline));
  const ok =
    chaos.converged === chaos.remaining &&
    chaos.overlaps === 0 &&
    chaos.lostDeletes === 0 &&
    chaos.unhandledRejections === 0;
  console.log(
    ok
      ? 'chaos: PASS'
      : `chaos: FAIL ${JSON.stringify({ unconverged: chaos.unconverged, overlapping: chaos.overlapping, lost: chaos.lost })}`,
  );
  if (!ok) process.exitCode = 1;
}
