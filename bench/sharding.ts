// Sharding benchmark (issue 19): 3,000 ConfigMaps, a reconcile that waits 20 ms (an external call)
// and asks to run again at once, so every replica stays saturated; throughput (reconciliations
// finished per second in a fixed window once every replica acknowledged one ring) with 1, 2 and 3
// sharded replicas as ratios to 1 replica, the overhead of sharding against one operator without it
// (same run, same server), and the p99 queue time (submitted to started; with every resource always
// due it is the time a resource waits for its turn, the backlog over the throughput). The replicas run in this
// one process: the reconcile's cost is waiting, not CPU, which is what sharding spreads.
// Memory: each ConfigMap owns a Secret (1 KiB of data) that a controller caches through an
// InformerEventSource; the secondaries each replica caches and the replicas' heap after GC (primaries
// and secondaries) with 1 operator without sharding (baseline), and 1 and 3 sharded replicas.
import v8 from 'node:v8';
import vm from 'node:vm';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import {
  InformerEventSource,
  KubernetesClient,
  Operator,
  ResourceID,
  ResourceTypes,
  UpdateControl,
} from '@tosdk/core';
import type { EventSourceContext, KubernetesResource } from '@tosdk/core';

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

function gcFunction(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

async function settledHeap(gc: () => void): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

interface MemoryResult {
  /** Secondaries in each replica's cache. */
  cached: number[];
  /** Heap of all replicas together: heap after GC while they run, less after they stopped. */
  heapBytes: number;
}

/** Starts `replicas` operators caching the Secrets; measures once each cache holds its share. */
async function measureMemory(
  server: KubeApiServer,
  namespace: string,
  replicas: number,
  sharded: boolean,
  gc: () => void,
): Promise<MemoryResult> {
  const group = `mem-${replicas}-${sharded ? 's' : 'n'}-${Date.now().toString(36)}`;
  const sources: Array<InformerEventSource<V1Secret, V1ConfigMap>> = [];
  const operators = Array.from({ length: replicas }, (_, i) => {
    const op = new Operator({
      kubeConfig: server.kubeConfig(),
      sharding: sharded
        ? {
            name: group,
            identity: `m${i}`,
            leaseNamespace: 'default',
            leaseDurationMs: 10_000,
            renewDeadlineMs: 6_000,
            retryPeriodMs: 500,
          }
        : undefined,
    });
    op.register(
      {
        prepareEventSources: (c: EventSourceContext<V1ConfigMap>) => {
          const source = new InformerEventSource<V1Secret, V1ConfigMap>({ type: ResourceTypes.Secret }, c);
          sources.push(source);
          return [source];
        },
        reconcile: () => UpdateControl.noUpdate<V1ConfigMap>(),
      },
      { resourceType: ResourceTypes.ConfigMap, name: 'mem', namespaces: [namespace] },
    );
    return op;
  });
  await Promise.all(operators.map((op) => op.start()));
  const counts = () => sources.map((s) => s.list(namespace).length);
  // settled on one ring, and the caches narrowed to their shares (they add up to the total)
  await waitUntil(
    () =>
      (!sharded ||
        operators.every(
          (op) => op.sharding!.status().settled && op.sharding!.status().members.length === replicas,
        )) &&
      counts().reduce((a, b) => a + b, 0) === COUNT,
    `${replicas} replicas caching their shares`,
  );
  const running = await settledHeap(gc);
  const cached = counts();
  await Promise.all(operators.map((op) => op.stop()));
  sources.length = 0;
  operators.length = 0;
  // what the replicas held is what stopping them frees (connections close, then GC)
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = await settledHeap(gc);
  return { cached, heapBytes: running - after };
}

async function memory(server: KubeApiServer, admin: KubernetesClient, namespace: string): Promise<void> {
  const gc = gcFunction();
  const blob = 'x'.repeat(1024);
  for (let i = 0; i < COUNT; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, COUNT - i) }, async (_, j) => {
        const name = `cm-${i + j}`;
        const owner = await admin.get(ResourceTypes.ConfigMap, new ResourceID(name, namespace));
        await admin.create(ResourceTypes.Secret, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: `s-${i + j}`,
            namespace,
            ownerReferences: [
              { apiVersion: 'v1', kind: 'ConfigMap', name, uid: owner!.metadata!.uid!, controller: true },
            ],
          },
          stringData: { blob },
        });
      }),
    );
  }
  // warm-up (module loading, compiled code, the server's own buffers), not counted
  await measureMemory(server, namespace, 1, false, gc);
  await measureMemory(server, namespace, 3, true, gc);
  const plain = await measureMemory(server, namespace, 1, false, gc);
  const one = await measureMemory(server, namespace, 1, true, gc);
  const three = await measureMemory(server, namespace, 3, true, gc);
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `memory: ${COUNT} Secrets (1 KiB each) owned by the ConfigMaps, cached by an InformerEventSource`,
  );
  console.log(
    `baseline: 1 operator without sharding caches ${plain.cached[0]} Secrets; operator heap ${mb(plain.heapBytes)}`,
  );
  console.log(
    `1 sharded replica: ${one.cached[0]} Secrets, heap ${mb(one.heapBytes)} = ${(one.heapBytes / plain.heapBytes).toFixed(2)}x of the baseline`,
  );
  const perReplica = three.heapBytes / 3;
  const share = three.cached.reduce((a, b) => a + b, 0) / 3;
  console.log(
    `3 sharded replicas: Secrets cached per replica ${three.cached.join(' / ')} (${(share / plain.cached[0]).toFixed(2)}x of the baseline's), ` +
      `heap per replica ${mb(perReplica)} = ${(perReplica / plain.heapBytes).toFixed(2)}x of the baseline ` +
      '(its share of the primaries and of the Secrets, plus what does not shrink: informers, leases, code paths)',
  );
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
    if (process.env['TOSDK_BENCH_SHARDING_PART'] !== 'throughput') await memory(server, admin, namespace);
    if (process.env['TOSDK_BENCH_SHARDING_PART'] === 'memory') return;
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
