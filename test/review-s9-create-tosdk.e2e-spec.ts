// Review S9 (create-tosdk), end to end: the Jest flavour of a new project (test/create-tosdk.e2e-spec.ts
// covers the default, Vitest), laid out by the packed create-tosdk with `--kind=Backup --group=acme.io`
// in a directory whose path has a space, installed from the local tarballs as that test does (same npm
// cache), then what a user does next: the README's schematic command, `npm test`, and `npm start` on a
// machine where port 8080 is already taken.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CACHE, childEnv, createFromTarballs, installProject, ok, run } from './create-tosdk-support.js';

describe('review S9: npm create tosdk -- --jest (from the local tarballs)', () => {
  let work: string;
  let project: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'review s9 create '));
    const created = await createFromTarballs(work, 'backup-op', [
      '--jest',
      '--kind=Backup',
      '--group=acme.io',
    ]);
    project = created.project;
    await installProject(project);
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
