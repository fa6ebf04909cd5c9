// `npm run bench [-- suite ...]`: builds the libraries and the benchmarks, then runs each suite
// (bench/<suite>.ts exporting `run(): Promise<void>`), or all of them when none is named.
// Every suite prints its figures as ratios against a baseline it measures in the same run.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json', 'bench/tsconfig.json'], {
  cwd: root,
  stdio: 'inherit',
});
// @tosdk/core's package entry is one bundled file made from its tsc output (as `npm run build` does)
execFileSync(process.execPath, [join(root, 'libs', 'core', 'scripts', 'bundle.mjs')], {
  cwd: root,
  stdio: 'inherit',
});

const available = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
// words that name no suite are arguments of the named suites (`npm run bench -- widgets scale`),
// which reject what they do not know; with no suite named they are an error
const words = process.argv.slice(2);
const wanted = words.filter((w) => available.includes(w));
const args = words.filter((w) => !available.includes(w));
const unknown = wanted.length === 0 ? args : [];
if (unknown.length > 0) {
  console.error(
    `unknown benchmark suite(s): ${unknown.join(', ')}; available: ${available.join(', ') || '(none)'}`,
  );
  process.exit(2);
}
const suites = wanted.length > 0 ? wanted : available;
if (suites.length === 0) {
  console.error('no benchmark suites in bench/ yet');
  process.exit(1);
}
for (const suite of suites) {
  console.log(`\n## ${suite}`);
  const mod = await import(pathToFileURL(join(root, 'bench', 'dist', `${suite}.js`)).href);
  await mod.run(args);
}
