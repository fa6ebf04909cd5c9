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
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// `import { x } from 'node:crypto'` (or a default import) of a Node built-in builds an ES module
// namespace, which reads every export of the built-in and so runs its lazy getters: node:http loads
// undici's WebSocket client, node:fs fs/promises and streams, node:crypto WebCrypto, node:net
// BlockList (~14 MB of RSS in all, measured). The bundle takes built-ins with
// process.getBuiltinModule instead (the same objects, without the namespace); the source keeps plain
// imports. Multi-line imports keep their line count, so the source map still lines up.
const BUILTIN_IMPORT =
  /^import\s+(?:(\w+)\s*(?:,\s*)?)?(?:\*\s+as\s+(\w+)|\{([^}]*)\})?\s+from\s+['"](node:[\w/]+)['"];/gm;
function withBuiltinsFromProcess(code) {
  return code.replace(BUILTIN_IMPORT, (statement, defaultName, namespace, named, specifier) => {
    const lines = '\n'.repeat(statement.split('\n').length - 1);
    const module = `process.getBuiltinModule(${JSON.stringify(specifier)})`;
    const declarations = [];
    // a built-in's default export and its namespace's members are both the CommonJS object's
    for (const name of [defaultName, namespace]) if (name) declarations.push(`const ${name} = ${module};`);
    if (named !== undefined) {
      const bindings = named
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean)
        .map((name) => name.replace(/^(\w+)\s+as\s+(\w+)$/, '$1: $2'));
      declarations.push(`const { ${bindings.join(', ')} } = ${module};`);
    }
    return declarations.join(' ') + lines;
  });
}
const builtinsFromProcess = {
  name: 'builtins-from-process',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, ({ path }) => ({
      contents: withBuiltinsFromProcess(readFileSync(path, 'utf8')),
      loader: 'js',
    }));
  },
};

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
  plugins: [builtinsFromProcess],
});
const bundled = readFileSync(new URL('../dist/tosdk-core.js', import.meta.url), 'utf8');
const left = bundled.match(/^import .* from "node:.*$/gm);
if (left) {
  console.error(`@tosdk/core bundle: built-ins still imported as ES modules: ${left.join('; ')}`);
  process.exit(1);
}
