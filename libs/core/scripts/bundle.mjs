// Bundles @tosdk/core's compiled modules (dist/**/*.js, what `tsc -b` emits) into the file the
// package's "exports" serves, dist/tosdk-core.js, and the five chunks it imports
// (dist/tosdk-core-<hash>.js, see PARTS), each with a source map chained back to src/**/*.ts.
//
// Why (issue 15 §3, the footprint of an idle operator): Node's ES module loader pays per module
// (module records, the resolver's path walks) and resolving ~120 files makes its path normalisation hot
// enough for V8's optimising compiler, whose code pages then count in RSS. Six files instead of ~120
// saves about 9 MB of an idle operator's RSS (README "Footprint"). Dependencies and peers stay imports,
// except lru-cache, which every operator loads at start (see BUNDLED below).
// The output is minified in whitespace only (names stay, so stack traces name the functions; the
// linked source map leads back to src/**/*.ts): comments carry characters outside ASCII, which made
// V8 hold the whole source as a two-byte string, and the source string stays in the heap.
//
// Run by `npm run build` after `tsc -b`, and before `npm pack` (prepack). Usage: node scripts/bundle.mjs
import { build } from 'esbuild';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';

// `import { x } from 'node:crypto'` (or a default import) of a Node built-in builds an ES module
// namespace, which reads every export of the built-in and so runs its lazy getters: node:http loads
// undici's WebSocket client, node:fs fs/promises and streams, node:crypto WebCrypto, node:net
// BlockList (~14 MB of RSS in all, measured). The bundle takes built-ins with
// process.getBuiltinModule instead (the same objects, without the namespace); the source keeps plain
// imports. Multi-line imports keep their line count, so the source map still lines up.
// (also matches the minified `import{a as b}from"node:x";` of a bundled package)
const BUILTIN_IMPORT =
  /^import\s*(?:(\w+)\s*(?:,\s*)?)?(?:\*\s*as\s+(\w+)|\{([^}]*)\})?\s*from\s*['"](node:[\w/]+)['"];/gm;
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

// Packages bundled into the file instead of imported. lru-cache: every operator loads it at start
// (informer caches, own-write tracking), and as a package import it costs Node's ES loader a package
// resolution (package.json exports, real paths) and, when it loads, a read of the global
// `performance` for its default clock, which loads perf_hooks (11 modules): both together pushed
// Node's own loader functions over V8's tier-up threshold in an idle operator (README "Footprint").
// Bundled, its reads of `performance` go to a clock that reads the global at its first `now()`
// call (tosdk's caches pass their own clock where they use time, so idle operators never do).
// lru-cache is BlueOak-1.0.0 licensed; the bundle names it and links its licence (LICENSE_NOTE), and
// the code the bundle took from it is published with its licence in dist/vendor/lru-cache/, where the
// source map points for it (every source a published map names must be in the package; the package
// ships lru-cache's built file, not its TypeScript sources, so its own source map is not chained).
const BUNDLED = new Set(['lru-cache']);
const LRU_CACHE_CLOCK = 'const lruCacheLazyClock = { now: () => performance.now() };\n';
const LICENSE_NOTE =
  '/*! Contains lru-cache (https://github.com/isaacs/node-lru-cache), Copyright (c) Isaac Z. Schlueter, BlueOak-1.0.0 licence: https://blueoakcouncil.org/license/1.0.0 */';
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const VENDOR_DIR = 'vendor/lru-cache';
/** What the bundle took from lru-cache (the file as loaded), written to dist/vendor/lru-cache/. */
const vendored = [];

const builtinsFromProcess = {
  name: 'builtins-from-process',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, ({ path }) => {
      let contents = withBuiltinsFromProcess(readFileSync(path, 'utf8'));
      if (/[\\/]node_modules[\\/]lru-cache[\\/]/.test(path)) {
        contents =
          LRU_CACHE_CLOCK +
          contents
            .replace(/\bperformance\b/g, 'lruCacheLazyClock')
            .replace(/^\/\/# sourceMappingURL=.*$/m, '');
        vendored.push({ path, contents });
      }
      return { contents, loader: 'js' };
    });
  },
};
// every other dependency and peer stays an import resolved from node_modules, as in the unbundled modules
const dependenciesExternal = {
  name: 'dependencies-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path }) =>
      BUNDLED.has(packageOf(path)) ? undefined : { path, external: true },
    );
  },
};

const coreDir = fileURLToPath(new URL('..', import.meta.url));
const distDir = new URL('../dist/', import.meta.url);
const entry = 'dist/index.js';
if (!existsSync(new URL(`../${entry}`, import.meta.url))) {
  console.error(`@tosdk/core bundle: ${coreDir}${entry} is missing; run \`npm run build\` (tsc -b) first`);
  process.exit(1);
}

// The bundle is the entry file and a few chunks it imports, each at most PART_BUDGET bytes, instead
// of one 360 KB file. V8 compiles a module's whole top-level code at once, and its parser's memory for
// one large file is malloc'd and kept by glibc after the compile (the threshold for giving it back
// was raised by Node's own start-up): an idle operator held ~1.2 MB more malloc heap than the floor
// for the one file, and at the floor's level when no file is over ~128 KB (README "Footprint"). The
// chunks come from esbuild's code splitting, the parts below being extra entry points that are never
// written: a module lands in a chunk by which of them reach it. A few files, not one per module: each
// ES module costs Node's loader (that is why the package is bundled at all).
const PARTS = [
  ['client', 'informer', 'cache', 'util', 'logging'],
  ['event', 'events'],
  ['dependent', 'workflow', 'sharding'],
];
const PART_BUDGET = 128 * 1024;
const PART_PREFIX = 'tosdk-part:';
// a part's modules: the tsc output of its folders' sources (listed from src/, so a stale file that
// tsc left in dist/ after its source was removed is never bundled)
const srcDir = new URL('../src/', import.meta.url);
const partFiles = (dirs) =>
  dirs.flatMap((dir) =>
    readdirSync(new URL(`${dir}/`, srcDir), { recursive: true })
      .filter(
        (file) =>
          /\.ts$/.test(file) && !/\.(d|spec)\.ts$/.test(file) && !file.split(/[\\/]/).includes('__tests__'),
      )
      .sort()
      .map((file) => fileURLToPath(new URL(`${dir}/${file.replace(/\.ts$/, '.js')}`, distDir))),
  );
const parts = {
  name: 'parts',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^${PART_PREFIX}`) }, ({ path }) => ({ path, namespace: 'part' }));
    build.onLoad({ filter: /.*/, namespace: 'part' }, ({ path }) => ({
      contents: partFiles(PARTS[Number(path.slice(PART_PREFIX.length))])
        .map((file) => `export * from ${JSON.stringify(file)};`)
        .join('\n'),
      resolveDir: coreDir,
      loader: 'js',
    }));
  },
};

const result = await build({
  absWorkingDir: coreDir,
  entryPoints: [
    { in: entry, out: 'tosdk-core' },
    ...PARTS.map((_, i) => ({ in: `${PART_PREFIX}${i}`, out: `part-${i}` })),
  ],
  outdir: 'dist',
  splitting: true,
  chunkNames: 'tosdk-core-[hash]',
  write: false,
  metafile: true,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: 'linked',
  // the map points at src/**/*.ts, which the package publishes
  sourcesContent: false,
  minifyWhitespace: true,
  // lines of at most ~200 characters: Node prints the source line of an uncaught error's throw site,
  // which was a line of ~90,000 characters of the bundle before the message
  lineLimit: 200,
  banner: { js: LICENSE_NOTE },
  logLevel: 'warning',
  plugins: [parts, dependenciesExternal, builtinsFromProcess],
});
const outputName = (path) => basename(path);
const isPartEntry = (name) => /^part-\d+\.js(\.map)?$/.test(name);
// TOSDK_BUNDLE_REPORT=1: each file's size and the bytes of each src/ folder in it (to rebalance PARTS)
if (process.env['TOSDK_BUNDLE_REPORT'] === '1') {
  for (const [path, output] of Object.entries(result.metafile.outputs)) {
    if (!path.endsWith('.js') || isPartEntry(outputName(path))) continue;
    const byFolder = {};
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const folder = input.startsWith('dist/') ? input.split('/')[1] : input;
      byFolder[folder] = (byFolder[folder] ?? 0) + bytesInOutput;
    }
    console.log(`${path}: ${output.bytes} bytes ${JSON.stringify(byFolder)}`);
  }
}
// what the package loads: the entry and every chunk it imports, with their maps (the parts' own entry
// files are never imported by them)
const files = result.outputFiles.filter((file) => !isPartEntry(outputName(file.path)));
for (const [path, output] of Object.entries(result.metafile.outputs)) {
  if (isPartEntry(outputName(path))) continue;
  const intoPart = output.imports.filter((i) => isPartEntry(outputName(i.path)));
  if (intoPart.length > 0) {
    console.error(`@tosdk/core bundle: ${path} imports a part's entry (${intoPart[0].path})`);
    process.exit(1);
  }
}

// lru-cache's code as bundled, with its licence, where the source map points for it
const vendorDir = new URL(`../dist/${VENDOR_DIR}/`, import.meta.url);
mkdirSync(vendorDir, { recursive: true });
const vendoredNames = new Map();
for (const { path, contents } of vendored) {
  const name = basename(path);
  writeFileSync(new URL(name, vendorDir), contents);
  vendoredNames.set(path, `${VENDOR_DIR}/${name}`);
}
copyFileSync(
  fileURLToPath(new URL('../node_modules/lru-cache/LICENSE.md', import.meta.url)),
  new URL('LICENSE.md', vendorDir),
);
const code = [];
const output = [];
for (const file of files) {
  const name = outputName(file.path);
  let text = file.text;
  if (name.endsWith('.map')) {
    const map = JSON.parse(text);
    map.sources = map.sources.map(
      (source) => vendoredNames.get(resolvePath(coreDir, 'dist', source)) ?? source,
    );
    const unpublished = map.sources.filter((source) => source.includes('node_modules'));
    if (unpublished.length > 0) {
      console.error(`@tosdk/core bundle: ${name} names unpublished sources: ${unpublished.join(', ')}`);
      process.exit(1);
    }
    text = JSON.stringify(map);
  } else {
    const size = Buffer.byteLength(text);
    if (size > PART_BUDGET) {
      console.error(
        `@tosdk/core bundle: dist/${name} is ${size} bytes, over the ${PART_BUDGET} a file may have; move a folder of src/ to another group of PARTS in scripts/bundle.mjs (or add a group) so every file stays under it`,
      );
      process.exit(1);
    }
    code.push({ name, text });
  }
  output.push({ name, text });
}
for (const { name, text } of output) writeFileSync(new URL(name, distDir), text);
// chunks of earlier builds (their names change with their content)
const written = new Set(output.map((file) => file.name));
for (const name of readdirSync(distDir)) {
  if (/^tosdk-core-\w+\.js(\.map)?$/.test(name) && !written.has(name)) rmSync(new URL(name, distDir));
}
const bundled = code.map((file) => file.text).join('\n');
const left = bundled.match(/\bimport\s*[^;()]*?from\s*"node:[^"]*"/g);
if (left) {
  console.error(`@tosdk/core bundle: built-ins still imported as ES modules: ${left.join('; ')}`);
  process.exit(1);
}
if (!bundled.includes('lruCacheLazyClock') || /from\s*"lru-cache"/.test(bundled)) {
  console.error('@tosdk/core bundle: lru-cache is not bundled with its lazy clock (see BUNDLED)');
  process.exit(1);
}
