// Review S9 (create-tosdk), end to end: the Jest flavour of a new project (test/create-tosdk.e2e-spec.ts
// covers the default, Vitest), laid out by the packed create-tosdk with `--kind=Backup --group=acme.io`
// in a directory whose path has a space, installed from the local tarballs as that test does (same npm
// cache), then what a user does next: the README's schematic command, `npm test`, and `npm start` on a
// machine where port 8080 is already taken.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = process.env['TOSDK_CONSUMER_NPM_CACHE'] ?? join(ROOT, 'node_modules/.cache/tosdk-consumer-npm');

/** The environment of the project's commands: no npm_* of the enclosing run, this Node first, no repo binaries. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const path = (process.env['PATH'] ?? '')
    .split(':')
    .filter((p) => !resolve(p).startsWith(join(ROOT, 'node_modules')));
  env['PATH'] = [dirname(process.execPath), ...path].join(':');
  delete env['KUBECONFIG'];
  delete env['NODE_OPTIONS'];
  return { ...env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', ...extra };
}

interface Run {
  code: number | null;
  output: string;
}

/** Runs a command with a bounded time; resolves with its exit code and output. */
function run(cmd: string, args: string[], cwd: string, timeoutMs: number, env = childEnv()): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output });
    });
  });
}

async function ok(cmd: string, args: string[], cwd: string, timeoutMs = 240_000): Promise<string> {
  const r = await run(cmd, args, cwd, timeoutMs);
  if (r.code !== 0)
    throw new Error(`${cmd} ${args.join(' ')} in ${cwd} exited ${r.code}:\n${r.output.slice(-4000)}`);
  return r.output;
}

/** Every non-private libs/* package directory. */
function publishedWorkspaces(): string[] {
  return readdirSync(join(ROOT, 'libs'))
    .map((d) => join(ROOT, 'libs', d))
    .filter((d) => existsSync(join(d, 'package.json')))
    .filter(
      (d) => !(JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')) as { private?: boolean }).private,
    );
}

describe('review S9: npm create tosdk -- --jest (from the local tarballs)', () => {
  let work: string;
  let project: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'review s9 create '));
    await mkdir(CACHE, { recursive: true });
    const packs = join(work, 'packs');
    await mkdir(packs);
    for (const dir of publishedWorkspaces()) {
      if (!existsSync(join(dir, 'dist'))) throw new Error(`${dir} is not built: run npm run build first`);
      await ok('npm', ['pack', '--silent', '--pack-destination', packs], dir, 120_000);
    }
    const createTarball = readdirSync(packs).find((f) => f.startsWith('create-tosdk-'))!;
    await ok(
      'npm',
      [
        'exec',
        '--yes',
        '--cache',
        CACHE,
        `--package=${join(packs, createTarball)}`,
        '--',
        'create-tosdk',
        'backup-op',
        '--jest',
        '--kind=Backup',
        '--group=acme.io',
        '--tarballs',
        packs,
      ],
      work,
    );
    project = join(work, 'backup-op');
    await ok(
      'npm',
      ['install', '--no-audit', '--no-fund', '--cache', CACHE, '--prefer-offline'],
      project,
      300_000,
    );
  }, 600_000);

  afterAll(async () => {
    if (work && !process.env['TOSDK_KEEP_CREATE']) await rm(work, { recursive: true, force: true });
  });

  it("the Jest project runs its e2e test, and the README's schematic command adds a kind", async () => {
    expect(await readFile(join(project, 'src/backup.resource.ts'), 'utf8')).toContain("group: 'acme.io'");
    const readme = await readFile(join(project, 'README.md'), 'utf8');
    const command = /^npx (.+ kind Schedule)\b/m.exec(readme)?.[1];
    expect(command).toBeDefined();
    await ok('npx', ['--yes', '--cache', CACHE, ...command!.split(' ')], project);
    expect(await readFile(join(project, 'src/kinds.ts'), 'utf8')).toContain('Schedule,');
    await ok('npm', ['run', 'typecheck'], project);
    const test = await ok('npm', ['test'], project);
    expect(test).toMatch(/Tests:\s+2 passed/);
  }, 600_000);

  it('[FINDING S9-CT11] `npm start` with port 8080 taken exits 1 saying to set PORT (it printed a stack trace; neither it nor the README named PORT)', async () => {
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = await run('npm', ['start'], project, 180_000, childEnv({ PORT: String(port) }));
      expect(r.code).toBe(1);
      expect(r.output).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect(r.output).toContain('PORT=');
      expect(r.output).not.toMatch(/\n\s+at .*\(node:net/);
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
    expect(await readFile(join(project, 'README.md'), 'utf8')).toMatch(/`PORT`/);
  }, 240_000);
});
