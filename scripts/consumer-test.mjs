// The consumer test (issue 12): packs every published library (every non-private libs/* workspace),
// checks the tarballs, then builds throwaway apps in a temporary directory the way `nest new` lays
// them out, installs the tarballs and the documented peers from the registry (nothing from this
// repository's node_modules) and runs what a user runs: strict type-check, build, the app's own e2e
// test with @tosdk/nestjs/testing, and the built app against the `tosdk-apiserver` CLI
// (/health/readiness, /metrics). Each variant runs on the Node line it names, with a Node binary
// from the registry's `node` package.
//
//   node scripts/consumer-test.mjs                      # every variant (CI)
//   node scripts/consumer-test.mjs esm-vitest@24 --keep # one variant, keep the temp dir
//
// Variants: minimal (only the required peers: the root, testing helpers and require() load),
// esm-vitest (Nest 12's default: ESM, Vitest), esm-jest (ESM, Jest with ts-jest), cjs (CommonJS
// app: type-check, build, start). Default: minimal, esm-vitest and esm-jest on 22.19 and 24, cjs on 24. Needs `npm run build` first (CI runs it before the tests).
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const templates = join(root, 'scripts/consumer/app');

/** The lowest Node version the packages declare (engines: client-node 2's undici needs 22.19), and the current line. */
const LOWEST_NODE = '22.19.0';
const CURRENT_NODE = '24';
const DEFAULT_VARIANTS = [
  `minimal@${LOWEST_NODE}`,
  `esm-vitest@${LOWEST_NODE}`,
  `esm-vitest@${CURRENT_NODE}`,
  `esm-jest@${LOWEST_NODE}`,
  `esm-jest@${CURRENT_NODE}`,
  `cjs@${CURRENT_NODE}`,
];
/** Packed (compressed) size budget per tarball, bytes. */
const PACKED_BUDGET = { '@tosdk/core': 900_000, '@tosdk/apiserver': 1_200_000, '@tosdk/nestjs': 300_000 };
const DEFAULT_PACKED_BUDGET = 1_000_000;

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const variants = args.filter((a) => !a.startsWith('--'));
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
/** Variants run at once (each in its own process; installs wait on the network, builds on CPU). */
const jobs = Math.max(1, Number(option('jobs') ?? process.env['TOSDK_CONSUMER_JOBS'] ?? 2));
/** Set in a variant's own process: the tarballs the parent packed (a JSON file of name to path). */
const packedBy = option('tarballs');
const work = mkdtempSync(join(tmpdir(), 'tosdk-consumer-'));
// npm's own cache (~/.npm unless configured) outlives clean checkouts, so repeated runs install from
// it (--prefer-offline); TOSDK_CONSUMER_NPM_CACHE points the runs at another one
const cache = process.env['TOSDK_CONSUMER_NPM_CACHE'];
const started = Date.now();
const failures = [];
// the environment of every child: without the npm_* variables of an enclosing `npm test` or
// `npm run` (they carry the monorepo's workspace and prefix settings into the throwaway apps)
// nor this repository's node_modules/.bin on PATH (the apps use only what they installed)
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
baseEnv.PATH = (process.env['PATH'] ?? '')
  .split(':')
  .filter(
    (entry) =>
      !resolve(entry).startsWith(join(root, 'node_modules')) && !/\/node_modules\/\.bin$/.test(entry),
  )
  .join(':');

function log(line) {
  console.log(`[consumer ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${line}`);
}

class ConsumerTestError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ConsumerTestError';
  }
}

/** Runs a command to completion; throws with its output when it fails. */
function run(cmd, argv, { cwd, env, timeoutMs = 300_000, quiet = true } = {}) {
  const result = spawnSync(cmd, argv, {
    cwd,
    env: { ...baseEnv, ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    stdio: quiet ? 'pipe' : 'inherit',
  });
  if (result.status !== 0) {
    throw new ConsumerTestError(
      `${cmd} ${argv.join(' ')} (in ${cwd}) failed (${result.status ?? result.signal ?? result.error?.message}):\n` +
        `${result.stdout ?? ''}\n${result.stderr ?? ''}`.trim().split('\n').slice(-80).join('\n'),
    );
  }
  return result.stdout ?? '';
}

const npmEnv = {
  ...(cache ? { npm_config_cache: cache } : {}),
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_prefer_offline: 'true',
};

// ---------------------------------------------------------------------------------------------
// Node binaries

const nodeBinaries = new Map();
function nodeFor(version) {
  if (!nodeBinaries.has(version)) {
    const out = run(
      'npm',
      ['exec', '--yes', `--package=node@${version}`, '--', 'node', '-p', 'process.execPath'],
      {
        cwd: work,
        env: npmEnv,
      },
    );
    const path = out.trim().split('\n').pop();
    if (!path || !existsSync(path)) throw new ConsumerTestError(`no Node binary for node@${version}: ${out}`);
    nodeBinaries.set(version, path);
  }
  return nodeBinaries.get(version);
}

// ---------------------------------------------------------------------------------------------
// Pack and check every published library

function publishedWorkspaces() {
  const out = [];
  for (const name of readdirSync(join(root, 'libs')).sort()) {
    const dir = join(root, 'libs', name);
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    if (!pkg.private) out.push({ dir, pkg });
  }
  return out;
}

function exportTargets(exportsField, into = []) {
  if (typeof exportsField === 'string') into.push(exportsField);
  else if (exportsField && typeof exportsField === 'object') {
    for (const value of Object.values(exportsField)) exportTargets(value, into);
  }
  return into;
}

/** The tarball checks: what is in it, what it points at, how big it is, its metadata. */
function checkTarball({ dir, pkg }, packed) {
  const problems = [];
  const files = new Set(packed.files.map((f) => f.path));
  const name = pkg.name;
  for (const required of ['package.json', 'README.md', 'LICENSE']) {
    if (!files.has(required)) problems.push(`${required} is missing from the tarball`);
  }
  if (
    files.has('LICENSE') &&
    existsSync(join(dir, 'LICENSE')) &&
    readFileSync(join(dir, 'LICENSE'), 'utf8') !== readFileSync(join(root, 'LICENSE'), 'utf8')
  ) {
    problems.push('LICENSE differs from the repository LICENSE');
  }
  for (const f of files) {
    if (/\.tsbuildinfo$/.test(f)) problems.push(`${f}: build info must not be published`);
    if (/(^|\/)__tests__\/|\.spec\.ts$|\.e2e-spec\.ts$/.test(f))
      problems.push(`${f}: a test file is published`);
  }
  // every export target, main, types and bin exist in the tarball; no development-only conditions
  const targets = [
    ...exportTargets(pkg.exports),
    pkg.main,
    pkg.types,
    ...Object.values(pkg.bin ?? {}),
  ].filter(Boolean);
  for (const target of targets) {
    const path = target.replace(/^\.\//, '');
    if (!files.has(path)) problems.push(`export/main/types/bin target ${target} is not in the tarball`);
    if (/\.ts$/.test(path) && !/\.d\.ts$/.test(path))
      problems.push(`export target ${target} is TypeScript source`);
  }
  for (const [subpath, value] of Object.entries(pkg.exports ?? {})) {
    if (subpath.endsWith('.json')) continue;
    if (typeof value !== 'object' || !value.types)
      problems.push(`exports["${subpath}"] has no types condition`);
    for (const condition of Object.keys(typeof value === 'object' ? value : {})) {
      if (!['types', 'import', 'require', 'default', 'node'].includes(condition)) {
        problems.push(`exports["${subpath}"] has the non-standard condition "${condition}"`);
      }
    }
  }
  // source maps point at sources that are published
  for (const f of files) {
    if (!f.endsWith('.map') || !existsSync(join(dir, f))) continue;
    const map = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    if (map.sourcesContent?.every((s) => typeof s === 'string')) continue;
    for (const source of map.sources ?? []) {
      const target = relative(dir, resolve(dir, dirname(f), map.sourceRoot ?? '', source))
        .split('\\')
        .join('/');
      if (!files.has(target)) {
        const stale = !existsSync(join(dir, target))
          ? ' (a stale build output of a removed source? rebuild from clean)'
          : '';
        problems.push(`${f} points at ${target}, which is not published${stale}`);
      }
    }
  }
  // metadata and dependencies
  for (const field of ['description', 'license', 'repository', 'homepage', 'bugs', 'keywords', 'engines']) {
    if (!pkg[field]) problems.push(`package.json has no "${field}"`);
  }
  if (pkg.sideEffects !== false && !Array.isArray(pkg.sideEffects))
    problems.push('package.json does not declare sideEffects');
  if (pkg.dependencies?.['@kubernetes/client-node']) {
    problems.push('@kubernetes/client-node must be a peer dependency (one copy per app), not a dependency');
  }
  if (name === '@tosdk/nestjs' && pkg.dependencies?.['@tosdk/apiserver']) {
    problems.push('@tosdk/apiserver (test-only) must not be a production dependency');
  }
  // README links must work on the npm page: absolute links only
  const readme = existsSync(join(dir, 'README.md')) ? readFileSync(join(dir, 'README.md'), 'utf8') : '';
  for (const match of readme.matchAll(/\]\((?!https?:|mailto:|#)([^)]+)\)/g)) {
    problems.push(
      `README.md links to ${match[1]}, which does not work on the npm page (use an absolute URL)`,
    );
  }
  const budget = PACKED_BUDGET[name] ?? DEFAULT_PACKED_BUDGET;
  if (packed.size > budget) problems.push(`tarball is ${packed.size} bytes, over its budget of ${budget}`);
  return problems;
}

function packAll() {
  const dest = join(work, 'packs');
  mkdirSync(dest, { recursive: true });
  const tarballs = new Map();
  const problems = [];
  for (const workspace of publishedWorkspaces()) {
    const out = run('npm', ['pack', '--json', '--pack-destination', dest], {
      cwd: workspace.dir,
      env: npmEnv,
    });
    const [packed] = JSON.parse(out.slice(out.indexOf('[')));
    tarballs.set(workspace.pkg.name, join(dest, packed.filename));
    log(
      `packed ${workspace.pkg.name}: ${packed.entryCount} files, ${(packed.size / 1024).toFixed(0)} kB packed, ` +
        `${(packed.unpackedSize / 1024).toFixed(0)} kB unpacked`,
    );
    for (const p of checkTarball(workspace, packed)) problems.push(`${workspace.pkg.name}: ${p}`);
  }
  if (problems.length > 0) {
    // reported and failing the run, but the apps still run (their failures are independent)
    failures.push('tarball checks');
    log(`FAIL tarball checks:\n  ${problems.join('\n  ')}`);
  } else {
    log('tarball checks passed');
  }
  return tarballs;
}

// ---------------------------------------------------------------------------------------------
// Apps

const nestPkg = JSON.parse(readFileSync(join(root, 'libs/nestjs/package.json'), 'utf8'));
const peer = (name) => {
  const range = nestPkg.peerDependencies[name];
  if (!range) throw new ConsumerTestError(`@tosdk/nestjs does not declare the peer ${name}`);
  return range;
};

/** The documented install: the libraries, client-node and the peers of the modules the app uses. */
function appDependencies(tarballs, { full }) {
  const deps = {
    '@tosdk/core': `file:${tarballs.get('@tosdk/core')}`,
    '@tosdk/nestjs': `file:${tarballs.get('@tosdk/nestjs')}`,
    '@kubernetes/client-node': peer('@kubernetes/client-node'),
    '@nestjs/common': peer('@nestjs/common'),
    '@nestjs/core': peer('@nestjs/core'),
    'reflect-metadata': peer('reflect-metadata'),
    rxjs: peer('rxjs'),
  };
  if (!full) return { dependencies: deps, devDependencies: {} };
  return {
    dependencies: {
      ...deps,
      '@nestjs/platform-express': peer('@nestjs/core'),
      '@nestjs/terminus': peer('@nestjs/terminus'),
      'prom-client': peer('prom-client'),
      'nestjs-pino': peer('nestjs-pino'),
      pino: peer('pino'),
      'pino-http': peer('pino-http'),
    },
    devDependencies: {
      '@tosdk/apiserver': `file:${tarballs.get('@tosdk/apiserver')}`,
      '@nestjs/testing': peer('@nestjs/testing'),
      '@types/node': '^24.0.0',
      typescript: '^6.0.2',
    },
  };
}

const tsconfigBase = {
  module: 'nodenext',
  moduleResolution: 'nodenext',
  resolvePackageJsonExports: true,
  esModuleInterop: true,
  isolatedModules: true,
  declaration: true,
  removeComments: true,
  emitDecoratorMetadata: true,
  experimentalDecorators: true,
  allowSyntheticDefaultImports: true,
  target: 'ES2023',
  sourceMap: true,
  outDir: './dist',
  rootDir: '.',
  incremental: true,
  skipLibCheck: true,
  strict: true,
  strictPropertyInitialization: false,
};

function writeJson(file, value) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Lays out the app as `nest new` does for the variant (ts-esm: Vitest; ts: Jest). */
function scaffold(dir, kind, tarballs) {
  cpSync(templates, dir, { recursive: true });
  const { dependencies, devDependencies } = appDependencies(tarballs, { full: true });
  const esm = kind !== 'cjs';
  const scripts = { build: 'tsc -p tsconfig.build.json', 'start:prod': 'node dist/main' };
  const types = ['node'];
  if (kind === 'esm-vitest') {
    Object.assign(devDependencies, { vitest: '^4.1.2', 'unplugin-swc': '^1.5.0', '@swc/core': '^1.10.0' });
    scripts['test:e2e'] = 'vitest run --config ./vitest.config.e2e.ts';
    types.unshift('vitest/globals');
    // a spec only Vitest runs: its test context (signal) and `await using` of a testing module
    cpSync(
      join(root, 'scripts/consumer/vitest/greeting-context.vitest-spec.ts'),
      join(dir, 'test/greeting-context.vitest-spec.ts'),
    );
    writeFileSync(
      join(dir, 'vitest.config.e2e.ts'),
      [
        "import swc from 'unplugin-swc';",
        "import { defineConfig } from 'vitest/config';",
        '',
        '// SWC compiles the tests and the app with decorator metadata (Nest injects by type)',
        'export default defineConfig({',
        "  plugins: [swc.vite({ module: { type: 'es6' } })],",
        "  test: { globals: true, root: './', include: ['**/*.e2e-spec.ts', '**/*.vitest-spec.ts'] },",
        '});',
        '',
      ].join('\n'),
    );
  } else {
    Object.assign(devDependencies, { jest: '^30.0.0', 'ts-jest': '^29.4.0', '@types/jest': '^30.0.0' });
    types.push('jest');
    const jest = {
      moduleFileExtensions: ['js', 'json', 'ts'],
      rootDir: '.',
      testEnvironment: 'node',
      testRegex: '.e2e-spec.ts$',
      ...(esm
        ? {
            extensionsToTreatAsEsm: ['.ts'],
            moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
            transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
          }
        : { moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' }, transform: { '^.+\\.ts$': 'ts-jest' } }),
    };
    writeJson(join(dir, 'test/jest-e2e.json'), jest);
    scripts['test:e2e'] =
      'node --experimental-vm-modules ./node_modules/jest/bin/jest.js --config ./test/jest-e2e.json';
  }
  writeJson(join(dir, 'package.json'), {
    name: `tosdk-consumer-${kind}`,
    version: '0.0.1',
    private: true,
    license: 'UNLICENSED',
    ...(esm ? { type: 'module' } : {}),
    scripts,
    dependencies,
    devDependencies,
  });
  writeJson(join(dir, 'tsconfig.json'), { compilerOptions: { ...tsconfigBase, types } });
  writeJson(join(dir, 'tsconfig.build.json'), {
    extends: './tsconfig.json',
    compilerOptions: { rootDir: './src' },
    include: ['src'],
    exclude: ['node_modules', 'test', 'dist', '**/*spec.ts'],
  });
}

function npmInstall(dir, node) {
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: dir,
    env: { ...npmEnv, PATH: `${dirname(node)}:${baseEnv.PATH}` },
    timeoutMs: 240_000,
  });
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** Starts a process and resolves once a line of its output matches; keeps its output for errors. */
function startProcess(node, argv, { cwd, env, ready, timeoutMs = 60_000, label }) {
  const child = spawn(node, argv, { cwd, env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const append = (chunk) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const whenReady = new Promise((resolveReady, reject) => {
    const timer = setTimeout(
      () => reject(new ConsumerTestError(`${label} did not start within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const check = () => {
      if (ready && ready.test(output)) {
        clearTimeout(timer);
        resolveReady();
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new ConsumerTestError(`${label} exited (${code ?? signal}) before it was ready:\n${output}`));
    });
    if (!ready) {
      clearTimeout(timer);
      resolveReady();
    }
  });
  return { child, whenReady, output: () => output };
}

/** Sends SIGTERM (SIGKILL after `timeoutMs`); resolves with how the process ended. */
function stopProcess(child, timeoutMs = 30_000) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolveStop) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // 'close', not 'exit': the output is complete only once the pipes have closed
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolveStop({ code, signal });
    });
    child.kill('SIGTERM');
  });
}

async function poll(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new ConsumerTestError(
        `${what} did not hold within ${timeoutMs} ms${last ? `: ${last.message}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The built app against the tosdk-apiserver CLI: CRD applied, readiness 200, metrics served, clean stop. */
async function runAgainstCli(dir, node) {
  const kubeconfig = join(dir, '.tosdk', 'kubeconfig');
  mkdirSync(dirname(kubeconfig), { recursive: true });
  const cli = join(
    dir,
    'node_modules/@tosdk/apiserver',
    JSON.parse(readFileSync(join(dir, 'node_modules/@tosdk/apiserver/package.json'), 'utf8')).bin[
      'tosdk-apiserver'
    ],
  );
  const server = startProcess(node, [cli, '--port', '0', '--kubeconfig', kubeconfig], {
    cwd: dir,
    ready: /kubeconfig written/,
    label: 'tosdk-apiserver',
  });
  let app;
  try {
    await server.whenReady;
    // the CRD, applied with the testing helpers that work without Nest's testing package
    run(
      node,
      [
        '--input-type=module',
        '-e',
        [
          "import { KubernetesClient } from '@tosdk/core';",
          "import { loadClientNodeKubeConfig } from '@tosdk/nestjs';",
          "import { applyCrds, loadCrds } from '@tosdk/nestjs/testing';",
          'const client = KubernetesClient.fromKubeConfig(loadClientNodeKubeConfig());',
          "await applyCrds(client, await loadCrds(['deploy/greeting-crd.yaml']));",
          'client.close();',
        ].join('\n'),
      ],
      { cwd: dir, env: { KUBECONFIG: kubeconfig } },
    );
    const port = await freePort();
    app = startProcess(node, ['dist/main.js'], {
      cwd: dir,
      env: { KUBECONFIG: kubeconfig, PORT: String(port), NODE_ENV: 'production' },
      label: 'the built app',
    });
    const base = `http://127.0.0.1:${port}`;
    let exited = false;
    app.child.once('exit', () => (exited = true));
    await poll('GET /health/readiness answering 200', async () => {
      if (exited) throw new ConsumerTestError(`the app exited:\n${app.output()}`);
      return (await fetch(`${base}/health/readiness`)).status === 200;
    });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    if (!metrics.includes('tosdk_reconciliation_queue_size')) {
      throw new ConsumerTestError(`GET /metrics has no tosdk metrics:\n${metrics.slice(0, 2000)}`);
    }
    // Nest's shutdown hooks close the app, then re-raise the signal: a clean stop ends by SIGTERM
    const end = await stopProcess(app.child);
    // (not the 'operator stopped' line: pino may not flush it before the re-raised signal ends the process)
    if (!(end.code === 0 || end.signal === 'SIGTERM')) {
      throw new ConsumerTestError(
        `the app did not stop cleanly on SIGTERM (${end.code ?? end.signal}):\n${app.output()}`,
      );
    }
  } finally {
    if (app) await stopProcess(app.child);
    await stopProcess(server.child);
  }
}

async function fullVariant(kind, nodeVersion, tarballs) {
  const node = nodeFor(nodeVersion);
  const dir = join(work, `${kind}-node${nodeVersion}`);
  scaffold(dir, kind, tarballs);
  const env = { PATH: `${dirname(node)}:${baseEnv.PATH}` };
  npmInstall(dir, node);
  log(`${kind}@${nodeVersion}: installed`);
  run(node, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit'], { cwd: dir, env });
  run(node, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: dir, env });
  log(`${kind}@${nodeVersion}: type-checked (strict) and built`);
  if (kind !== 'cjs') {
    run('npm', ['run', 'test:e2e'], { cwd: dir, env: { ...env, CI: 'true' }, timeoutMs: 180_000 });
    log(`${kind}@${nodeVersion}: the app's e2e test passed`);
  }
  await runAgainstCli(dir, node);
  log(`${kind}@${nodeVersion}: the built app served readiness and metrics against the tosdk-apiserver CLI`);
}

/** Only the required peers: the root import, the testing helpers and require() must load. */
async function minimalVariant(nodeVersion, tarballs) {
  const node = nodeFor(nodeVersion);
  const dir = join(work, `minimal-node${nodeVersion}`);
  mkdirSync(dir, { recursive: true });
  const { dependencies } = appDependencies(tarballs, { full: false });
  writeJson(join(dir, 'package.json'), {
    name: 'tosdk-consumer-minimal',
    private: true,
    type: 'module',
    dependencies,
  });
  npmInstall(dir, node);
  for (const absent of [
    '@nestjs/terminus',
    'prom-client',
    '@nestjs/testing',
    '@tosdk/apiserver',
    'nestjs-pino',
  ]) {
    if (existsSync(join(dir, 'node_modules', absent))) {
      throw new ConsumerTestError(`${absent} was installed though only required peers were asked for`);
    }
  }
  const copies = run('npm', ['ls', '@kubernetes/client-node', '--all', '--parseable'], {
    cwd: dir,
    env: { PATH: `${dirname(node)}:${baseEnv.PATH}` },
  })
    .trim()
    .split('\n')
    .filter(Boolean);
  if (copies.length !== 1)
    throw new ConsumerTestError(`expected one @kubernetes/client-node, found:\n${copies.join('\n')}`);
  writeFileSync(
    join(dir, 'check.mjs'),
    [
      "import 'reflect-metadata';",
      "import { strict as assert } from 'node:assert';",
      "import { createRequire } from 'node:module';",
      "const nest = await import('@tosdk/nestjs');",
      "assert.equal(typeof nest.OperatorModule, 'function');",
      "const testing = await import('@tosdk/nestjs/testing');",
      "for (const name of ['loadCrds', 'applyCrds', 'waitFor']) assert.equal(typeof testing[name], 'function', name);",
      'await assert.rejects(testing.createOperatorTestingModule({}), (e) => e.code === "MissingPeerDependency" && /npm install --save-dev @nestjs\\/testing/.test(e.message));',
      "await assert.rejects(testing.waitFor(() => false, { timeoutMs: 50, description: 'nothing' }), /nothing/);",
      // every other entry point: loads, or (health, metrics) fails naming the optional peer it needs
      "const needs = { './health': /@nestjs\\/terminus/, './metrics': /prom-client/ };",
      "const { exports } = JSON.parse((await import('node:fs')).readFileSync('node_modules/@tosdk/nestjs/package.json', 'utf8'));",
      "for (const subpath of Object.keys(exports).filter((k) => !k.endsWith('.json'))) {",
      "  const specifier = '@tosdk/nestjs' + subpath.slice(1);",
      "  if (needs[subpath]) await assert.rejects(import(specifier), (e) => e.code === 'ERR_MODULE_NOT_FOUND' && needs[subpath].test(e.message), specifier);",
      '  else assert.ok(Object.keys(await import(specifier)).length > 0, specifier);',
      '}',
      'const require = createRequire(import.meta.url);',
      "assert.equal(typeof require('@tosdk/nestjs').OperatorModule, 'function');",
      "assert.equal(typeof require('@tosdk/core').Operator, 'function');",
      "assert.equal(typeof require('@tosdk/nestjs/testing').loadCrds, 'function');",
      "console.log('minimal install: imports and require() work');",
    ].join('\n'),
  );
  run(node, ['check.mjs'], { cwd: dir });
  log(`minimal@${nodeVersion}: root import, testing helpers and require() work with only the required peers`);
}

async function main() {
  log(`work dir ${work}; npm cache ${cache ?? "npm's default"}`);
  if (!existsSync(join(root, 'libs/nestjs/dist/index.js'))) {
    log('no build found: building (tsc -b)');
    run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], {
      cwd: root,
    });
  }
  const selected = variants.length > 0 ? variants : DEFAULT_VARIANTS;
  if (packedBy) {
    await runVariants(selected, new Map(Object.entries(JSON.parse(readFileSync(packedBy, 'utf8')))));
    return;
  }
  const tarballs = packAll();
  if (jobs > 1 && selected.length > 1) {
    await runInProcesses(selected, tarballs);
    return;
  }
  await runVariants(selected, tarballs);
}

/** Each variant in a process of its own, `jobs` at a time; each one's output printed when it ends. */
async function runInProcesses(selected, tarballs) {
  const file = join(work, 'tarballs.json');
  writeFileSync(file, JSON.stringify(Object.fromEntries(tarballs)));
  // the Node binaries first, one download per version
  for (const version of new Set(selected.map((spec) => spec.split('@')[1] ?? CURRENT_NODE))) nodeFor(version);
  const queue = [...selected];
  const worker = async () => {
    for (let spec = queue.shift(); spec !== undefined; spec = queue.shift()) {
      const child = spawn(process.execPath, [fileURLToPath(import.meta.url), spec, `--tarballs=${file}`], {
        env: baseEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d.toString()));
      child.stderr.on('data', (d) => (output += d.toString()));
      const code = await new Promise((resolveCode) => child.once('close', (c) => resolveCode(c)));
      process.stdout.write(output.trimEnd().replace(/^/gm, `  ${spec} | `) + '\n');
      if (code !== 0) failures.push(spec);
      log(`${code === 0 ? 'PASS' : 'FAIL'} ${spec}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, selected.length) }, () => worker()));
}

async function runVariants(selected, tarballs) {
  for (const spec of selected) {
    const [kind, nodeVersion = CURRENT_NODE] = spec.split('@');
    const t0 = Date.now();
    try {
      if (kind === 'minimal') await minimalVariant(nodeVersion, tarballs);
      else if (['esm-vitest', 'esm-jest', 'cjs'].includes(kind))
        await fullVariant(kind, nodeVersion, tarballs);
      else throw new ConsumerTestError(`unknown variant ${kind} (minimal, esm-vitest, esm-jest, cjs)`);
      log(`PASS ${spec} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    } catch (error) {
      failures.push(spec);
      log(
        `FAIL ${spec} in ${((Date.now() - t0) / 1000).toFixed(0)} s:\n${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

try {
  await main();
} catch (error) {
  failures.push('pack');
  log(`FAIL: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (keep) log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
log(failures.length === 0 ? 'all variants passed' : `failed: ${failures.join(', ')}`);
process.exit(failures.length === 0 ? 0 : 1);
