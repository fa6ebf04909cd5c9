// The MySQLSchema operator's deployment assets against @tosdk/apiserver and a private MariaDB: the
// manifests pass a server-side dry run with kubectl, and the operator works under exactly the RBAC
// of rbac.yaml (enforcement on, a user named and grouped like the ServiceAccount), gets 403 outside
// it and uses every permission it grants.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { EventResourceType, KubernetesClient, noopLogger, ResourceID, ResourceTypes } from '@tosdk/core';
import { KUBE_CONFIG } from '@tosdk/nestjs';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import { MySQLSchemaAppModule } from '../apps/mysql-schema/src/app.module.js';
import { MySQLSchema, MYSQL_SCHEMA_CRD_PATH } from '../apps/mysql-schema/src/mysql-schema.resource.js';
import { grantedPermissions, kubectl, outcome } from './deploy-support.js';
import {
  mysqlSchema,
  quietLogs,
  TEST_POLL_MS,
  TEST_RETRY,
} from '../apps/mysql-schema/src/__tests__/support/e2e-support.js';
import { PrivateMariaDB } from '../apps/mysql-schema/src/__tests__/support/private-mariadb.js';

const DEPLOY = fileURLToPath(new URL('../apps/mysql-schema/deploy/', import.meta.url));
const SERVICE_ACCOUNT = 'system:serviceaccount:mysql-schema-system:mysql-schema-operator';
const WAIT = { timeoutMs: 30_000 };

describe('MySQLSchema operator deployment assets', () => {
  let env: OperatorTestEnvironment;
  let db: PrivateMariaDB;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    [env, db] = await Promise.all([
      OperatorTestEnvironment.start({
        crds: [MYSQL_SCHEMA_CRD_PATH],
        server: {
          rbac: true,
          users: [
            {
              name: SERVICE_ACCOUNT,
              token: 'mysql-schema-operator-sa-token',
              groups: ['system:serviceaccounts', 'system:serviceaccounts:mysql-schema-system'],
            },
          ],
        },
      }),
      PrivateMariaDB.start(),
    ]);
    dir = await mkdtemp(join(tmpdir(), 'mysql-schema-deploy-'));
    kubeconfig = join(dir, 'admin.kubeconfig');
    await env.server!.writeKubeconfig(kubeconfig);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([env?.stop(), db?.destroy()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('pass `kubectl apply --dry-run=server`', async () => {
    expect((await kubectl(kubeconfig, ['apply', '-f', join(DEPLOY, 'namespace.yaml')])).code).toBe(0);
    const run = await kubectl(kubeconfig, ['apply', '--dry-run=server', '-f', DEPLOY]);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    for (const object of [
      'customresourcedefinition.apiextensions.k8s.io/mysqlschemas.mysql.sample.tosdk.io',
      'serviceaccount/mysql-schema-operator',
      'clusterrole.rbac.authorization.k8s.io/mysql-schema-operator',
      'clusterrolebinding.rbac.authorization.k8s.io/mysql-schema-operator',
      'deployment.apps/mysql-schema-operator',
    ])
      expect(run.stdout).toMatch(new RegExp(`^${object.replace(/\./g, '\\.')} .*\\(server dry run\\)$`, 'm'));
  }, 120_000);

  it('works under exactly rbac.yaml (create, an error with a Warning event, delete), gets 403 outside it, and uses every permission it grants', async () => {
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
        MySQLSchemaAppModule.forRoot({
          mysql: db.settings(),
          pollPeriodMs: TEST_POLL_MS,
          logStream: quietLogs,
          defaultMetrics: false,
          operator: { logger: noopLogger, controllers: { mysqlschema: { retry: TEST_RETRY } } },
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
      await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'app', 'utf8mb4'));
      await t.waitForResource(MySQLSchema, 'app', (s) => s.status?.ready === true, WAIT);
      // a failure publishes a Warning event on the resource
      await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'bad', 'klingon8'));
      await t.waitForResource(MySQLSchema, 'bad', (s) => !!s.status?.errorMessage, WAIT);
      await waitFor(
        async () =>
          (await t.adminClient.list(EventResourceType, { namespace: ns })).items.some(
            (e) => e.involvedObject.name === 'bad' && e.type === 'Warning',
          ),
        { ...WAIT, description: 'Warning event' },
      );
      await t.adminClient.delete(MySQLSchema, new ResourceID('app', ns));
      await t.waitForDeletion(MySQLSchema, 'app', WAIT);

      expect(await outcome(saClient.list(ResourceTypes.ConfigMap, { namespace: ns }))).toBe(403);
      expect(await outcome(saClient.delete(MySQLSchema, new ResourceID('bad', ns)))).toBe(403);
      expect(
        await outcome(saClient.delete(ResourceTypes.Secret, new ResourceID('bad-mysql-credentials', ns))),
      ).toBe(403);

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
          !['configmaps', 'secrets', 'mysqlschemas'].includes(r.resource),
      );
      expect(denied.map((r) => `${r.group}/${r.resource}:${r.verb}`)).toEqual([]);
      const granted = await grantedPermissions(join(DEPLOY, 'rbac.yaml'));
      // not in this flow: a repeated Warning aggregated with a patch; reading back a Secret that
      // existed before the operator created it (the create's 409)
      const rare = ['/events:patch', '/secrets:get'];
      expect([...used].sort()).toEqual([...granted].filter((p) => !rare.includes(p)).sort());
    } finally {
      await t.close();
      saClient.close();
    }
  }, 120_000);
});
