// `npm start` end to end: the built sample's main in a child process, in dev mode (no cluster
// configured: embedded API server, kubeconfig, CRD, example page) and against a configured cluster
// (KUBECONFIG), and its clean stop on SIGTERM and SIGINT (exit code 0, ports closed).
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeApiServer } from '@tosdk/apiserver';
import { KubernetesClient, ResourceID, ResourceTypes } from '@tosdk/core';
import { applyCrds, loadCrds, waitFor } from '@tosdk/nestjs/testing';
import { WebPage, WEBPAGE_CRD_PATH } from '../apps/webpage/src/webpage.resource.js';
import { webPage } from '../apps/webpage/src/__tests__/support/e2e-support.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(ROOT, 'apps/webpage/dist/main.js');
const START = join(ROOT, 'scripts/start.mjs');
const KUBECTL = process.env['KUBECTL'] ?? '/usr/bin/kubectl';
const READY = 'webpage operator: ready';

interface Running {
  child: ChildProcessWithoutNullStreams;
  output: { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment of a machine with no cluster configured (whatever the test runner has). */
function cleanEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      name === 'KUBECONFIG' ||
      name.startsWith('KUBERNETES_') ||
      name.startsWith('WEBPAGE_') ||
      name.startsWith('TOSDK_')
    )
      delete env[name];
  }
  return { ...env, WEBPAGE_HTTP_PORT: '0', LOG_LEVEL: 'warn', ...extra };
}

function run(script: string, env: NodeJS.ProcessEnv, cwd: string): Running {
  const child = spawn(process.execPath, [script], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output, exited };
}

/** Resolves with the exit, or fails after `ms` (the child is then killed). */
async function exitWithin(r: Running, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      r.child.kill('SIGKILL');
      reject(new Error(`no exit within ${ms} ms; stdout:\n${r.output.stdout}\nstderr:\n${r.output.stderr}`));
    }, ms);
  });
  try {
    return await Promise.race([r.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function portOpen(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const line = (stdout: string, pattern: RegExp) => pattern.exec(stdout)?.[1];

describe('npm start: the WebPage sample in a child process', () => {
  let dir: string;
  const children: Running[] = [];

  beforeAll(async () => {
    // what `npm start` does first (incremental: quick when nothing changed)
    const build = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'apps/webpage/tsconfig.build.json'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 240_000,
      },
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
    dir = await mkdtemp(join(tmpdir(), 'webpage-start-'));
  }, 250_000);
  afterEach(() => {
    for (const c of children.splice(0))
      if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('with no cluster configured runs an embedded API server with the CRD and an example page, prints where things are, and stops on SIGTERM with exit code 0', async () => {
    const devDir = join(dir, 'dev');
    const r = run(MAIN, cleanEnvironment({ WEBPAGE_DEV_DIR: devDir }), dir);
    children.push(r);
    await waitFor(() => r.output.stdout.includes(READY) || r.child.exitCode !== null, { timeoutMs: 30_000 });
    expect(r.output.stdout).toContain(READY);

    const stdout = r.output.stdout;
    expect(stdout).toContain('(managed flavour)');
    const apiServer = line(stdout, /embedded API server (https:\/\/127\.0\.0\.1:\d+)/)!;
    const health = line(stdout, /health: +(http:\/\/127\.0\.0\.1:\d+)\/health\/liveness/)!;
    expect(line(stdout, /metrics: +(\S+)/)).toBe(`${health}/metrics`);
    const kubeconfig = join(devDir, 'kubeconfig');
    expect(stdout).toContain(`kubectl --kubeconfig ${kubeconfig} get webpages,configmaps,deployments`);

    expect((await fetch(`${health}/health/liveness`)).status).toBe(200);
    await waitFor(async () => (await fetch(`${health}/health/readiness`)).status === 200);
    const metrics = await fetch(`${health}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('tosdk_reconciliations_started_total');

    // the printed kubectl line shows the example page and what the operator made for it
    const kubectl = () =>
      spawnSync(
        KUBECTL,
        ['--kubeconfig', kubeconfig, 'get', 'webpages,configmaps,deployments', '-o', 'name'],
        {
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
    const listed = await waitFor(
      async () => {
        const out = kubectl();
        return /configmap\/hello-html/.test(out.stdout) && /deployment\.apps\/hello/.test(out.stdout)
          ? out
          : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(listed.stdout).toContain('webpage.sample.tosdk.io/hello');
    const ready = spawnSync(
      KUBECTL,
      ['--kubeconfig', kubeconfig, 'get', 'webpage', 'hello', '-o', 'jsonpath={.status.ready}'],
      {
        encoding: 'utf8',
      },
    );
    expect(ready.stdout === 'true' || ready.stdout === 'false').toBe(true);

    r.child.kill('SIGTERM');
    expect(await exitWithin(r, 25_000)).toEqual({ code: 0, signal: null });
    expect(r.output.stdout).toContain('webpage operator: stopped');
    expect(await portOpen(health)).toBe(false);
    expect(await portOpen(apiServer)).toBe(false);
    expect(r.output.stderr).toBe('');
  });

  it('npm start (scripts/start.mjs) builds, runs the sample and stops cleanly on SIGINT (Ctrl-C)', async () => {
    const r = run(
      START,
      cleanEnvironment({ WEBPAGE_DEV_DIR: join(dir, 'start'), WEBPAGE_FLAVOUR: 'lowlevel' }),
      dir,
    );
    children.push(r);
    await waitFor(() => r.output.stdout.includes(READY) || r.child.exitCode !== null, { timeoutMs: 60_000 });
    expect(r.output.stdout).toContain(READY);
    expect(r.output.stdout).toContain('(lowlevel flavour)');
    const health = line(r.output.stdout, /health: +(http:\/\/127\.0\.0\.1:\d+)\/health\/liveness/)!;
    expect((await fetch(`${health}/health/liveness`)).status).toBe(200);
    r.child.kill('SIGINT');
    expect(await exitWithin(r, 25_000)).toEqual({ code: 0, signal: null });
    expect(await portOpen(health)).toBe(false);
  }, 90_000);

  it('with KUBECONFIG set runs against that cluster: no embedded server, no example page', async () => {
    const server = await KubeApiServer.start({ simulateWorkloads: { readyDelayMs: 20 } });
    const admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
    try {
      await applyCrds(admin, await loadCrds([WEBPAGE_CRD_PATH]));
      const kubeconfig = join(dir, 'cluster.kubeconfig');
      await server.writeKubeconfig(kubeconfig);
      const r = run(
        MAIN,
        cleanEnvironment({ KUBECONFIG: kubeconfig, WEBPAGE_DEV_DIR: join(dir, 'unused') }),
        dir,
      );
      children.push(r);
      await waitFor(() => r.output.stdout.includes(READY) || r.child.exitCode !== null, {
        timeoutMs: 30_000,
      });
      expect(r.output.stdout).toContain('running against the configured cluster');
      expect(r.output.stdout).not.toContain('kubectl --kubeconfig');

      await admin.create(WebPage, webPage('default', 'mine', { html: '<html>mine</html>' }));
      await waitFor(
        async () => (await admin.get(WebPage, new ResourceID('mine', 'default')))?.status?.ready === true,
      );
      expect(await admin.get(WebPage, new ResourceID('hello', 'default'))).toBeUndefined();
      expect(await admin.get(ResourceTypes.ConfigMap, new ResourceID('mine-html', 'default'))).toBeDefined();

      r.child.kill('SIGTERM');
      expect(await exitWithin(r, 25_000)).toEqual({ code: 0, signal: null });
    } finally {
      admin.close();
      await server.stop();
    }
  });

  it('names the variable when a setting is wrong and exits with code 1', async () => {
    const r = run(
      MAIN,
      cleanEnvironment({ WEBPAGE_FLAVOUR: 'fancy', WEBPAGE_DEV_DIR: join(dir, 'bad') }),
      dir,
    );
    children.push(r);
    expect(await exitWithin(r, 20_000)).toEqual({ code: 1, signal: null });
    expect(r.output.stderr).toContain(
      'WEBPAGE_FLAVOUR="fancy" names no flavour: use one of lowlevel, managed, standalone',
    );
  });
});
