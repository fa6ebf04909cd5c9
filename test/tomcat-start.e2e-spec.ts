// `npm start` of the Tomcat sample: the built main in a child process with no cluster configured
// runs an embedded API server (workloads simulated) with both CRDs and the examples, deploys the
// example Webapps into the example Tomcat's pods, serves /metrics for both controllers, and stops
// on SIGTERM with exit code 0.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { KubernetesClient, ResourceID } from '@tosdk/core';
import { waitFor } from '@tosdk/nestjs/testing';
import { Webapp } from '../apps/tomcat/src/tomcat.resource.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(ROOT, 'apps/tomcat/dist/main.js');
const READY = 'tomcat operator: ready';

describe('npm start: the Tomcat sample in a child process', () => {
  let dir: string;

  beforeAll(async () => {
    // what `npm start -w @tosdk/sample-tomcat` does first (incremental: quick when built)
    const build = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'apps/tomcat/tsconfig.build.json'],
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
    dir = await mkdtemp(join(tmpdir(), 'tomcat-start-'));
  }, 250_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('with no cluster runs the embedded API server, deploys the example Webapps, and stops on SIGTERM with exit code 0', async () => {
    const env = { ...process.env };
    for (const name of Object.keys(env))
      if (name === 'KUBECONFIG' || /^(KUBERNETES_|TOMCAT_|TOSDK_)/.test(name)) delete env[name];
    const devDir = join(dir, 'dev');
    const child = spawn(process.execPath, [MAIN], {
      cwd: dir,
      env: { ...env, TOMCAT_HTTP_PORT: '0', TOMCAT_DEV_DIR: devDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output.stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    let client: KubernetesClient | undefined;
    try {
      await waitFor(() => output.stdout.includes(READY) || child.exitCode !== null, { timeoutMs: 30_000 });
      expect(output.stdout).toContain(READY);
      expect(output.stdout).toContain(
        `kubectl --kubeconfig ${join(devDir, 'kubeconfig')} get tomcats,webapps,configmaps,deployments,pods`,
      );
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(join(devDir, 'kubeconfig'));
      client = KubernetesClient.fromKubeConfig(kubeConfig);
      for (const name of ['sample-app', 'root-app']) {
        const app = await waitFor(
          async () => {
            const w = await client!.get(Webapp, new ResourceID(name, 'default'));
            return w?.status?.ready === true ? w : undefined;
          },
          { timeoutMs: 30_000, description: `${name} ready` },
        );
        expect(app.status?.deployedOn).toHaveLength(2);
      }
      const health = /metrics: +(http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(output.stdout)![1];
      const metrics = await (await fetch(`${health}/metrics`)).text();
      expect(metrics).toMatch(/tosdk_reconciliations_succeeded_total\{controller="tomcat"[^}]*\} [1-9]/);
      expect(metrics).toMatch(/tosdk_reconciliations_succeeded_total\{controller="webapp"[^}]*\} [1-9]/);
    } finally {
      client?.close();
      child.kill('SIGTERM');
    }
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(output.stdout).toContain('tomcat operator: stopped');
  }, 90_000);
});
