// Bundles @tosdk/core's compiled modules (dist/**/*.js, what `tsc -b` emits) into the one file the
// package's "exports" serves, dist/tosdk-core.js, with a source map chained back to src/**/*.ts.
//
// Why (issue 15 §3, the footprint of an idle operator): Node's ES module loader pays per module
// (module records, the resolver's path walks) and resolving ~120 files makes its path normalisation hot
// enough for V8's optimising compiler, whose code pages then count in RSS. One file instead of ~120
// saves about 9 MB of an idle operator's RSS (README "Footprint"). Dependencies stay imports (they
// are not bundled), so the package's dependency and peer contract is unchanged.
//
// Run by `npm run build` after `tsc -b`, and before `npm pack` (prepack). Usage: node scripts/bundle.mjs
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const coreDir = fileURLToPath(new URL('..', import.meta.url));
const entry = 'dist/index.js';
if (!existsSync(new URL(`../${entry}`, import.meta.url))) {
  console.error(`@tosdk/core bundle: ${coreDir}${entry} is missing; run \`npm run build\` (tsc -b) first`);
  process.exit(1);
}
await build({
  absWorkingDir: coreDir,
  entryPoints: [entry],
  outfile: 'dist/tosdk-core.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // dependencies and peers stay imports resolved from node_modules, as in the unbundled modules
  packages: 'external',
  sourcemap: 'linked',
  // the map points at src/**/*.ts, which the package publishes
  sourcesContent: false,
  logLevel: 'warning',
});
