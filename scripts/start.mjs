// `npm start`: builds the libraries and the WebPage sample (tsc -b, incremental), then runs the
// sample's main. Without a configured cluster (no KUBECONFIG, not in a pod) the sample starts an
// embedded @tosdk/apiserver, writes .tosdk/kubeconfig, applies its CRD and creates an example
// WebPage; with one it runs against that cluster. Ctrl-C (or SIGTERM) stops it cleanly; this
// script exits with the sample's exit code.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const project = 'apps/webpage/tsconfig.build.json';
const main = fileURLToPath(new URL('../apps/webpage/dist/main.js', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));

if (!existsSync(tsc)) {
  console.error('npm start: TypeScript is not installed; run `npm install` first.');
  process.exit(1);
}

console.log(`npm start: building ${project} and the libraries it uses (tsc -b)...`);
let build = spawnSync(process.execPath, [tsc, '-b', project], { cwd: root, stdio: 'inherit' });
// then @tosdk/core's package entry, one file bundled from its tsc output (as `npm run build` does)
if (build.status === 0) {
  build = spawnSync(process.execPath, ['libs/core/scripts/bundle.mjs'], { cwd: root, stdio: 'inherit' });
}
if (build.status !== 0) {
  console.error(
    `npm start: the build failed (exit code ${build.status ?? build.signal}); see the errors above.`,
  );
  process.exit(build.status ?? 1);
}

const child = spawn(process.execPath, [main], { cwd: root, stdio: 'inherit', env: process.env });
// Forward stop signals; the sample ignores repeats (a terminal's Ctrl-C reaches both processes).
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on('error', (error) => {
  console.error(`npm start: could not run ${main}: ${error.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : 15) : 1));
});
