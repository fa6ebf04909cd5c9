// The set-up of a spec that runs the MySQLSchema operator against @tosdk/apiserver and a private
// MariaDB: test code, not shipped.
import 'reflect-metadata';
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { noopLogger } from '@tosdk/core';
import { createOperatorTestingModule, OperatorTestEnvironment } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { MySQLSchemaAppModule } from '../../app.module.js';
import { MYSQL_SCHEMA_CRD_PATH } from '../../mysql-schema.resource.js';
import { quietLogs, TEST_POLL_MS, TEST_RETRY } from './e2e-support.js';
import { PrivateMariaDB } from './private-mariadb.js';

/** What {@link mysqlSchemaOperatorPerTest} gives a spec. */
export interface MySQLSchemaSuite {
  /** The file's MariaDB (started before its first test). */
  readonly db: PrivateMariaDB;
  /** A MySQLSchema operator in a testing module of its own namespace, closed after the test. */
  operator(): Promise<OperatorTestingContext>;
}

/**
 * Registers the hooks of a spec file: one API server environment (with the MySQLSchema CRD) and one
 * private MariaDB for the file, an operator per test that asks for one (fast polls and retries,
 * quiet logs), closed after that test.
 */
export function mysqlSchemaOperatorPerTest(): MySQLSchemaSuite {
  let env: OperatorTestEnvironment | undefined;
  let db: PrivateMariaDB | undefined;
  let current: OperatorTestingContext | undefined;
  beforeAll(async () => {
    [env, db] = await Promise.all([
      OperatorTestEnvironment.start({ crds: [MYSQL_SCHEMA_CRD_PATH] }),
      PrivateMariaDB.start(),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([env?.stop(), db?.destroy()]);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the ${what} of this file is not started: use it inside a test`);
    return value;
  };
  return {
    get db() {
      return started(db, 'MariaDB');
    },
    async operator() {
      current = await createOperatorTestingModule({
        testEnvironment: started(env, 'API server environment'),
        imports: [
          MySQLSchemaAppModule.forRoot({
            mysql: started(db, 'MariaDB').settings(),
            pollPeriodMs: TEST_POLL_MS,
            logStream: quietLogs,
            defaultMetrics: false,
            operator: { logger: noopLogger, controllers: { mysqlschema: { retry: TEST_RETRY } } },
          }),
        ],
      });
      return current;
    },
  };
}
