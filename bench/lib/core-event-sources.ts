// Event sources benchmark (part of `npm run bench -- core`): 10,000 ConfigMaps owned by 1,000
// primaries (10 each), every ConfigMap carrying managedFields of three managers.
// (4) time from Operator.start() until every primary was reconciled once (an InformerEventSource on
//     the ConfigMaps with the default owner-reference mapper, all secondaries cached first), against
//     a baseline in the same run: a bare client listing the same 1,000 primaries and 10,000
//     ConfigMaps with the requests the informers make (resourceVersion=0, answered whole).
// (5) heap bytes per cached ConfigMap with managedFields pruned (the default: only the operator's
//     own entries kept) and without pruning, against the parsed JSON of the same objects in an array.
// (6) reconciliations triggered by the operator's own writes: each primary's first reconciliation
//     changes one of its ConfigMaps by server-side apply, through context.resourceOperations()
//     (target: 0) and, as the baseline, through the plain client (each own write comes back as an
//     event and reconciles again).
import v8 from 'node:v8';
import vm from 'node:vm';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import {
  defineResource,
  InformerEventSource,
  KubernetesClient,
  Operator,
  ResourceID,
  ResourceTypes,
  UpdateControl,
} from '@tosdk/core';
import type { Context, CustomResource, EventSourceContext, KubernetesResource } from '@tosdk/core';

type Owner = CustomResource<{ n?: number }>;
const Owner = defineResource<Owner>({ group: 'bench.tosdk.io', version: 'v1', kind: 'EsOwner' });
const CRD = defineResource<KubernetesResource>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});
const CM = ResourceTypes.ConfigMap;
const PRIMARIES = 1_000;
const PER_PRIMARY = 10;
const NAMESPACE = 'bench-es';
const CONCURRENCY = 50;

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

async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 300_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`benchmark timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function inBatches<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += CONCURRENCY)
    await Promise.all(items.slice(i, i + CONCURRENCY).map(fn));
}

async function populate(client: KubernetesClient): Promise<void> {
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  await client.create(CRD, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${Owner.plural}.${Owner.group}` },
    spec: {
      group: Owner.group,
      scope: 'Namespaced',
      names: { plural: Owner.plural, singular: 'esowner', kind: Owner.kind, listKind: 'EsOwnerList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: open } } },
        },
      ],
    },
  } as KubernetesResource);
  await until(async () => {
    const list = await client
      .request<{ resources?: unknown[] }>(`/apis/${Owner.group}/v1`)
      .catch(() => undefined);
    return (list?.resources?.length ?? 0) > 0;
  }, 'the CRD');
  await client.create(ResourceTypes.Namespace, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NAMESPACE },
  });
  const owners: Owner[] = [];
  await inBatches(
    Array.from({ length: PRIMARIES }, (_, i) => i),
    async (i) => {
      owners[i] = await client.create(Owner, {
        apiVersion: Owner.apiVersion,
        kind: Owner.kind,
        metadata: { name: `o-${i}`, namespace: NAMESPACE },
        spec: { n: i },
      });
    },
  );
  const cms = owners.flatMap((o, i) =>
    Array.from({ length: PER_PRIMARY }, (_, j) => ({ owner: o, name: `o-${i}-cm-${j}` })),
  );
  await inBatches(cms, async ({ owner, name }) => {
    const ownerReferences = [
      {
        apiVersion: Owner.apiVersion,
        kind: Owner.kind,
        name: owner.metadata!.name!,
        uid: owner.metadata!.uid!,
        controller: true,
      },
    ];
    // three managers, as in a real cluster: a creator, a tool that applies labels, and the operator
    await client.create(
      CM,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: NAMESPACE, ownerReferences },
        data: { created: 'yes', payload: 'x'.repeat(64) },
      },
      { fieldManager: 'creator' },
    );
    await client.apply(
      CM,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: NAMESPACE, labels: { team: 'bench', tier: 'cache' } },
      },
      { fieldManager: 'label-tool' },
    );
    await client.apply(
      CM,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: NAMESPACE, annotations: { 'bench.tosdk.io/owned': 'yes' } },
        data: { operator: '0' },
      },
      { fieldManager: 'es-bench' },
    );
  });
}

async function bareListAll(client: KubernetesClient): Promise<number> {
  const started = performance.now();
  for (const type of [Owner, CM] as const) {
    let token: string | undefined;
    do {
      // the informers' requests: resourceVersion=0 first (answered whole), a continue page if any
      const page = await client.list<KubernetesResource>(type, {
        namespace: NAMESPACE,
        limit: 500,
        continue: token,
        resourceVersion: token ? undefined : '0',
      });
      token = page.continue;
    } while (token);
  }
  return performance.now() - started;
}

/** Runs the operator once; returns ms to the first reconcile of all primaries and the reconciles caused by own writes. */
async function operatorRun(
  server: KubeApiServer,
  write: 'operations' | 'client',
): Promise<{ startMs: number; extra: number }> {
  const reconciled = new Map<string, number>();
  let source!: InformerEventSource<V1ConfigMap, Owner>;
  const round = write === 'operations' ? 1 : 2;
  const operator = new Operator({ kubeConfig: server.kubeConfig() });
  operator.register(
    {
      prepareEventSources: (c: EventSourceContext<Owner>) => [
        (source = new InformerEventSource<V1ConfigMap, Owner>({ type: CM, name: 'cms' }, c)),
      ],
      reconcile: async (o: Owner, c: Context<Owner>) => {
        const key = o.metadata!.name!;
        const runs = (reconciled.get(key) ?? 0) + 1;
        reconciled.set(key, runs);
        if (runs === 1) {
          // the operator's whole desired state (what it applied before, with a new value): an apply
          // that drops a field the operator owned is not explained by its intent alone, so its event
          // would reconcile once more (by design: when in doubt an event passes)
          const cm = {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: `${key}-cm-0`,
              namespace: NAMESPACE,
              annotations: { 'bench.tosdk.io/owned': 'yes' },
            },
            data: { operator: String(round) },
          };
          if (write === 'operations') await c.resourceOperations().serverSideApply(cm);
          else await c.client.apply(CM, cm, { fieldManager: 'es-bench', force: true });
        }
        return UpdateControl.noUpdate();
      },
    },
    { resourceType: Owner, name: `es-bench-${write}`, namespaces: [NAMESPACE], fieldManager: 'es-bench' },
  );
  const started = performance.now();
  await operator.start();
  try {
    await until(() => reconciled.size === PRIMARIES, 'the first reconcile of every primary');
    const startMs = performance.now() - started;
    // quiet: every written ConfigMap's own event has arrived (the cache holds the server's version)
    await until(
      () =>
        [...reconciled.keys()].every((k) => {
          const id = new ResourceID(`${k}-cm-0`, NAMESPACE);
          return !source.hasPendingOwnWrite(id) && source.get(id)?.data?.operator === String(round);
        }),
      'the own writes to come back',
    );
    let last = -1;
    for (let stable = 0; stable < 5;) {
      const total = [...reconciled.values()].reduce((a, b) => a + b, 0);
      stable = total === last ? stable + 1 : 0;
      last = total;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return { startMs, extra: last - PRIMARIES };
  } finally {
    await operator.stop();
  }
}

/** Heap bytes per cached ConfigMap of an InformerEventSource with a managedFields policy. */
async function heapPerObject(
  server: KubeApiServer,
  gc: () => void,
  policy: 'keepOwn' | 'keepAll',
): Promise<number> {
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  const context: EventSourceContext<Owner> = {
    primaryResourceType: Owner,
    client,
    controllerName: 'es-bench',
    fieldManager: 'es-bench',
    namespaces: [NAMESPACE],
    primaryCache: { get: () => undefined, list: () => [] },
  };
  const before = await settledHeap(gc);
  const source = new InformerEventSource<V1ConfigMap, Owner>({ type: CM, managedFields: policy }, context);
  await source.start();
  const after = await settledHeap(gc);
  const count = source.list().length;
  await source.stop();
  client.close();
  return (after - before) / count;
}

async function jsonHeapPerObject(client: KubernetesClient, gc: () => void): Promise<number> {
  const kept: unknown[] = [];
  const before = await settledHeap(gc);
  let token: string | undefined;
  do {
    const page = await client.list<KubernetesResource>(CM, {
      namespace: NAMESPACE,
      limit: 500,
      continue: token,
    });
    kept.push(...page.items);
    token = page.continue;
  } while (token);
  const after = await settledHeap(gc);
  const perObject = (after - before) / kept.length;
  kept.length = 0;
  return perObject;
}

/** Entry point, called from bench/core.ts. */
export async function runEventSources(): Promise<void> {
  const gc = gcFunction();
  const server = await KubeApiServer.start();
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  try {
    await populate(client);
    const bare = await bareListAll(client);
    const ours = await operatorRun(server, 'operations');
    const baseline = await operatorRun(server, 'client');
    console.log(
      `(4) ${PRIMARIES} primaries with ${PRIMARIES * PER_PRIMARY} owned ConfigMaps: ${Math.round(ours.startMs)} ms from start() to the first reconcile of all; bare list of the same objects: ${Math.round(bare)} ms; ratio ${(ours.startMs / bare).toFixed(2)}`,
    );
    // a first round lets the heap settle after the operator runs (their garbage would hide part of it)
    await jsonHeapPerObject(client, gc);
    const full = await heapPerObject(server, gc, 'keepAll');
    const pruned = await heapPerObject(server, gc, 'keepOwn');
    const json = await jsonHeapPerObject(client, gc);
    console.log(
      `(5) heap per cached ConfigMap: ${Math.round(pruned)} B with other managers' managedFields pruned (default), ${Math.round(full)} B without; parsed JSON in an array: ${Math.round(json)} B; ratios ${(pruned / json).toFixed(2)} / ${(full / json).toFixed(2)}; pruning saves ${Math.round((1 - pruned / full) * 100)} %`,
    );
    console.log(
      `(6) reconciles triggered by own writes (${PRIMARIES} server-side applies): ${ours.extra} through resourceOperations (target 0); plain client baseline: ${baseline.extra}; ratio ${(ours.extra / Math.max(1, baseline.extra)).toFixed(2)}`,
    );
  } finally {
    client.close();
    await server.stop();
  }
}
