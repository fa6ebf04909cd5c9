// Core runtime benchmark (the informer's figures (4) and (5) are in core-informer.ts):
// (1) events per second through a controller's event processor with a no-op reconciler, fed by an
//     in-memory event source (the events name primaries already cached by the controller's informer,
//     as secondary event sources do), against a baseline loop doing the least any event processor
//     must do per event: look up per-resource state, coalesce while a reconcile runs, run a no-op.
// (2) time for 5,000 custom resources to be reconciled once with one status patch each (from
//     start(), so the informer's list is included), against the API server in a separate process,
//     divided by the time a bare client takes to send the same 5,000 status patches with the same
//     concurrency (50, the operator's default).
// (3) API write requests per reconciled resource, counted by an in-process API server, without and
//     with cleanup (a finalizer).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import {
  DeleteControl,
  defineResource,
  KubernetesClient,
  Operator,
  ResourceID,
  ResourceTypes,
  UpdateControl,
} from '@tosdk/core';
import type { CustomResource, EventHandler, EventSource, KubernetesResource } from '@tosdk/core';
import { runEventSources } from './lib/core-event-sources.js';

const RESOURCES = 1_000;
const EVENTS = 200_000;
const BATCH = 2_000;
const NAMESPACE = 'bench-ep';

class BurstSource implements EventSource {
  readonly name = 'burst';
  handler: EventHandler | undefined;
  setEventHandler(handler: EventHandler): void {
    this.handler = handler;
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

async function baseline(ids: ResourceID[]): Promise<number> {
  const state = new Map<string, { running: boolean; pending: boolean }>();
  let inFlight = 0;
  let done!: () => void;
  const idle = new Promise<void>((resolve) => (done = resolve));
  let fed = false;
  const run = (key: string, s: { running: boolean; pending: boolean }) => {
    s.running = true;
    s.pending = false;
    inFlight++;
    void Promise.resolve(key).then(() => {
      s.running = false;
      inFlight--;
      if (s.pending) run(key, s);
      else if (fed && inFlight === 0) done();
    });
  };
  const started = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    const key = ids[i % ids.length].key;
    let s = state.get(key);
    if (!s) state.set(key, (s = { running: false, pending: false }));
    if (s.running) s.pending = true;
    else run(key, s);
    if (i % BATCH === BATCH - 1) await tick();
  }
  fed = true;
  if (inFlight > 0) await idle;
  return EVENTS / ((performance.now() - started) / 1000);
}

async function throughOperator(server: KubeApiServer, ids: ResourceID[]): Promise<number> {
  const source = new BurstSource();
  let reconciles = 0;
  let queued = 0;
  let inFlight = 0;
  const operator = new Operator({
    kubeConfig: server.kubeConfig(),
    metrics: {
      executorChanged: (q, f) => {
        queued = q;
        inFlight = f;
      },
    },
  });
  operator.register(
    {
      reconcile: () => {
        reconciles++;
        return UpdateControl.noUpdate();
      },
      prepareEventSources: () => [source],
    },
    {
      resourceType: ResourceTypes.ConfigMap,
      name: 'bench',
      namespaces: [NAMESPACE],
      maxReconciliationIntervalMs: 0,
    },
  );
  await operator.start();
  while (reconciles < RESOURCES || queued + inFlight > 0) await tick();
  const started = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    source.handler!.handleEvent({ resourceId: ids[i % ids.length] });
    if (i % BATCH === BATCH - 1) await tick();
  }
  while (queued + inFlight > 0) await tick();
  const rate = EVENTS / ((performance.now() - started) / 1000);
  await operator.stop();
  return rate;
}

type BenchWidget = CustomResource<{ n?: number }, { by?: string }>;
const BenchWidget = defineResource<BenchWidget>({
  group: 'bench.tosdk.io',
  version: 'v1',
  kind: 'BenchWidget',
});
const CRD = defineResource<KubernetesResource>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});
const PATCHES = 5_000;
const CONCURRENCY = 50;

async function installCrd(client: KubernetesClient): Promise<void> {
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  await client.create(CRD, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${BenchWidget.plural}.${BenchWidget.group}` },
    spec: {
      group: BenchWidget.group,
      scope: 'Namespaced',
      names: {
        plural: BenchWidget.plural,
        singular: 'benchwidget',
        kind: BenchWidget.kind,
        listKind: 'BenchWidgetList',
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
        },
      ],
    },
  } as KubernetesResource);
  for (let i = 0; i < 500; i++) {
    const list = await client
      .request<{ resources?: Array<{ name?: string }> }>(`/apis/${BenchWidget.group}/v1`)
      .catch(() => undefined);
    if (list?.resources?.some((r) => r.name === BenchWidget.plural)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the benchmark CRD was not served within 5 s');
}

async function createWidgets(
  client: KubernetesClient,
  namespace: string,
  count: number,
): Promise<ResourceID[]> {
  await client.create(ResourceTypes.Namespace, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  const ids = Array.from({ length: count }, (_, i) => new ResourceID(`w-${i}`, namespace));
  for (let i = 0; i < ids.length; i += CONCURRENCY) {
    await Promise.all(
      ids.slice(i, i + CONCURRENCY).map((id) =>
        client.create(BenchWidget, {
          apiVersion: BenchWidget.apiVersion,
          kind: BenchWidget.kind,
          metadata: { name: id.name, namespace },
          spec: { n: 1 },
        }),
      ),
    );
  }
  return ids;
}

/** Starts the API server CLI in a child process; resolves with its KubeConfig and a stop function. */
async function serverProcess(): Promise<{ kubeConfig: KubeConfig; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tosdk-bench-'));
  const path = join(dir, 'kubeconfig');
  const cli = fileURLToPath(new URL('../../libs/apiserver/dist/cli.js', import.meta.url));
  const child = spawn(process.execPath, [cli, '--port', '0', '--kubeconfig', path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('kubeconfig written to')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the API server process exited with ${String(code)}`)));
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(readFileSync(path, 'utf8'));
  return {
    kubeConfig,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function statusPatchRatio(): Promise<{ ours: number; bare: number }> {
  const remote = await serverProcess();
  const client = KubernetesClient.fromKubeConfig(remote.kubeConfig);
  try {
    await installCrd(client);
    const ids = await createWidgets(client, 'bench-status', PATCHES);
    let next = 0;
    const bareStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < ids.length) {
          const id = ids[next++];
          await client.apply(
            BenchWidget,
            {
              apiVersion: BenchWidget.apiVersion,
              kind: BenchWidget.kind,
              metadata: { name: id.name, namespace: id.namespace },
              status: { by: 'bare' },
            },
            { fieldManager: 'bench-bare', subresource: 'status' },
          );
        }
      }),
    );
    const bare = performance.now() - bareStart;
    let reconciled = 0;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const operator = new Operator({
      kubeConfig: remote.kubeConfig,
      concurrentReconciliationThreads: CONCURRENCY,
      metrics: { reconcileSucceeded: () => void (++reconciled === PATCHES && finished()) },
    });
    operator.register(
      {
        reconcile: (w: BenchWidget) => {
          w.status = { by: 'operator' };
          return UpdateControl.patchStatus(w);
        },
      },
      {
        resourceType: BenchWidget,
        name: 'bench-status',
        namespaces: ['bench-status'],
        maxReconciliationIntervalMs: 0,
      },
    );
    const oursStart = performance.now();
    await operator.start();
    await done;
    const ours = performance.now() - oursStart;
    await operator.stop();
    return { ours, bare };
  } finally {
    client.close();
    await remote.stop();
  }
}

async function requestsPerResource(cleanup: boolean): Promise<number> {
  const COUNT = 500;
  const server = await KubeApiServer.start();
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  const namespace = cleanup ? 'bench-cleanup' : 'bench-plain';
  try {
    await installCrd(client);
    await createWidgets(client, namespace, COUNT);
    let reconciled = 0;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const reconciler = {
      reconcile: (w: BenchWidget) => {
        w.status = { by: 'operator' };
        return UpdateControl.patchStatus(w);
      },
      ...(cleanup ? { cleanup: () => DeleteControl.defaultDelete() } : {}),
    };
    const operator = new Operator({
      kubeConfig: server.kubeConfig(),
      metrics: { reconcileSucceeded: () => void (++reconciled === COUNT && finished()) },
    });
    operator.register(reconciler, {
      resourceType: BenchWidget,
      name: namespace,
      namespaces: [namespace],
      maxReconciliationIntervalMs: 0,
    });
    server.requests.reset();
    await operator.start();
    await done;
    await operator.stop();
    return server.requests.writes({ resource: BenchWidget.plural, namespace }) / COUNT;
  } finally {
    client.close();
    await server.stop();
  }
}

/**
 * Writes per resource when a restarted operator reconciles resources that did not change, with the
 * README's reconciler (it always returns `UpdateControl.patchStatus` with the status it wants).
 */
async function restartWrites(useSSA: boolean): Promise<{ first: number; restart: number }> {
  const COUNT = 500;
  const server = await KubeApiServer.start();
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  const namespace = `bench-restart-${useSSA ? 'ssa' : 'merge'}`;
  try {
    await installCrd(client);
    await createWidgets(client, namespace, COUNT);
    const pass = async (): Promise<number> => {
      let reconciled = 0;
      let finished!: () => void;
      const done = new Promise<void>((resolve) => (finished = resolve));
      const operator = new Operator({
        kubeConfig: server.kubeConfig(),
        metrics: { reconcileSucceeded: () => void (++reconciled === COUNT && finished()) },
      });
      operator.register(
        {
          reconcile: (w: BenchWidget) => {
            w.status = { by: 'operator' };
            return UpdateControl.patchStatus(w);
          },
        },
        { resourceType: BenchWidget, name: namespace, namespaces: [namespace], useSSA },
      );
      server.requests.reset();
      await operator.start();
      await done;
      await operator.stop();
      return server.requests.writes({ resource: BenchWidget.plural, namespace }) / COUNT;
    };
    const first = await pass();
    const restart = await pass();
    return { first, restart };
  } finally {
    client.close();
    await server.stop();
  }
}

/**
 * Priority queue (issue 15 §4): 10,000 existing resources reconciled at start (~10 ms each, 50
 * threads), one created 1 s after start. Its latency (creation answered → its reconcile starts)
 * against the time the whole backlog takes: with a FIFO queue it waits behind the rest of the
 * initial list; with priorities only behind the runs already started.
 */
async function priorityLatency(): Promise<{ latencyMs: number; backlogMs: number }> {
  const COUNT = 10_000;
  const server = await KubeApiServer.start();
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  const namespace = 'bench-priority';
  try {
    await installCrd(client);
    await createWidgets(client, namespace, COUNT);
    let reconciled = 0;
    let newSeenAt: number | undefined;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const operator = new Operator({ kubeConfig: server.kubeConfig() });
    operator.register(
      {
        reconcile: async (w: BenchWidget) => {
          if (w.metadata?.name === 'new' && newSeenAt === undefined) newSeenAt = performance.now();
          await new Promise((resolve) => setTimeout(resolve, 10));
          if (++reconciled === COUNT + 1) finished();
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: BenchWidget, name: namespace, namespaces: [namespace], maxReconciliationIntervalMs: 0 },
    );
    const started = performance.now();
    await operator.start();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (performance.now() - started))));
    await client.create(BenchWidget, {
      apiVersion: BenchWidget.apiVersion,
      kind: BenchWidget.kind,
      metadata: { name: 'new', namespace },
      spec: { n: 2 },
    });
    const createdAt = performance.now();
    await done;
    const backlogMs = performance.now() - started;
    await operator.stop();
    return { latencyMs: (newSeenAt ?? Number.NaN) - createdAt, backlogMs };
  } finally {
    client.close();
    await server.stop();
  }
}

export async function run(): Promise<void> {
  const server = await KubeApiServer.start();
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  try {
    await client.create(ResourceTypes.Namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: NAMESPACE },
    });
    const ids = Array.from({ length: RESOURCES }, (_, i) => new ResourceID(`cm-${i}`, NAMESPACE));
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(
        ids.slice(i, i + 50).map((id) =>
          client.create(ResourceTypes.ConfigMap, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: id.name, namespace: NAMESPACE },
          }),
        ),
      );
    }
    const base = await baseline(ids);
    const ours = await throughOperator(server, ids);
    console.log(
      `(1) event processor: ${Math.round(ours).toLocaleString('en-US')} events/s over ${RESOURCES} resources (target >= 100,000)`,
    );
    console.log(
      `    baseline loop:   ${Math.round(base).toLocaleString('en-US')} events/s; ratio ${(ours / base).toFixed(2)}`,
    );
  } finally {
    client.close();
    await server.stop();
  }
  const { ours, bare } = await statusPatchRatio();
  console.log(
    `(2) ${PATCHES} resources reconciled with one status patch each: ${Math.round(ours)} ms from start(); bare client, same patches: ${Math.round(bare)} ms; ratio ${(ours / bare).toFixed(2)} (target <= 1.5)`,
  );
  const plain = await requestsPerResource(false);
  const withCleanup = await requestsPerResource(true);
  console.log(
    `(3) API writes per reconciled resource: ${plain.toFixed(2)} (target 1), with cleanup ${withCleanup.toFixed(2)} (target 2: finalizer + status)`,
  );
  for (const useSSA of [true, false]) {
    const { first, restart } = await restartWrites(useSSA);
    console.log(
      `(3b) writes per resource on a no-change restart with the README's reconciler (always UpdateControl.patchStatus; ${useSSA ? 'server-side apply' : 'merge patch'}): ${restart.toFixed(2)} (target 0; ${restart === 0 ? 'met' : 'not met'}); first start: ${first.toFixed(2)}`,
    );
  }
  await runEventSources();
  const { latencyMs, backlogMs } = await priorityLatency();
  console.log(
    `(7) priority queue: a resource created 1 s after start, behind 10,000 existing ones (~10 ms each, 50 threads): reconciled ${latencyMs.toFixed(0)} ms after its creation; the whole backlog took ${backlogMs.toFixed(0)} ms; ratio ${(latencyMs / backlogMs).toFixed(3)} (target: a latency that does not grow with the backlog, <= 250 ms; ${latencyMs <= 250 ? 'met' : 'not met'})`,
  );
}
