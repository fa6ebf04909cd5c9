import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// What each published entry point may load when imported (statically, not `import type`, not a
// dynamic `import()` made on first use). The consumer test (scripts/consumer-test.mjs) checks the
// same with real installs; this catches a stray import in seconds.
const src = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const packageJson = JSON.parse(readFileSync(join(src, '..', 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Every package a module loads, following relative imports (the runtime module graph). */
function runtimePackages(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(STATIC_IMPORT)) {
      const specifier = match[1];
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
        if (!existsSync(target)) throw new Error(`${file}: ${specifier} does not resolve`);
        visit(target);
      } else if (!specifier.startsWith('node:')) {
        packages.add(packageOf(specifier));
      }
    }
  };
  visit(entry);
  return packages;
}

const required = new Set([
  ...Object.keys(packageJson.dependencies ?? {}),
  ...Object.keys(packageJson.peerDependencies).filter(
    (name) => !packageJson.peerDependenciesMeta?.[name]?.optional,
  ),
]);
const entries: Record<string, { file: string; optional: string[] }> = {
  '.': { file: 'index.ts', optional: [] },
  './health': { file: 'health/index.ts', optional: ['@nestjs/terminus'] },
  './metrics': {
    file: 'metrics/index.ts',
    optional: ['prom-client'],
  },
  './testing': { file: 'testing/index.ts', optional: [] },
  './webhooks': { file: 'webhooks/index.ts', optional: [] },
};

describe('@tosdk/nestjs entry points', () => {
  it('exports exactly the entry points this test knows', () => {
    expect(
      Object.keys(packageJson.exports)
        .filter((k) => k !== './package.json')
        .sort(),
    ).toEqual(Object.keys(entries).sort());
  });

  it.each(Object.entries(entries))(
    '%s loads only required packages and its own optional peers',
    (_name, { file, optional }) => {
      const loaded = [...runtimePackages(join(src, file))];
      const allowed = new Set([...required, ...optional]);
      expect(loaded.filter((name) => !allowed.has(name))).toEqual([]);
    },
  );

  it('the root needs neither @nestjs/terminus, prom-client nor @kubernetes/client-node; testing needs neither @nestjs/testing nor @tosdk/apiserver at import', () => {
    const root = runtimePackages(join(src, 'index.ts'));
    for (const name of [
      '@nestjs/terminus',
      'prom-client',
      '@willsoto/nestjs-prometheus',
      '@nestjs/testing',
    ]) {
      expect(root.has(name)).toBe(false);
    }
    // issue 15 §3: the module reads its configuration with core's loadKubeConfig(); client-node
    // (~60 MB of RSS) is loaded only by loadClientNodeKubeConfig() or core's exec/OIDC/proxy paths
    expect(root.has('@kubernetes/client-node')).toBe(false);
    const testing = runtimePackages(join(src, 'testing/index.ts'));
    expect(testing.has('@nestjs/testing')).toBe(false);
    expect(testing.has('@tosdk/apiserver')).toBe(false);
  });
});
