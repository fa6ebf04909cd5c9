// Soak (issue 18): steady churn of custom resources (create, update, delete) under injected faults
// (a fraction of writes failing with 500/429, watches dropped, history expired), with heap and RSS
// sampled. After a warm-up, the median of the first samples is the baseline; the run fails when the
// median of the last samples grows past a ratio of it (heap 1.3x, RSS 1.5x by default), when a
// resource does not converge, when a delete is lost, or when two reconciles of one resource overlap.
//
// `npm run soak` runs it for an hour (`npm run soak -- --duration 10m`, `--warmup 2m`); the bench
// runner (`npm run bench -- soak`) and the CI test (test/chaos-soak.e2e-spec.ts) run it for about a
// minute. The API server runs in the same process with bounded history and request log, so what it
// keeps is part of the steady state.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubernetesApiError, KubernetesTransportError, ResourceID, ResourceTypes } from '@tosdk/core';
import type { Operator } from '@tosdk/core';
import { Chaos, ChaosProbe, childName, startChaosOperator, startChaosServer } from './lib/chaos-workload.js';

/** Options of {@link runSoak}. */
export interface SoakOptions {
  /** Length of the whole run, warm-up included. */
  durationMs: number;
  /** Churn before the baseline is taken. Defaults to a quarter of `durationMs`. */
  warmupMs?: number;
  /** Interval of memory samples. Defaults to durationMs / 60, at least 1 s. */
  sampleEveryMs?: number;
  /** Resources kept alive at once. Defaults to 60. */
  population?: number;
  /** Churn operations in flight at once. Defaults to 4. */
  concurrency?: number;
  /** Fraction of writes failed with 500/429. Defaults to 0.05. */
  writeFailureRate?: number;
  /** Largest accepted ratio of the final heap (after GC) to the baseline. Defaults to 1.3. */
  maxHeapRatio?: number;
  /** Largest accepted ratio of the final RSS to the baseline. Defaults to 1.5. */
  maxRssRatio?: number;
  /** Called once per churn operation (a test hook: e.g. a deliberate leak proves the check bites). */
  onOperation?: () => void;
  /** Progress lines. Defaults to none. */
  log?: (line: string) => void;
}

/** One memory sample. */
export interface MemorySample {
  atMs: number;
  heapUsed: number;
  rss: number;
  /** Memory outside the JavaScript heap (Buffers, TLS), reported to tell an RSS creep apart. */
  external: number;
}

/** What a soak saw. */
export interface SoakReport {
  durationMs: number;
  operations: number;
  samples: MemorySample[];
  baseline: { heapUsed: number; rss: number };
  final: { heapUsed: number; rss: number };
  heapRatio: number;
  rssRatio: number;
  maxHeapRatio: number;
  maxRssRatio: number;
  /** Whether memory stayed within both bounds. */
  memoryOk: boolean;
  converged: number;
  population: number;
  overlaps: number;
  verifiedDeletes: number;
  lostDeletes: number;
  injectedFailures: number;
  /** Unhandled rejections in the process during the run (outside Jest; Jest fails the test itself). */
  unhandledRejections: number;
  /** Whether every check passed. */
  ok: boolean;
}

const NAMESPACE = 'soak';
const MB = 1024 * 1024;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function transient(error: unknown): boolean {
  if (error instanceof KubernetesTransportError) return true;
  return error instanceof KubernetesApiError && [429, 500, 502, 503, 504].includes(error.status);
}

async function persist<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= 40 || !transient(error)) throw error;
      await sleep(Math.min(1000, 25 * attempt));
    }
  }
}

/** A full garbage collection, so heap samples compare live memory (the flag is set at run time). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return typeof gc === 'function' ? gc : () => undefined;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Runs the soak and reports; it never throws for a failed check (see `ok`). */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? ((): void => undefined);
  const durationMs = options.durationMs;
  const warmupMs = options.warmupMs ?? Math.floor(durationMs / 4);
  const sampleEveryMs = options.sampleEveryMs ?? Math.max(1000, Math.floor(durationMs / 60));
  const population = options.population ?? 60;
  const concurrency = options.concurrency ?? 4;
  const maxHeapRatio = options.maxHeapRatio ?? 1.3;
  const maxRssRatio = options.maxRssRatio ?? 1.5;
  const gc = collector();
  let unhandled = 0;
  const onUnhandled = (): void => {
    unhandled++;
  };
  process.on('unhandledRejection', onUnhandled);

  const { server, admin } = await startChaosServer(NAMESPACE, { historySize: 2000, requestLogSize: 1000 });
  const probe = new ChaosProbe();
  let operator: Operator | undefined;
  const timers: NodeJS.Timeout[] = [];
  try {
    operator = await startChaosOperator(server, NAMESPACE, probe);
    server.faults.failRate({
      verbs: ['create', 'update', 'patch', 'delete'],
      rate: options.writeFailureRate ?? 0.05,
      code: [500, 429],
      seed: 2026,
      retryAfterSeconds: 1,
    });
    timers.push(setInterval(() => server.faults.closeAllWatches(), 5000));
    timers.push(setInterval(() => server.faults.compact(), 30_000));

    const alive = new Map<string, number>(); // name -> value written last
    const pendingDeletes = new Map<string, number>(); // name -> deadline
    let verifiedDeletes = 0;
    let lostDeletes = 0;
    let seq = 0;
    let operations = 0;
    let creating = 0;
    const started = Date.now();
    const end = started + durationMs;

    const samples: MemorySample[] = [];
    const sample = (): void => {
      gc();
      const m = process.memoryUsage();
      samples.push({ atMs: Date.now() - started, heapUsed: m.heapUsed, rss: m.rss, external: m.external });
    };
    timers.push(setInterval(sample, sampleEveryMs));

    // deletes are verified as the run goes (gone, cleaned up, child gone), so nothing accumulates
    const verify = async (final: boolean): Promise<void> => {
      const [primaries, children] = await Promise.all([
        admin.list(Chaos, { namespace: NAMESPACE }),
        admin.list(ResourceTypes.ConfigMap, { namespace: NAMESPACE }),
      ]);
      const present = new Set(primaries.items.map((p) => p.metadata!.name!));
      const childNames = new Set(children.items.map((c) => c.metadata!.name!));
      for (const [name, deadline] of pendingDeletes) {
        const key = `${NAMESPACE}/${name}`;
        if (!present.has(name) && !childNames.has(childName(name)) && probe.cleaned.has(key)) {
          pendingDeletes.delete(name);
          probe.cleaned.delete(key);
          verifiedDeletes++;
        } else if (!final && Date.now() > deadline) {
          pendingDeletes.delete(name);
          lostDeletes++;
        }
      }
    };
    timers.push(
      setInterval(() => {
        verify(false).catch((error: unknown) => {
          if (!transient(error)) log(`verify failed: ${String(error)}`);
        });
      }, 5000),
    );

    const create = async (): Promise<void> => {
      const name = `s-${++seq}`;
      creating++;
      try {
        await persist(async () => {
          try {
            await admin.create(Chaos, {
              apiVersion: Chaos.apiVersion,
              kind: Chaos.kind,
              metadata: { name, namespace: NAMESPACE },
              spec: { value: '0' },
            });
          } catch (error) {
            if (!(error instanceof KubernetesApiError && error.isAlreadyExists())) throw error;
          }
        });
        // known (and so picked for updates and deletes) only once it exists
        alive.set(name, 0);
      } finally {
        creating--;
      }
    };
    const pickAlive = (): string | undefined => {
      const names = [...alive.keys()];
      return names[Math.floor(Math.random() * names.length)];
    };
    const busy = new Set<string>();
    const churnOnce = async (): Promise<void> => {
      operations++;
      options.onOperation?.();
      if (alive.size + creating < population) return create();
      const name = pickAlive();
      if (name === undefined || busy.has(name)) return;
      busy.add(name);
      try {
        if (Math.random() < 0.6) {
          const value = (alive.get(name) ?? 0) + 1;
          alive.set(name, value);
          await persist(() =>
            admin.mergePatch(Chaos, new ResourceID(name, NAMESPACE), { spec: { value: String(value) } }),
          );
        } else {
          // delete only what carries the operator's finalizer, so its cleanup must run (a resource
          // deleted before its first reconcile is removed by Kubernetes without one)
          const current = await persist(() => admin.get(Chaos, new ResourceID(name, NAMESPACE)));
          if (!current?.metadata?.finalizers?.length) return;
          alive.delete(name);
          pendingDeletes.set(name, Date.now() + 60_000);
          await persist(() => admin.delete(Chaos, new ResourceID(name, NAMESPACE)));
        }
      } finally {
        busy.delete(name);
      }
    };
    // bounded in time (the deadline) and in count (at most one operation per millisecond)
    const maxOperations = durationMs;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < end && operations < maxOperations) {
          await churnOnce();
          // pace the churn a little so the operator keeps up (steady state, not a growing backlog)
          await sleep(10);
        }
      }),
    );
    for (const t of timers) clearInterval(t);
    timers.length = 0;
    sample();

    // the population converges and the pending deletes complete once the churn stops
    server.faults.clear();
    const settleDeadline = Date.now() + 120_000;
    let converged = 0;
    for (;;) {
      const [primaries, children] = await Promise.all([
        admin.list(Chaos, { namespace: NAMESPACE }),
        admin.list(ResourceTypes.ConfigMap, { namespace: NAMESPACE }),
      ]);
      const byName = new Map(primaries.items.map((p) => [p.metadata!.name!, p]));
      const childByName = new Map(children.items.map((c) => [c.metadata!.name!, c]));
      converged = [...alive].filter(([name, value]) => {
        const p = byName.get(name);
        return (
          p?.status?.observed === String(value) &&
          childByName.get(childName(name))?.data?.value === String(value)
        );
      }).length;
      await verify(true);
      if ((converged === alive.size && pendingDeletes.size === 0) || Date.now() > settleDeadline) break;
      await sleep(250);
    }
    lostDeletes += pendingDeletes.size;

    const after = samples.filter((s) => s.atMs >= warmupMs);
    const k = Math.max(1, Math.min(3, Math.floor(after.length / 3)));
    const baseline = {
      heapUsed: median(after.slice(0, k).map((s) => s.heapUsed)),
      rss: median(after.slice(0, k).map((s) => s.rss)),
    };
    const final = {
      heapUsed: median(after.slice(-k).map((s) => s.heapUsed)),
      rss: median(after.slice(-k).map((s) => s.rss)),
    };
    const heapRatio = final.heapUsed / Math.max(1, baseline.heapUsed);
    const rssRatio = final.rss / Math.max(1, baseline.rss);
    const memoryOk = after.length >= 2 && heapRatio <= maxHeapRatio && rssRatio <= maxRssRatio;
    const report: SoakReport = {
      durationMs: Date.now() - started,
      operations,
      samples,
      baseline,
      final,
      heapRatio,
      rssRatio,
      maxHeapRatio,
      maxRssRatio,
      memoryOk,
      converged,
      population: alive.size,
      overlaps: probe.overlaps,
      verifiedDeletes,
      lostDeletes,
      injectedFailures: server.faults.injectedFailures,
      unhandledRejections: unhandled,
      ok: false,
    };
    report.ok =
      memoryOk && converged === alive.size && lostDeletes === 0 && probe.overlaps === 0 && unhandled === 0;
    log(soakSummary(report));
    return report;
  } finally {
    for (const t of timers) clearInterval(t);
    await operator?.stop();
    admin.close();
    await server.stop();
    process.off('unhandledRejection', onUnhandled);
  }
}

/** One line with the soak's figures. */
export function soakSummary(r: SoakReport): string {
  return (
    `soak ${(r.durationMs / 1000).toFixed(0)} s, ${r.operations} churn operations, ${r.samples.length} samples: ` +
    `heap ${(r.baseline.heapUsed / MB).toFixed(1)} -> ${(r.final.heapUsed / MB).toFixed(1)} MB = ${r.heapRatio.toFixed(2)}x (bound ${r.maxHeapRatio}x), ` +
    `RSS ${(r.baseline.rss / MB).toFixed(0)} -> ${(r.final.rss / MB).toFixed(0)} MB = ${r.rssRatio.toFixed(2)}x (bound ${r.maxRssRatio}x); ` +
    `converged ${r.converged}/${r.population}, overlaps ${r.overlaps}, deletes verified ${r.verifiedDeletes}, lost ${r.lostDeletes}, ` +
    `${r.injectedFailures} injected write failures, unhandled rejections ${r.unhandledRejections}: ${r.ok ? 'PASS' : 'FAIL'}`
  );
}

/** `npm run bench -- soak`: a one-minute soak (the full one is `npm run soak`). */
export async function run(): Promise<void> {
  const report = await runSoak({ durationMs: 60_000, warmupMs: 20_000, log: (l) => console.log(l) });
  if (!report.ok) process.exitCode = 1;
}
