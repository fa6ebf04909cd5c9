// RBAC proven exactly enough for a core `Operator` app with two scopes: a controller of a
// cluster-scoped kind (a ClusterRole) and a controller watching two namespaces with a managed
// dependent, a finalizer and reconcile-error events (a Role in each of the two namespaces, nothing
// cluster-wide). The app runs under exactly the generated RBAC with enforcement on, gets no 403,
// cannot read its kind in a third namespace, and every permission granted is shown needed.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { Type } from '@sinclair/typebox';
import {
  CRUDKubernetesDependentResource,
  customResourceDefinitions,
  defineResource,
  DeleteControl,
  EventResourceType,
  KubernetesApiError,
  KubernetesClient,
  Operator,
  ResourceID,
  ResourceTypes,
  UpdateControl,
} from '@tosdk/core';
import type { Cleaner, Reconciler, ResourceOf } from '@tosdk/core';
import { defineConfig, loadApp, offlineKubeConfig, rbacManifests } from '@tosdk/cli';
import type { Manifest, TosdkConfig } from '@tosdk/cli';
import { OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import {
  applyManifests,
  bootstrapBasicUser,
  forbiddenOf,
  needsOf,
  proveEveryPermissionNeeded,
} from './rbac-proof-support.js';

const NS_A = 'proof-a';
const NS_B = 'proof-b';
const NS_OTHER = 'proof-c';
const SA = 'system:serviceaccount:proof-system:scopes-operator';
const SA_TOKEN = 'scopes-operator-token';

const Team = defineResource({
  group: 'proof.tosdk.io',
  version: 'v1',
  kind: 'Team',
  scope: 'Cluster',
  schema: {
    spec: Type.Object({ members: Type.Integer({ minimum: 0 }) }),
    status: Type.Object({ seen: Type.Optional(Type.Integer()) }),
  },
});
type Team = ResourceOf<typeof Team>;

const Site = defineResource({
  group: 'proof.tosdk.io',
  version: 'v1',
  kind: 'Site',
  schema: {
    spec: Type.Object({ greeting: Type.String(), fail: Type.Optional(Type.Boolean()) }),
    status: Type.Object({ served: Type.Optional(Type.String()) }),
  },
});
type Site = ResourceOf<typeof Site>;

class TeamReconciler implements Reconciler<Team> {
  reconcile(team: Team) {
    team.status = { seen: team.spec?.members };
    return UpdateControl.patchStatus(team);
  }
}

class SiteConfigMap extends CRUDKubernetesDependentResource<V1ConfigMap, Site> {
  constructor() {
    super({ name: 'site-configmap', resourceType: ResourceTypes.ConfigMap });
  }
  protected override targetSecondaryResourceID(site: Site): ResourceID {
    return new ResourceID(`${site.metadata!.name!}-site`, site.metadata!.namespace);
  }
  protected override desired(site: Site): V1ConfigMap {
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${site.metadata!.name!}-site`, namespace: site.metadata!.namespace },
      data: { greeting: site.spec!.greeting },
    };
  }
}

class SiteReconciler implements Reconciler<Site>, Cleaner<Site> {
  reconcile(site: Site) {
    if (site.spec?.fail) throw new Error('this site asked to fail');
    site.status = { served: `${site.metadata!.name!}-site` };
    return UpdateControl.patchStatus(site);
  }
  cleanup() {
    return DeleteControl.defaultDelete();
  }
}

/** The app: what main() would build with the cluster's client (and what `tosdk generate` loads offline). */
function buildOperator(client: KubernetesClient): Operator {
  const operator = new Operator({ client, closeClientOnStop: false, currentNamespace: 'proof-system' });
  operator.register(new TeamReconciler(), {
    resourceType: Team,
    name: 'teams',
    recordReconcileErrorEvents: false,
  });
  operator.register(new SiteReconciler(), {
    resourceType: Site,
    name: 'sites',
    namespaces: [NS_A, NS_B],
    retry: { maxAttempts: 3, initialInterval: 50, intervalMultiplier: 1 },
    workflow: { dependents: [{ dependent: SiteConfigMap }] },
  });
  return operator;
}

const config: TosdkConfig = defineConfig({
  name: 'scopes-operator',
  namespace: 'proof-system',
  app: { operator: () => buildOperator(KubernetesClient.fromKubeConfig(offlineKubeConfig())) },
  output: {},
});

describe('[RBAC proof] a cluster-scoped and a two-namespace controller under exactly their generated RBAC', () => {
  let env: OperatorTestEnvironment;
  let manifests: Manifest[];

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({
      crds: customResourceDefinitions([Team, Site]),
      server: { rbac: true, users: [{ name: SA, token: SA_TOKEN, groups: ['system:serviceaccounts'] }] },
    });
    await bootstrapBasicUser(env.adminClient);
    manifests = rbacManifests(await loadApp(config.app), config);
    await applyManifests(env.adminClient, manifests);
    for (const ns of [NS_OTHER])
      await env.adminClient.create(ResourceTypes.Namespace, { metadata: { name: ns } });
  }, 60_000);
  afterAll(() => env?.stop());

  it('generates a ClusterRole for the cluster-scoped kind only and a Role in each watched namespace', () => {
    const roles = manifests.filter((m) => m.kind.endsWith('Role'));
    expect(roles.map((r) => `${r.kind} ${r.metadata.namespace ?? '-'}`)).toEqual([
      'ClusterRole -',
      `Role ${NS_A}`,
      `Role ${NS_B}`,
    ]);
    const clusterResources = (roles[0]['rules'] as Array<{ resources: string[] }>).flatMap(
      (r) => r.resources,
    );
    expect(clusterResources.sort()).toEqual(['teams', 'teams/status']);
    expect(roles[1]['rules']).toEqual(roles[2]['rules']);
    const bindings = manifests.filter((m) => m.kind.endsWith('Binding'));
    expect(bindings.map((b) => `${b.kind} ${b.metadata.namespace ?? '-'}`)).toEqual([
      'ClusterRoleBinding -',
      `RoleBinding ${NS_A}`,
      `RoleBinding ${NS_B}`,
    ]);
  });

  it('works end to end in both namespaces and on the cluster scope with no 403, and every generated permission is needed', async () => {
    const client = KubernetesClient.fromKubeConfig(env.server!.kubeConfig(SA));
    env.server!.requests.reset();
    const operator = buildOperator(client);
    await operator.start();
    try {
      const admin = env.adminClient;
      await admin.create(Team, {
        apiVersion: Team.apiVersion,
        kind: 'Team',
        metadata: { name: 'core' },
        spec: { members: 3 },
      });
      for (const ns of [NS_A, NS_B]) {
        for (const [name, fail] of [
          ['home', false],
          ['broken', true],
        ] as const) {
          await admin.create(Site, {
            apiVersion: Site.apiVersion,
            kind: 'Site',
            metadata: { name, namespace: ns },
            spec: { greeting: `hello ${ns}`, fail },
          });
        }
      }
      await waitFor(async () => (await admin.get(Team, new ResourceID('core')))?.status?.seen === 3, {
        timeoutMs: 30_000,
      });
      for (const ns of [NS_A, NS_B]) {
        await waitFor(
          async () => (await admin.get(Site, new ResourceID('home', ns)))?.status?.served === 'home-site',
          {
            timeoutMs: 30_000,
          },
        );
        expect((await admin.get(ResourceTypes.ConfigMap, new ResourceID('home-site', ns)))?.data).toEqual({
          greeting: `hello ${ns}`,
        });
        // the failing site's Warning is recorded, then aggregated on the retries (a patch of the Event)
        await waitFor(
          async () =>
            (await admin.list(EventResourceType, { namespace: ns })).items.some(
              (e) => e.involvedObject.name === 'broken' && (e.count ?? 1) >= 2,
            ),
          { timeoutMs: 30_000 },
        );
        // deleting runs the cleanup and removes the finalizer
        await admin.delete(Site, new ResourceID('home', ns));
        await waitFor(async () => (await admin.get(Site, new ResourceID('home', ns))) === undefined, {
          timeoutMs: 30_000,
        });
      }
    } finally {
      await operator.stop();
    }
    expect(forbiddenOf(env.server!, SA)).toEqual([]);
    // namespace-scoped: nothing outside the two namespaces
    const outside = await client.list(Site, { namespace: NS_OTHER }).then(
      () => 'allowed',
      (e: unknown) => (e instanceof KubernetesApiError ? e.status : String(e)),
    );
    expect(outside).toBe(403);
    const needs = needsOf(env.server!, SA);
    // patch on teams is granted for UpdateControl.patchResource, which TeamReconciler does not return
    // (patch on sites is exercised: the finalizer); get on sites is the re-read of a finalizer write
    // that hits a conflict (S14-CL2), which a run without conflicts does not make
    await proveEveryPermissionNeeded(env.adminClient, client, manifests, needs, [
      { group: Team.group, resource: Team.plural, verb: 'patch' },
      { group: Site.group, resource: Site.plural, verb: 'get' },
    ]);
    client.close();
  }, 120_000);
});
