// Runs a schematic of the @tosdk/cli installed in a generated project with @angular-devkit/schematics
// (the engine `nest g` uses), in a plain Node process (the collection's factories are ES modules,
// which the engine require()s), and writes the result into the project.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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
