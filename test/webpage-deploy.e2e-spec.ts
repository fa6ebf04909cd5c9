// The WebPage operator's deployment assets against @tosdk/apiserver: the manifests pass a server-side
// dry run with kubectl, and the operator works under exactly the RBAC of rbac.yaml (RBAC enforcement
// on, a user named and grouped like the ServiceAccount), gets 403 outside it, and uses every
// permission it is granted.
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  defineResource,
  EventResourceType,
  KubernetesApiError,
  KubernetesClient,
  ResourceID,
  ResourceTypes,
} from '@tosdk/core';
import type { KubernetesResource } from '@tosdk/core';
import { KUBE_CONFIG } from '@tosdk/nestjs';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { WebPageAppModule } from '../apps/webpage/src/app.module.js';
import { WEBPAGE_FLAVOURS } from '../apps/webpage/src/webpage-flavour.js';
import type { WebPageFlavour } from '../apps/webpage/src/webpage-flavour.js';
import { WebPage, WEBPAGE_CRD_PATH } from '../apps/webpage/src/webpage.resource.js';
import { quietLogs, webPage } from '../apps/webpage/src/__tests__/support/e2e-support.js';
import { grantedPermissions, kubectl } from './deploy-support.js';

const DEPLOY = fileURLToPath(new URL('../apps/webpage/deploy/', import.meta.url));
const SERVICE_ACCOUNT = 'system:serviceaccount:webpage-system:webpage-operator';
const SA_TOKEN = 'webpage-operator-sa-token';
const HELLO = '<html><body>hello</body></html>';

const ClusterRole = defineResource<KubernetesResource>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  scope: 'Cluster',
});
const ClusterRoleBinding = defineResource<KubernetesResource>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRoleBinding',
  scope: 'Cluster',
});

/**
 * kube-apiserver's bootstrap policy that lets every authenticated user review its own access
 * (`system:basic-user`); leader election uses it to check its lease permissions before starting.
 * Created unless the server already has it.
 */
async function bootstrapBasicUser(admin: KubernetesClient): Promise<void> {
  const createUnlessPresent = (type: typeof ClusterRole, obj: KubernetesResource) =>
    admin.create(type, obj).catch((error: unknown) => {
      if (!(error instanceof KubernetesApiError && error.status === 409)) throw error;
    });
  await createUnlessPresent(ClusterRole, {
    metadata: { name: 'system:basic-user' },
    rules: [
      {
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        verbs: ['create'],
      },
    ],
  } as KubernetesResource);
  await createUnlessPresent(ClusterRoleBinding, {
    metadata: { name: 'system:basic-user' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:basic-user' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }],
  } as KubernetesResource);
}

const forbidden = (p: Promise<unknown>) =>
  p.then(
    () => 'allowed',
    (e: unknown) => (e instanceof KubernetesApiError ? e.status : String(e)),
  );

describe('WebPage operator deployment assets', () => {
  let env: OperatorTestEnvironment;
  let dir: string;
  let adminKubeconfig: string;

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({
      crds: [WEBPAGE_CRD_PATH],
      server: {
        rbac: true,
        users: [
          {
            name: SERVICE_ACCOUNT,
            token: SA_TOKEN,
            groups: ['system:serviceaccounts', 'system:serviceaccounts:webpage-system'],
          },
        ],
        simulateWorkloads: { readyDelayMs: 20 },
      },
    });
    dir = await mkdtemp(join(tmpdir(), 'webpage-deploy-'));
    adminKubeconfig = join(dir, 'admin.kubeconfig');
    await env.server!.writeKubeconfig(adminKubeconfig);
    await bootstrapBasicUser(env.adminClient);
  });
  afterAll(async () => {
    await env?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('pass `kubectl apply --dry-run=server` and nothing is persisted', async () => {
    // a dry run cannot create the namespace the other objects go into: create it first, as a user would
    const ns = await kubectl(adminKubeconfig, ['apply', '-f', join(DEPLOY, 'namespace.yaml')]);
    expect(ns).toMatchObject({ code: 0, stdout: expect.stringContaining('namespace/webpage-system') });

    const run = await kubectl(adminKubeconfig, ['apply', '--dry-run=server', '-f', DEPLOY]);
    // (the only warning: the CRD was created by the test environment, not by kubectl apply)
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    for (const object of [
      'customresourcedefinition.apiextensions.k8s.io/webpages.sample.tosdk.io',
      'serviceaccount/webpage-operator',
      'clusterrole.rbac.authorization.k8s.io/webpage-operator',
      'clusterrolebinding.rbac.authorization.k8s.io/webpage-operator',
      'role.rbac.authorization.k8s.io/webpage-operator-leader-election',
      'rolebinding.rbac.authorization.k8s.io/webpage-operator-leader-election',
      'deployment.apps/webpage-operator',
    ]) {
      expect(run.stdout).toMatch(new RegExp(`^${object.replace(/\./g, '\\.')} .*\\(server dry run\\)$`, 'm'));
    }
    const absent = await kubectl(adminKubeconfig, [
      'get',
      'deployment,serviceaccount',
      '-n',
      'webpage-system',
      '-o',
      'name',
    ]);
    // (every namespace has its default ServiceAccount, made by the API server as kube's controller does)
    const left = absent.stdout.split('\n').filter((line) => line !== '' && line !== 'serviceaccount/default');
    expect({ code: absent.code, left }).toEqual({ code: 0, left: [] });
    const roles = await kubectl(adminKubeconfig, ['get', 'clusterrole', 'webpage-operator']);
    expect(roles.code).not.toBe(0);
    expect(roles.stderr).toContain('NotFound');
  });

  it('the webhooks of deploy/webhooks/ pass a server-side dry run', async () => {
    const ns = await kubectl(adminKubeconfig, ['apply', '-f', join(DEPLOY, 'namespace.yaml')]);
    expect(ns.code).toBe(0);
    const run = await kubectl(adminKubeconfig, ['apply', '--dry-run=server', '-f', join(DEPLOY, 'webhooks')]);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    for (const object of [
      'service/webpage-operator-webhooks',
      'validatingwebhookconfiguration.admissionregistration.k8s.io/webpage-operator',
    ]) {
      expect(run.stdout).toMatch(new RegExp(`^${object.replace(/\./g, '\\.')} .*\\(server dry run\\)$`, 'm'));
    }
  });

  describe('the operator under exactly the RBAC of rbac.yaml', () => {
    let saClient: KubernetesClient;
    let t: OperatorTestingContext | undefined;

    beforeAll(async () => {
      const applied = await kubectl(adminKubeconfig, [
        'apply',
        '-f',
        join(DEPLOY, 'namespace.yaml'),
        '-f',
        join(DEPLOY, 'rbac.yaml'),
      ]);
      expect(applied.code).toBe(0);
    });
    afterEach(async () => {
      await t?.close();
      t = undefined;
      // stopping the operator closes its client for good already; closing again is harmless
      saClient?.close();
    });

    /**
     * Starts the flavour as the ServiceAccount with a client of its own: a stopped operator's client
     * is closed for good, so a client shared across flavours would refuse every request of the next.
     */
    async function startAs(flavour: WebPageFlavour): Promise<OperatorTestingContext> {
      const kubeConfig: KubeConfig = env.server!.kubeConfig(SERVICE_ACCOUNT);
      saClient = KubernetesClient.fromKubeConfig(kubeConfig);
      return createOperatorTestingModule({
        testEnvironment: env,
        imports: [
          WebPageAppModule.forRoot({
            flavour,
            logStream: quietLogs,
            defaultMetrics: false,
            operator: {
              // as deployed: every namespace, a lease in webpage-system (renewed often here, so its update shows)
              leaderElection: {
                leaseName: `webpage-operator-${flavour}`,
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
            .useValue(saClient),
      });
    }

    it.each(WEBPAGE_FLAVOURS.map((f) => [f]))(
      '%s flavour: reconciles, exposes, reports errors, gets 403 outside its role and uses every permission it has',
      async (flavour) => {
        env.server!.requests.reset();
        t = await startAs(flavour);
        const ns = t.namespace;
        const id = new ResourceID('page', ns);
        await t.adminClient.create(WebPage, webPage(ns, 'page', { html: HELLO }));
        await t.waitForResource(WebPage, 'page', (p) => p.status?.ready === true);
        await t.adminClient.mergePatch(WebPage, id, { spec: { exposed: true } });
        await t.waitForResource(ResourceTypes.Ingress, 'page');
        await t.adminClient.mergePatch(WebPage, id, { spec: { exposed: false } });
        await t.waitForDeletion(ResourceTypes.Ingress, 'page');
        // the same Warning twice: the second is aggregated into the first (a patch of the Event)
        await t.adminClient.create(WebPage, webPage(ns, 'blank', { html: ' ' }));
        await t.waitForResource(WebPage, 'blank', (p) => p.status?.errorMessage !== undefined);
        await t.adminClient.mergePatch(WebPage, new ResourceID('blank', ns), { spec: { html: '  ' } });
        await waitFor(async () => {
          const events = await t!.adminClient.list(EventResourceType, { namespace: ns });
          return events.items.some((e) => e.involvedObject.name === 'blank' && (e.count ?? 1) >= 2);
        });

        // outside the role
        expect(await forbidden(saClient.list(ResourceTypes.Secret, { namespace: ns }))).toBe(403);
        expect(await forbidden(saClient.delete(WebPage, id))).toBe(403);
        expect(await forbidden(saClient.create(WebPage, webPage(ns, 'not-mine', { html: HELLO })))).toBe(403);
        expect(
          await forbidden(
            saClient.create(ResourceTypes.Pod, {
              metadata: { name: 'p', namespace: ns },
              spec: { containers: [{ name: 'c', image: 'x' }] },
            }),
          ),
        ).toBe(403);
        expect(
          await forbidden(saClient.delete(ResourceTypes.ConfigMap, new ResourceID('page-html', ns))),
        ).toBe(403);
        expect(await forbidden(saClient.list(ResourceTypes.Lease, { namespace: ns }))).toBe(403);

        // inside the role: everything granted was used. kube-apiserver authorizes a server-side apply
        // that creates an object as `create` too; @tosdk/apiserver records it as `patch` only.
        await waitFor(
          () => env.server!.requests.count({ user: SERVICE_ACCOUNT, resource: 'leases', verb: 'update' }) > 0,
        );
        const used = new Set(
          env
            .server!.requests.log.filter(
              (r) => r.user === SERVICE_ACCOUNT && r.resource !== '' && r.code !== 401 && r.code !== 403,
            )
            .map((r) => `${r.group}/${r.resource}${r.subresource ? `/${r.subresource}` : ''}:${r.verb}`),
        );
        used.delete('authorization.k8s.io/selfsubjectaccessreviews:create'); // every user may (system:basic-user)
        const granted = await grantedPermissions(join(DEPLOY, 'rbac.yaml'));
        const applyCreates = [...granted].filter(
          (p) =>
            p.endsWith(':create') && granted.has(p.replace(/:create$/, ':patch')) && !p.includes('events'),
        );
        // patch on the primary kind is always granted (a reconciler may return
        // UpdateControl.patchResource, decided at run time); the WebPage operator never needs it
        const unusedByDesign = ['sample.tosdk.io/webpages:patch'];
        expect([...used].sort()).toEqual(
          [...granted].filter((p) => !applyCreates.includes(p) && !unusedByDesign.includes(p)).sort(),
        );
      },
    );
  });
});
