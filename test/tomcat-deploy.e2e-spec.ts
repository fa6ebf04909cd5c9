// The Tomcat operator's deployment assets against @tosdk/apiserver: the manifests pass a server-side
// dry run with kubectl, and both controllers work under exactly the RBAC of rbac.yaml (enforcement
// on, a user named and grouped like the ServiceAccount), get 403 outside it and use every
// permission it grants.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubernetesClient, noopLogger, ResourceID, ResourceTypes } from '@tosdk/core';
import { KUBE_CONFIG } from '@tosdk/nestjs';
import { createOperatorTestingModule, OperatorTestEnvironment } from '@tosdk/nestjs/testing';
import { TomcatAppModule } from '../apps/tomcat/src/app.module.js';
import { Tomcat, TOMCAT_CRD_PATHS, Webapp } from '../apps/tomcat/src/tomcat.resource.js';
import { grantedPermissions, kubectl, outcome } from './deploy-support.js';
import { quietLogs, tomcat, webapp } from '../apps/tomcat/src/__tests__/support/e2e-support.js';

const DEPLOY = fileURLToPath(new URL('../apps/tomcat/deploy/', import.meta.url));
const SERVICE_ACCOUNT = 'system:serviceaccount:tomcat-system:tomcat-operator';
const WAIT = { timeoutMs: 30_000 };

describe('Tomcat operator deployment assets', () => {
  let env: OperatorTestEnvironment;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({
      crds: TOMCAT_CRD_PATHS,
      server: {
        rbac: true,
        users: [
          {
            name: SERVICE_ACCOUNT,
            token: 'tomcat-operator-sa-token',
            groups: ['system:serviceaccounts', 'system:serviceaccounts:tomcat-system'],
          },
        ],
        simulateWorkloads: { readyDelayMs: 20 },
      },
    });
    dir = await mkdtemp(join(tmpdir(), 'tomcat-deploy-'));
    kubeconfig = join(dir, 'admin.kubeconfig');
    await env.server!.writeKubeconfig(kubeconfig);
  });
  afterAll(async () => {
    await env?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('pass `kubectl apply --dry-run=server`', async () => {
    expect((await kubectl(kubeconfig, ['apply', '-f', join(DEPLOY, 'namespace.yaml')])).code).toBe(0);
    const run = await kubectl(kubeconfig, ['apply', '--dry-run=server', '-f', DEPLOY]);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    for (const object of [
      'customresourcedefinition.apiextensions.k8s.io/tomcats.tomcat.sample.tosdk.io',
      'customresourcedefinition.apiextensions.k8s.io/webapps.tomcat.sample.tosdk.io',
      'serviceaccount/tomcat-operator',
      'clusterrole.rbac.authorization.k8s.io/tomcat-operator',
      'clusterrolebinding.rbac.authorization.k8s.io/tomcat-operator',
      'deployment.apps/tomcat-operator',
    ])
      expect(run.stdout).toMatch(new RegExp(`^${object.replace(/\./g, '\\.')} .*\\(server dry run\\)$`, 'm'));
  }, 90_000);

  it('both controllers work under exactly rbac.yaml, get 403 outside it, and use every permission it grants', async () => {
    expect(
      (
        await kubectl(kubeconfig, [
          'apply',
          '-f',
          join(DEPLOY, 'namespace.yaml'),
          '-f',
          join(DEPLOY, 'rbac.yaml'),
        ])
      ).code,
    ).toBe(0);
    const kubeConfig: KubeConfig = env.server!.kubeConfig(SERVICE_ACCOUNT);
    const saClient = KubernetesClient.fromKubeConfig(kubeConfig);
    env.server!.requests.reset();
    const t = await createOperatorTestingModule({
      testEnvironment: env,
      imports: [
        TomcatAppModule.forRoot({
          logStream: quietLogs,
          defaultMetrics: false,
          operator: { logger: noopLogger },
        }),
      ],
      configure: (builder) =>
        builder
          .overrideProvider(KUBE_CONFIG)
          .useValue(kubeConfig)
          .overrideProvider(KubernetesClient)
          .useValue(saClient),
    });
    try {
      const ns = t.namespace;
      await t.adminClient.create(Tomcat, tomcat(ns, 'srv', { version: '10.1' }));
      await t.adminClient.create(
        Webapp,
        webapp(ns, 'a', { tomcat: 'srv', url: 'http://x.local/a.war', contextPath: '/a' }),
      );
      await t.adminClient.create(
        Webapp,
        webapp(ns, 'b', { tomcat: 'srv', url: 'http://x.local/b.war', contextPath: '/b' }),
      );
      for (const name of ['a', 'b'])
        await t.waitForResource(Webapp, name, (w) => w.status?.ready === true, WAIT);
      await t.waitForResource(Tomcat, 'srv', (s) => s.status?.readyReplicas === 1, WAIT);
      await t.adminClient.delete(Webapp, new ResourceID('b', ns));
      await t.waitForDeletion(Webapp, 'b', WAIT);

      expect(await outcome(saClient.list(ResourceTypes.Secret, { namespace: ns }))).toBe(403);
      expect(await outcome(saClient.delete(Tomcat, new ResourceID('srv', ns)))).toBe(403);
      expect(await outcome(saClient.delete(ResourceTypes.Pod, new ResourceID('any', ns)))).toBe(403);

      // kube-apiserver authorizes an apply that creates as `create` too; @tosdk/apiserver records `patch`
      const used = new Set(
        env
          .server!.requests.log.filter(
            (r) => r.user === SERVICE_ACCOUNT && r.resource !== '' && r.code !== 401 && r.code !== 403,
          )
          .map((r) => `${r.group}/${r.resource}${r.subresource ? `/${r.subresource}` : ''}:${r.verb}`),
      );
      const denied = env.server!.requests.log.filter(
        (r) =>
          r.user === SERVICE_ACCOUNT &&
          r.code === 403 &&
          !['secrets', 'pods', 'tomcats'].includes(r.resource),
      );
      expect(denied.map((r) => `${r.group}/${r.resource}:${r.verb}`)).toEqual([]);
      const granted = await grantedPermissions(join(DEPLOY, 'rbac.yaml'));
      const applyCreates = [...granted].filter(
        (p) => p.endsWith(':create') && granted.has(p.replace(/:create$/, ':patch')) && !p.includes('events'),
      );
      // Warning events are written only when a reconciliation fails, which this flow never does
      const onFailure = ['/events:create', '/events:patch'];
      expect([...used].sort()).toEqual(
        [...granted].filter((p) => !applyCreates.includes(p) && !onFailure.includes(p)).sort(),
      );
    } finally {
      await t.close();
      saClient.close();
    }
  }, 90_000);
});
