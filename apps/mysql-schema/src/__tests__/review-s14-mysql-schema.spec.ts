// S14 review of the MySQLSchema sample: what a user who copies it hits when following its README.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import { OperatorTestEnvironment } from '@tosdk/nestjs/testing';
import { MySQLDatabase } from '../database/mysql-database.js';
import { describeConnection, mysqlSettingsFromEnvironment } from '../database/mysql-settings.js';
import { SecretDependent } from '../dependents/secret.dependent.js';
import { MySQLSchema, MYSQL_SCHEMA_CRD_PATH } from '../mysql-schema.resource.js';
import { mysqlSchema } from './support/e2e-support.js';
import { mysqlSchemaOperatorPerTest } from './support/operator-per-test.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Runs a shell script (as a user pastes it) with `kubectl` pointed at the test server. */
function sh(script: string, kubeconfig: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-e', '-c', script], {
      cwd: REPO_ROOT,
      env: { ...process.env, KUBECONFIG: kubeconfig },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('S14 review: MySQLSchema sample README', () => {
  let env: OperatorTestEnvironment;
  let dir: string;
  let kubeconfig: string;
  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({ crds: [MYSQL_SCHEMA_CRD_PATH] });
    dir = await mkdtemp(join(tmpdir(), 'mysql-schema-readme-'));
    kubeconfig = join(dir, 'admin.kubeconfig');
    await env.server!.writeKubeconfig(kubeconfig);
  }, 60_000);
  afterAll(async () => {
    await env?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('[FINDING S14-AP2] the commands under "Against a cluster" work as written on a new cluster: the database Secret is created and the operator Deployment reads it', async () => {
    const readme = await readFile(README, 'utf8');
    const section = readme.slice(readme.indexOf('Against a cluster'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBeDefined();
    const run = await sh(block!, kubeconfig);
    expect(run.output).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    const secret = await env.adminClient.get(
      ResourceTypes.Secret,
      new ResourceID('mysql-schema-operator-db', 'mysql-schema-system'),
    );
    expect(Object.keys(secret?.data ?? {}).sort()).toEqual([
      'MYSQL_HOST',
      'MYSQL_PASSWORD',
      'MYSQL_PORT',
      'MYSQL_USER',
    ]);
    const deployment = await env.adminClient.get(
      ResourceTypes.Deployment,
      new ResourceID('mysql-schema-operator', 'mysql-schema-system'),
    );
    expect(deployment?.spec?.template.spec?.containers[0].envFrom?.[0].secretRef?.name).toBe(
      'mysql-schema-operator-db',
    );
  }, 90_000);
});

describe('S14 review: MySQLSchema sample, a Secret of the credentials name that the operator did not make', () => {
  const suite = mysqlSchemaOperatorPerTest();

  it('[FINDING S14-AP5] the status names the Secret that is in the way and what to do, not "is not there yet"', async () => {
    const t = await suite.operator();
    const ns = t.namespace;
    await t.adminClient.create(ResourceTypes.Secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'shop-mysql-credentials', namespace: ns },
      stringData: { token: 'mine' },
    });
    await t.adminClient.create(MySQLSchema, mysqlSchema(ns, 'shop', 'utf8mb4'));
    const reported = await t.waitForResource(MySQLSchema, 'shop', (s) => !!s.status?.errorMessage, {
      timeoutMs: 30_000,
    });
    expect(reported.status?.ready).toBe(false);
    expect(reported.status?.errorMessage).toContain('shop-mysql-credentials');
    expect(reported.status?.errorMessage).not.toContain('not there yet');
    expect(reported.status?.errorMessage).toMatch(/rename|delete/);
    // the user's Secret is left as it was
    const mine = await t.adminClient.get(ResourceTypes.Secret, new ResourceID('shop-mysql-credentials', ns));
    expect(Object.keys(mine?.data ?? {})).toEqual(['token']);
  }, 90_000);
});

describe('S14 review: MySQLSchema sample, a server at an IPv6 address', () => {
  it("[FINDING S14-AP8] the Secret's address and the messages write an IPv6 host in brackets ([fd00::5]:3306), so an application can split host and port", async () => {
    const settings = { ...mysqlSettingsFromEnvironment({ MYSQL_HOST: 'fd00::5' }), connectTimeoutMs: 1 };
    const db = new MySQLDatabase(settings);
    try {
      class Probe extends SecretDependent {
        secretOf(resource: MySQLSchema) {
          return this.desired(resource);
        }
      }
      const secret = new Probe(db).secretOf({ ...mysqlSchema('team', 'shop', 'utf8mb4') });
      expect(Buffer.from(secret.data!['address'], 'base64').toString('utf8')).toBe('[fd00::5]:3306');
      expect(describeConnection(settings)).toBe('mysql://root@[fd00::5]:3306');
      // names and IPv4 addresses as they were
      expect(describeConnection({ ...settings, host: 'db.example' })).toBe('mysql://root@db.example:3306');
    } finally {
      await db.close();
    }
  });
});
