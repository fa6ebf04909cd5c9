// Review S8 (generators): the files `tosdk generate` writes and `--check` compares: a kind removed from
// the app, line endings of a Windows checkout, and output that does not depend on registration order.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Type } from '@sinclair/typebox';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineResource, KubernetesClient, Operator, UpdateControl } from '@tosdk/core';
import type { ResourceType } from '@tosdk/core';
import { offlineKubeConfig } from '../config.js';
import type { TosdkConfig } from '../config.js';
import { TosdkCliError } from '../errors.js';
import { generate } from '../generate.js';
import { loadApp } from '../introspect.js';

const kind = (kindName: string, version = 'v1', more: { storage?: boolean } = {}) =>
  defineResource({
    group: 'review.example.com',
    version,
    kind: kindName,
    storage: more.storage,
    schema: {
      spec: Type.Object({ size: Type.Integer({ minimum: 1, default: 1 }) }),
      status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
    },
  });
const Alpha = kind('Alpha');
const Beta = kind('Beta');

/** An app with one all-namespace controller per kind, registered in the given order. */
const appOf = (kinds: ResourceType[]) =>
  loadApp({
    operator: () => {
      const operator = new Operator({ client: KubernetesClient.fromKubeConfig(offlineKubeConfig()) });
      for (const k of kinds)
        operator.register(
          { reconcile: () => UpdateControl.noUpdate() },
          { resourceType: k, name: k.kind.toLowerCase() },
        );
      return operator;
    },
  });

const config: TosdkConfig = {
  name: 'op',
  namespace: 'op-system',
  app: { operator: () => undefined },
  deployment: { image: 'example.com/op:1.0.0' },
  output: {}, // the defaults: deploy/crds/ (one file per CRD), deploy/rbac.yaml, deploy/, chart/
};

const drift = async (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => {
      if (e instanceof TosdkCliError && e.code === 'Drift') return e.message;
      throw e;
    },
  );

describe('review S8: generated files and --check', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'review-s8-cli-files-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('[FINDING S8-CL9] a kind removed from the app: --check reports its CRD file left in deploy/crds/ and generating removes it (it stayed and --check passed)', async () => {
    const baseDir = await mkdtemp(join(dir, 'stale-'));
    await generate({ config, baseDir, target: 'crds', app: await appOf([Alpha, Beta]) });
    const betaFile = join(baseDir, 'deploy/crds/betas.review.example.com.yaml');
    expect(existsSync(betaFile)).toBe(true);
    // Beta is removed from the code; CI runs `tosdk generate all --check`
    const app = await appOf([Alpha]);
    const message = await drift(generate({ config, baseDir, target: 'crds', app, check: true }));
    // `kubectl apply -f deploy/crds/` would still install the removed CRD
    expect(message).toContain('betas.review.example.com.yaml');
    // generating removes it, and only it
    const { removed } = await generate({ config, baseDir, target: 'crds', app });
    expect(removed).toEqual([betaFile]);
    expect(existsSync(betaFile)).toBe(false);
    expect(existsSync(join(baseDir, 'deploy/crds/alphas.review.example.com.yaml'))).toBe(true);
  });

  it('[FINDING S8-CL10] --check passes on files whose only difference is CRLF line endings (a Windows checkout with core.autocrlf; it failed)', async () => {
    const baseDir = await mkdtemp(join(dir, 'crlf-'));
    const app = await appOf([Alpha]);
    const { files } = await generate({ config, baseDir, target: 'all', app });
    for (const [path, content] of Object.entries(files))
      await writeFile(path, content.replace(/\n/g, '\r\n'));
    expect(await drift(generate({ config, baseDir, target: 'all', app, check: true }))).toBeUndefined();
  });

  const relative = (files: Record<string, string>, base: string) =>
    Object.fromEntries(Object.entries(files).map(([p, c]) => [p.slice(base.length), c]));
  const withoutChart = (files: Record<string, string>) =>
    Object.fromEntries(Object.entries(files).filter(([p]) => !p.startsWith('/chart/')));

  it('guard: CRDs, RBAC and manifests are byte-identical whatever the order the controllers are registered in, and a second run changes nothing', async () => {
    const a = await mkdtemp(join(dir, 'order-a-'));
    const b = await mkdtemp(join(dir, 'order-b-'));
    const first = await generate({ config, baseDir: a, target: 'all', app: await appOf([Alpha, Beta]) });
    const second = await generate({ config, baseDir: b, target: 'all', app: await appOf([Beta, Alpha]) });
    expect(withoutChart(relative(second.files, b))).toEqual(withoutChart(relative(first.files, a)));
    const again = await generate({ config, baseDir: a, target: 'all', app: await appOf([Alpha, Beta]) });
    expect(again.changed).toEqual([]);
    const rbac = await readFile(join(a, 'deploy/rbac.yaml'), 'utf8');
    expect(rbac.startsWith('# Generated by `tosdk generate rbac`')).toBe(true);
    expect(
      await drift(
        generate({ config, baseDir: a, target: 'rbac', app: await appOf([Beta, Alpha]), check: true }),
      ),
    ).toBeUndefined();
  });

  it('[FINDING S8-CL11] the Helm chart does not depend on registration order: reordering two controllers in the code keeps the TOSDK_CONTROLLER_*_NAMESPACES entries in place (--check reported drift)', async () => {
    const a = await mkdtemp(join(dir, 'order-c-'));
    await generate({ config, baseDir: a, target: 'helm', app: await appOf([Alpha, Beta]) });
    const reordered = await appOf([Beta, Alpha]);
    expect(
      await drift(generate({ config, baseDir: a, target: 'helm', app: reordered, check: true })),
    ).toBeUndefined();
  });

  it('[FINDING S8-CL13] two outputs on one path (output.rbac: deploy/operator.yaml beside the manifests in deploy/) fail with InvalidConfig naming both (the RBAC was silently replaced by the Deployment)', async () => {
    const baseDir = await mkdtemp(join(dir, 'collide-'));
    const app = await appOf([Alpha]);
    const colliding: TosdkConfig = { ...config, output: { rbac: 'deploy/operator.yaml' } };
    const outcome = await generate({ config: colliding, baseDir, target: 'all', app }).then(
      () => 'written',
      (e: unknown) => (e instanceof TosdkCliError ? `${e.code}: ${e.message}` : String(e)),
    );
    const written = await readFile(join(baseDir, 'deploy/operator.yaml'), 'utf8').catch(() => '');
    const checked =
      outcome === 'written'
        ? ((await drift(generate({ config: colliding, baseDir, target: 'all', app, check: true }))) ??
          'check passed')
        : 'not written';
    // it was written, deploy/operator.yaml holding the Deployment only (no ServiceAccount, no roles),
    // and --check passed; now an InvalidConfig error naming both outputs
    expect(outcome).toContain('InvalidConfig');
    expect(outcome).toContain('output.rbac');
    expect(outcome).toContain('output.manifests');
    expect({
      outcome,
      hasDeployment: written.includes('kind: Deployment'),
      hasRbac: written.includes('kind: ClusterRole'),
      checked,
    }).not.toEqual({
      outcome: 'written',
      hasDeployment: true,
      hasRbac: false,
      checked: 'check passed',
    });
  });

  it('guard: a kind version declared twice and two storage versions fail generation naming the CRD and field, writing nothing', async () => {
    const baseDir = await mkdtemp(join(dir, 'twice-'));
    const twice = await drift(
      generate({
        config: { ...config, resources: [kind('Alpha')] },
        baseDir,
        target: 'crds',
        app: await appOf([Alpha]),
      }),
    ).catch((e: TosdkCliError) => `${e.code}: ${e.message}`);
    expect(twice).toContain('InvalidDefinition');
    expect(twice).toContain('alphas.review.example.com');
    expect(twice).toContain('version v1 of Alpha is declared twice');
    const storage = await drift(
      generate({
        config: { ...config, resources: [kind('Alpha', 'v2', { storage: true })] },
        baseDir,
        target: 'crds',
        app: await appOf([kind('Alpha', 'v1', { storage: true })]),
      }),
    ).catch((e: TosdkCliError) => `${e.code}: ${e.message}`);
    expect(storage).toContain('InvalidDefinition');
    expect(storage).toMatch(/v2 and v1|v1 and v2/);
    expect(existsSync(join(baseDir, 'deploy'))).toBe(false);
  });
});
