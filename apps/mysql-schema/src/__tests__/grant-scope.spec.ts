// The user a MySQLSchema gets may use its own schema and no other: in a GRANT's database name `_`
// and `%` are wildcards (MariaDB and MySQL), and every schema name the operator makes has a `_`.
import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { V1Secret } from '@kubernetes/client-node';
import { ResourceTypes } from '@tosdk/core';
import { waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { MySQLSchema } from '../mysql-schema.resource.js';
import { mysqlSchema } from './support/e2e-support.js';
import { mysqlSchemaOperatorPerTest } from './support/operator-per-test.js';

const suite = mysqlSchemaOperatorPerTest();
const operator = () => suite.operator();

const WAIT = { timeoutMs: 30_000 };
const decode = (secret: V1Secret, key: string) => Buffer.from(secret.data![key], 'base64').toString('utf8');

/** A schema the `_` wildcards of `schema` match: each `_` as `x`; made by root, with a table. */
async function lookalike(schema: string): Promise<string> {
  const other = schema.replaceAll('_', 'x');
  expect(other).not.toBe(schema);
  await suite.db.root(`CREATE DATABASE \`${other}\``);
  return other;
}

async function ready(t: OperatorTestingContext, name: string) {
  await t.adminClient.create(MySQLSchema, mysqlSchema(t.namespace, name, 'utf8mb4'));
  const schema = await t.waitForResource(MySQLSchema, name, (s) => s.status?.ready === true, WAIT);
  const secret = await t.waitForResource(ResourceTypes.Secret, `${name}-mysql-credentials`, undefined, WAIT);
  const user = decode(secret, 'username');
  const password = decode(secret, 'password');
  return { schema: schema.status!.schemaName!, user, password };
}

describe('MySQLSchema: the privileges of its user', () => {
  it('cover its own schema only, not another whose name its `_` would match', async () => {
    const t = await operator();
    const { schema, user, password } = await ready(t, 'grants');
    const other = await lookalike(schema);
    await suite.db.useAs(user, password, schema);
    await expect(suite.db.useAs(user, password, other)).rejects.toThrow(/denied/i);
  }, 120_000);

  it('a user an earlier version granted the pattern is narrowed to its schema on the next reconciliation', async () => {
    const t = await operator();
    const { schema, user, password } = await ready(t, 'narrowed');
    const other = await lookalike(schema);
    const host = suite.db.settings().userHost ?? '%';
    // what versions before the fix granted: the schema's name as a pattern
    await suite.db.root(`REVOKE ALL PRIVILEGES, GRANT OPTION FROM ?@?`, [user, host]);
    await suite.db.root(`GRANT ALL PRIVILEGES ON \`${schema}\`.* TO ?@?`, [user, host]);
    await suite.db.useAs(user, password, other); // the pattern reaches the lookalike
    // the user dependent is polled: the next reconciliation narrows the grant
    await waitFor(
      async () => {
        try {
          await suite.db.useAs(user, password, other);
          return false;
        } catch {
          return true;
        }
      },
      { description: 'the lookalike schema refused', ...WAIT },
    );
    await suite.db.useAs(user, password, schema);
    const mine = await t.waitForResource(MySQLSchema, 'narrowed', (s) => s.status?.ready === true, WAIT);
    expect(mine.status?.ready).toBe(true);
  }, 120_000);
});
