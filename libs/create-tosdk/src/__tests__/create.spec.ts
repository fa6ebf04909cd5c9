import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProject, CreateTosdkError } from '../index.js';

describe('createProject', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'create-tosdk-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('lays out a Vitest project by default, depending on the registry versions', async () => {
    const project = await createProject({ name: 'vitest-op', cwd: dir });
    const pkg = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      overrides?: unknown;
    };
    expect(pkg.scripts['test']).toBe('vitest run');
    expect(pkg.scripts['ci']).toContain('generate:check');
    expect(pkg.dependencies['@tosdk/core']).toMatch(/^\^\d/);
    expect(pkg.devDependencies['@tosdk/cli']).toMatch(/^\^\d/);
    expect(pkg.devDependencies['vitest']).toBeDefined();
    expect(pkg.overrides).toBeUndefined();
    expect(existsSync(join(project, 'vitest.config.ts'))).toBe(true);
    // the generated files keep LF on Windows checkouts too (tosdk generate --check)
    expect(await readFile(join(project, '.gitattributes'), 'utf8')).toBe(
      'deploy/** text eol=lf\nchart/** text eol=lf\n',
    );
    expect(await readFile(join(project, 'test/greeting.e2e-spec.ts'), 'utf8')).toContain("from 'vitest'");
  });

  it('lays out a Jest project with --jest, with the kind and group asked for', async () => {
    const project = await createProject({
      name: 'jest-op',
      cwd: dir,
      testRunner: 'jest',
      kind: 'Backup',
      group: 'acme.io',
    });
    const pkg = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.scripts['test']).toContain('node_modules/jest/bin/jest.js');
    expect(pkg.devDependencies['@swc/jest']).toBeDefined();
    expect(pkg.devDependencies['vitest']).toBeUndefined();
    expect(existsSync(join(project, 'jest.config.mjs'))).toBe(true);
    expect(await readFile(join(project, 'test/backup.e2e-spec.ts'), 'utf8')).toContain(
      "from '@jest/globals'",
    );
    const resource = await readFile(join(project, 'src/backup.resource.ts'), 'utf8');
    expect(resource).toContain("group: 'acme.io'");
    expect(resource).toContain('export const Backup = defineResource(');
  });

  it('uses local tarballs (and overrides) when given a directory of them, naming a missing one', async () => {
    const packs = join(dir, 'packs');
    await mkdir(packs);
    for (const f of [
      'tosdk-core-0.1.0.tgz',
      'tosdk-nestjs-0.1.0.tgz',
      'tosdk-apiserver-0.1.0.tgz',
      'tosdk-cli-0.1.0.tgz',
    ]) {
      await writeFile(join(packs, f), '');
    }
    await expect(createProject({ name: 'packed-op', cwd: dir, tarballs: packs })).rejects.toThrow(
      `no tarball of create-tosdk (create-tosdk-<version>.tgz) in ${packs}`,
    );
    await writeFile(join(packs, 'create-tosdk-0.1.0.tgz'), '');
    const project = await createProject({ name: 'packed-op', cwd: dir, tarballs: packs });
    const pkg = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      overrides: Record<string, string>;
    };
    expect(pkg.dependencies['@tosdk/core']).toBe(`file:${join(packs, 'tosdk-core-0.1.0.tgz')}`);
    expect(pkg.overrides['create-tosdk']).toBe(`file:${join(packs, 'create-tosdk-0.1.0.tgz')}`);
  });

  it.each([
    [{ name: 'My Operator' }, 'is not a usable project name'],
    [{ name: 'op', kind: 'backup' }, 'must be PascalCase'],
    [{ name: 'op', group: 'acme' }, 'must be a DNS subdomain with a dot'],
    [{ name: 'vitest-op' }, 'exists and is not empty'],
  ])('refuses %j', async (options, message) => {
    const error = await createProject({ cwd: dir, ...options }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CreateTosdkError);
    expect((error as Error).message).toContain(message);
  });
});
