// Workflow benchmark: 1,000 primaries, each with a managed workflow ConfigMap -> Deployment ->
// Service (server-side apply, owner references), against an in-process API server:
// (1) time from start() until every primary's status says its dependents are in place, next to a
//     baseline measured in the same run: a bare client applying the same three objects and patching
//     the same status per primary, with the same concurrency (50), in dependsOn order;
// (2) API writes per primary on that first pass (target: one per dependent plus one status patch);
// (3) API writes per primary on a pass where nothing changed (a restarted operator reconciles every
//     primary again from its initial list; target: 0).
import type { V1ConfigMap, V1Deployment, V1Service } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import {
  CRUDKubernetesDependentResource,
  defineResource,
  KubernetesClient,
  Operator,
  ResourceID,
  ResourceTypes,
  UpdateControl,
} from '@tosdk/core';
import type { Context, CustomResource, KubernetesResource, Reconciler } from '@tosdk/core';

const PRIMARIES = Number(process.env.TOSDK_BENCH_PRIMARIES ?? 1_000);
const CONCURRENCY = 50;
const NAMESPACE = 'bench-wf';

type App = CustomResource<{ value: string }, { observed?: string }>;
const App = defineResource<App>({ group: 'bench.tosdk.io', version: 'v1', kind: 'App' });
const CRD = defineResource<KubernetesResource>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

const configMapOf = (p: App): V1ConfigMap => ({
  metadata: { name: `${p.metadata!.name!}-cm` },
  data: { value: p.spec!.value },
});
const deploymentOf = (p: App): V1Deployment => {
  const name = p.metadata!.name!;
  return {
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'nginx' }] },
      },
    },
  };
};
const serviceOf = (p: App): V1Service => ({
  metadata: { name: p.metadata!.name! },
  spec: { selector: { app: p.metadata!.name! }, ports: [{ port: 80, targetPort: 8080 }] },
});

class ConfigMapDependent extends CRUDKubernetesDependentResource<V1ConfigMap, App> {
  constructor() {
    super({ resourceType: ResourceTypes.ConfigMap, name: 'configmap' });
  }
  protected desired(p: App): V1ConfigMap {
    return configMapOf(p);
  }
}
class DeploymentDependent extends CRUDKubernetesDependentResource<V1Deployment, App> {
  constructor() {
    super({ resourceType: ResourceTypes.Deployment, name: 'deployment' });
  }
  protected desired(p: App): V1Deployment {
    return deploymentOf(p);
  }
}
class ServiceDependent extends CRUDKubernetesDependentResource<V1Service, App> {
  constructor() {
    super({ resourceType: ResourceTypes.Service, name: 'service' });
  }
  protected desired(p: App): V1Service {
    return serviceOf(p);
  }
}

class AppReconciler implements Reconciler<App> {
  reconcile(app: App, _context: Context<App>): UpdateControl<App> {
    if (app.status?.observed === app.spec!.value) return UpdateControl.noUpdate();
    app.status = { observed: app.spec!.value };
    return UpdateControl.patchStatus(app);
  }
}

function register(operator: Operator): void {
  operator.register(new AppReconciler(), {
    resourceType: App,
    name: 'app',
    namespaces: [NAMESPACE],
    workflow: {
      executorSize: CONCURRENCY,
      dependents: [
        { dependent: new ConfigMapDependent() },
        { dependent: new DeploymentDependent(), dependsOn: ['configmap'] },
        { dependent: new ServiceDependent(), dependsOn: ['deployment'] },
      ],
    },
  });
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`benchmark timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function allObserved(client: KubernetesClient, value: string): Promise<boolean> {
  const list = await client.list(App, { namespace: NAMESPACE });
  return list.items.length === PRIMARIES && list.items.every((a) => a.status?.observed === value);
}

async function pool(count: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

function writesPerPrimary(server: KubeApiServer): { total: number; byResource: Record<string, number> } {
  const byResource: Record<string, number> = {};
  let total = 0;
  for (const resource of ['configmaps', 'deployments', 'services', 'apps']) {
    const n = server.requests.writes({ namespace: NAMESPACE, resource });
    byResource[resource] = n / PRIMARIES;
    total += n;
  }
  return { total: total / PRIMARIES, byResource };
}

async function setUp(): Promise<{ server: KubeApiServer; client: KubernetesClient }> {
  const server = await KubeApiServer.start({ port: 0, requestLogSize: 100_000 });
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  await client.create(CRD, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'apps.bench.tosdk.io' },
    spec: {
      group: 'bench.tosdk.io',
      scope: 'Namespaced',
      names: { plural: 'apps', singular: 'app', kind: 'App', listKind: 'AppList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      ],
    },
  } as KubernetesResource);
  await waitUntil('CRD served', async () => {
    const r = await client
      .request<{ resources?: unknown[] }>('/apis/bench.tosdk.io/v1')
      .catch(() => undefined);
    return (r?.resources?.length ?? 0) > 0;
  });
  await client.create(ResourceTypes.Namespace, { metadata: { name: NAMESPACE } });
  await pool(PRIMARIES, async (i) => {
    await client.create(App, {
      apiVersion: App.apiVersion,
      kind: App.kind,
      metadata: { name: `app-${i}`, namespace: NAMESPACE },
      spec: { value: 'v1' },
    });
  });
  return { server, client };
}

/** The baseline, on a server of its own in the same state: the same writes by a bare client, in order per primary. */
async function baseline(): Promise<number> {
  const { server, client } = await setUp();
  try {
    const primaries = (await client.list(App, { namespace: NAMESPACE })).items;
    const t0 = performance.now();
    await pool(primaries.length, async (i) => {
      const p = primaries[i];
      const owner = [
        { apiVersion: App.apiVersion, kind: App.kind, name: p.metadata!.name!, uid: p.metadata!.uid! },
      ];
      for (const [type, obj] of [
        [ResourceTypes.ConfigMap, configMapOf(p)],
        [ResourceTypes.Deployment, deploymentOf(p)],
        [ResourceTypes.Service, serviceOf(p)],
      ] as const) {
        const body = { ...obj, metadata: { ...obj.metadata!, namespace: NAMESPACE, ownerReferences: owner } };
        await client.apply(type, body as V1ConfigMap & { metadata: { name: string } }, {
          fieldManager: 'baseline',
        });
      }
      await client.mergePatch(
        App,
        new ResourceID(p.metadata!.name!, NAMESPACE),
        { status: { observed: 'v1' } },
        { subresource: 'status' },
      );
    });
    return performance.now() - t0;
  } finally {
    client.close();
    await server.stop();
  }
}

export async function run(): Promise<void> {
  const baselineMs = await baseline();
  const { server, client } = await setUp();
  const kc = server.kubeConfig();
  try {
    // (1) + (2): first pass
    server.requests.reset();
    const first = new Operator({ kubeConfig: kc, concurrentReconciliationThreads: CONCURRENCY });
    register(first);
    const t1 = performance.now();
    await first.start();
    await waitUntil('first pass', () => allObserved(client, 'v1'));
    const convergeMs = performance.now() - t1;
    const firstWrites = writesPerPrimary(server);
    await first.stop();

    // (3): nothing changed; a new operator reconciles every primary from its initial list
    server.requests.reset();
    const second = new Operator({ kubeConfig: kc, concurrentReconciliationThreads: CONCURRENCY });
    let reconciled = 0;
    const reconciler = new AppReconciler();
    const counting: Reconciler<App> = {
      reconcile: (app, ctx) => {
        reconciled++;
        return reconciler.reconcile(app, ctx);
      },
    };
    second.register(counting, {
      resourceType: App,
      name: 'app',
      namespaces: [NAMESPACE],
      workflow: {
        executorSize: CONCURRENCY,
        dependents: [
          { dependent: new ConfigMapDependent() },
          { dependent: new DeploymentDependent(), dependsOn: ['configmap'] },
          { dependent: new ServiceDependent(), dependsOn: ['deployment'] },
        ],
      },
    });
    const t2 = performance.now();
    await second.start();
    await waitUntil('unchanged pass', () => Promise.resolve(reconciled >= PRIMARIES));
    const unchangedMs = performance.now() - t2;
    const unchangedWrites = writesPerPrimary(server);
    const unchangedWriters = Object.entries(server.requests.summary()).filter(([k]) =>
      /\|(create|update|patch|delete)\|/.test(k),
    );
    await second.stop();

    const fmt = (n: number) => n.toFixed(2);
    console.log(
      `primaries: ${PRIMARIES}, workflow ConfigMap -> Deployment -> Service, concurrency ${CONCURRENCY}`,
    );
    console.log(
      `(1) converge: ${convergeMs.toFixed(0)} ms; baseline (bare client, same writes): ${baselineMs.toFixed(0)} ms; ratio ${fmt(convergeMs / baselineMs)}`,
    );
    console.log(
      `(2) first pass writes/primary: ${fmt(firstWrites.total)} (target 4.00) ${JSON.stringify(firstWrites.byResource)}`,
    );
    console.log(
      `(3) unchanged pass writes/primary: ${fmt(unchangedWrites.total)} (target 0.00) ${JSON.stringify(unchangedWrites.byResource)}; ${reconciled} reconciles in ${unchangedMs.toFixed(0)} ms`,
    );
    if (unchangedWriters.length > 0)
      console.log(
        `    writes on the unchanged pass by user|verb|resource: ${JSON.stringify(Object.fromEntries(unchangedWriters))}`,
      );
  } finally {
    client.close();
    await server.stop();
  }
}
