// Review S14 (generators, as a user who generates and deploys an operator): the Deployment's probes
// against how the operator starts, the generated objects created on an API server, and the RBAC
// against the requests the runtime really makes (an RBAC-enforcing @tosdk/apiserver, 127.0.0.1).
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { parseAllDocuments } from 'yaml';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import {
  CRUDKubernetesDependentResource,
  DeleteControl,
  InformerEventSource,
  Mappers,
  PerResourcePollingDependentResource,
  primaryAnnotations,
  KubernetesClient,
  Operator,
  ResourceID,
  ResourceTypes,
  UpdateControl,
} from '@tosdk/core';
import type {
  DependentResourceWithExplicitState,
  EventSourceContext,
  KubernetesResource,
  Reconciler,
  ResourceType,
} from '@tosdk/core';
import { defineResource } from '@tosdk/core';
import { controllerOptionsFromEnvironment } from '@tosdk/nestjs';
import { ConversionWebhook, MutatingWebhook, ValidatingWebhook } from '@tosdk/nestjs/webhooks';
import { offlineKubeConfig } from '../config.js';
import type { TosdkConfig } from '../config.js';
import { TosdkCliError } from '../errors.js';
import { generate, render } from '../generate.js';
import { main } from '../cli.js';
import { helmChart } from '../helm.js';
import { loadApp } from '../introspect.js';
import { deploymentManifest } from '../manifests.js';
import { rbacManifests } from '../rbac.js';
import type { Manifest } from '../rbac.js';

const SA = 'system:serviceaccount:op-system:op';
const offline = () => KubernetesClient.fromKubeConfig(offlineKubeConfig());
const config = (more: Partial<TosdkConfig> = {}): TosdkConfig => ({
  name: 'op',
  namespace: 'op-system',
  app: { operator: () => undefined },
  output: {},
  deployment: { image: 'example.com/op:1.0.0' },
  ...more,
});

const rbacType = (kind: string, cluster: boolean) =>
  defineResource<KubernetesResource>({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind,
    scope: cluster ? 'Cluster' : 'Namespaced',
  });
const RBAC_TYPES: Record<string, ResourceType> = {
  ServiceAccount: ResourceTypes.ServiceAccount,
  Role: rbacType('Role', false),
  RoleBinding: rbacType('RoleBinding', false),
  ClusterRole: rbacType('ClusterRole', true),
  ClusterRoleBinding: rbacType('ClusterRoleBinding', true),
};

/** Polls `check` until it is true or `ms` pass; returns its last answer. */
async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50)); // polling interval of the bounded wait
  }
}

describe('review S14: the Deployment of tosdk generate manifests', () => {
  it('[FINDING S14-CL1] the Deployment gives a starting operator as long as its cache sync may take before the kubelet restarts it (a startupProbe on the liveness endpoint; the liveness probe alone killed it after about 30 s)', async () => {
    const app = await loadApp({
      operator: () => {
        const operator = new Operator({ client: offline() });
        operator.register(
          { reconcile: () => UpdateControl.noUpdate() },
          { resourceType: ResourceTypes.ConfigMap, name: 'cm' },
        );
        return operator;
      },
    });
    type Probe = {
      httpGet: { path: string; port: string };
      initialDelaySeconds?: number;
      periodSeconds?: number;
      failureThreshold?: number;
    };
    const container = (
      deploymentManifest(config(), app) as unknown as {
        spec: { template: { spec: { containers: Array<Record<string, Probe | undefined>> } } };
      }
    ).spec.template.spec.containers[0];
    // The HTTP server of a Nest operator listens only after onApplicationBootstrap, where the operator
    // starts and waits for its informers to sync (core's Operator cacheSyncTimeoutMs: 120 s by default).
    // Until then every probe fails (connection refused). The kubelet restarts the container after the
    // probe that guards the start fails failureThreshold times: the startup probe when there is one
    // (liveness waits for it), else the liveness probe.
    const guard = container['startupProbe'] ?? container['livenessProbe']!;
    // the first probe runs after initialDelaySeconds, then one every periodSeconds: the restart comes
    // with the failureThreshold-th failure
    const window =
      (guard.initialDelaySeconds ?? 0) + (guard.periodSeconds ?? 10) * ((guard.failureThreshold ?? 3) - 1);
    expect(window).toBeGreaterThanOrEqual(120);
    // the startup probe asks what liveness asks, on the same port (kube's advice for slow starters)
    expect(container['startupProbe']?.httpGet).toEqual(container['livenessProbe']?.httpGet);
  });
});

describe('review S14: the generated RBAC against the requests the runtime makes', () => {
  let server: KubeApiServer;
  let admin: KubernetesClient;
  beforeAll(async () => {
    server = await KubeApiServer.start({
      host: '127.0.0.1',
      port: 0,
      rbac: true,
      users: [{ name: SA, token: 'op-token', groups: ['system:serviceaccounts'] }],
    });
    admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
  });
  afterAll(() => server.stop());

  /** Applies the generated RBAC (as admin) and creates the namespaces. */
  const applyRbac = async (manifests: Manifest[], namespaces: string[]) => {
    for (const ns of [...namespaces, 'op-system', 'op-leases']) {
      if (!(await admin.get(ResourceTypes.Namespace, new ResourceID(ns))))
        await admin.create(ResourceTypes.Namespace, { metadata: { name: ns } });
    }
    for (const m of manifests) {
      const type = RBAC_TYPES[m.kind];
      const id = new ResourceID(m.metadata.name, m.metadata.namespace);
      if (await admin.get(type, id)) await admin.delete(type, id);
      await admin.create(type, m);
    }
  };
  const refusedOf = (namespace: string) =>
    server.requests.log
      .filter((r) => r.user === SA && r.code === 403 && r.namespace === namespace)
      .map((r) => `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`);

  /** Loads the app offline (as tosdk generate does), applies its RBAC, and runs it as the ServiceAccount. */
  const runUnderGeneratedRbac = async (
    build: (client: KubernetesClient) => Operator,
    namespace: string,
  ): Promise<Operator> => {
    const app = await loadApp({ operator: () => build(offline()) });
    await applyRbac(rbacManifests(app, config()), [namespace]);
    const operator = build(KubernetesClient.fromKubeConfig(server.kubeConfig(SA)));
    await operator.start();
    return operator;
  };

  it('[FINDING S14-CL2] a Cleaner whose finalizer removal meets a conflict re-reads its primary under the generated RBAC (the get was refused with 403: no get on the primary kind)', async () => {
    const ns = 'team-f';
    const cleaner: Reconciler<KubernetesResource> & { cleanup(): DeleteControl } = {
      reconcile: () => UpdateControl.noUpdate(),
      cleanup: () => DeleteControl.defaultDelete(),
    };
    const build = (client: KubernetesClient) => {
      const operator = new Operator({ client, closeClientOnStop: true });
      operator.register(cleaner, {
        resourceType: ResourceTypes.ConfigMap,
        name: 'cleaner',
        namespaces: [ns],
        recordReconcileErrorEvents: false,
        retry: { maxAttempts: 5, initialInterval: 50, intervalMultiplier: 1 },
      });
      return operator;
    };
    const operator = await runUnderGeneratedRbac(build, ns);
    try {
      const id = new ResourceID('cleaned', ns);
      await admin.create(ResourceTypes.ConfigMap, { metadata: { name: 'cleaned', namespace: ns } });
      expect(
        await eventually(
          async () => ((await admin.get(ResourceTypes.ConfigMap, id))?.metadata?.finalizers ?? []).length > 0,
        ),
      ).toBe(true);
      // someone else's write between the operator's read and its patch: the guarded JSON patch that
      // removes the finalizer fails with 409, and the runtime reads the object again (as JOSDK's
      // ReconciliationDispatcher.conflictRetryingPatch does) before retrying
      server.faults.failNext({ verb: 'patch', resource: 'configmaps', namespace: ns, code: 409 });
      await admin.delete(ResourceTypes.ConfigMap, id);
      expect(await eventually(async () => (await admin.get(ResourceTypes.ConfigMap, id)) === undefined)).toBe(
        true,
      );
      expect(refusedOf(ns)).toEqual([]);
    } finally {
      await operator.stop();
    }
  });

  it('[FINDING S14-CL3] a dependent written without server-side apply (useSSA: false) updates its secondary under the generated RBAC (its update was refused with 403: only patch was granted)', async () => {
    const ns = 'team-u';
    class Copy extends CRUDKubernetesDependentResource<V1ConfigMap, V1Secret> {
      constructor() {
        super({ name: 'copy', resourceType: ResourceTypes.ConfigMap, useSSA: false });
      }
      protected override desired(secret: V1Secret): V1ConfigMap {
        return {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${secret.metadata!.name!}-copy`, namespace: secret.metadata!.namespace },
          data: {
            keys: Object.keys(secret.data ?? {})
              .sort()
              .join(','),
          },
        };
      }
    }
    const build = (client: KubernetesClient) => {
      const operator = new Operator({ client, closeClientOnStop: true });
      operator.register(
        { reconcile: () => UpdateControl.noUpdate() },
        {
          resourceType: ResourceTypes.Secret,
          name: 'copier',
          namespaces: [ns],
          recordReconcileErrorEvents: false,
          retry: { maxAttempts: 2, initialInterval: 50, intervalMultiplier: 1 },
          workflow: { dependents: [{ dependent: Copy }] },
        },
      );
      return operator;
    };
    const operator = await runUnderGeneratedRbac(build, ns);
    try {
      const secretId = new ResourceID('source', ns);
      const copyId = new ResourceID('source-copy', ns);
      const keys = async () => (await admin.get(ResourceTypes.ConfigMap, copyId))?.data?.['keys'];
      await admin.create(ResourceTypes.Secret, {
        metadata: { name: 'source', namespace: ns },
        data: { a: 'YQ==' },
      });
      expect(await eventually(async () => (await keys()) === 'a')).toBe(true);
      await admin.mergePatch(ResourceTypes.Secret, secretId, { data: { b: 'Yg==' } });
      const updated = await eventually(async () => (await keys()) === 'a,b');
      expect({ updated, refused: refusedOf(ns) }).toEqual({ updated: true, refused: [] });
    } finally {
      await operator.stop();
    }
  });

  it("[FINDING S14-CL4] an event source with a bounded cache fetches an evicted secondary under the generated RBAC (the get was refused with 403: an event source's kind got list and watch only)", async () => {
    const ns = 'team-b';
    const seen: string[] = [];
    const build = (client: KubernetesClient) => {
      const operator = new Operator({ client, closeClientOnStop: true });
      let source: InformerEventSource<V1ConfigMap, V1Secret> | undefined;
      operator.register(
        {
          prepareEventSources: (c: EventSourceContext<V1Secret>) => [
            (source = new InformerEventSource<V1ConfigMap, V1Secret>(
              // objects unread for 1 ms are evicted and fetched again on demand
              { type: ResourceTypes.ConfigMap, name: 'settings', boundedCache: { ttlMs: 1 } },
              c,
            )),
          ],
          reconcile: async (secret: V1Secret) => {
            const settings = await source!.fetchSecondaryResources(secret);
            seen.push(
              `${secret.metadata?.labels?.['round'] ?? '0'}:${settings.map((m) => m.data?.['v']).join(',')}`,
            );
            return UpdateControl.noUpdate();
          },
        },
        {
          resourceType: ResourceTypes.Secret,
          name: 'bounded',
          namespaces: [ns],
          recordReconcileErrorEvents: false,
          retry: { maxAttempts: 2, initialInterval: 50, intervalMultiplier: 1 },
        },
      );
      return operator;
    };
    const operator = await runUnderGeneratedRbac(build, ns);
    try {
      const secret = await admin.create(ResourceTypes.Secret, { metadata: { name: 'owner', namespace: ns } });
      await admin.create(ResourceTypes.ConfigMap, {
        metadata: {
          name: 'settings',
          namespace: ns,
          ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'owner', uid: secret.metadata!.uid! }],
        },
        data: { v: '1' },
      });
      expect(await eventually(async () => seen.some((s) => s.endsWith(':1')))).toBe(true);
      // a later reconciliation reads the ConfigMap after its full object was evicted: a get
      await admin.mergePatch(ResourceTypes.Secret, new ResourceID('owner', ns), {
        metadata: { labels: { round: '1' } },
      });
      const fetched = await eventually(async () => seen.includes('1:1'));
      expect({ fetched, refused: refusedOf(ns) }).toEqual({ fetched: true, refused: [] });
    } finally {
      await operator.stop();
    }
  });
  it('[FINDING S14-CL10] an app whose Operator is built with leader election (a lease in a namespace of its own) starts under the generated RBAC (no lease Role was generated without leaderElection in the tosdk config, and none could be put in another namespace: start failed with LeaderElectionPermissionError)', async () => {
    const ns = 'team-l';
    const build = (client: KubernetesClient) => {
      const operator = new Operator({
        client,
        closeClientOnStop: true,
        leaderElection: {
          leaseName: 'op-lease',
          leaseNamespace: 'op-leases',
          identity: 'op-0',
          exitOnStopLeading: false,
        },
      });
      operator.register(
        { reconcile: () => UpdateControl.noUpdate() },
        {
          resourceType: ResourceTypes.ConfigMap,
          name: 'cm',
          namespaces: [ns],
          recordReconcileErrorEvents: false,
        },
      );
      return operator;
    };
    const started = await runUnderGeneratedRbac(build, ns).then(
      (operator) => operator,
      (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`,
    );
    expect(typeof started === 'string' ? started : 'started').toBe('started');
    const operator = started as Operator;
    try {
      const Lease = defineResource<KubernetesResource & { spec?: { holderIdentity?: string } }>({
        group: 'coordination.k8s.io',
        version: 'v1',
        kind: 'Lease',
      });
      expect(
        await eventually(
          async () =>
            (await admin.get(Lease, new ResourceID('op-lease', 'op-leases')))?.spec?.holderIdentity ===
            'op-0',
        ),
      ).toBe(true);
      expect(refusedOf('op-leases')).toEqual([]);
    } finally {
      await operator.stop();
    }
    // the chart grants the same, whatever replicas the release is installed with
    const chart = helmChart(await loadApp({ operator: () => build(offline()) }), config(), '');
    const roles = docsOf(renderChart(chart['templates/rbac.yaml'], { replicas: 1, watchNamespaces: [] }));
    expect(
      roles
        .filter((m) => m.kind === 'Role' && m.metadata.name === 'op-leader-election')
        .map((m) => m.metadata.namespace),
    ).toEqual(['op-leases']);
  });
  it('[FINDING S14-CL11] a dependent with an activation condition lists and watches its kind under the generated RBAC once active (its informer, registered at run time, got 403 on list: the generator saw only the sources registered at load)', async () => {
    const ns = 'team-c';
    class Mirror extends CRUDKubernetesDependentResource<V1ConfigMap, V1Secret> {
      constructor() {
        super({ name: 'mirror', resourceType: ResourceTypes.ConfigMap });
      }
      protected override desired(secret: V1Secret): V1ConfigMap {
        return {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${secret.metadata!.name!}-mirror`, namespace: secret.metadata!.namespace },
          data: { mirrored: 'yes' },
        };
      }
    }
    const build = (client: KubernetesClient) => {
      const operator = new Operator({ client, closeClientOnStop: true });
      operator.register(
        { reconcile: () => UpdateControl.noUpdate() },
        {
          resourceType: ResourceTypes.Secret,
          name: 'mirrors',
          namespaces: [ns],
          recordReconcileErrorEvents: false,
          retry: { maxAttempts: 2, initialInterval: 50, intervalMultiplier: 1 },
          // e.g. a kind present only on some clusters (JOSDK's CRDPresentActivationCondition)
          workflow: { dependents: [{ dependent: Mirror, activationCondition: () => true }] },
        },
      );
      return operator;
    };
    const operator = await runUnderGeneratedRbac(build, ns);
    try {
      await admin.create(ResourceTypes.Secret, { metadata: { name: 'source', namespace: ns } });
      const mirrored = await eventually(
        async () =>
          (await admin.get(ResourceTypes.ConfigMap, new ResourceID('source-mirror', ns))) !== undefined,
      );
      expect({ mirrored, refused: [...new Set(refusedOf(ns))] }).toEqual({ mirrored: true, refused: [] });
    } finally {
      await operator.stop();
    }
  });
  it("[FINDING S14-CL12] an external dependent keeping explicit state creates its state ConfigMap under the generated RBAC (the framework's create was refused with 403: an external dependent got no grant)", async () => {
    const ns = 'team-x';
    const external = new Map<string, { id: string }>();
    class Bucket
      extends PerResourcePollingDependentResource<{ id: string }, V1Secret>
      implements DependentResourceWithExplicitState<{ id: string }, V1Secret, V1ConfigMap>
    {
      readonly stateResourceType = ResourceTypes.ConfigMap;
      constructor() {
        super({ periodMs: 60_000, idOf: (b) => b.id, name: 'bucket' });
      }
      protected desired(): { id: string } {
        return { id: '' };
      }
      fetchResources(secret: V1Secret): Promise<Array<{ id: string }>> {
        const found = external.get(secret.metadata!.name!);
        return Promise.resolve(found ? [found] : []);
      }
      create(_desired: { id: string }, secret: V1Secret): Promise<{ id: string }> {
        const made = { id: `bucket-${secret.metadata!.name!}` };
        external.set(secret.metadata!.name!, made);
        return Promise.resolve(made);
      }
      stateResource(secret: V1Secret, bucket: { id: string } | undefined): V1ConfigMap {
        return {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: `${secret.metadata!.name!}-bucket`,
            namespace: secret.metadata!.namespace,
            annotations: primaryAnnotations(secret),
          },
          ...(bucket ? { data: { id: bucket.id } } : {}),
        };
      }
    }
    const build = (client: KubernetesClient) => {
      const operator = new Operator({ client, closeClientOnStop: true });
      operator.register(
        {
          // the state kind's event source, as DependentResourceWithExplicitState asks
          prepareEventSources: (c: EventSourceContext<V1Secret>) => [
            new InformerEventSource<V1ConfigMap, V1Secret>(
              { type: ResourceTypes.ConfigMap, secondaryToPrimaryMapper: Mappers.fromDefaultAnnotations() },
              c,
            ),
          ],
          reconcile: () => UpdateControl.noUpdate(),
        },
        {
          resourceType: ResourceTypes.Secret,
          name: 'buckets',
          namespaces: [ns],
          recordReconcileErrorEvents: false,
          retry: { maxAttempts: 2, initialInterval: 50, intervalMultiplier: 1 },
          workflow: { dependents: [{ dependent: Bucket }] },
        },
      );
      return operator;
    };
    const operator = await runUnderGeneratedRbac(build, ns);
    try {
      await admin.create(ResourceTypes.Secret, { metadata: { name: 'data', namespace: ns } });
      const stored = await eventually(
        async () =>
          (await admin.get(ResourceTypes.ConfigMap, new ResourceID('data-bucket', ns)))?.data?.['id'] ===
          'bucket-data',
      );
      expect({ stored, refused: [...new Set(refusedOf(ns))] }).toEqual({ stored: true, refused: [] });
    } finally {
      await operator.stop();
    }
  });
  it('guard (S14-CL3): a dependent creating only if missing gets create and get (it reads the object whose name is taken), a non-SSA one create and update, an SSA one create and patch', async () => {
    const dependentOf = (name: string, options: { useSSA?: boolean; createOnlyIfMissing?: boolean }) =>
      class extends CRUDKubernetesDependentResource<V1ConfigMap, V1Secret> {
        constructor() {
          super({ name, resourceType: ResourceTypes.ConfigMap, ...options });
        }
        protected override desired(secret: V1Secret): V1ConfigMap {
          return {
            metadata: { name: `${secret.metadata!.name!}-${name}`, namespace: secret.metadata!.namespace },
          };
        }
      };
    const verbsFor = async (options: { useSSA?: boolean; createOnlyIfMissing?: boolean }) => {
      const app = await loadApp({
        operator: () => {
          const operator = new Operator({ client: offline() });
          operator.register(
            { reconcile: () => UpdateControl.noUpdate() },
            {
              resourceType: ResourceTypes.Secret,
              name: 'copier',
              namespaces: ['team-g'],
              recordReconcileErrorEvents: false,
              workflow: { dependents: [{ dependent: dependentOf('copy', options) }] },
            },
          );
          return operator;
        },
      });
      const role = rbacManifests(app, config()).find((m) => m.kind === 'Role');
      return (role?.['rules'] as Array<{ resources: string[]; verbs: string[] }>)
        .filter((r) => r.resources.includes('configmaps'))
        .flatMap((r) => r.verbs);
    };
    // (list and watch: the dependent's informer; delete: none, it is garbage collected)
    expect(await verbsFor({})).toEqual(['list', 'watch', 'create', 'patch']);
    expect(await verbsFor({ useSSA: false })).toEqual(['list', 'watch', 'create', 'update']);
    expect(await verbsFor({ createOnlyIfMissing: true })).toEqual([
      'get',
      'list',
      'watch',
      'create',
      'patch',
    ]);
  });
});

/** Runs kubectl (`KUBECTL`, else /usr/bin/kubectl) with a kubeconfig; killed after 30 s. */
const kubectl = (kubeconfig: string, args: string[]) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.env['KUBECTL'] ?? '/usr/bin/kubectl',
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });

describe('review S14: the generated files as kubectl and Helm read them', () => {
  let server: KubeApiServer;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    server = await KubeApiServer.start({ host: '127.0.0.1', port: 0 });
    dir = await mkdtemp(join(tmpdir(), 'tosdk-s14-'));
    kubeconfig = join(dir, 'kubeconfig');
    await server.writeKubeconfig(kubeconfig);
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('[FINDING S14-CL5] strings YAML 1.1 reads as booleans or numbers (a property n, an enum on/off, an env value yes, 0o17) are quoted, so kubectl creates what was generated (it read n as false and the CRD was rejected)', async () => {
    const Switch = defineResource({
      group: 'acme.example.com',
      version: 'v1',
      kind: 'Switch',
      schema: {
        spec: Type.Object({
          n: Type.Integer(),
          state: Type.Union([Type.Literal('on'), Type.Literal('off')]),
          mode: Type.Optional(Type.String({ default: '0o17' })),
        }),
      },
    });
    const build = () => {
      const operator = new Operator({ client: offline() });
      operator.register(
        { reconcile: () => UpdateControl.noUpdate() },
        { resourceType: Switch, name: 'switches' },
      );
      return operator;
    };
    const app = await loadApp({ operator: build });
    const cfg = config({
      app: { operator: build },
      deployment: { image: 'example.com/op:1.0.0', env: { ENABLED: 'yes', UMASK: '0o17', LEVEL: 'N' } },
      output: { crds: 'crds.yaml', rbac: 'rbac.yaml', manifests: '.' },
    });
    const files: Record<string, string> = {};
    for (const target of ['manifests', 'crds', 'rbac'] as const)
      Object.assign(files, await render(cfg, app, target, dir));
    const created: string[] = [];
    for (const name of ['namespace.yaml', 'crds.yaml', 'rbac.yaml', 'operator.yaml']) {
      await writeFile(join(dir, name), files[name]);
      const run = await kubectl(kubeconfig, ['create', '-f', join(dir, name)]);
      created.push(`${name}: ${run.code === 0 ? 'created' : run.output.trim()}`);
    }
    expect(created).toEqual([
      'namespace.yaml: created',
      'crds.yaml: created',
      'rbac.yaml: created',
      'operator.yaml: created',
    ]);
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig());
    const crd = (await client.get(
      defineResource<KubernetesResource>({
        group: 'apiextensions.k8s.io',
        version: 'v1',
        kind: 'CustomResourceDefinition',
        scope: 'Cluster',
      }),
      new ResourceID('switches.acme.example.com'),
    )) as unknown as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: Record<string, unknown> } } }> };
    };
    const spec = crd.spec.versions[0].schema.openAPIV3Schema.properties['spec'] as {
      required: string[];
      properties: Record<string, { enum?: unknown[]; default?: unknown }>;
    };
    expect(spec.required).toEqual(['n', 'state']);
    expect(spec.properties['state'].enum).toEqual(['on', 'off']);
    expect(spec.properties['mode'].default).toBe('0o17');
    const deployment = (await client.get(
      defineResource<KubernetesResource>({ group: 'apps', version: 'v1', kind: 'Deployment' }),
      new ResourceID('op', 'op-system'),
    )) as unknown as { spec: { template: { spec: { containers: Array<{ env: unknown[] }> } } } };
    expect(deployment.spec.template.spec.containers[0].env).toEqual([
      { name: 'ENABLED', value: 'yes' },
      { name: 'UMASK', value: '0o17' },
      { name: 'LEVEL', value: 'N' },
    ]);
  });
});

/** The chart's values a test renders with (Helm's `--set`). */
interface ChartValues {
  replicas: number;
  watchNamespaces: string[];
}

/**
 * Renders a template of the generated chart as Helm would with `values` (there is no helm binary
 * here): the `if`, `range`, `else` and `end` actions the generator writes are evaluated (an empty
 * list is false and ranges zero times), then the value references are filled in. An action it
 * does not know fails the test.
 */
function renderChart(template: string, values: ChartValues): string {
  type Frame = { active: boolean; range?: { lines: string[]; outer: boolean } };
  const stack: Frame[] = [];
  const out: string[] = [];
  const active = () => stack.every((f) => f.active);
  const sink = () => [...stack].reverse().find((f) => f.range)?.range?.lines ?? out;
  for (const line of template.split('\n')) {
    const action = /^\{\{- (if|range|else|end)\b(.*)\}\}$/.exec(line.trim());
    if (!action) {
      if (active()) sink().push(line);
      continue;
    }
    const [, verb, rest] = action;
    if (verb === 'if') {
      const cond = rest.trim();
      const value =
        cond === '.Values.watchNamespaces'
          ? values.watchNamespaces.length > 0
          : cond === 'gt (int .Values.replicas) 1'
            ? values.replicas > 1
            : undefined;
      if (value === undefined) throw new Error(`unknown action ${line}`);
      stack.push({ active: value });
    } else if (verb === 'range') {
      if (rest.trim() !== '.Values.watchNamespaces') throw new Error(`unknown action ${line}`);
      stack.push({ active: true, range: { lines: [], outer: active() } });
    } else if (verb === 'else') {
      stack[stack.length - 1].active = !stack[stack.length - 1].active;
    } else {
      const frame = stack.pop()!;
      if (frame.range && frame.range.outer)
        for (const ns of values.watchNamespaces)
          sink().push(...frame.range.lines.map((l) => l.replaceAll('{{ . }}', ns)));
    }
  }
  expect(stack).toEqual([]);
  return out
    .join('\n')
    .replace(/\{\{ \$?\.Release\.Namespace \}\}/g, 'op-system')
    .replace('{{ .Values.replicas }}', String(values.replicas))
    .replace('"{{ .Values.image.repository }}:{{ .Values.image.tag }}"', 'example.com/op:1.0.0')
    .replace('{{ .Values.image.pullPolicy }}', 'IfNotPresent')
    .replaceAll(
      '{{ join "," .Values.watchNamespaces | quote }}',
      JSON.stringify(values.watchNamespaces.join(',')),
    )
    .replace(/\{\{- toYaml \.Values\.resources \| nindent \d+ \}\}/, '{}');
}

const docsOf = (text: string) => {
  const docs = parseAllDocuments(text);
  expect(docs.flatMap((d) => d.errors.map((e) => e.message))).toEqual([]);
  return docs.map((d) => d.toJS() as Manifest | null).filter((d): d is Manifest => d !== null);
};

describe('review S14: the Helm chart rendered with its values', () => {
  const Fleet = defineResource({
    group: 'acme.example.com',
    version: 'v1',
    kind: 'Fleet',
    scope: 'Cluster',
    schema: { spec: Type.Object({ size: Type.Integer() }) },
  });
  const buildTwoScopes = () => {
    const operator = new Operator({ client: offline() });
    // the Fleet controller also caches Secrets in every namespace (its event source follows it)
    operator.register(
      {
        prepareEventSources: (c: EventSourceContext<KubernetesResource>) => [
          new InformerEventSource({ type: ResourceTypes.Secret, name: 'pull-secrets' }, c),
        ],
        reconcile: () => UpdateControl.noUpdate(),
      },
      { resourceType: Fleet, name: 'fleets' },
    );
    operator.register(
      { reconcile: () => UpdateControl.noUpdate() },
      { resourceType: ResourceTypes.ConfigMap, name: 'configs' },
    );
    return operator;
  };

  it('[FINDING S14-CL6] with watchNamespaces the chart restricts only controllers of namespaced kinds: a controller of a cluster-scoped kind starts and keeps its cluster-wide grants (it got TOSDK_CONTROLLER_<NAME>_NAMESPACES and the app failed: "Fleet is cluster-scoped; it cannot be restricted to namespaces"; its sources were granted in those namespaces only)', async () => {
    const app = await loadApp({ operator: buildTwoScopes });
    const chart = helmChart(app, config(), '');
    const [deployment] = docsOf(
      renderChart(chart['templates/deployment.yaml'], { replicas: 1, watchNamespaces: ['team-a'] }),
    ) as Array<
      Manifest & {
        spec: { template: { spec: { containers: Array<{ env: Array<{ name: string; value: string }> }> } } };
      }
    >;
    const env = Object.fromEntries(
      deployment.spec.template.spec.containers[0].env.map((e) => [e.name, e.value]),
    );
    expect(env['TOSDK_CONTROLLER_CONFIGS_NAMESPACES']).toBe('team-a');
    // what @tosdk/nestjs does with the pod's environment: each controller's options from its
    // variables, then registration (the Nest app fails to start when a registration throws)
    const failures: string[] = [];
    for (const c of app.controllers) {
      const overrides = controllerOptionsFromEnvironment(env, c.name);
      try {
        new Operator({ client: offline() }).register(
          { reconcile: () => UpdateControl.noUpdate() },
          {
            resourceType: c.configuration.resourceType,
            name: c.name,
            ...overrides,
          },
        );
      } catch (error) {
        failures.push(`${c.name}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    // so the Fleet controller still lists Secrets in every namespace: the chart's RBAC must say so
    const roles = docsOf(
      renderChart(chart['templates/rbac.yaml'], { replicas: 1, watchNamespaces: ['team-a'] }),
    ).filter((m) => m.kind === 'ClusterRole' || m.kind === 'Role');
    const secretsGrantedIn = roles
      .filter((r) =>
        (r['rules'] as Array<{ resources: string[] }>).some((rule) => rule.resources.includes('secrets')),
      )
      .map((r) => `${r.kind} ${r.metadata.namespace ?? ''}`.trim());
    expect(secretsGrantedIn).toEqual(['ClusterRole']);
  });

  it('[FINDING S14-CL7] with watchNamespaces an event source given its own namespaces keeps its grants there (they moved to the watched namespaces, and its list in its own namespace got 403)', async () => {
    const build = () => {
      const operator = new Operator({ client: offline() });
      operator.register(
        {
          prepareEventSources: (c: EventSourceContext<KubernetesResource>) => [
            // the operator's shared settings, in their own namespace whatever the controller watches
            new InformerEventSource(
              { type: ResourceTypes.Secret, name: 'settings', namespaces: ['shared'] },
              c,
            ),
          ],
          reconcile: () => UpdateControl.noUpdate(),
        },
        { resourceType: ResourceTypes.ConfigMap, name: 'configs' },
      );
      return operator;
    };
    const app = await loadApp({ operator: build });
    const chart = helmChart(app, config(), '');
    const [deployment] = docsOf(
      renderChart(chart['templates/deployment.yaml'], { replicas: 1, watchNamespaces: ['team-a'] }),
    ) as Array<
      Manifest & {
        spec: { template: { spec: { containers: Array<{ env: Array<{ name: string; value: string }> }> } } };
      }
    >;
    const env = Object.fromEntries(
      deployment.spec.template.spec.containers[0].env.map((e) => [e.name, e.value]),
    );
    // the pod's controller, configured from its environment as @tosdk/nestjs does: its Secrets source
    // still watches "shared"
    const running = new Operator({ client: offline() });
    let source: InformerEventSource<KubernetesResource, KubernetesResource> | undefined;
    running.register(
      {
        prepareEventSources: (c: EventSourceContext<KubernetesResource>) => [
          (source = new InformerEventSource(
            { type: ResourceTypes.Secret, name: 'settings', namespaces: ['shared'] },
            c,
          )),
        ],
        reconcile: () => UpdateControl.noUpdate(),
      },
      {
        resourceType: ResourceTypes.ConfigMap,
        name: 'configs',
        ...controllerOptionsFromEnvironment(env, 'configs'),
      },
    );
    expect(source?.namespaces).toEqual(['shared']);
    const roles = docsOf(
      renderChart(chart['templates/rbac.yaml'], { replicas: 1, watchNamespaces: ['team-a'] }),
    ).filter((m) => m.kind === 'ClusterRole' || m.kind === 'Role');
    const secretsGrantedIn = roles
      .filter((r) =>
        (r['rules'] as Array<{ resources: string[] }>).some((rule) => rule.resources.includes('secrets')),
      )
      .map((r) => `${r.kind} ${r.metadata.namespace ?? ''}`.trim());
    expect(secretsGrantedIn).toEqual(['Role shared']);
    // bound to the operator's ServiceAccount, under a name of its own in that namespace
    const all = docsOf(
      renderChart(chart['templates/rbac.yaml'], { replicas: 1, watchNamespaces: ['shared'] }),
    );
    expect(
      all
        .filter((m) => m.metadata.namespace === 'shared')
        .map((m) =>
          `${m.kind} ${m.metadata.name} ${(m['roleRef'] as { name?: string } | undefined)?.name ?? ''}`.trim(),
        ),
    ).toEqual(['Role op', 'RoleBinding op op', 'Role op-sources', 'RoleBinding op-sources op-sources']);
  });
});

describe('review S14: everything generated, created on an API server with kubectl', () => {
  const schema = (size: ReturnType<typeof Type.Integer>) => ({
    spec: Type.Object({ size, mode: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off')])) }),
    status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
  });
  const WidgetV1 = defineResource({
    group: 'acme.example.com',
    version: 'v1',
    kind: 'Widget',
    storage: true,
    schema: schema(Type.Integer({ minimum: 0 })),
  });
  const WidgetV2 = defineResource({
    group: 'acme.example.com',
    version: 'v2',
    kind: 'Widget',
    storage: false,
    schema: schema(Type.Integer()),
  });
  const Fleet = defineResource({
    group: 'acme.example.com',
    version: 'v1',
    kind: 'Fleet',
    scope: 'Cluster',
    schema: { spec: Type.Object({ n: Type.Integer() }) },
  });
  @ValidatingWebhook({ resource: WidgetV1 })
  class WidgetValidator {}
  @MutatingWebhook({ resource: WidgetV1 })
  class WidgetDefaulter {}
  @ConversionWebhook({ resource: WidgetV1, hub: 'v1' })
  class WidgetConversion {}
  class WidgetConfig extends CRUDKubernetesDependentResource<V1ConfigMap, KubernetesResource> {
    constructor() {
      super({ name: 'config', resourceType: ResourceTypes.ConfigMap });
    }
    protected override desired(w: KubernetesResource): V1ConfigMap {
      return { metadata: { name: w.metadata!.name!, namespace: w.metadata!.namespace } };
    }
  }
  const build = () => {
    const operator = new Operator({ client: offline() });
    operator.register(
      {
        reconcile: () => UpdateControl.noUpdate(),
        cleanup: () => DeleteControl.defaultDelete(),
      } as Reconciler<KubernetesResource>,
      { resourceType: WidgetV1, name: 'widgets', workflow: { dependents: [{ dependent: WidgetConfig }] } },
    );
    operator.register({ reconcile: () => UpdateControl.noUpdate() }, { resourceType: Fleet, name: 'fleets' });
    operator.register(
      { reconcile: () => UpdateControl.noUpdate() },
      { resourceType: ResourceTypes.Secret, name: 'secrets', namespaces: ['team-a', 'team-b'] },
    );
    return operator;
  };

  let dir: string;
  const servers: KubeApiServer[] = [];
  /** A fresh API server (HTTPS, 127.0.0.1) with these namespaces; its kubeconfig path. */
  const freshServer = async (namespaces: string[]): Promise<string> => {
    const server = await KubeApiServer.start({ host: '127.0.0.1', port: 0 });
    servers.push(server);
    const path = join(dir, `kubeconfig-${servers.length}`);
    await server.writeKubeconfig(path);
    for (const ns of namespaces) await kubectl(path, ['create', 'namespace', ns]);
    return path;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tosdk-s14-all-'));
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('guard: the CRDs, RBAC (leader election, sharding), Deployment, webhooks and the chart rendered with defaults and with watchNamespaces are all accepted', async () => {
    const app = await loadApp({ operator: build });
    const cfg = config({
      app: { operator: build },
      resources: [WidgetV2],
      leaderElection: { leaseName: 'op-lease' },
      sharding: { leaseNamespace: 'team-b' },
      webhooks: {
        classes: () => [WidgetValidator, WidgetDefaulter, WidgetConversion],
        caBundle: { certManager: 'op-system/op-webhooks' },
      },
      deployment: {
        image: 'example.com/op:1.0.0',
        replicas: 2,
        env: { LOG_LEVEL: 'info', PORT: '8080' },
        leaderElectionEnv: { OP_LEADER_ELECTION: 'true' },
      },
      output: {
        crds: 'crds.yaml',
        rbac: 'rbac.yaml',
        manifests: '.',
        webhooks: 'webhooks.yaml',
        helm: 'chart',
      },
    });
    const files: Record<string, string> = {};
    for (const target of ['manifests', 'crds', 'rbac', 'webhooks', 'helm'] as const)
      Object.assign(files, await render(cfg, app, target, dir));
    const outcomes: string[] = [];
    const create = async (kubeconfig: string, name: string, text: string) => {
      const path = join(dir, `${outcomes.length}.yaml`);
      await writeFile(path, text);
      const run = await kubectl(kubeconfig, ['create', '-f', path]);
      outcomes.push(`${name}: ${run.code === 0 ? 'ok' : run.output.trim()}`);
    };
    const plain = await freshServer(['team-a', 'team-b']);
    for (const name of ['namespace.yaml', 'crds.yaml', 'rbac.yaml', 'operator.yaml', 'webhooks.yaml'])
      await create(plain, name, files[name]);
    // the chart, as `helm install` renders it into the release namespace, each on its own server
    for (const values of [
      { replicas: 2, watchNamespaces: [] },
      { replicas: 3, watchNamespaces: ['team-a', 'team-b'] },
    ]) {
      const release = await freshServer(['team-a', 'team-b', 'op-system']);
      await create(release, 'chart/crds/crds.yaml', files['chart/crds/crds.yaml']);
      for (const t of ['serviceaccount', 'rbac', 'deployment'])
        await create(
          release,
          `chart/templates/${t}.yaml (${values.watchNamespaces.join(',') || 'defaults'})`,
          renderChart(files[`chart/templates/${t}.yaml`], values),
        );
    }
    expect(files['chart/crds/crds.yaml']).toBe(files['crds.yaml'].replace('generate crds', 'generate helm'));
    expect(outcomes.filter((o) => !o.endsWith(': ok'))).toEqual([]);
  });
});

describe('review S14: a configuration kube would refuse', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tosdk-s14-config-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('[FINDING S14-CL8] a name, namespace, label, lease name or port the API server refuses fails generate with InvalidConfig naming the setting (the files were written, and kubectl apply refused them)', async () => {
    const app = await loadApp({
      operator: () => {
        const operator = new Operator({ client: offline() });
        operator.register(
          { reconcile: () => UpdateControl.noUpdate() },
          { resourceType: ResourceTypes.ConfigMap, name: 'cm' },
        );
        return operator;
      },
    });
    const failureOf = (more: Partial<TosdkConfig>) =>
      generate({ config: config(more), baseDir: dir, target: 'all', app }).then(
        () => 'written',
        (e: unknown) => (e instanceof TosdkCliError ? `${e.code}: ${e.message}` : String(e)),
      );
    const cases: Array<[Partial<TosdkConfig>, string]> = [
      [{ name: 'My_Operator' }, 'name "My_Operator"'],
      [{ namespace: 'Ops System' }, 'namespace "Ops System"'],
      [{ labels: { 'app.kubernetes.io/name': 'my operator' } }, 'labels["app.kubernetes.io/name"]'],
      [{ leaderElection: { leaseName: 'Lease!' } }, 'leaderElection.leaseName "Lease!"'],
      [{ deployment: { image: 'example.com/op:1.0.0', port: 80_800 } }, 'deployment.port 80800'],
    ];
    const outcomes: string[] = [];
    for (const [more] of cases) outcomes.push(await failureOf(more));
    expect(outcomes).toEqual(cases.map(([, setting]) => expect.stringContaining(setting)));
    expect(outcomes.filter((o) => !o.startsWith('InvalidConfig: '))).toEqual([]);
    // the message says what the setting names and what a valid value looks like
    expect(outcomes[0]).toContain('lower-case letters, digits');
  });

  it('[FINDING S14-CL13] a configuration module missing a setting (output, or name given as a number) is refused naming that setting (the message only repeated the whole expected shape)', async () => {
    const messages: string[] = [];
    for (const [file, body] of [
      [
        'no-output.mjs',
        "export default { name: 'op', namespace: 'op-system', app: { operator: () => undefined } };",
      ],
      [
        'numeric-name.mjs',
        "export default { name: 7, namespace: 'op-system', app: { operator: () => undefined }, output: {} };",
      ],
    ]) {
      await writeFile(join(dir, file), body);
      const err: string[] = [];
      const code = await main(['generate', 'rbac', '--config', file], {
        cwd: dir,
        out: () => undefined,
        err: (line) => err.push(line),
      });
      messages.push(`${code} ${err.join('\n')}`);
    }
    expect(messages).toEqual([
      expect.stringContaining('output is missing'),
      expect.stringContaining('name must be a string, got 7'),
    ]);
    expect(messages.every((m) => m.startsWith('1 tosdk: '))).toBe(true);
  });

  it('[FINDING S14-CL9] resources holding something that is not a kind (a class, a module, undefined) fails with InvalidConfig naming resources[i] (it failed with "TypeError: Cannot read properties of undefined (reading \'includes\')")', async () => {
    const app = await loadApp({
      operator: () => {
        const operator = new Operator({ client: offline() });
        operator.register(
          { reconcile: () => UpdateControl.noUpdate() },
          { resourceType: ResourceTypes.ConfigMap, name: 'cm' },
        );
        return operator;
      },
    });
    class Widget {}
    const outcomes: string[] = [];
    for (const entry of [Widget, { Widget: ResourceTypes.Secret }, undefined]) {
      const cfg = config({ resources: [ResourceTypes.Secret, entry as unknown as ResourceType] });
      outcomes.push(
        await generate({ config: cfg, baseDir: dir, target: 'crds', app }).then(
          () => 'generated',
          (e: unknown) => (e instanceof TosdkCliError ? `${e.code}: ${e.message}` : `${String(e)}`),
        ),
      );
    }
    expect(outcomes).toEqual([
      expect.stringContaining(
        'InvalidConfig: tosdk config of op: resources[1] is the class or function Widget',
      ),
      expect.stringContaining(
        'InvalidConfig: tosdk config of op: resources[1] is an object that is not a kind',
      ),
      expect.stringContaining('InvalidConfig: tosdk config of op: resources[1] is undefined'),
    ]);
    expect(outcomes[0]).toContain('defineResource(');
    // a value of the wrong type is shown as it is: the string "2", not 2
    const replicas = await generate({
      config: config({ deployment: { image: 'example.com/op:1.0.0', replicas: '2' as unknown as number } }),
      baseDir: dir,
      target: 'manifests',
      app,
    }).catch((e: unknown) => (e as Error).message);
    expect(replicas).toContain('deployment.replicas must be a positive integer, got "2"');
  });
});
