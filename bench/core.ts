// Core runtime benchmark, part (1): events per second through a controller's event processor with a
// no-op reconciler, fed by an in-memory event source (the events name primaries already cached by
// the controller's informer, as secondary event sources do). Printed against a baseline loop in the
// same run that does the least any event processor must do per event: look up per-resource state,
// coalesce while a reconcile of that resource runs, and run a no-op async reconcile.
import { KubeApiServer } from '@tosdk/apiserver';
import { KubernetesClient, Operator, ResourceID, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { EventHandler, EventSource } from '@tosdk/core';

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
}
