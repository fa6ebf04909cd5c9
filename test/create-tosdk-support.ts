// Runs a schematic of the @tosdk/cli installed in a generated project with @angular-devkit/schematics
// (the engine `nest g` uses), in a plain Node process (the collection's factories are ES modules,
// which the engine require()s), and writes the result into the project.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const RUNNER = `
const { SchematicTestRunner } = require(${JSON.stringify(join(ROOT, 'node_modules/@angular-devkit/schematics/testing'))});
const { HostTree } = require(${JSON.stringify(join(ROOT, 'node_modules/@angular-devkit/schematics'))});
const fs = require('node:fs');
const path = require('node:path');
const [project, name, options] = process.argv.slice(2);
const collection = path.join(project, 'node_modules/@tosdk/cli/package.json');
const schematics = JSON.parse(fs.readFileSync(collection, 'utf8')).schematics;
const runner = new SchematicTestRunner('@tosdk/cli', path.join(project, 'node_modules/@tosdk/cli', schematics));
const tree = new HostTree();
const walk = (dir) => {
  for (const entry of fs.readdirSync(path.join(project, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) walk(rel);
    else tree.create('/' + rel, fs.readFileSync(path.join(project, rel)));
  }
};
walk('src');
walk('test');
for (const f of ['vitest.config.ts', 'jest.config.mjs', 'package.json']) {
  if (fs.existsSync(path.join(project, f))) tree.create('/' + f, fs.readFileSync(path.join(project, f)));
}
runner.runSchematic(name, JSON.parse(options), tree).then((out) => {
  const changed = [];
  for (const file of out.files) {
    const rel = file.replace(/^\\//, '');
    const content = out.readContent(file);
    const target = path.join(project, rel);
    if (fs.existsSync(target) && fs.readFileSync(target, 'utf8') === content) continue;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, content);
    changed.push(rel);
  }
  console.log(JSON.stringify(changed));
}, (error) => {
  console.error(error);
  process.exit(1);
});
`;

/** Applies `@tosdk/cli:<name>` to the project; resolves with the files it created or changed. */
export async function applySchematic(
  project: string,
  name: string,
  options: Record<string, unknown>,
): Promise<string[]> {
  const script = join(project, '..', 'run-schematic.cjs');
  await writeFile(script, RUNNER);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, project, name, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`schematic ${name} failed (${code}): ${err}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as string[]);
    });
  });
}

// ---- the projects' commands (shared by the create-tosdk end-to-end specs) ----

/** The npm cache the consumer test (scripts/consumer-test.mjs) fills: same registry packages, one download. */
export const CACHE =
  process.env['TOSDK_CONSUMER_NPM_CACHE'] ?? join(ROOT, 'node_modules/.cache/tosdk-consumer-npm');

/** The environment of a project's commands: no npm_* of the enclosing run, this Node first, no repo binaries. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const path = (process.env['PATH'] ?? '')
    .split(':')
    .filter((p) => !resolve(p).startsWith(join(ROOT, 'node_modules')));
  env['PATH'] = [dirname(process.execPath), ...path].join(':');
  delete env['KUBECONFIG'];
  delete env['NODE_OPTIONS'];
  return { ...env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', ...extra };
}

/** A finished command: its exit code and its output (stdout and stderr). */
export interface Run {
  code: number | null;
  output: string;
}

/** Runs a command with a bounded time (killed after `timeoutMs`); resolves with its exit code and output. */
export function run(
  cmd: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
  env = childEnv(),
): Promise<Run> {
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

/** {@link run}, failing with the command's last output unless it exits 0; resolves with its output. */
export async function ok(cmd: string, args: string[], cwd: string, timeoutMs = 240_000): Promise<string> {
  const r = await run(cmd, args, cwd, timeoutMs);
  if (r.code !== 0)
    throw new Error(`${cmd} ${args.join(' ')} in ${cwd} exited ${r.code}:\n${r.output.slice(-4000)}`);
  return r.output;
}

/** Every non-private libs/* package. */
export function publishedWorkspaces(): Array<{ dir: string; name: string }> {
  return readdirSync(join(ROOT, 'libs'))
    .map((d) => join(ROOT, 'libs', d))
    .filter((d) => existsSync(join(d, 'package.json')))
    .map((dir) => ({
      dir,
      pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; private?: boolean },
    }))
    .filter((w) => !w.pkg.private)
    .map((w) => ({ dir: w.dir, name: w.pkg.name }));
}

/**
 * Packs every published library into `work/packs` (they must be built) and runs what
 * `npm create tosdk <name> [args]` runs, from the packed create-tosdk, with `--tarballs` pointing
 * at the packs; resolves with the project's directory and create-tosdk's output.
 */
export async function createFromTarballs(
  work: string,
  name: string,
  args: string[] = [],
): Promise<{ project: string; output: string }> {
  const packs = join(work, 'packs');
  await mkdir(packs, { recursive: true });
  await mkdir(CACHE, { recursive: true });
  for (const w of publishedWorkspaces()) {
    if (!existsSync(join(w.dir, 'dist'))) throw new Error(`${w.name} is not built: run npm run build first`);
    await ok('npm', ['pack', '--silent', '--pack-destination', packs], w.dir, 120_000);
  }
  const createTarball = readdirSync(packs).find((f) => f.startsWith('create-tosdk-'));
  if (!createTarball) throw new Error(`no create-tosdk tarball in ${packs}`);
  const output = await ok(
    'npm',
    [
      'exec',
      '--yes',
      '--cache',
      CACHE,
      `--package=${join(packs, createTarball)}`,
      '--',
      'create-tosdk',
      name,
      ...args,
      '--tarballs',
      packs,
    ],
    work,
  );
  return { project: join(work, name), output };
}

/** `npm install` in a generated project, from the shared cache. */
export async function installProject(project: string): Promise<void> {
  await ok(
    'npm',
    ['install', '--no-audit', '--no-fund', '--cache', CACHE, '--prefer-offline'],
    project,
    300_000,
  );
}
