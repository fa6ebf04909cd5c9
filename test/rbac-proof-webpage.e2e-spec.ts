// RBAC proven exactly enough for the WebPage sample, in each flavour: the operator runs end to end
// under exactly the RBAC `tosdk generate rbac` computes from that flavour's code (the API server's
// RBAC enforcement on), gets no 403, and every permission granted is needed: each covers a request the
// operator made, and with that permission alone removed the server's authorizer denies the request.
// One removal is also shown end to end: without `patch webpages/status` the status write gets 403.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  customResourceDefinitions,
  EventResourceType,
  KubernetesClient,
  ResourceID,
  ResourceTypes,
} from '@tosdk/core';
import { loadApp, rbacManifests } from '@tosdk/cli';
import type { Manifest } from '@tosdk/cli';
import { KUBE_CONFIG } from '@tosdk/nestjs';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { WebPageAppModule } from '../apps/webpage/src/app.module.js';
import { webPageToolConfig } from '../apps/webpage/src/tosdk.config.js';
import { WEBPAGE_FLAVOURS } from '../apps/webpage/src/webpage-flavour.js';
import type { WebPageFlavour } from '../apps/webpage/src/webpage-flavour.js';
import { WebPage } from '../apps/webpage/src/webpage.resource.js';
import { quietLogs, webPage } from '../apps/webpage/src/__tests__/support/e2e-support.js';
import {
  applyManifests,
  bootstrapBasicUser,
  forbiddenOf,
  needsOf,
  permissionsOf,
  proveEveryPermissionNeeded,
  RbacTypes,
} from './rbac-proof-support.js';

const SA_TOKEN = 'webpage-operator-proof-token';
const SA = 'system:serviceaccount:webpage-system:webpage-operator';
const HELLO = '<html><body>hello</body></html>';

describe('[RBAC proof] the WebPage operator under exactly its generated RBAC', () => {
  let env: OperatorTestEnvironment;

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({
      crds: customResourceDefinitions([WebPage]),
      server: {
        rbac: true,
        users: [
          {
            name: SA,
            token: SA_TOKEN,
            groups: ['system:serviceaccounts', 'system:serviceaccounts:webpage-system'],
          },
        ],
        simulateWorkloads: { readyDelayMs: 20 },
      },
    });
    // kube-apiserver's bootstrap policy (system:basic-user: every authenticated user may review its
    // own access) is built into @tosdk/apiserver; leader election uses it to check its permissions
    await bootstrapBasicUser(env.adminClient);
  }, 60_000);
  afterAll(() => env?.stop());

  async function startAs(flavour: WebPageFlavour, client: KubernetesClient): Promise<OperatorTestingContext> {
    const kubeConfig: KubeConfig = env.server!.kubeConfig(SA);
    return createOperatorTestingModule({
      testEnvironment: env,
      imports: [
        WebPageAppModule.forRoot({
          flavour,
          logStream: quietLogs,
          defaultMetrics: false,
          operator: {
            leaderElection: {
              leaseName: `webpage-operator-proof-${flavour}`,
              leaseNamespace: 'webpage-system',
              identity: 'pod-0',
              leaseDurationMs: 3_000,
              renewDeadlineMs: 2_000,
              retryPeriodMs: 200,
            },
          },
        }),
      ],
      restrictToNamespace: false,
      configure: (builder) =>
        builder
          .overrideProvider(KUBE_CONFIG)
          .useValue(kubeConfig)
          .overrideProvider(KubernetesClient)
          .useValue(client),
    });
  }

  /** Everything the sample does: reconcile, expose, un-expose (Ingress deleted), an error status with a repeated Warning. */
  async function exercise(t: OperatorTestingContext, ns: string): Promise<void> {
    const id = new ResourceID('page', ns);
    await t.adminClient.create(WebPage, webPage(ns, 'page', { html: HELLO }));
    await t.waitForResource(WebPage, 'page', (p) => p.status?.ready === true);
    await t.adminClient.mergePatch(WebPage, id, { spec: { exposed: true } });
    await t.waitForResource(ResourceTypes.Ingress, 'page');
    await t.adminClient.mergePatch(WebPage, id, { spec: { exposed: false } });
    await t.waitForDeletion(ResourceTypes.Ingress, 'page');
    await t.adminClient.create(WebPage, webPage(ns, 'blank', { html: ' ' }));
    await t.waitForResource(WebPage, 'blank', (p) => p.status?.errorMessage !== undefined);
    await t.adminClient.mergePatch(WebPage, new ResourceID('blank', ns), { spec: { html: '  ' } });
    await waitFor(async () => {
      const events = await t.adminClient.list(EventResourceType, { namespace: ns });
      return events.items.some((e) => e.involvedObject.name === 'blank' && (e.count ?? 1) >= 2);
    });
    // leader election renews its lease (an update) before the run counts as complete
    await waitFor(() => env.server!.requests.count({ user: SA, resource: 'leases', verb: 'update' }) > 0);
  }

  let applied: Manifest[] | undefined;
  async function useRbac(flavour: WebPageFlavour): Promise<Manifest[]> {
    const config = webPageToolConfig(flavour);
    const manifests = rbacManifests(await loadApp(config.app), config);
    if (applied) {
      // the three flavours must generate the same RBAC (their deploy files are shared)
      expect(manifests).toEqual(applied);
      return manifests;
    }
    await applyManifests(env.adminClient, manifests);
    applied = manifests;
    return manifests;
  }

  it.each(WEBPAGE_FLAVOURS.map((f) => [f]))(
    '%s flavour: works end to end with no 403, and every generated permission is needed',
    async (flavour) => {
      const manifests = await useRbac(flavour);
      expect(permissionsOf(manifests).length).toBeGreaterThan(10);
      const client = KubernetesClient.fromKubeConfig(env.server!.kubeConfig(SA));
      env.server!.requests.reset();
      const t = await startAs(flavour, client);
      try {
        await exercise(t, t.namespace);
      } finally {
        await t.close();
      }
      expect(forbiddenOf(env.server!, SA)).toEqual([]);
      const needs = needsOf(env.server!, SA);
      const reviewer = KubernetesClient.fromKubeConfig(env.server!.kubeConfig(SA));
      try {
        // patch on webpages is granted for UpdateControl.patchResource, which the sample does not return
        await proveEveryPermissionNeeded(env.adminClient, reviewer, manifests, needs, [
          { group: WebPage.group, resource: WebPage.plural, verb: 'patch' },
        ]);
      } finally {
        reviewer.close();
      }
    },
    120_000,
  );

  it('managed flavour without `patch webpages/status`: the status write is refused with 403 and the page never reports ready', async () => {
    const manifests = await useRbac('managed');
    const role = manifests.find((m) => m.kind === 'ClusterRole')!;
    const id = new ResourceID(role.metadata.name);
    const original = (await env.adminClient.get(RbacTypes.ClusterRole, id)) as unknown as {
      rules: unknown[];
    };
    const rules = (role['rules'] as Array<{ resources: string[] }>).filter(
      (r) => !r.resources.includes('webpages/status'),
    );
    expect(rules.length).toBe((role['rules'] as unknown[]).length - 1);
    await env.adminClient.mergePatch(RbacTypes.ClusterRole, id, { rules });
    const client = KubernetesClient.fromKubeConfig(env.server!.kubeConfig(SA));
    env.server!.requests.reset();
    const t = await startAs('managed', client);
    try {
      await t.adminClient.create(WebPage, webPage(t.namespace, 'page', { html: HELLO }));
      await waitFor(() => forbiddenOf(env.server!, SA).length > 0, { timeoutMs: 30_000 });
      expect(forbiddenOf(env.server!, SA)[0]).toBe(`patch sample.tosdk.io/webpages/status in ${t.namespace}`);
      // the rest of the work was allowed: the ConfigMap exists, the status does not say ready
      await t.waitForResource(ResourceTypes.ConfigMap, 'page-html');
      const page = await t.adminClient.get(WebPage, new ResourceID('page', t.namespace));
      expect(page?.status?.ready).toBeUndefined();
    } finally {
      await t.close();
      await env.adminClient.mergePatch(RbacTypes.ClusterRole, id, { rules: original.rules });
    }
  }, 120_000);
});
