// S8 review of the MySQLSchema sample against @tosdk/apiserver and a private MariaDB: names that
// map to one schema, schemas and users that existed before the resource, the credentials Secret
// left alone across reconciles, and long names within MySQL's limits.
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { V1Secret } from '@kubernetes/client-node';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubernetesClient, ResourceID, ResourceTypes } from '@tosdk/core';
import { waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { schemaName, userName } from '../mysql-schema-names.js';
import { MySQLSchema } from '../mysql-schema.resource.js';
import { runMySQLSchemaOperator } from '../run.js';
import { mysqlSchema, TEST_POLL_MS } from './support/e2e-support.js';
import { mysqlSchemaOperatorPerTest } from './support/operator-per-test.js';

const suite = mysqlSchemaOperatorPerTest();
const operator = () => suite.operator();

const decode = (secret: V1Secret, key: string) => Buffer.from(secret.data![key], 'base64').toString('utf8');
const WAIT = { timeoutMs: 30_000 };

/** Logs in with a Secret's credentials and reads the rows of `probe` (what an application does). */
async function credentialsWork(t: OperatorTestingContext, secretName: string): Promise<void> {
  const secret = await t.waitForResource(ResourceTypes.Secret, secretName, undefined, WAIT);
  await suite.db.useAs(decode(secret, 'username'), decode(secret, 'password'), decode(secret, 'database'));
}

describe('S8 review: MySQLSchema sample', () => {
  it('[FINDING S8-SA1] two MySQLSchemas named "x.y" and "x-y" in one namespace get their own schema and user: both Secrets log in, deleting one keeps the other’s data', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'x.y', 'utf8mb4'));
    const first = await t.waitForResource(MySQLSchema, 'x.y', (s) => s.status?.ready === true, WAIT);
    await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'x-y', 'utf8mb4'));
    await t.waitForResource(MySQLSchema, 'x-y', (s) => s.status?.ready === true, WAIT);
    // the first one's application stores data
    await credentialsWork(t, 'x.y-mysql-credentials');
    // the second one's application: its Secret has another password for the same user
    await credentialsWork(t, 'x-y-mysql-credentials');
    await t.adminClient.delete(MySQLSchema, new ResourceID('x-y', ns));
    await t.waitForDeletion(MySQLSchema, 'x-y', WAIT);
    // (the schema's name as the status reports it: both names are mapped, so both carry a hash)
    const rows = await suite.db.root(`SELECT id FROM \`${first.status!.schemaName!}\`.probe`);
    expect(rows.length).toBe(1);
  }, 120_000);

  it('[FINDING S8-SA2] a schema that existed before the MySQLSchema (someone else’s data) is not dropped when the MySQLSchema is deleted', async () => {
    const t = await operator();
    const ns = t.namespace;
    const schema = schemaName(mysqlSchema(ns, 'legacy', 'utf8mb4'));
    await suite.db.root(`CREATE DATABASE \`${schema}\``);
    await suite.db.root(`CREATE TABLE \`${schema}\`.orders (id INT PRIMARY KEY)`);
    await suite.db.root(`INSERT INTO \`${schema}\`.orders VALUES (42)`);
    await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'legacy', 'utf8mb4'));
    // the operator reports the existing schema as its own (ready) or refuses; either way it reconciled
    await t.waitForResource(
      MySQLSchema,
      'legacy',
      (s) => s.status?.ready === true || !!s.status?.errorMessage,
      WAIT,
    );
    await t.adminClient.delete(MySQLSchema, new ResourceID('legacy', ns));
    await t.waitForDeletion(MySQLSchema, 'legacy', WAIT);
    expect(await suite.db.schemas(schema)).toEqual([{ name: schema, encoding: expect.any(String) }]);
    const rows = await suite.db.root(`SELECT id FROM \`${schema}\`.orders`);
    expect(rows.map((r) => Number(r['id']))).toEqual([42]);
  }, 120_000);

  it('[FINDING S8-SA3] (variant) a user that existed before the MySQLSchema: the status is not ready:true while the Secret’s password is refused', async () => {
    const t = await operator();
    const ns = t.namespace;
    const user = userName(mysqlSchema(ns, 'crm', 'utf8mb4'));
    // e.g. left by an earlier install whose Secret is gone, or another team's account of that name
    await suite.db.root(`CREATE USER '${user}'@'%' IDENTIFIED BY 'someone-elses-password'`);
    await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'crm', 'utf8mb4'));
    const settled = await t.waitForResource(
      MySQLSchema,
      'crm',
      (s) => s.status?.ready === true || !!s.status?.errorMessage,
      WAIT,
    );
    if (settled.status?.ready) await credentialsWork(t, 'crm-mysql-credentials');
    else expect(settled.status?.errorMessage).toContain(user);
  }, 120_000);

  it('[FINDING S8-SA3] dev mode started a second time against the same MariaDB: the example is ready and its new Secret’s password logs in', async () => {
    const devDir = await mkdtemp(join(tmpdir(), 'tosdk-s8-mysql-dev-'));
    const settings = {
      mysql: suite.db.settings(),
      pollPeriodMs: TEST_POLL_MS,
      httpHost: '127.0.0.1',
      httpPort: 0,
      devDir,
      clusterConfigured: false,
    };
    // one `npm start`, Ctrl-C, and `npm start` again: the embedded API server starts empty each time
    const runOnce = async (): Promise<V1Secret> => {
      const running = await runMySQLSchemaOperator(settings);
      const client = KubernetesClient.fromKubeConfig(running.embedded!.kubeConfig);
      try {
        await waitFor(
          async () =>
            (await client.get(MySQLSchema, new ResourceID('example', 'default')))?.status?.ready === true,
          { ...WAIT, description: 'example ready' },
        );
        return (await client.get(
          ResourceTypes.Secret,
          new ResourceID('example-mysql-credentials', 'default'),
        ))!;
      } finally {
        client.close();
        await running.stop();
      }
    };
    try {
      const first = await runOnce();
      await suite.db.useAs(decode(first, 'username'), decode(first, 'password'), decode(first, 'database'));
      const second = await runOnce();
      // the status said ready: an application given this Secret must be able to log in
      await suite.db.useAs(
        decode(second, 'username'),
        decode(second, 'password'),
        decode(second, 'database'),
      );
    } finally {
      await suite.db.root("DROP USER IF EXISTS 'default_example'@'%'").catch(() => undefined);
      await suite.db.root('DROP DATABASE IF EXISTS default_example').catch(() => undefined);
      await rm(devDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('guard: the credentials Secret is written once: polls, a spec change and a label change leave it (and its password) untouched; the password logs in', async () => {
    const t = await operator();
    const ns = t.namespace;
    await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'keep', 'utf8mb4'));
    await t.waitForResource(MySQLSchema, 'keep', (s) => s.status?.ready === true, WAIT);
    const first = await t.waitForResource(ResourceTypes.Secret, 'keep-mysql-credentials');
    await t.adminClient.mergePatch(MySQLSchema, new ResourceID('keep', ns), { spec: { encoding: 'latin1' } });
    await t.waitForResource(
      MySQLSchema,
      'keep',
      (s) => s.status?.observedGeneration === 2 && !!s.status.ready,
      WAIT,
    );
    await t.adminClient.mergePatch(MySQLSchema, new ResourceID('keep', ns), {
      metadata: { labels: { touched: 'yes' } },
    });
    // several poll periods: the schema's encoding is read back by the poll meanwhile
    const keep = schemaName(mysqlSchema(ns, 'keep', 'utf8mb4'));
    await waitFor(async () => (await suite.db.schemas(keep))[0]?.encoding === 'latin1', WAIT);
    await suite.db.root(`DROP DATABASE \`${keep}\``);
    await waitFor(async () => (await suite.db.schemas(keep)).length === 1, WAIT);
    const later = await t.adminClient.get(ResourceTypes.Secret, new ResourceID('keep-mysql-credentials', ns));
    expect(later?.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
    expect(later?.data).toEqual(first.data);
    await credentialsWork(t, 'keep-mysql-credentials');
  }, 120_000);

  it('guard: long names stay within 64 (schema) and 32 (user) characters, two long names sharing a prefix get distinct working accounts, and deletion leaves nothing', async () => {
    const t = await operator();
    const ns = t.namespace;
    const base = 'a-very-long-application-name-that-goes-past-mysql-limits';
    const names = [`${base}-one`, `${base}-two`];
    for (const name of names) await t.adminClient.create(MySQLSchema, mysqlSchema(ns, name, 'utf8mb4'));
    const statuses = [];
    for (const name of names) {
      const s = await t.waitForResource(MySQLSchema, name, (r) => r.status?.ready === true, WAIT);
      statuses.push(s.status!);
      expect(s.status!.schemaName!.length).toBeLessThanOrEqual(64);
      expect(s.status!.userName!.length).toBeLessThanOrEqual(32);
      await credentialsWork(t, `${name}-mysql-credentials`);
    }
    expect(statuses[0].schemaName).not.toBe(statuses[1].schemaName);
    expect(statuses[0].userName).not.toBe(statuses[1].userName);
    for (const name of names) await t.adminClient.delete(MySQLSchema, new ResourceID(name, ns));
    for (const name of names) await t.waitForDeletion(MySQLSchema, name, WAIT);
    for (const s of statuses) {
      expect(await suite.db.schemas(s.schemaName!)).toEqual([]);
      expect(await suite.db.users(s.userName!)).toEqual([]);
    }
  }, 120_000);

  it('guard: the database down when a MySQLSchema is created gives an error status naming the connection, and it converges when the server is back', async () => {
    const t = await operator();
    const ns = t.namespace;
    await suite.db.stop();
    try {
      await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'late', 'utf8mb4'));
      const failing = await t.waitForResource(MySQLSchema, 'late', (s) => !!s.status?.errorMessage, WAIT);
      expect(failing.status?.ready).toBe(false);
      expect(failing.status?.errorMessage).toContain(`mysql://`);
      expect(failing.status?.errorMessage).toContain(`:${suite.db.port}`);
    } finally {
      await suite.db.restart();
    }
    const ready = await t.waitForResource(MySQLSchema, 'late', (s) => s.status?.ready === true, WAIT);
    expect(ready.status?.errorMessage).toBeUndefined();
    await credentialsWork(t, 'late-mysql-credentials');
  }, 120_000);
});
