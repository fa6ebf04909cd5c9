import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import { OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import { Greeting, GREETING_CRD_PATH } from './fixtures/nest-app/greeting/greeting.resource.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = (file: string) => fileURLToPath(new URL(`./fixtures/nest-app/${file}`, import.meta.url));

describe('@tosdk/nestjs standalone application in a child process', () => {
  let env: OperatorTestEnvironment;
  let dir: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({ crds: [GREETING_CRD_PATH] });
    dir = await mkdtemp(join(tmpdir(), 'tosdk-shutdown-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await env?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps running while the operator runs and exits cleanly on SIGTERM (shutdown hooks stop the operator and release its lease)', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    await env.server!.writeKubeconfig(kubeconfig);
    const namespace = await env.createNamespace();
    const lines: Record<string, unknown>[] = [];
    let stderr = '';
    const proc = spawn(process.execPath, ['--import', fixture('ts-hooks.mjs'), fixture('main.ts')], {
      cwd: root,
      env: { ...process.env, KUBECONFIG: kubeconfig, FIXTURE_NAMESPACE: namespace, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let pending = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop()!;
      for (const p of parts)
        if (p.trim().startsWith('{')) lines.push(JSON.parse(p) as Record<string, unknown>);
    });
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.on('exit', (code, signal) => resolve({ code, signal })),
    );

    await waitFor(() => lines.some((l) => l['msg'] === 'fixture app ready') || proc.exitCode !== null, {
      timeoutMs: 30_000,
      description: 'the child app to start',
    });
    expect({ exitCode: proc.exitCode, stderr }).toEqual({ exitCode: null, stderr: expect.any(String) });

    // it works (and so stays alive) with no HTTP server
    await env.adminClient.create(Greeting, {
      metadata: { name: 'child', namespace },
      spec: { message: 'from a child' },
    });
    await env.waitForResource(ResourceTypes.ConfigMap, new ResourceID('child', namespace), undefined, {
      timeoutMs: 15_000,
    });
    const Lease = ResourceTypes.Lease;
    const held = await env.waitForResource(
      Lease,
      new ResourceID('fixture-app', namespace),
      (l) => l.spec?.holderIdentity === 'child',
    );
    expect(held.spec?.holderIdentity).toBe('child');
    expect(proc.exitCode).toBeNull();

    proc.kill('SIGTERM');
    const exit = await Promise.race([
      exited,
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000).unref()),
    ]);
    expect(exit === 'timeout' ? exit : exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
    expect(lines.some((l) => l['msg'] === 'operator stopped')).toBe(true);
    // the lease was released on the way out
    const released = await env.adminClient.get(Lease, new ResourceID('fixture-app', namespace));
    expect(released?.spec?.holderIdentity ?? '').toBe('');
  });
});
