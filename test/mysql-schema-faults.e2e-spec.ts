// The MySQLSchema sample when its database goes away (a private MariaDB stopped and started again on
// the same port and data): resources converge once it is back, without duplicate users or new
// passwords, and a resource deleted meanwhile keeps its finalizer until its schema and user are
// really dropped.
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1Secret } from '@kubernetes/client-node';
import { noopLogger, ResourceID, ResourceTypes } from '@tosdk/core';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { MySQLSchemaAppModule } from '../apps/mysql-schema/src/app.module.js';
import { schemaName, userName } from '../apps/mysql-schema/src/mysql-schema-names.js';
import { MySQLSchema, MYSQL_SCHEMA_CRD_PATH } from '../apps/mysql-schema/src/mysql-schema.resource.js';
import {
  mysqlSchema,
  quietLogs,
  ReconcileRecorder,
  TEST_POLL_MS,
  TEST_RETRY,
} from '../apps/mysql-schema/src/__tests__/support/e2e-support.js';
import { PrivateMariaDB } from '../apps/mysql-schema/src/__tests__/support/private-mariadb.js';

let env: OperatorTestEnvironment;
let db: PrivateMariaDB;
beforeAll(async () => {
  [env, db] = await Promise.all([
    OperatorTestEnvironment.start({ crds: [MYSQL_SCHEMA_CRD_PATH] }),
    PrivateMariaDB.start(),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([env?.stop(), db?.destroy()]);
});

let t: OperatorTestingContext | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function operator(): Promise<OperatorTestingContext> {
  t = await createOperatorTestingModule({
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
    providers: [ReconcileRecorder],
  });
  return t;
}

const decode = (secret: V1Secret, key: string) => Buffer.from(secret.data![key], 'base64').toString('utf8');
const WAIT = { timeoutMs: 40_000 };
const prefixOf = (ns: string) => `${ns}_`.replace(/[^A-Za-z0-9_]/g, '_');
// the test namespace has a dash: the names are mapped and carry a hash
const schemaOf = (ns: string, name: string) => schemaName(mysqlSchema(ns, name, 'utf8mb4'));
const userOf = (ns: string, name: string) => userName(mysqlSchema(ns, name, 'utf8mb4'));

describe('MySQLSchema operator when the database goes down', () => {
  it('[EP-10] converges once the database is back: the resource created meanwhile gets its schema and user, no user twice, no password regenerated', async () => {
    const t = await operator();
    const ns = t.namespace;
    const prefix = prefixOf(ns);
    await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'alpha', 'utf8mb4'));
    await t.waitForResource(MySQLSchema, 'alpha', (s) => s.status?.ready === true, WAIT);
    const alphaSecret = await t.waitForResource(ResourceTypes.Secret, 'alpha-mysql-credentials');

    await db.stop();
    try {
      await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'beta', 'utf8mb4'));
      const failing = await t.waitForResource(MySQLSchema, 'beta', (s) => !!s.status?.errorMessage, WAIT);
      expect(failing.status?.errorMessage).toContain(`mysql://tosdk_operator@127.0.0.1:${db.port}`);
      expect(failing.status?.ready).toBe(false);
      // retried while down (with backoff), not given up
      const recorder = t.module.get(ReconcileRecorder);
      await waitFor(() => recorder.retriesOf(`${ns}/beta`).length >= 2, { ...WAIT, description: 'retries' });
    } finally {
      await db.restart();
    }

    const beta = await t.waitForResource(MySQLSchema, 'beta', (s) => s.status?.ready === true, WAIT);
    expect(beta.status?.errorMessage).toBeUndefined();
    const alpha = await t.adminClient.get(MySQLSchema, new ResourceID('alpha', ns));
    expect(alpha?.status?.ready).toBe(true);
    expect(await db.users(prefix)).toEqual([`${userOf(ns, 'alpha')}@%`, `${userOf(ns, 'beta')}@%`]);
    expect((await db.schemas(prefix)).map((s) => s.name)).toEqual([
      schemaOf(ns, 'alpha'),
      schemaOf(ns, 'beta'),
    ]);
    const alphaAfter = await t.adminClient.get(
      ResourceTypes.Secret,
      new ResourceID('alpha-mysql-credentials', ns),
    );
    expect(alphaAfter?.data).toEqual(alphaSecret.data);
    await db.useAs(userOf(ns, 'alpha'), decode(alphaSecret, 'password'), schemaOf(ns, 'alpha'));
    const betaSecret = await t.waitForResource(ResourceTypes.Secret, 'beta-mysql-credentials');
    await db.useAs(userOf(ns, 'beta'), decode(betaSecret, 'password'), schemaOf(ns, 'beta'));
  }, 180_000);

  it('[EP-04] a resource deleted while the database is down keeps its finalizer, cleanup is retried, and once the database is back schema and user are dropped and the resource goes', async () => {
    const t = await operator();
    const ns = t.namespace;
    const prefix = prefixOf(ns);
    const recorder = t.module.get(ReconcileRecorder);
    await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'gamma', 'utf8mb4'));
    await t.waitForResource(MySQLSchema, 'gamma', (s) => s.status?.ready === true, WAIT);
    expect(await db.users(prefix)).toEqual([`${userOf(ns, 'gamma')}@%`]);

    await db.stop();
    try {
      await t.adminClient.delete(MySQLSchema, new ResourceID('gamma', ns));
      const retriesBefore = recorder.retriesOf(`${ns}/gamma`).length;
      await waitFor(() => recorder.retriesOf(`${ns}/gamma`).length >= retriesBefore + 3, {
        ...WAIT,
        description: 'cleanup retried three times',
      });
      const held = await t.adminClient.get(MySQLSchema, new ResourceID('gamma', ns));
      expect(held?.metadata?.deletionTimestamp).toBeDefined();
      expect(held?.metadata?.finalizers?.length).toBe(1);
    } finally {
      await db.restart();
    }

    await t.waitForDeletion(MySQLSchema, 'gamma', WAIT);
    expect(await db.schemas(prefix)).toEqual([]);
    expect(await db.users(prefix)).toEqual([]);
    await t.waitForDeletion(ResourceTypes.Secret, 'gamma-mysql-credentials', WAIT);
  }, 180_000);
});
