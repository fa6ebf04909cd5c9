// `tosdk generate webhooks` and the conversion it adds to the CRDs, from classes declared with
// @tosdk/nestjs/webhooks; the output is created on an in-memory API server, which validates it as
// kube-apiserver does.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { parseAllDocuments } from 'yaml';
import { KubeApiServer } from '@tosdk/apiserver';
import { defineResource } from '@tosdk/core';
import { ConversionWebhook, MutatingWebhook, ValidatingWebhook } from '@tosdk/nestjs/webhooks';
import { defineConfig, generate, render, TosdkCliError } from '../index.js';
import type { AppModel, TosdkConfig } from '../index.js';

const schema = (field: string) => ({
  spec: Type.Object({ [field]: Type.String() }),
  status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
});
const GadgetV1 = defineResource({
  group: 'example.tosdk.io',
  version: 'v1',
  kind: 'Gadget',
  storage: true,
  schema: schema('name'),
});
const GadgetV2 = defineResource({
  group: 'example.tosdk.io',
  version: 'v2',
  kind: 'Gadget',
  storage: false,
  schema: schema('title'),
});

@ValidatingWebhook({ resource: GadgetV1 })
class GadgetValidator {}
@MutatingWebhook({ resource: GadgetV1, reinvocationPolicy: 'IfNeeded' })
class GadgetDefaulter {}
@ConversionWebhook({ resource: GadgetV1, hub: 'v1' })
class GadgetConversion {}
class Unrelated {}

const app: AppModel = { controllers: [] };
const config = (webhooks?: TosdkConfig['webhooks']): TosdkConfig =>
  defineConfig({
    name: 'gadget-operator',
    namespace: 'gadgets',
    app: { operator: () => undefined },
    resources: [GadgetV1, GadgetV2],
    ...(webhooks ? { webhooks } : {}),
    output: { crds: 'deploy/crds.yaml', webhooks: 'deploy/webhooks.yaml' },
  });
const all = () => [GadgetValidator, GadgetDefaulter, GadgetConversion, Unrelated];

type Doc = { kind: string; metadata: { name: string; annotations?: Record<string, string> } } & Record<
  string,
  never
>;
const parse = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as Doc);
const one = async (c: TosdkConfig, target: 'crds' | 'webhooks', baseDir?: string) =>
  parse(Object.values(await render(c, app, target, baseDir))[0]);

describe('tosdk generate webhooks', () => {
  let dir: string;
  let server: KubeApiServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tosdk-webhooks-'));
    server = await KubeApiServer.start({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes the Service and both configurations against it, annotated for cert-manager', async () => {
    const docs = await one(
      config({ classes: all, caBundle: { certManager: 'gadgets/gadget-webhooks' } }),
      'webhooks',
    );
    expect(docs.map((d) => d.kind)).toEqual([
      'Service',
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
    ]);
    const [service, validating, mutating] = docs as unknown as [
      { metadata: { name: string; namespace: string }; spec: { selector: object; ports: object[] } },
      { metadata: { annotations: object }; webhooks: Array<Record<string, unknown>> },
      { metadata: { annotations: object }; webhooks: Array<Record<string, unknown>> },
    ];
    expect(service.metadata).toMatchObject({ name: 'gadget-operator-webhooks', namespace: 'gadgets' });
    expect(service.spec.selector).toEqual({ 'app.kubernetes.io/name': 'gadget-operator' });
    expect(service.spec.ports).toEqual([{ name: 'webhooks', port: 443, targetPort: 9443, protocol: 'TCP' }]);
    for (const c of [validating, mutating]) {
      expect(c.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': 'gadgets/gadget-webhooks' });
      expect(c.webhooks).toHaveLength(1);
      expect(c.webhooks[0]['clientConfig']).toEqual({
        service: {
          namespace: 'gadgets',
          name: 'gadget-operator-webhooks',
          port: 443,
          path: expect.stringMatching(/^\/(validate|mutate)\//),
        },
      });
    }
    expect(mutating.webhooks[0]['reinvocationPolicy']).toBe('IfNeeded');
    // accepted as they are by an API server
    const client = server.internalClient();
    for (const d of docs.slice(1)) {
      const plural =
        d.kind === 'ValidatingWebhookConfiguration'
          ? 'validatingwebhookconfigurations'
          : 'mutatingwebhookconfigurations';
      client.create('admissionregistration.k8s.io', 'v1', plural, '', d);
    }
  });

  it('adds the conversion of the CRD a conversion webhook converts, and the CA of a PEM file everywhere', async () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    await writeFile(join(dir, 'ca.pem'), pem);
    const c = config({ classes: all, caBundle: { file: 'ca.pem' }, service: { name: 'hooks', port: 8443 } });
    const [crd] = (await one(c, 'crds', dir)) as unknown as Array<{
      metadata: { annotations?: object };
      spec: { versions: Array<{ name: string }>; conversion: Record<string, unknown> };
    }>;
    expect(crd.spec.versions.map((v) => v.name).sort()).toEqual(['v1', 'v2']);
    const caBundle = Buffer.from(pem).toString('base64');
    expect(crd.spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: {
          service: {
            namespace: 'gadgets',
            name: 'hooks',
            port: 8443,
            path: expect.stringContaining('gadgets.example.tosdk.io'),
          },
          caBundle,
        },
      },
    });
    expect(crd.metadata.annotations).toBeUndefined();
    const hooks = (await one(c, 'webhooks', dir)) as unknown as Array<{
      webhooks?: Array<{ clientConfig: { caBundle?: string } }>;
    }>;
    for (const h of hooks.slice(1)) expect(h.webhooks![0].clientConfig.caBundle).toBe(caBundle);
    server.internalClient().create('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', '', crd);
  });

  it('leaves the CRDs without conversion and writes no webhooks file for a config without webhooks', async () => {
    const [crd] = (await one(config(), 'crds')) as unknown as Array<{ spec: { conversion?: unknown } }>;
    expect(crd.spec.conversion).toBeUndefined();
    // nor for a CRD of one version, even with its conversion webhook declared
    const [single] = (await one(
      {
        ...config({ classes: all, caBundle: { certManager: 'gadgets/gadget-webhooks' } }),
        resources: [GadgetV1],
      },
      'crds',
    )) as unknown as Array<{ metadata: { annotations?: object }; spec: { conversion?: unknown } }>;
    expect(single.spec.conversion).toBeUndefined();
    expect(single.metadata.annotations).toBeUndefined();
    const withDeployment = (c: TosdkConfig): TosdkConfig => ({
      ...c,
      deployment: { image: 'example/gadget:1' },
    });
    const without = await generate({ config: withDeployment(config()), baseDir: dir, target: 'all', app });
    const withHooks = await generate({
      config: withDeployment(config({ classes: all })),
      baseDir: join(dir, 'with'),
      target: 'all',
      app,
    });
    const webhookFiles = (r: { files: Record<string, string> }) =>
      Object.keys(r.files).filter((p) => p.endsWith('webhooks.yaml'));
    expect(webhookFiles(without)).toEqual([]);
    expect(webhookFiles(withHooks)).toEqual([join(dir, 'with', 'deploy/webhooks.yaml')]);
    await expect(render(config(), app, 'webhooks')).rejects.toMatchObject({
      code: 'InvalidConfig',
      message: expect.stringContaining('needs `webhooks` in the config'),
    });
  });

  it('fails with a typed error naming what to fix', async () => {
    const noHooks = render(config({ classes: () => [Unrelated] }), app, 'webhooks');
    await expect(noHooks).rejects.toBeInstanceOf(TosdkCliError);
    await expect(noHooks).rejects.toMatchObject({
      code: 'InvalidConfig',
      message: expect.stringContaining('@ValidatingWebhook, @MutatingWebhook or @ConversionWebhook'),
    });
    const missing = join(dir, 'absent.pem');
    await expect(
      render(config({ classes: all, caBundle: { file: 'absent.pem' } }), app, 'webhooks', dir),
    ).rejects.toMatchObject({ code: 'InvalidConfig', message: expect.stringContaining(missing) });
    const throwing = render(
      config({
        classes: () => {
          throw new Error('boom');
        },
      }),
      app,
      'webhooks',
    );
    await expect(throwing).rejects.toMatchObject({
      code: 'InvalidConfig',
      message: expect.stringContaining('webhooks.classes() failed: boom'),
      cause: expect.any(Error),
    });
    expect(await readFile(join(dir, 'ca.pem'), 'utf8')).toContain('CERTIFICATE');
  });
});
