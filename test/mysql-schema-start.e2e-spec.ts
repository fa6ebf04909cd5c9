// `npm start` of the mysql-schema sample: the built main in a child process. Without MYSQL_HOST it
// says what to set and exits non-zero; with a database (a private MariaDB) and no cluster it runs
// the embedded API server, creates the example's schema in the database and stops on SIGTERM.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@tosdk/nestjs/testing';
import { PrivateMariaDB } from '../apps/mysql-schema/src/__tests__/support/private-mariadb.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(ROOT, 'apps/mysql-schema/dist/main.js');
const READY = 'mysql-schema operator: ready';

/** A machine with no cluster and no database configured, plus `extra`. */
function environment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (name === 'KUBECONFIG' || /^(KUBERNETES_|MYSQL_|TOSDK_)/.test(name)) delete env[name];
  }
  return { ...env, MYSQL_SCHEMA_HTTP_PORT: '0', LOG_LEVEL: 'warn', ...extra };
}

function run(env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(process.execPath, [MAIN], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output, exited };
}

describe('npm start: the mysql-schema sample in a child process', () => {
  let dir: string;
  let db: PrivateMariaDB;

  beforeAll(async () => {
    // what `npm start -w @tosdk/sample-mysql-schema` does first (incremental: quick when built)
    const build = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'apps/mysql-schema/tsconfig.build.json'],
      { cwd: ROOT, encoding: 'utf8', timeout: 240_000 },
    );
    expect({ status: build.status, output: build.stdout + build.stderr }).toEqual({ status: 0, output: '' });
    // @tosdk/core's package entry: one file bundled from its tsc output (as `npm run build` does)
    const bundle = spawnSync(process.execPath, [join(ROOT, 'libs/core/scripts/bundle.mjs')], {
      encoding: 'utf8',
    });
    expect({ status: bundle.status, output: bundle.stdout + bundle.stderr }).toEqual({
      status: 0,
      output: '',
    });
    [dir, db] = await Promise.all([mkdtemp(join(tmpdir(), 'mysql-schema-start-')), PrivateMariaDB.start()]);
  }, 250_000);
  afterAll(async () => {
    await db?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('without MYSQL_HOST says which variables to set and exits with code 2', async () => {
    const r = run(environment({}), dir);
    expect(await r.exited).toEqual({ code: 2, signal: null });
    expect(r.output.stderr).toContain('no MariaDB/MySQL server configured: set MYSQL_HOST');
    expect(r.output.stdout).not.toContain(READY);
  }, 90_000);

  it('with a database and no cluster runs the embedded API server, creates the example schema and user, and stops on SIGTERM with exit code 0', async () => {
    const settings = db.settings();
    const r = run(
      environment({
        MYSQL_HOST: settings.host,
        MYSQL_PORT: String(settings.port),
        MYSQL_USER: settings.user,
        MYSQL_PASSWORD: settings.password,
        MYSQL_SCHEMA_DEV_DIR: join(dir, 'dev'),
      }),
      dir,
    );
    try {
      await waitFor(() => r.output.stdout.includes(READY) || r.child.exitCode !== null, {
        timeoutMs: 30_000,
      });
      expect(r.output.stdout).toContain(READY);
      expect(r.output.stdout).toContain(`database mysql://tosdk_operator@127.0.0.1:${settings.port}`);
      expect(r.output.stdout).toContain(
        `kubectl --kubeconfig ${join(dir, 'dev', 'kubeconfig')} get mysqlschemas,secrets`,
      );
      await waitFor(async () => (await db.users('default_example')).length === 1, { timeoutMs: 30_000 });
      expect(await db.schemas('default_example')).toEqual([{ name: 'default_example', encoding: 'utf8mb4' }]);
      const health = /health: +(http:\/\/127\.0\.0\.1:\d+)\//.exec(r.output.stdout)![1];
      await waitFor(async () => (await fetch(`${health}/health/readiness`)).status === 200, {
        timeoutMs: 15_000,
      });
      expect(await (await fetch(`${health}/metrics`)).text()).toMatch(
        /tosdk_reconciliations_succeeded_total\{controller="mysqlschema"[^}]*\} [1-9]/,
      );
    } finally {
      r.child.kill('SIGTERM');
    }
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect(r.output.stdout).toContain('mysql-schema operator: stopped');
  }, 90_000);
});
