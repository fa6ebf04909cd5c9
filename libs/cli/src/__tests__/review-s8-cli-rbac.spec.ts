// Review S8 (generators): what `tosdk generate rbac` and `manifests` give apps loaded from their code,
// and whether the permissions hold on an API server enforcing RBAC (@tosdk/apiserver with rbac on).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import {
  KubernetesApiError,
  KubernetesClient,
  Operator,
  ResourceID,
  RbacRules,
  ResourceTypes,
  UpdateControl,
  defineResource,
} from '@tosdk/core';
import type { KubernetesResource, ResourceType } from '@tosdk/core';
import { offlineKubeConfig } from '../config.js';
import type { TosdkConfig } from '../config.js';
import { loadApp } from '../introspect.js';
import { deploymentManifest } from '../manifests.js';
import { rbacManifests } from '../rbac.js';
import type { Manifest } from '../rbac.js';

const SA = 'system:serviceaccount:op-system:op';
const Node = defineResource<KubernetesResource>({ group: '', version: 'v1', kind: 'Node', scope: 'Cluster' });
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
const TYPES: Record<string, ResourceType> = {
  ServiceAccount: ResourceTypes.ServiceAccount,
  Namespace: ResourceTypes.Namespace,
  Role: rbacType('Role', false),
  RoleBinding: rbacType('RoleBinding', false),
  ClusterRole: rbacType('ClusterRole', true),
  ClusterRoleBinding: rbacType('ClusterRoleBinding', true),
};

describe('review S8: tosdk generate rbac and manifests', () => {
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

  /**
   * Applies the generated RBAC (as admin), then returns a probe that reads as the operator's
   * ServiceAccount: true unless the server answers 403 (a 404 comes after authorization).
   */
  const applyAndProbe = async (manifests: Manifest[], namespaces: string[]) => {
    for (const ns of namespaces) {
      if (!(await admin.get(ResourceTypes.Namespace, new ResourceID(ns))))
        await admin.create(ResourceTypes.Namespace, { metadata: { name: ns } });
    }
    for (const m of manifests) {
      const type = TYPES[m.kind];
      const id = new ResourceID(m.metadata.name, m.metadata.namespace);
      if (await admin.get(type, id)) await admin.delete(type, id);
      await admin.create(type, m);
    }
    const asOperator = KubernetesClient.fromKubeConfig(server.kubeConfig(SA));
    return async (read: (c: KubernetesClient) => Promise<unknown>) => {
      try {
        await read(asOperator);
        return true;
      } catch (error) {
        if (error instanceof KubernetesApiError && error.status === 403) return false;
        // authorized: the in-memory server authorizes before it looks the resource up, and serves no nodes
        if (error instanceof KubernetesApiError && error.status === 404) return true;
        throw error;
      }
    };
  };

  it('[FINDING S8-CL7] @RbacRules for a cluster-scoped kind (nodes) on a one-namespace controller goes to the ClusterRole (it landed in a namespaced Role, which never grants it)', async () => {
    @RbacRules({ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] })
    class NodeAware {
      reconcile() {
        return UpdateControl.noUpdate();
      }
    }
    const app = await loadApp({
      operator: () => {
        const operator = new Operator({ client: offline() });
        operator.register(new NodeAware(), {
          resourceType: ResourceTypes.ConfigMap,
          name: 'node-aware',
          namespaces: ['team-n'],
        });
        return operator;
      },
    });
    const manifests = rbacManifests(app, config());
    const holders = manifests
      .filter((m) => JSON.stringify(m['rules'] ?? []).includes('"nodes"'))
      .map((m) => `${m.kind} ${m.metadata.namespace ?? ''}`);
    expect(holders).toEqual(['ClusterRole ']); // it was put in the Role of team-n
    const can = await applyAndProbe(
      manifests.filter((m) => m.kind !== 'ServiceAccount'),
      ['team-n'],
    );
    // the controller's own grant works...
    expect(await can((c) => c.list(ResourceTypes.ConfigMap, { namespace: 'team-n' }))).toBe(true);
    // ...but what the reconciler declared it does, reading nodes, is refused with 403
    expect(await can((c) => c.list(Node))).toBe(true);
  });

  it('[FINDING S8-CL8] an app whose Operator is built with sharding: rbac drops the leader election Role (replicas > 1), and the Deployment no longer sets leaderElectionEnv (it did)', async () => {
    const app = await loadApp({
      operator: () => {
        const operator = new Operator({ client: offline(), sharding: { name: 'op' } });
        operator.register(
          { reconcile: () => UpdateControl.noUpdate() },
          { resourceType: ResourceTypes.ConfigMap, name: 'cm' },
        );
        return operator;
      },
    });
    expect(app.sharding).toBeDefined();
    const cfg = config({
      deployment: { image: 'example.com/op:1.0.0', replicas: 2, leaderElectionEnv: { OP_LEADER: 'true' } },
    });
    const roles = rbacManifests(app, cfg)
      .filter((m) => m.kind === 'Role')
      .map((m) => m.metadata.name);
    expect(roles).toEqual(['op-shards']); // sharded replicas: no leader election lease Role
    const env = JSON.stringify(deploymentManifest(cfg, app));
    // the app then turns leader election on (which core refuses together with sharding) without a lease Role
    expect(env).not.toContain('OP_LEADER');
  });

  /**
   * Runs a ConfigMap controller in `team-p` as the operator's ServiceAccount under the RBAC generated
   * for it; its reconciler labels each ConfigMap with UpdateControl.patchResource (JOSDK's way to
   * change a primary's metadata or spec). Returns whether the label shows up on the server.
   */
  const labelAppliedUnderGeneratedRbac = async (reconciler: object, namespace: string) => {
    const loaded = await loadApp({
      operator: () => {
        const operator = new Operator({ client: offline() });
        operator.register(reconciler as never, {
          resourceType: ResourceTypes.ConfigMap,
          name: 'labeller',
          namespaces: [namespace],
        });
        return operator;
      },
    });
    await applyAndProbe(
      rbacManifests(loaded, config()).filter((m) => m.kind !== 'ServiceAccount'),
      [namespace],
    );
    const operator = new Operator({ client: KubernetesClient.fromKubeConfig(server.kubeConfig(SA)) });
    operator.register(reconciler as never, {
      resourceType: ResourceTypes.ConfigMap,
      name: 'labeller',
      namespaces: [namespace],
    });
    await operator.start();
    try {
      await admin.create(ResourceTypes.ConfigMap, {
        metadata: { name: 'target', namespace },
        data: { a: '1' },
      } as KubernetesResource);
      const deadline = Date.now() + 5_000;
      for (;;) {
        const cm = await admin.get(ResourceTypes.ConfigMap, new ResourceID('target', namespace));
        if (cm?.metadata?.labels?.['reviewed'] === 'yes') return true;
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 50)); // polling interval of the bounded wait
      }
    } finally {
      await operator.stop();
    }
  };
  const labelling = () => ({
    reconcile(cm: KubernetesResource) {
      if (cm.metadata?.labels?.['reviewed'] === 'yes') return UpdateControl.noUpdate();
      return UpdateControl.patchResource({
        ...cm,
        metadata: { ...cm.metadata, labels: { ...(cm.metadata?.labels ?? {}), reviewed: 'yes' } },
      });
    },
  });

  it('[FINDING S8-CL12] a reconciler returning UpdateControl.patchResource gets patch on its primary: its write succeeds under the generated RBAC (it was refused with 403)', async () => {
    expect(await labelAppliedUnderGeneratedRbac(labelling(), 'team-p')).toBe(true);
    const refused = { user: SA, verb: 'patch', resource: 'configmaps', namespace: 'team-p', code: 403 };
    expect(server.requests.count(refused)).toBe(0);
  });

  it('guard (control for S8-CL12): the same reconciler with @RbacRules adding patch on configmaps labels the ConfigMap under the generated RBAC', async () => {
    @RbacRules({ apiGroups: [''], resources: ['configmaps'], verbs: ['patch'] })
    class Labelling {
      reconcile(cm: KubernetesResource) {
        return labelling().reconcile(cm);
      }
    }
    expect(await labelAppliedUnderGeneratedRbac(new Labelling(), 'team-q')).toBe(true);
  });

  it('guard: a one-namespace controller with a Cleaner: get/list/watch/patch on its kind and Events in that namespace only, nothing cluster-wide', async () => {
    const app = await loadApp({
      operator: () => {
        const operator = new Operator({ client: offline() });
        operator.register(
          { reconcile: () => UpdateControl.noUpdate(), cleanup: () => ({ removeFinalizer: true }) } as never,
          { resourceType: ResourceTypes.Secret, name: 'sec', namespaces: ['team-s'] },
        );
        return operator;
      },
    });
    const manifests = rbacManifests(app, config({ name: 'op' }));
    expect(manifests.map((m) => `${m.kind} ${m.metadata.namespace ?? ''}`)).toEqual([
      'ServiceAccount op-system',
      'Role team-s',
      'RoleBinding team-s',
    ]);
    expect(manifests.find((m) => m.kind === 'Role')?.['rules']).toEqual([
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      // get: the finalizer's guarded patch re-reads the Secret after a conflict (S14-CL2)
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'patch'] },
    ]);
    const can = await applyAndProbe(
      manifests.filter((m) => m.kind !== 'ServiceAccount'),
      ['team-s', 'other'],
    );
    expect(await can((c) => c.list(ResourceTypes.Secret, { namespace: 'team-s' }))).toBe(true);
    expect(await can((c) => c.list(ResourceTypes.Secret, { namespace: 'other' }))).toBe(false);
    expect(await can((c) => c.list(ResourceTypes.Secret))).toBe(false);
  });
});
