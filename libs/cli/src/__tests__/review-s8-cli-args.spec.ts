// Review S8 (generators): the `tosdk` command line's arguments and its messages for bad input, through
// main() (what bin.ts runs) on a core Operator app configured in a tosdk.config.mjs in a temp directory.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../cli.js';

const CONFIG = `
import { KubernetesClient, Operator, ResourceTypes, UpdateControl } from '@tosdk/core';
import { defineConfig, offlineKubeConfig } from '@tosdk/cli';

export default defineConfig({
  name: 'labeller',
  namespace: 'labeller-system',
  app: {
    operator: () => {
      const operator = new Operator({ client: KubernetesClient.fromKubeConfig(offlineKubeConfig()) });
      operator.register({ reconcile: () => UpdateControl.noUpdate() }, {
        resourceType: ResourceTypes.ConfigMap,
        name: 'labeller',
        namespaces: ['team-a'],
      });
      return operator;
    },
  },
  deployment: { image: 'example.com/labeller:1.0.0' },
  output: { rbac: 'out/rbac.yaml', manifests: 'out' },
});
`;

describe('review S8: tosdk command line arguments and messages', () => {
  let dir: string;
  const run = async (argv: string[], cwd = dir) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, { cwd, out: (s) => out.push(s), err: (s) => err.push(s) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  beforeAll(async () => {
    // a directory name with spaces, as on many desktops
    dir = await mkdtemp(join(tmpdir(), 'review s8 cli args '));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('[FINDING S8-CL1] a misspelt option (--chek) is a usage error (exit 2) naming it, and nothing is written (it was ignored)', async () => {
    const sub = await mkdtemp(join(dir, 'typo-'));
    await writeFile(join(sub, 'tosdk.config.mjs'), CONFIG);
    const r = await run(['generate', 'rbac', '--chek'], sub);
    // what a CI job that meant --check observes: nothing is checked, the file is (re)written, success
    expect(r.code).toBe(2);
    expect(r.err).toContain('--chek');
    expect(existsSync(join(sub, 'out/rbac.yaml'))).toBe(false);
  });

  it('[FINDING S12-DOC16] --help and -h (alone or after generate) print the usage on stdout and exit 0 (they were a usage error, exit 2)', async () => {
    for (const argv of [['--help'], ['-h'], ['generate', '--help'], ['generate', 'crds', '-h']]) {
      const r = await run(argv);
      expect([argv.join(' '), r.code, r.err]).toEqual([argv.join(' '), 0, '']);
      expect(r.out).toContain('Usage: tosdk generate <crds|rbac|manifests|helm|webhooks|all>');
    }
  });

  it('[FINDING S8-CL1] --config=<file> (the usual GNU form) is used (it was ignored and the default configuration looked for)', async () => {
    const sub = await mkdtemp(join(dir, 'eq-'));
    await writeFile(join(sub, 'my.config.mjs'), CONFIG);
    const r = await run(['generate', 'rbac', '--config=my.config.mjs'], sub);
    expect(r.err).not.toContain('no tosdk configuration at');
    expect(r.code).toBe(0);
    expect(existsSync(join(sub, 'out/rbac.yaml'))).toBe(true);
  });

  it('[FINDING S8-CL2] a configuration module with a syntax error is named, without a stack trace (it gave a raw stack not naming the file)', async () => {
    await writeFile(join(dir, 'broken.mjs'), 'export default {;\n');
    const r = await run(['generate', 'rbac', '--config', 'broken.mjs']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(join(dir, 'broken.mjs'));
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('[FINDING S8-CL3] app.nestModule resolving to undefined (a module that does not export the class) is named as such (the reason was empty)', async () => {
    await writeFile(join(dir, 'app.module.mjs'), 'export class Appmodule {}\n'); // a typo in the export
    await writeFile(
      join(dir, 'undef.mjs'),
      `export default {
  name: 'x',
  namespace: 'x-system',
  output: {},
  app: { nestModule: async () => (await import('./app.module.mjs')).AppModule },
};\n`,
    );
    const r = await run(['generate', 'rbac', '--config', 'undef.mjs']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('tosdk: loading the app failed');
    // the reason is empty today: "loading the app failed:  (the app must register ...)"
    expect(r.err).not.toContain('failed:  (');
    expect(r.err).toMatch(/nestModule|undefined/);
  });

  it('[FINDING S8-CL14] `generate crds` for an app whose custom kind has no schema writes nothing and names the kind, saying how to declare it (it only said "everything up to date")', async () => {
    const sub = await mkdtemp(join(dir, 'noschema-'));
    await writeFile(
      join(sub, 'tosdk.config.mjs'),
      CONFIG.replace(
        'resourceType: ResourceTypes.ConfigMap,',
        "resourceType: defineResource({ group: 'acme.example.com', version: 'v1', kind: 'Backup' }),",
      ).replace('import { KubernetesClient,', 'import { defineResource, KubernetesClient,'),
    );
    const r = await run(['generate', 'crds'], sub);
    expect(r.code).toBe(0);
    expect(existsSync(join(sub, 'deploy/crds'))).toBe(false);
    // the user read only "everything up to date"
    expect(`${r.out}\n${r.err}`).toContain('Backup');
    expect(r.err).toContain('defineResource({ group, version, kind, schema })');
  });

  it('guard: a configuration in a directory whose name has spaces is found and written, a second run reports nothing to do, and --check passes', async () => {
    const sub = await mkdtemp(join(dir, 'with spaces '));
    await writeFile(join(sub, 'tosdk.config.mjs'), CONFIG);
    const first = await run(['generate', 'all'], sub);
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    expect(first.out).toContain(`wrote ${join(sub, 'out/rbac.yaml')}`);
    const rbac = await readFile(join(sub, 'out/rbac.yaml'), 'utf8');
    const second = await run(['generate', 'all'], sub);
    expect(second).toEqual({ code: 0, out: 'everything up to date', err: '' });
    expect(await readFile(join(sub, 'out/rbac.yaml'), 'utf8')).toBe(rbac);
    expect((await run(['generate', 'all', '--check'], sub)).code).toBe(0);
  });

  it('guard: a missing --config file and a module without a default export exit 1 naming the file', async () => {
    const missing = await run(['generate', 'crds', '--config', 'nope.mjs']);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe(
      `tosdk: no tosdk configuration at ${join(dir, 'nope.mjs')}; create tosdk.config.mjs (see the @tosdk/cli README) or pass --config`,
    );
    await writeFile(join(dir, 'noexport.mjs'), "export const config = { name: 'x' };\n");
    const noDefault = await run(['generate', 'crds', '--config', 'noexport.mjs']);
    expect(noDefault.code).toBe(1);
    expect(noDefault.err).toContain('noexport.mjs: the default export must be defineConfig(');
  });

  it('guard: an app that registers no controller is named as such (exit 1)', async () => {
    await writeFile(
      join(dir, 'empty-app.mjs'),
      "export default { name: 'x', namespace: 'x-system', output: {}, app: { operator: () => undefined } };\n",
    );
    const r = await run(['generate', 'rbac', '--config', 'empty-app.mjs']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('the app registered no controller');
  });
});
