import { describe, expect, it } from '@jest/globals';
import { AggregatedOperatorError, ReconcileError, ResourceID } from '@tosdk/core';
import {
  InvalidMySQLSettingError,
  MySQLConnectionError,
  MySQLNotConfiguredError,
} from '../database/mysql-errors.js';
import { mysqlSettingsFromEnvironment } from '../database/mysql-settings.js';
import { MAX_SCHEMA_NAME, MAX_USER_NAME, schemaName, secretName, userName } from '../mysql-schema-names.js';
import type { MySQLSchema } from '../mysql-schema.resource.js';
import { errorStatus } from '../mysql-schema-status.js';
import { encodingOf, sameEncoding, UnsupportedEncodingError } from '../mysql-schema-validation.js';

const schema = (namespace: string, name: string, encoding = 'utf8mb4'): MySQLSchema => ({
  apiVersion: 'mysql.sample.tosdk.io/v1',
  kind: 'MySQLSchema',
  metadata: { name, namespace, generation: 3 },
  spec: { encoding },
});

describe('MySQLSchema names', () => {
  it('are <namespace>_<name> when both are letters and digits only', () => {
    const s = schema('default', 'orders');
    expect(schemaName(s)).toBe('default_orders');
    expect(userName(s)).toBe('default_orders');
    expect(secretName(s)).toBe('orders-mysql-credentials');
  });

  it('[S8-SA1] with characters MySQL names cannot hold replaced, carry a hash: names that map alike stay apart', () => {
    const s = schema('team-a', 'orders.v2');
    expect(schemaName(s)).toMatch(/^team_a_orders_v2_[0-9a-f]{8}$/);
    expect(userName(s)).toBe(schemaName(s));
    expect(secretName(s)).toBe('orders.v2-mysql-credentials');
    const pairs = [
      [schema('ns', 'x.y'), schema('ns', 'x-y')],
      [schema('a', 'b-c'), schema('a-b', 'c')],
      [schema('a', 'b_c'), schema('a', 'b-c')],
    ];
    for (const [one, two] of pairs) {
      expect(schemaName(one)).not.toBe(schemaName(two));
      expect(userName(one)).not.toBe(userName(two));
    }
  });

  it('past the limits are shortened with a hash, so two long names with one prefix stay apart', () => {
    const ns = 'a-very-long-namespace-name-for-a-team';
    const a = schema(ns, 'the-first-application-with-a-long-name');
    const b = schema(ns, 'the-first-application-with-a-long-name-2');
    expect(userName(a).length).toBeLessThanOrEqual(MAX_USER_NAME);
    expect(schemaName(b).length).toBeLessThanOrEqual(MAX_SCHEMA_NAME);
    expect(userName(a)).not.toBe(userName(b));
    expect(schemaName(a)).not.toBe(schemaName(b));
    expect(userName(a)).toMatch(/^a_very_long_namespace_[A-Za-z0-9_]*_[0-9a-f]{8}$/);
  });

  it('of schemas fit 64 characters as a GRANT spells them (each `_` escaped), so the user can be granted its schema alone', () => {
    const granted = (name: string) => name.replace(/_/g, '\\_').length;
    const long = schema('a-very-long-namespace-name-for-a-team', 'the-first-application-with-a-long-name');
    expect(granted(schemaName(long))).toBeLessThanOrEqual(MAX_SCHEMA_NAME);
    expect(schemaName(long)).toMatch(/^a_very_long_namespace_[A-Za-z0-9_]*_[0-9a-f]{8}$/);
    // an exact name of 63 characters (one `_`) stays as it is; one of 64 would not fit a GRANT
    expect(schemaName(schema('n', 'x'.repeat(61)))).toBe(`n_${'x'.repeat(61)}`);
    const tight = schemaName(schema('n', 'x'.repeat(62)));
    expect(tight).toMatch(/_[0-9a-f]{8}$/);
    expect(granted(tight)).toBeLessThanOrEqual(MAX_SCHEMA_NAME);
  });
});

describe('MySQLSchema encodings', () => {
  it('accepts a character set name and refuses empty or malformed ones with a typed error naming the field', () => {
    expect(encodingOf(schema('ns', 'a', 'latin1'))).toBe('latin1');
    for (const bad of ['', 'utf-8', 'utf8; DROP DATABASE x']) {
      let error: unknown;
      try {
        encodingOf(schema('ns', 'a', bad));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UnsupportedEncodingError);
      expect(error).toMatchObject({ code: 'UnsupportedEncoding' });
      expect((error as Error).message).toContain('spec.encoding');
    }
  });

  it('treats utf8 and utf8mb3 (MariaDB reports the first as the second) and case differences as one set', () => {
    expect(sameEncoding('utf8', 'utf8mb3')).toBe(true);
    expect(sameEncoding('UTF8MB4', 'utf8mb4')).toBe(true);
    expect(sameEncoding('utf8', 'utf8mb4')).toBe(false);
    expect(sameEncoding('latin1', 'latin2')).toBe(false);
  });
});

describe('MYSQL_* settings', () => {
  it('without MYSQL_HOST say what to set', () => {
    expect(() => mysqlSettingsFromEnvironment({})).toThrow(MySQLNotConfiguredError);
    expect(() => mysqlSettingsFromEnvironment({})).toThrow(/set MYSQL_HOST/);
  });

  it('fill defaults and name a variable with a bad value', () => {
    expect(mysqlSettingsFromEnvironment({ MYSQL_HOST: 'db' })).toEqual({
      host: 'db',
      port: 3306,
      user: 'root',
      password: '',
      poolSize: 5,
      connectTimeoutMs: 5_000,
      userHost: '%',
    });
    expect(() => mysqlSettingsFromEnvironment({ MYSQL_HOST: 'db', MYSQL_PORT: '70000' })).toThrow(
      InvalidMySQLSettingError,
    );
    expect(() => mysqlSettingsFromEnvironment({ MYSQL_HOST: 'db', MYSQL_POOL_SIZE: 'many' })).toThrow(
      /^MYSQL_POOL_SIZE: /,
    );
  });
});

describe('MySQLSchema error status', () => {
  const wrapped = (cause: unknown) =>
    new ReconcileError('reconcile failed', 'mysqlschema', new ResourceID('a', 'ns'), {
      cause: new AggregatedOperatorError('dependents failed', new Map([['schema', cause]])),
    });

  it('an unsupported encoding, however wrapped, is reported and not retried', () => {
    const control = errorStatus(
      schema('ns', 'a'),
      wrapped(new UnsupportedEncodingError('klingon8', 'unknown')),
    );
    expect(control.noRetry).toBe(true);
    expect(control.resource?.status).toEqual({
      observedGeneration: 3,
      ready: false,
      errorMessage: expect.stringContaining('spec.encoding "klingon8" is not supported'),
    });
  });

  it('a connection failure is reported with the connection and retried; names of the last success are kept', () => {
    const s = {
      ...schema('ns', 'a'),
      status: { schemaName: 'ns_a', secretName: 'a-mysql-credentials', ready: true },
    };
    const error = new MySQLConnectionError('mysql://op@db:3306', 'ECONNREFUSED', 'connect ECONNREFUSED', {
      cause: new Error('x'),
    });
    const control = errorStatus(s, wrapped(error));
    expect(control.noRetry).toBe(false);
    expect(control.resource?.status).toEqual({
      schemaName: 'ns_a',
      secretName: 'a-mysql-credentials',
      observedGeneration: 3,
      ready: false,
      errorMessage: error.message,
    });
    expect(error.message).toContain('mysql://op@db:3306');
  });
});
