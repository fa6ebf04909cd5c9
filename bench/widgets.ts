// Widgets benchmark (issue 15 §2): a namespaced CRD `Widget` with a status subresource; N widgets
// exist before start; per widget a contender makes exactly one server-side apply of a ConfigMap
// (owner reference to the Widget) and one merge patch of the Widget's status, 50 in flight. The API
// server (@tosdk/apiserver, HTTPS by default) runs in a process of its own, fresh and seeded the
// same way for every contender; each contender runs in a process of its own too, so its CPU time
// and peak RSS are its own. Converge time is from `go` until the server has seen every status and
// every ConfigMap (its change feed, no polling). Writes are the server's request accounting.
//
// Contenders, every figure printed as a ratio to floor-raw measured in the same run:
// - floor-raw: a bare node:http(s) keep-alive client: one list, the 2N writes, nothing else;
// - tosdk: the README's reconciler (resourceOperations().serverSideApply + InformerEventSource,
//   `UpdateControl.patchStatus`); tosdk-workflow: the ConfigMap as a managed workflow dependent
//   with the default workflow executor;
// - peers: a hand-written @kubernetes/client-node 2 informer loop and @dot-i/k8s-operator.
// Then a no-change restart: tosdk started again on its converged server (target 0 writes, time
// <= 1.2x floor-raw's list-and-compare of Widgets and ConfigMaps on its converged server), and
// tosdk's operator once more there with a reconciler that does nothing: the framework alone.
//
// Noise: at the size the targets are read at (5,000), floor-raw, tosdk and tosdk-workflow run
// `rounds` times (default 3) interleaved. The tables show each contender's fastest round (the one
// least disturbed by other work on the machine); the CPU and restart targets are read as the median
// of the rounds' paired ratios (round i of tosdk against round i of the floor, which ran next to it),
// because the machine's load moves the floor's own CPU by up to 2x between rounds. The peers run
// once, at N = 1,000 by default (they take 15-20x floor-raw: over a minute each at 5,000).
//
// npm run bench -- widgets [scale] [peers] [http] [--cpu-prof[=DIR]] [--cpu-prof-interval=US] [n=1000,5000] [rounds=3] [contenders=...]
//   scale       N = 50,000 instead of 1,000 and 5,000, one round, no peers
//   peers       the peers at every N (not only 1,000)
//   http        plain HTTP instead of HTTPS (both sides, every contender)
//   --cpu-prof  writes the CPU profiles of tosdk and floor-raw (converge phase) to DIR (default: a
//               temp dir) and prints where each spent its time; profiling slows both, so that
//               run's ratios are not the comparable ones
//   --cpu-prof-interval=US  the profiles' sampling interval in microseconds (Node's default 1000;
//               100 resolves a flat profile's small functions, at more overhead)
//   n=...       the sizes (the peers then run at each)
//   contenders= which contenders (floor-raw always runs: it is the baseline; tosdk-ssa, the status
//               by server-side apply as the framework does by default, runs only when named)
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Accounting, ContenderName, ContenderReport } from './lib/widgets-common.js';
import { ContenderProcess, ServerProcess, WidgetsBenchError } from './lib/widgets-processes.js';
import { printProfile, summariseProfile } from './lib/widgets-profile.js';

const ALL: ContenderName[] = ['floor-raw', 'tosdk', 'tosdk-ssa', 'tosdk-workflow', 'client-node', 'dot-i'];
/** The restart's framework-alone reading: run after `tosdk`'s restart on the same converged server. */
const IDLE_RECONCILER: ContenderName = 'tosdk-idle-reconciler';
/** Run when no `contenders=` is given (tosdk-ssa, the status by server-side apply, only when named). */
const DEFAULT_CONTENDERS = ALL.filter((c) => c !== 'tosdk-ssa');
/** The contenders the targets are about: measured `rounds` times, interleaved, the fastest round kept. */
const TARGETED: ContenderName[] = ['floor-raw', 'tosdk', 'tosdk-ssa', 'tosdk-workflow'];
const PEERS: ContenderName[] = ['client-node', 'dot-i'];
/** Profiled with `--cpu-prof` (converge phase): tosdk, and the floor to compare it with. */
const PROFILED: ContenderName[] = ['floor-raw', 'tosdk', 'tosdk-workflow'];
const profileName = (name: ContenderName, n: number, phase: 'converge' | 'restart' = 'converge'): string =>
  `${name}-widgets-${phase === 'restart' ? 'restart-' : ''}${n}.cpuprofile`;

interface Options {
  sizes: number[];
  /** Sizes at which the peers run (they take 15-20x floor-raw: 75 s each at 5,000). */
  peerSizes: number[];
  rounds: number;
  tls: boolean;
  cpuProfDir: string | undefined;
  /** `--cpu-prof-interval`: the profiles' sampling interval in microseconds (Node's default when unset). */
  cpuProfIntervalUs: number | undefined;
  contenders: ContenderName[];
}

/** Thrown for an argument the suite does not know. */
export class WidgetsUsageError extends Error {
  readonly code = 'WIDGETS_USAGE';
}

const USAGE =
  'usage: npm run bench -- widgets [scale] [peers] [http] [--cpu-prof[=DIR]] [--cpu-prof-interval=US] [n=1000,5000] [rounds=3] [contenders=floor-raw,tosdk,...]';

function positiveIntegers(a: string, value: string): number[] {
  const out = value.split(',').map((s) => Number(s.replaceAll('_', '')));
  if (out.length === 0 || out.some((s) => !Number.isInteger(s) || s < 1))
    throw new WidgetsUsageError(`'${a}' takes positive integers separated by commas\n${USAGE}`);
  return out;
}

function parseArgs(args: string[]): Options {
  const o: Options = {
    sizes: [1_000, 5_000],
    peerSizes: [1_000],
    rounds: 3,
    tls: true,
    cpuProfDir: undefined,
    cpuProfIntervalUs: undefined,
    contenders: DEFAULT_CONTENDERS,
  };
  let peersEverywhere = false;
  for (const a of args) {
    if (a === 'scale') {
      o.sizes = [50_000];
      o.rounds = 1;
    } else if (a === 'peers') peersEverywhere = true;
    else if (a === 'http') o.tls = false;
    else if (a === '--cpu-prof') o.cpuProfDir = mkdtempSync(join(tmpdir(), 'tosdk-widgets-prof-'));
    else if (a.startsWith('--cpu-prof=')) {
      o.cpuProfDir = resolve(a.slice('--cpu-prof='.length));
      mkdirSync(o.cpuProfDir, { recursive: true });
    } else if (a.startsWith('--cpu-prof-interval='))
      [o.cpuProfIntervalUs] = positiveIntegers(a, a.slice('--cpu-prof-interval='.length));
    else if (a.startsWith('n=')) o.sizes = positiveIntegers(a, a.slice(2));
    else if (a.startsWith('rounds=')) [o.rounds] = positiveIntegers(a, a.slice('rounds='.length));
    else if (a.startsWith('contenders=')) {
      const names = a.slice('contenders='.length).split(',') as ContenderName[];
      const unknown = names.filter((c) => !ALL.includes(c));
      if (unknown.length > 0)
        throw new WidgetsUsageError(
          `unknown contender(s) ${unknown.join(', ')}; known: ${ALL.join(', ')}\n${USAGE}`,
        );
      o.contenders = ALL.filter((c) => names.includes(c) || c === 'floor-raw');
    } else throw new WidgetsUsageError(`unknown argument '${a}'\n${USAGE}`);
  }
  // peers run at 1,000 by default; with `peers`, or when sizes were chosen, at every size
  if (peersEverywhere || args.some((a) => a.startsWith('n='))) o.peerSizes = o.sizes;
  else if (o.sizes.every((n) => n > 5_000)) o.peerSizes = [];
  return o;
}

interface PhaseFigures {
  ms: number;
  report: ContenderReport;
  accounting: Accounting;
}

interface ContenderFigures {
  name: ContenderName;
  converge?: PhaseFigures;
  restart?: PhaseFigures;
  /** `tosdk` only: the same restart with a reconciler that does nothing (the framework alone). */
  restartIdleReconciler?: PhaseFigures;
  /** Why it did not run (a peer not installed, a failure). */
  skipped?: string;
}

const timeoutFor = (n: number): number => Math.max(180_000, n * 30);

/** One timed phase of one contender against `server`. */
async function phase(
  server: ServerProcess,
  name: ContenderName,
  n: number,
  kind: 'converge' | 'restart',
  execArgv: string[] = [],
): Promise<PhaseFigures> {
  const c = await ContenderProcess.start(name, server.connection, n, kind, execArgv);
  try {
    server.reset();
    let ms: number;
    const t0 = performance.now();
    if (kind === 'converge') {
      const converged = server.converged(n, timeoutFor(n));
      const done = c.go(timeoutFor(n));
      await c.guard(converged);
      ms = performance.now() - t0;
      await c.guard(done);
    } else {
      await c.go(timeoutFor(n));
      ms = performance.now() - t0;
    }
    const report = await c.report();
    const accounting = await server.settledAccounting();
    return { ms, report, accounting };
  } finally {
    await c.stop();
  }
}

async function measure(name: ContenderName, n: number, options: Options): Promise<ContenderFigures> {
  const server = await ServerProcess.start(options.tls);
  try {
    await server.seed(n);
    // profiled contenders write a profile per phase, each in a file of its own
    const profiled = PROFILED.includes(name) && options.cpuProfDir !== undefined;
    const prof = (file: string): string[] =>
      profiled
        ? [
            '--cpu-prof',
            ...(options.cpuProfIntervalUs === undefined
              ? []
              : ['--cpu-prof-interval', String(options.cpuProfIntervalUs)]),
            '--cpu-prof-dir',
            options.cpuProfDir!,
            '--cpu-prof-name',
            file,
          ]
        : [];
    const converge = await phase(server, name, n, 'converge', prof(profileName(name, n)));
    // the restart phase is profiled too (floor-raw's list-and-compare and tosdk)
    const restartProf = prof(profileName(name, n, 'restart'));
    let restart: PhaseFigures | undefined;
    if (name === 'floor-raw') restart = await phase(server, 'floor-list-compare', n, 'restart', restartProf);
    else if (name.startsWith('tosdk')) restart = await phase(server, name, n, 'restart', restartProf);
    const idleProf = prof(profileName(IDLE_RECONCILER, n, 'restart'));
    const restartIdleReconciler =
      name === 'tosdk' ? await phase(server, IDLE_RECONCILER, n, 'restart', idleProf) : undefined;
    return { name, converge, restart, restartIdleReconciler };
  } catch (e) {
    if (name === 'floor-raw') throw e;
    const message = e instanceof Error ? e.message : String(e);
    return { name, skipped: message.split('\n')[0] };
  } finally {
    await server.stop();
  }
}

const ms = (v: number): string => `${Math.round(v).toLocaleString('en-US')} ms`;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
const perResource = (a: Accounting, n: number): string =>
  `${(a.writesTotal / n).toFixed(2)}/resource (${Object.entries(a.writes)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')})`;

function printSize(n: number, all: ContenderFigures[]): void {
  const floor = all.find((f) => f.name === 'floor-raw')!;
  const base = floor.converge!;
  console.log(`\nN = ${n.toLocaleString('en-US')} widgets`);
  console.log(
    '| contender | converge | ratio | operator CPU | ratio | peak RSS | ratio | writes | writes arrived (after go) | server CPU |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const f of all) {
    if (!f.converge) {
      console.log(`| ${f.name} | not run: ${f.skipped ?? 'unknown'} | | | | | | | | |`);
      continue;
    }
    const c = f.converge;
    console.log(
      `| ${f.name} | ${ms(c.ms)} | ${ratio(c.ms, base.ms)} | ${ms(c.report.cpuMs)} (whole process ${ms(c.report.cpuTotalMs)}) | ${ratio(c.report.cpuMs, base.report.cpuMs)} | ${mb(c.report.maxRssBytes)} (${mb(c.report.readyRssBytes)} before go) | ${ratio(c.report.maxRssBytes, base.report.maxRssBytes)} | ${perResource(c.accounting, n)} | ${ms(c.accounting.firstWriteMs)} to ${ms(c.accounting.lastWriteMs)} | ${ms(c.accounting.serverCpuMs)} |`,
    );
  }
  const restarts = all.filter((f) => f.restart);
  if (restarts.length > 0) {
    console.log(
      `\nno-change restart, N = ${n.toLocaleString('en-US')} (baseline: floor-raw's list-and-compare)`,
    );
    console.log('| contender | time | ratio | CPU | writes | reconciles / compared |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    const lc = floor.restart!;
    for (const f of restarts) {
      const r = f.restart!;
      const label = f.name === 'floor-raw' ? 'floor list-and-compare' : f.name;
      const seen = r.report.extra.reconciles ?? r.report.extra.compared ?? 0;
      console.log(
        `| ${label} | ${ms(r.ms)} | ${ratio(r.ms, lc.ms)} | ${ms(r.report.cpuMs)} | ${perResource(r.accounting, n)} | ${seen}${r.report.extra.differing !== undefined ? `, ${r.report.extra.differing} differing` : ''} |`,
      );
      const idle = f.restartIdleReconciler;
      if (idle)
        console.log(
          `| ${f.name}, a reconciler that does nothing (the framework alone) | ${ms(idle.ms)} | ${ratio(idle.ms, lc.ms)} | ${ms(idle.report.cpuMs)} | ${perResource(idle.accounting, n)} | ${idle.report.extra.reconciles ?? 0} |`,
        );
    }
  }
}

/** The round with the fastest converge (the least disturbed by other work on the machine). */
function fastest(fs: ContenderFigures[]): ContenderFigures {
  const ran = fs.filter((f) => f.converge);
  if (ran.length === 0) return fs[0];
  return ran.reduce((a, b) => (b.converge!.ms < a.converge!.ms ? b : a));
}

interface Target {
  what: string;
  figure: string;
  baseline: string;
  met: boolean;
}

/** The size the targets are read at: 5,000 when measured, else the largest. */
const targetSize = (sizes: number[]): number => (sizes.includes(5_000) ? 5_000 : Math.max(...sizes));

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * The ratio of `name` to floor-raw in each round (rounds are interleaved: round i of each contender
 * ran next to round i of the floor), and their median: the steadier reading on a shared machine, whose
 * load moves both sides of a round together but the rounds apart (the floor's own CPU moved 2x between
 * rounds of one run).
 */
function pairedRatios(
  rounds: Map<ContenderName, ContenderFigures[]>,
  name: ContenderName,
  value: (f: ContenderFigures) => number | undefined,
  floorValue: (f: ContenderFigures) => number | undefined = value,
): { median: number; each: number[] } | undefined {
  const floor = rounds.get('floor-raw') ?? [];
  const mine = rounds.get(name) ?? [];
  const each: number[] = [];
  for (let i = 0; i < Math.min(floor.length, mine.length); i++) {
    const a = value(mine[i]);
    const b = floorValue(floor[i]);
    if (a !== undefined && b !== undefined && b > 0) each.push(a / b);
  }
  return each.length === 0 ? undefined : { median: median(each), each };
}

const roundsNote = (p: { each: number[] }): string =>
  p.each.length > 1
    ? ` (median of ${p.each.length} rounds: ${p.each.map((r) => r.toFixed(2)).join(' / ')})`
    : '';

function targets(
  results: Map<number, ContenderFigures[]>,
  roundsBySize: Map<number, Map<ContenderName, ContenderFigures[]>>,
): Target[] {
  const out: Target[] = [];
  const n = targetSize([...results.keys()]);
  const all = results.get(n)!;
  const rounds = roundsBySize.get(n)!;
  const floor = all.find((f) => f.name === 'floor-raw')!;
  const tosdk = all.find((f) => f.name === 'tosdk');
  const workflow = all.find((f) => f.name === 'tosdk-workflow');
  const at = `N=${n.toLocaleString('en-US')}`;
  if (tosdk?.converge) {
    const r = tosdk.converge.ms / floor.converge!.ms;
    out.push({
      what: `converge <= 1.3x floor-raw (${at})`,
      figure: `${ms(tosdk.converge.ms)} = ${r.toFixed(2)}x`,
      baseline: `floor-raw ${ms(floor.converge!.ms)}`,
      met: r <= 1.3,
    });
    // CPU: the median of the rounds' paired ratios (the fastest-converging round's CPU is no steadier)
    const cpu = pairedRatios(rounds, 'tosdk', (f) => f.converge?.report.cpuMs)!;
    out.push({
      what: `operator CPU <= 1.5x floor-raw (${at})`,
      figure: `${cpu.median.toFixed(2)}x${roundsNote(cpu)}; fastest round ${ms(tosdk.converge.report.cpuMs)}`,
      baseline: `floor-raw ${ms(floor.converge!.report.cpuMs)} in its fastest round`,
      met: cpu.median <= 1.5,
    });
    const w = tosdk.converge.accounting.writesTotal / n;
    out.push({
      what: `writes per widget = 2 (${at})`,
      figure: w.toFixed(2),
      baseline: `floor-raw ${(floor.converge!.accounting.writesTotal / n).toFixed(2)}`,
      met: tosdk.converge.accounting.writesTotal === 2 * n,
    });
  }
  if (tosdk?.restart) {
    const restart = pairedRatios(rounds, 'tosdk', (f) => f.restart?.ms)!;
    const idle = pairedRatios(
      rounds,
      'tosdk',
      (f) => f.restartIdleReconciler?.ms,
      (f) => f.restart?.ms,
    );
    out.push({
      what: `no-change restart <= 1.2x list-and-compare (${at})`,
      figure: `${restart.median.toFixed(2)}x${roundsNote(restart)}; fastest-converge round ${ms(tosdk.restart.ms)}${idle ? `; the framework alone (a reconciler that does nothing) ${idle.median.toFixed(2)}x` : ''}`,
      baseline: `list-and-compare ${ms(floor.restart!.ms)} in the floor's fastest round`,
      met: restart.median <= 1.2,
    });
    out.push({
      what: `writes on a no-change restart = 0 (${at})`,
      figure: String(tosdk.restart.accounting.writesTotal),
      baseline: `first start ${tosdk.converge!.accounting.writesTotal}`,
      met: tosdk.restart.accounting.writesTotal === 0,
    });
  }
  if (tosdk?.converge && workflow?.converge) {
    const r = workflow.converge.ms / tosdk.converge.ms;
    out.push({
      what: `default workflow executor: converge <= ~1.1x without a workflow (${at})`,
      figure: `${ms(workflow.converge.ms)} = ${r.toFixed(2)}x`,
      baseline: `no workflow ${ms(tosdk.converge.ms)}`,
      met: r <= 1.1,
    });
  }
  return out;
}

/** Runs the suite; `args` are the words after `widgets` on `npm run bench -- widgets ...`. */
export async function run(args: string[] = []): Promise<void> {
  let options: Options;
  try {
    options = parseArgs(args);
  } catch (e) {
    if (!(e instanceof WidgetsUsageError)) throw e;
    console.error(e.message);
    process.exitCode = 2;
    return;
  }
  const load = loadavg().map((l) => l.toFixed(1));
  console.log(
    `widgets: ${options.tls ? 'HTTPS' : 'plain HTTP'}, 50 in flight, a fresh API server process per contender; load average before: ${load.join(' ')}`,
  );
  const results = new Map<number, ContenderFigures[]>();
  const roundsBySize = new Map<number, Map<ContenderName, ContenderFigures[]>>();
  for (const n of options.sizes) {
    const rounds = new Map<ContenderName, ContenderFigures[]>();
    const once = async (name: ContenderName): Promise<void> => {
      const t0 = performance.now();
      const f = await measure(name, n, options);
      rounds.set(name, [...(rounds.get(name) ?? []), f]);
      console.log(
        `  ${name} at N=${n.toLocaleString('en-US')}: ${f.converge ? ms(f.converge.ms) : `skipped (${f.skipped})`} (with set-up ${ms(performance.now() - t0)})`,
      );
    };
    // the targets are read at one size: only there are rounds repeated
    const repeat = n === targetSize(options.sizes) ? options.rounds : 1;
    for (let r = 0; r < repeat; r++)
      for (const name of options.contenders.filter((c) => TARGETED.includes(c))) await once(name);
    if (options.peerSizes.includes(n))
      for (const name of options.contenders.filter((c) => PEERS.includes(c))) await once(name);
    const all = [...rounds.values()].map(fastest);
    if (repeat > 1)
      console.log(
        `  converge per round (the fastest is kept): ${[...rounds.entries()]
          .filter(([name]) => TARGETED.includes(name))
          .map(([name, fs]) => `${name} ${fs.map((f) => (f.converge ? ms(f.converge.ms) : '-')).join(' / ')}`)
          .join('; ')}`,
      );
    if (repeat > 1) {
      // the raw figures behind the paired CPU and restart ratios of the targets
      const perRound = (label: string, value: (f: ContenderFigures) => number | undefined): void =>
        console.log(
          `  ${label} per round: ${[...rounds.entries()]
            .filter(([name, fs]) => TARGETED.includes(name) && fs.some((f) => value(f) !== undefined))
            .map(
              ([name, fs]) =>
                `${name} ${fs.map((f) => (value(f) === undefined ? '-' : ms(value(f)!))).join(' / ')}`,
            )
            .join('; ')}`,
        );
      perRound('operator CPU', (f) => f.converge?.report.cpuMs);
      perRound('no-change restart', (f) => f.restart?.ms);
      perRound('no-change restart, a reconciler that does nothing', (f) => f.restartIdleReconciler?.ms);
    }
    results.set(n, all);
    roundsBySize.set(n, rounds);
    printSize(n, all);
    if (options.cpuProfDir !== undefined) {
      console.log(`\nwhere the CPU went, converge phase at N=${n.toLocaleString('en-US')} (last round)`);
      for (const name of PROFILED.filter((c) => options.contenders.includes(c))) {
        const file = join(options.cpuProfDir, profileName(name, n));
        if (existsSync(file)) printProfile(`${name} (${file})`, summariseProfile(file));
      }
      console.log(`\nwhere the CPU went, no-change restart at N=${n.toLocaleString('en-US')} (last round)`);
      for (const name of PROFILED.filter((c) => options.contenders.includes(c))) {
        const file = join(options.cpuProfDir, profileName(name, n, 'restart'));
        const label = name === 'floor-raw' ? 'floor list-and-compare' : name;
        if (existsSync(file)) printProfile(`${label} (${file})`, summariseProfile(file));
      }
      const idle = join(options.cpuProfDir, profileName(IDLE_RECONCILER, n, 'restart'));
      if (existsSync(idle))
        printProfile(`tosdk, a reconciler that does nothing (${idle})`, summariseProfile(idle));
    }
  }
  console.log('\ntargets (ratios measured in this run)');
  console.log('| target | figure | baseline | met? |');
  console.log('| --- | --- | --- | --- |');
  for (const t of targets(results, roundsBySize))
    console.log(`| ${t.what} | ${t.figure} | ${t.baseline} | ${t.met ? 'met' : 'not met'} |`);
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (options.cpuProfDir !== undefined)
    console.log(`CPU profiles of floor-raw and tosdk (open in Chrome DevTools): ${options.cpuProfDir}`);
}

export { WidgetsBenchError };
