// The `tosdk` command line (main(), what bin.ts runs): usage and exit codes, a missing or bad
// configuration named in the error, writing, --check passing, and --check failing on drift; here on a
// core Operator app (a controller of ConfigMaps in one namespace) configured in a tosdk.config.mjs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '@tosdk/cli';

const CONFIG = `
import { KubernetesClient, Operator, ResourceTypes, UpdateControl } from '@tosdk/core';
import { defineConfig, offlineKubeConfig } from '@tosdk/cli';

class Labeller {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}

export default defineConfig({
  name: 'labeller',
  namespace: 'labeller-system',
  app: {
    operator: () => {
      const operator = new Operator({ client: KubernetesClient.fromKubeConfig(offlineKubeConfig()) });
      operator.register(new Labeller(), {
        resourceType: ResourceTypes.ConfigMap,
        name: 'labeller',
        namespaces: ['team-a'],
        recordReconcileErrorEvents: false,
      });
      return operator;
    },
  },
  deployment: { image: 'example.com/labeller:1.0.0' },
  output: { rbac: 'out/rbac.yaml', manifests: 'out' },
});
`;

describe('tosdk (command line)', () => {
  let dir: string;
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { cwd: dir, out: (s: string) => out.push(s), err: (s: string) => err.push(s) } };
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tosdk-cli-'));
    await writeFile(join(dir, 'tosdk.config.mjs'), CONFIG);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('prints the usage and exits 2 for an unknown command or target', async () => {
    for (const argv of [
      [],
      ['generate'],
      ['generate', 'everything'],
      ['build', 'rbac'],
      ['generate', 'rbac', '--config'],
    ]) {
      const r = io();
      expect(await main(argv, r.io)).toBe(2);
      expect(r.err.join('\n')).toContain('Usage: tosdk generate <crds|rbac|manifests|helm|webhooks|all>');
    }
  });

  it('exits 1 naming a configuration file that does not exist or exports no configuration', async () => {
    const missing = io();
    expect(await main(['generate', 'rbac', '--config', 'nope.mjs'], missing.io)).toBe(1);
    expect(missing.err.join('\n')).toContain(`no tosdk configuration at ${join(dir, 'nope.mjs')}`);
    await writeFile(join(dir, 'empty.mjs'), 'export default {};\n');
    const empty = io();
    expect(await main(['generate', 'rbac', '--config', 'empty.mjs'], empty.io)).toBe(1);
    expect(empty.err.join('\n')).toContain(
      `${join(dir, 'empty.mjs')}: the default export must be defineConfig(`,
    );
  });

  it('writes the RBAC of a one-namespace controller as a Role there, then --check passes', async () => {
    const write = io();
    expect(await main(['generate', 'rbac'], write.io)).toBe(0);
    expect(write.out.join('\n')).toContain(`wrote ${join(dir, 'out/rbac.yaml')}`);
    const rbac = await readFile(join(dir, 'out/rbac.yaml'), 'utf8');
    expect(rbac).toContain('kind: Role\n');
    expect(rbac).toContain('namespace: team-a');
    expect(rbac).not.toContain('ClusterRole');
    expect(rbac).not.toContain('configmaps/status'); // ConfigMaps have no status subresource
    const check = io();
    expect(await main(['generate', 'rbac', '--check'], check.io)).toBe(0);
    expect(check.out.join('\n')).toContain('1 files up to date');
  });

  it('--check exits 1 naming the file that differs, or is missing, and the command that fixes it', async () => {
    const rbac = join(dir, 'out/rbac.yaml');
    await writeFile(rbac, (await readFile(rbac, 'utf8')).replace('- watch\n', ''));
    const drift = io();
    expect(await main(['generate', 'rbac', '--check'], drift.io)).toBe(1);
    expect(drift.err.join('\n')).toBe(
      'tosdk: generated files differ from the committed ones: out/rbac.yaml; run `tosdk generate rbac` and commit the result',
    );
    const missing = io();
    expect(await main(['generate', 'manifests', '--check'], missing.io)).toBe(1);
    expect(missing.err.join('\n')).toContain('out/namespace.yaml, out/operator.yaml');
  });

  it('fails manifests without deployment.image, naming the setting', async () => {
    await writeFile(
      join(dir, 'noimage.mjs'),
      CONFIG.replace("deployment: { image: 'example.com/labeller:1.0.0' },", ''),
    );
    const r = io();
    expect(await main(['generate', 'manifests', '--config', 'noimage.mjs'], r.io)).toBe(1);
    expect(r.err.join('\n')).toBe(
      'tosdk: tosdk config of labeller: deployment.image is required for manifests and helm',
    );
  });
});
