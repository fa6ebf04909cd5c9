// Review S9 (create-tosdk): what a new user meets in the first minute of `npm create tosdk`: the
// command line (src/bin.ts, run in a child process as npm runs it, its TypeScript loaded by Node's
// type stripping), the options createProject() accepts, and the README the project gets.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProject, CreateTosdkError } from '../index.js';
import type { CreateProjectOptions } from '../index.js';

const BIN = fileURLToPath(new URL('../bin.ts', import.meta.url));

// Node strips the types; this maps the sources' NodeNext './x.js' imports to './x.ts'.
const HOOKS = `import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      if (/^\\.{1,2}\\/.*\\.js$/.test(specifier)) return next(specifier.replace(/\\.js$/, '.ts'), context);
      throw error;
    }
  },
});
`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('review S9: create-tosdk', () => {
  let dir: string;
  let hooks: string;

  /** Runs `create-tosdk <args>` in `cwd` (a fresh directory under the temp one by default). */
  const bin = async (
    args: string[],
    cwd?: string,
    nodeArgs: string[] = [],
  ): Promise<Run & { cwd: string }> => {
    const where = cwd ?? (await mkdtemp(join(dir, 'run-')));
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--no-warnings=ExperimentalWarning', '--import', hooks, ...nodeArgs, BIN, ...args],
        { cwd: where, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } },
      );
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr, cwd: where });
      });
    });
  };

  /** The CreateTosdkError createProject rejects with, and what it left in the directory. */
  const refusal = async (options: Omit<CreateProjectOptions, 'cwd'>) => {
    const cwd = await mkdtemp(join(dir, 'api-'));
    const error = await createProject({ ...options, cwd }).then(
      () => undefined,
      (e: unknown) => e,
    );
    return { error, message: error instanceof Error ? error.message : '', left: await readdir(cwd) };
  };

  beforeAll(async () => {
    // a directory with a space in its name, as on many desktops
    dir = await mkdtemp(join(tmpdir(), 'review s9 create '));
    hooks = join(dir, 'ts-hooks.mjs');
    await writeFile(hooks, HOOKS);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('[FINDING S9-CT1] --help and -h print the usage on stdout and exit 0 (--help exited 2 without a name; -h was taken for the project name)', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await bin([flag]);
      expect([flag, r.code]).toEqual([flag, 0]);
      expect(r.stdout).toContain('Usage: npm create tosdk@latest <name>');
      expect(r.stdout).toContain('--kind <Kind>');
      expect(await readdir(r.cwd)).toEqual([]);
    }
    // no name at all is still a usage error
    const none = await bin([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage:');
  });

  it('[FINDING S9-CT2] a misspelt option or a second name is a usage error (exit 2) naming it, and nothing is written (the project was made with the defaults)', async () => {
    const typo = await bin(['my-op', '--kidn', 'Backup']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--kidn');
    expect(typo.stderr).toContain('--help');
    expect(await readdir(typo.cwd)).toEqual([]);

    const runner = await bin(['my-op', '--vitset']);
    expect(runner.code).toBe(2);
    expect(runner.stderr).toContain('--vitset');
    expect(await readdir(runner.cwd)).toEqual([]);

    const two = await bin(['my-op', 'Backup']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('"Backup"');
    expect(await readdir(two.cwd)).toEqual([]);
  });

  it('[FINDING S9-CT3] --kind=Backup --group=acme.io (the usual --option=value form) are used, and --kind without a value is a usage error (both were ignored: a Greeting in example.com)', async () => {
    const eq = await bin(['eq-op', '--kind=Backup', '--group=acme.io', '--jest']);
    expect(eq.code).toBe(0);
    const resource = await readFile(join(eq.cwd, 'eq-op/src/backup.resource.ts'), 'utf8');
    expect(resource).toContain("group: 'acme.io'");
    expect(resource).toContain("kind: 'Backup'");
    expect(existsSync(join(eq.cwd, 'eq-op/src/greeting.resource.ts'))).toBe(false);

    const empty = await bin(['empty-op', '--kind']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--kind needs a value');
    expect(await readdir(empty.cwd)).toEqual([]);
  });

  it('[FINDING S9-CT4] a file where the project directory would go is refused with a message saying what to do (it was an ENOTDIR stack trace)', async () => {
    const cwd = await mkdtemp(join(dir, 'file-'));
    await writeFile(join(cwd, 'my-op'), 'notes\n');
    const r = await bin(['my-op'], cwd);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`create-tosdk: ${join(cwd, 'my-op')} exists and is not a directory`);
    expect(r.stderr).toContain('pick another name');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const api = await createProject({ name: 'my-op', cwd }).catch((e: unknown) => e);
    expect(api).toBeInstanceOf(CreateTosdkError);
  });

  it('[FINDING S9-CT5] a group under k8s.io or kubernetes.io is refused (Kubernetes refuses such a CRD without an api-approved annotation; the project was written)', async () => {
    for (const group of ['widgets.k8s.io', 'k8s.io', 'acme.kubernetes.io']) {
      const r = await refusal({ name: 'op', group });
      expect([group, r.error instanceof CreateTosdkError]).toEqual([group, true]);
      expect(r.message).toContain(`group "${group}"`);
      expect(r.message).toContain('protected');
      expect(r.left).toEqual([]);
    }
    // the community's x-k8s.io groups are not protected
    const cwd = await mkdtemp(join(dir, 'x-k8s-'));
    await expect(createProject({ name: 'op', cwd, group: 'widgets.x-k8s.io' })).resolves.toBe(
      join(cwd, 'op'),
    );
  });

  it('[FINDING S9-CT6] a version, kind or group the API server refuses is refused by name (v1.0 wrote a project whose resource throws on import; 1, a 63-letter kind, a 64-letter group label wrote CRDs the API server refuses)', async () => {
    const cases: Array<[Omit<CreateProjectOptions, 'cwd'>, string]> = [
      [{ name: 'op', version: 'v1.0' }, 'version "v1.0"'],
      [{ name: 'op', version: '1' }, 'version "1"'],
      [{ name: 'op', version: 'V1' }, 'version "V1"'],
      [{ name: 'op', kind: `A${'b'.repeat(62)}` }, `kind "A${'b'.repeat(62)}"`],
      [{ name: 'op', group: `${'a'.repeat(64)}.com` }, `group "${'a'.repeat(64)}.com"`],
    ];
    for (const [options, named] of cases) {
      const r = await refusal(options);
      expect([named, r.error instanceof CreateTosdkError]).toEqual([named, true]);
      expect(r.message).toContain(named);
      expect(r.left).toEqual([]);
    }
  });

  it('[FINDING S9-CT7] a kind that clashes with a name the generated code uses (Type, Reconciler, Promise, Core) is refused by name (the project was written and did not compile)', async () => {
    for (const kind of ['Type', 'Reconciler', 'Promise', 'Core']) {
      const r = await refusal({ name: 'op', kind });
      expect([kind, r.error instanceof CreateTosdkError]).toEqual([kind, true]);
      expect(r.message).toContain(`kind "${kind}"`);
      expect(r.message).toContain('pick another');
      expect(r.left).toEqual([]);
    }
  });

  it('[FINDING S9-CT8] the README only tells the user to run commands the project can run (`npx nest g ...` with no @nestjs/cli installed: "could not determine executable to run")', async () => {
    const cwd = await mkdtemp(join(dir, 'readme-'));
    const project = await createProject({ name: 'readme-op', cwd });
    const readme = await readFile(join(project, 'README.md'), 'utf8');
    const pkg = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const installed = { ...pkg.dependencies, ...pkg.devDependencies };
    // the executables of the packages a project may have; npx runs an installed one, else downloads
    // the package of that *name* from the registry (`nest` is an unrelated package without a bin)
    const binOf: Record<string, string> = { nest: '@nestjs/cli', tosdk: '@tosdk/cli', tsc: 'typescript' };
    const commands = [...readme.matchAll(/npx ((?:@[\w.-]+\/)?[\w.-]+)/g)].map((m) => m[1]);
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) {
      // an explicit scoped package (npx @scope/name) runs that package
      if (command.startsWith('@')) continue;
      expect([command, binOf[command] !== undefined && binOf[command] in installed]).toEqual([command, true]);
    }
  });

  it('[FINDING S9-CT12] a directory holding only .git (a fresh clone of an empty repository) is used (it was refused as not empty, with the advice to remove it)', async () => {
    const cwd = await mkdtemp(join(dir, 'clone-'));
    await mkdir(join(cwd, 'my-op/.git'), { recursive: true });
    await writeFile(join(cwd, 'my-op/.git/HEAD'), 'ref: refs/heads/main\n');
    const r = await bin(['my-op'], cwd);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, 'my-op/package.json'))).toBe(true);
    expect(await readFile(join(cwd, 'my-op/.git/HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    // anything else in it is still refused
    await mkdir(join(cwd, 'notes/.git'), { recursive: true });
    await writeFile(join(cwd, 'notes/todo.md'), '');
    const refused = await bin(['notes'], cwd);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('exists and is not empty');
  });

  it('[FINDING S9-CT10] on a Node older than the engines (22.19.0) it refuses, naming both versions (it wrote the project; its npm test then failed inside undici: "Cannot read properties of undefined (reading \'bind\')")', async () => {
    // what Node 20.20.2 reports (npm only warns EBADENGINE and runs the bin)
    const old = join(dir, 'node-20.mjs');
    await writeFile(old, "Object.defineProperty(process.versions, 'node', { value: '20.20.2' });\n");
    const r = await bin(['my-op'], undefined, ['--import', old]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Node.js 22.19.0 or later');
    expect(r.stderr).toContain('20.20.2');
    expect(await readdir(r.cwd)).toEqual([]);
    // --help still answers
    expect((await bin(['--help'], undefined, ['--import', old])).code).toBe(0);
  });

  it('[FINDING S9-CT9] the project name rule the message states is the rule applied: "a" is accepted, a 51-character name is refused saying at most 50 (both said only "lower-case letters, digits and dashes")', async () => {
    const cwd = await mkdtemp(join(dir, 'names-'));
    await expect(createProject({ name: 'a', cwd })).resolves.toBe(join(cwd, 'a'));
    const long = await refusal({ name: 'a'.repeat(51) });
    expect(long.error).toBeInstanceOf(CreateTosdkError);
    expect(long.message).toContain('at most 50');
  });
});
