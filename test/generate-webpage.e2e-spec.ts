// The WebPage sample's CRD, RBAC, deploy files and Helm chart are generated from its code by
// `tosdk generate`; this test is the CI check that the committed files are what the code generates
// (the same as `tosdk generate all --check`), and that --check catches drift.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { generate, loadApp, render, TosdkCliError } from '@tosdk/cli';
import type { AppModel } from '@tosdk/cli';
import webPageConfig, { webPageToolConfig } from '../apps/webpage/src/tosdk.config.js';

const CONFIG_DIR = fileURLToPath(new URL('../apps/webpage/src/', import.meta.url));

describe('tosdk generate on the WebPage sample', () => {
  let app: AppModel;
  beforeAll(async () => {
    app = await loadApp(webPageConfig.app);
  }, 60_000);

  it('reads the controller from the Nest module without connecting anywhere', () => {
    expect(app.controllers.map((c) => c.name)).toEqual(['webpage']);
    const [c] = app.controllers;
    expect(c.configuration.resourceType.kind).toBe('WebPage');
    expect(c.watched.map((w) => w.type.plural).sort()).toEqual([
      'configmaps',
      'deployments',
      'ingresses',
      'services',
    ]);
    expect(c.dependents.find((d) => d.type.plural === 'ingresses')).toMatchObject({
      create: true,
      delete: true,
    });
    expect(c.dependents.find((d) => d.type.plural === 'configmaps')).toMatchObject({
      create: true,
      delete: false,
    });
  });

  // TOSDK_REGENERATE=1 writes the files instead (how to update them after a generator change:
  // `TOSDK_REGENERATE=1 npm test -- test/generate-webpage.e2e-spec.ts -t 'up to date'`)
  const regenerate = process.env['TOSDK_REGENERATE'] === '1';
  it('the committed CRD, RBAC, manifests and chart are up to date (tosdk generate all --check)', async () => {
    const result = await generate({
      config: webPageConfig,
      baseDir: CONFIG_DIR,
      target: 'all',
      check: !regenerate,
      app,
    });
    expect(Object.keys(result.files).length).toBeGreaterThanOrEqual(9);
    if (!regenerate) expect(result.changed).toEqual([]);
  });

  it('all three flavours need the same RBAC (the deploy files serve any of them)', async () => {
    const rbac = async (flavour: 'lowlevel' | 'managed' | 'standalone') => {
      const config = webPageToolConfig(flavour);
      return Object.values(await render(config, await loadApp(config.app), 'rbac'))[0];
    };
    const managed = await rbac('managed');
    expect(await rbac('lowlevel')).toBe(managed);
    expect(await rbac('standalone')).toBe(managed);
  }, 60_000);

  it('the Helm templates balance their blocks and are YAML once values are filled in', async () => {
    const values = { replicas: '3', image: 'ghcr.io/x/y:1', pullPolicy: 'Always', namespaces: ['a', 'b'] };
    for (const name of ['rbac.yaml', 'deployment.yaml', 'serviceaccount.yaml']) {
      const text = await readFile(join(CONFIG_DIR, '../chart/templates', name), 'utf8');
      const opened = (text.match(/\{\{-? (if|range) /g) ?? []).length;
      expect([name, (text.match(/\{\{-? end \}\}/g) ?? []).length]).toEqual([name, opened]);
      // a poor man's render: both branches of each if, one namespace for range, values inlined
      const rendered = text
        .split('\n')
        .filter((line) => !/^\s*\{\{-? (if|else|end|range)\b.*\}\}\s*$/.test(line))
        .map((line) =>
          line
            .replace(
              /^(\s*)\{\{- toYaml \.Values\.resources \| nindent \d+ \}\}$/,
              '$1requests: { cpu: 10m }',
            )
            .replace('{{ .Values.replicas }}', values.replicas)
            .replace('"{{ .Values.image.repository }}:{{ .Values.image.tag }}"', values.image)
            .replace('{{ .Values.image.pullPolicy }}', values.pullPolicy)
            .replace(/\{\{ join "," \.Values\.watchNamespaces \| quote \}\}/, '"a,b"')
            .replace(/\{\{ \$?\.Release\.Namespace \}\}/g, 'webpage-system')
            .replace('{{ . }}', 'a'),
        )
        .join('\n');
      expect([name, rendered]).not.toEqual([name, expect.stringContaining('{{')]);
      const docs = parseAllDocuments(rendered);
      expect([name, docs.flatMap((d) => d.errors.map((e) => e.message))]).toEqual([name, []]);
      for (const doc of docs) expect((doc.toJS() as { kind?: string } | null)?.kind).toBeDefined();
    }
    const deployment = await readFile(join(CONFIG_DIR, '../chart/templates/deployment.yaml'), 'utf8');
    expect(deployment).toContain('- name: TOSDK_CONTROLLER_WEBPAGE_NAMESPACES');
  });

  describe('--check', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'tosdk-check-'));
      await cp(join(CONFIG_DIR, '../deploy'), join(dir, 'deploy'), { recursive: true });
      await cp(join(CONFIG_DIR, '../chart'), join(dir, 'chart'), { recursive: true });
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('fails naming the file that differs and the command that fixes it, and generating repairs it', async () => {
      const config = {
        ...webPageConfig,
        output: {
          crds: 'deploy/webpage-crd.yaml',
          rbac: 'deploy/rbac.yaml',
          manifests: 'deploy',
          helm: 'chart',
          webhooks: 'deploy/webhooks/webhooks.yaml',
        },
      };
      const base = join(dir, 'x');
      await expect(
        generate({ config, baseDir: dir, target: 'rbac', check: true, app }),
      ).resolves.toMatchObject({ changed: [] });
      const rbac = join(dir, 'deploy/rbac.yaml');
      const original = await readFile(rbac, 'utf8');
      await writeFile(rbac, original.replace('- delete\n', ''));
      const failure = await generate({ config, baseDir: dir, target: 'rbac', check: true, app }).catch(
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(TosdkCliError);
      expect(failure).toMatchObject({ code: 'Drift', message: expect.stringContaining('deploy/rbac.yaml') });
      expect((failure as Error).message).toContain('tosdk generate rbac');
      await rm(join(dir, 'deploy/operator.yaml'));
      await expect(
        generate({ config, baseDir: dir, target: 'manifests', check: true, app }),
      ).rejects.toMatchObject({
        code: 'Drift',
        message: expect.stringContaining('deploy/operator.yaml'),
      });
      const fixed = await generate({ config, baseDir: dir, target: 'all', app });
      expect(fixed.changed.sort()).toEqual([join(dir, 'deploy/operator.yaml'), rbac].sort());
      expect(await readFile(rbac, 'utf8')).toBe(original);
      void base;
    });
  });
});
