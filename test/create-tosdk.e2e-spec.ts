// `npm create tosdk` end to end, from the local tarballs: packs every published library (they must be
// built: CI runs `npm run build` first), lays out a project with the packed create-tosdk, installs it
// (registry for everything else, a shared npm cache), and runs what its README says: `npm test`,
// `npm run generate` then `npm run ci` (type-check, `tosdk generate all --check`, tests), and a short
// `npm start` against the embedded API server (readiness 200, the example resource reconciled).
// Then the `reconciler` schematic adds a second reconciler and kind, and the project's checks run again.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { defineResource, KubernetesClient, ResourceID } from '@tosdk/core';
import type { CustomResource } from '@tosdk/core';
import { waitFor } from '@tosdk/nestjs/testing';
import {
  applySchematic,
  CACHE,
  childEnv,
  createFromTarballs,
  installProject,
  ok,
  run,
} from './create-tosdk-support.js';

function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePromise(address.port) : reject(new Error('no port')),
      );
    });
  });
}

type Greeting = CustomResource<{ message: string }, { configMap?: string }>;
const Greeting = defineResource<Greeting>({ group: 'example.com', version: 'v1', kind: 'Greeting' });

describe('npm create tosdk (from the local tarballs)', () => {
  let work: string;
  let project: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'tosdk-create-'));
    await mkdir(CACHE, { recursive: true });
  });
  afterAll(async () => {
    if (work && !process.env['TOSDK_KEEP_CREATE']) await rm(work, { recursive: true, force: true });
  });

  it('lays out a project that installs, passes its own tests and generates its deploy files', async () => {
    // what `npm create tosdk my-operator` runs, from the tarball
    const created = await createFromTarballs(work, 'my-operator');
    expect(created.output).toContain('npm install');
    project = created.project;
    await installProject(project);
    await ok('npm', ['run', 'generate'], project);
    for (const f of ['deploy/crds.yaml', 'deploy/rbac.yaml', 'deploy/operator.yaml', 'chart/Chart.yaml']) {
      expect([f, existsSync(join(project, f))]).toEqual([f, true]);
    }
    // the project's CI script: type-check, tosdk generate all --check, its own tests (npm test)
    const ci = await ok('npm', ['run', 'ci'], project);
    expect(ci).toContain('files up to date');
    expect(ci).toMatch(/Tests:?\s+2 passed/);
  }, 600_000);

  it('starts with `npm start` against the embedded API server: readiness 200 and the example reconciled', async () => {
    expect(project).toBeDefined();
    const port = await freePort();
    const child: ChildProcess = spawn('npm', ['start'], {
      cwd: project,
      env: childEnv({ PORT: String(port), HOST: '127.0.0.1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    try {
      await waitFor(
        async () =>
          (await fetch(`http://127.0.0.1:${port}/health/readiness`).catch(() => undefined))?.status === 200,
        { timeoutMs: 90_000, intervalMs: 250 },
      ).catch((e: unknown) => {
        throw new Error(`npm start did not become ready: ${String(e)}\n${output.slice(-3000)}`);
      });
      const kc = new KubeConfig();
      kc.loadFromString(await readFile(join(project, '.tosdk/kubeconfig'), 'utf8'));
      const client = KubernetesClient.fromKubeConfig(kc);
      try {
        await waitFor(
          async () =>
            (await client.get(Greeting, new ResourceID('example', 'default')))?.status?.configMap ===
            'example',
          {
            timeoutMs: 30_000,
          },
        );
      } finally {
        client.close();
      }
    } finally {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
      await new Promise<void>((r) => (child.exitCode !== null ? r() : child.once('exit', () => r())));
    }
  }, 180_000);

  it('`nest g reconciler` (the @tosdk/cli schematic) adds a reconciler and its kind; the project still passes its checks', async () => {
    expect(project).toBeDefined();
    const changed = await applySchematic(project, 'reconciler', { name: 'Backup' });
    expect(changed.sort()).toEqual(
      [
        'src/backup-config-map.dependent.ts',
        'src/backup.reconciler.ts',
        'src/backup.resource.ts',
        'src/kinds.ts',
        'src/reconcilers.ts',
        'test/backup.e2e-spec.ts',
      ].sort(),
    );
    // the new kind changes the generated files: --check catches it until they are generated again
    const drift = await run('npm', ['run', 'generate:check'], project, 240_000);
    expect(drift.code).not.toBe(0);
    expect(drift.output).toContain('deploy/crds.yaml');
    await ok('npm', ['run', 'generate'], project);
    expect(await readFile(join(project, 'deploy/rbac.yaml'), 'utf8')).toContain('backups');
    const ci = await ok('npm', ['run', 'ci'], project);
    expect(ci).toMatch(/Tests:?\s+4 passed/);
  }, 600_000);
});
