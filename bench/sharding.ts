// Sharding benchmark (issue 19): 3,000 ConfigMaps, a reconcile that waits 20 ms (an external call)
// and asks to run again at once, so every replica stays saturated; throughput (reconciliations
// finished per second in a fixed window once every replica acknowledged one ring) with 1, 2 and 3
// sharded replicas as ratios to 1 replica, the overhead of sharding against one operator without it
// (same run, same server), and the p99 queue time (submitted to started; with every resource always
// due it is the time a resource waits for its turn, the backlog over the throughput). The replicas run in this
// one process: the reconcile's cost is waiting, not CPU, which is what sharding spreads.
import { KubeApiServer } from '@tosdk/apiserver';
import { KubernetesClient, Operator, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { KubernetesResource } from '@tosdk/core';

const COUNT = Number(process.env['TOSDK_BENCH_SHARDING_COUNT'] ?? '3000');
const WAIT_MS = 20;
const THREADS = 10;
const WINDOW_MS = 4000;

interface Result {
  throughput: number;
  p99QueueMs: number;
}

function p99(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function measure(
  server: KubeApiServer,
  namespace: string,
  replicas: number,
  sharded: boolean,
): Promise<Result> {
  let measuring = false;
  let finished = 0;
  const queued: number[] = [];
  const submittedAt = new Map<string, number>();
  const group = `bench-${replicas}-${sharded ? 's' : 'n'}-${Date.now().toString(36)}`;
  const operators = Array.from({ length: replicas }, (_, i) => {
    const op = new Operator({
      kubeConfig: server.kubeConfig(),
      concurrentReconciliationThreads: THREADS,
      sharding: sharded
        ? {
            name: group,
            identity: `r${i}`,
            leaseNamespace: 'default',
            leaseDurationMs: 10_000,
            renewDeadlineMs: 6_000,
            retryPeriodMs: 500,
          }
        : undefined,
      metrics: {
        reconcileSubmitted: (id) => submittedAt.set(`${i} ${id.key}`, performance.now()),
        reconciliationStarted: (id) => {
          const at = submittedAt.get(`${i} ${id.key}`);
          if (measuring && at !== undefined) queued.push(performance.now() - at);
        },
        reconciliationFinished: () => {
          if (measuring) finished++;
        },
      },
    });
    op.register(
      {
        reconcile: async () => {
          await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
          return UpdateControl.noUpdate<KubernetesResource>().rescheduleAfter(0);
        },
      },
      { resourceType: ResourceTypes.ConfigMap, name: 'bench', namespaces: [namespace] },
    );
    return op;
  });
  await Promise.all(operators.map((op) => op.start()));
  if (sharded) {
    await waitUntil(
      () =>
        operators.every(
          (op) => op.sharding!.status().settled && op.sharding!.status().members.length === replicas,
        ),
      `${replicas} replicas settled on one ring`,
    );
  }
  // let the start-up backlog turn into the steady rescheduling loop
  await new Promise((resolve) => setTimeout(resolve, 1000));
  measuring = true;
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  measuring = false;
  const elapsed = performance.now() - started;
  await Promise.all(operators.map((op) => op.stop()));
  return { throughput: (finished / elapsed) * 1000, p99QueueMs: p99(queued) };
}

/** Runs the sharding benchmark. */
export async function run(): Promise<void> {
  const server = await KubeApiServer.start();
  const admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
  const namespace = 'bench-sharding';
  try {
    await admin.create(ResourceTypes.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
    for (let i = 0; i < COUNT; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, COUNT - i) }, (_, j) =>
          admin.create(ResourceTypes.ConfigMap, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `cm-${i + j}`, namespace },
            data: { v: 'x' },
          }),
        ),
      );
    }
    const plain = await measure(server, namespace, 1, false);
    const results: Array<[number, Result]> = [];
    for (const n of [1, 2, 3]) results.push([n, await measure(server, namespace, n, true)]);
    const one = results[0][1].throughput;
    console.log(
      `${COUNT} ConfigMaps, reconcile = ${WAIT_MS} ms wait + reschedule, ${THREADS} threads per replica, ${WINDOW_MS} ms window`,
    );
    console.log(
      `baseline: 1 operator without sharding: ${plain.throughput.toFixed(0)} reconciles/s (its queue time is not comparable: ` +
        'the start-up backlog is LOW priority there, so rescheduled runs overtake it)',
    );
    for (const [n, r] of results) {
      console.log(
        `${n} sharded replica(s): ${r.throughput.toFixed(0)} reconciles/s = ${(r.throughput / one).toFixed(2)}x of 1 replica ` +
          `(${(r.throughput / plain.throughput).toFixed(2)}x of the unsharded baseline), p99 queue ${r.p99QueueMs.toFixed(0)} ms`,
      );
    }
  } finally {
    admin.close();
    await server.stop();
  }
}
