// `npm run soak [-- --duration 1h] [--warmup 15m]`: builds the libraries and the benchmarks, then
// runs the soak of bench/soak.ts (steady churn under faults, heap and RSS sampled, leak check after
// the warm-up) and exits 1 when a check fails. Durations: a number of ms, or with s, m or h.
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = 'usage: npm run soak -- [--duration 1h] [--warmup 15m] [--population 60]';

/** Milliseconds of `90s`, `10m`, `1h` or a bare number of ms. */
function duration(name, text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(String(text).trim());
  if (!m) {
    console.error(
      `--${name}: ${JSON.stringify(text)} is not a duration (e.g. 90s, 10m, 1h or milliseconds); ${USAGE}`,
    );
    process.exit(2);
  }
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 'ms'];
  return Math.round(Number(m[1]) * unit);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      duration: { type: 'string', default: '1h' },
      warmup: { type: 'string' },
      population: { type: 'string' },
    },
  }));
} catch (error) {
  console.error(`${error.message}; ${USAGE}`);
  process.exit(2);
}
const durationMs = duration('duration', values.duration);
const warmupMs =
  values.warmup === undefined
    ? Math.min(Math.floor(durationMs / 4), 15 * 60_000)
    : duration('warmup', values.warmup);
if (warmupMs >= durationMs) {
  console.error(`--warmup (${warmupMs} ms) must be shorter than --duration (${durationMs} ms); ${USAGE}`);
  process.exit(2);
}
const population = values.population === undefined ? undefined : Number(values.population);
if (population !== undefined && !(Number.isInteger(population) && population > 0)) {
  console.error(
    `--population must be a positive integer, got ${JSON.stringify(values.population)}; ${USAGE}`,
  );
  process.exit(2);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json', 'bench/tsconfig.json'], {
  cwd: root,
  stdio: 'inherit',
});
// @tosdk/core's package entry is one bundled file made from its tsc output (as `npm run build` does)
execFileSync(process.execPath, [join(root, 'libs', 'core', 'scripts', 'bundle.mjs')], {
  cwd: root,
  stdio: 'inherit',
});

const { runSoak } = await import(pathToFileURL(join(root, 'bench', 'dist', 'soak.js')).href);
console.log(`soak: ${durationMs} ms, warm-up ${warmupMs} ms`);
const report = await runSoak({
  durationMs,
  warmupMs,
  ...(population === undefined ? {} : { population }),
  log: (line) => console.log(line),
});
for (const s of report.samples)
  console.log(
    `  t=${(s.atMs / 1000).toFixed(0)}s heap=${(s.heapUsed / 1048576).toFixed(1)}MB external=${(s.external / 1048576).toFixed(1)}MB rss=${(s.rss / 1048576).toFixed(0)}MB`,
  );
process.exitCode = report.ok ? 0 : 1;
