// Review S12 (client): what an operator author observes against @tosdk/apiserver, which answers
// as kube-apiserver does (DeleteOptions, fieldValidation, Warning headers).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { defineResource } from '../../api/resource-type.js';
import type { CustomResource, KubernetesResource } from '../../api/resource-type.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import type { LogFields, Logger } from '../../util/logger.js';
import { KubernetesApiError } from '../errors.js';
import { KubernetesClient } from '../kubernetes-client.js';
import type { KubernetesClientOptions } from '../kubernetes-client.js';

type Gadget = CustomResource<{ size?: number }, { ready?: boolean }>;
const Gadget = defineResource<Gadget>({ group: 's12.tosdk.io', version: 'v1', kind: 'Gadget' });
const CRD = defineResource<KubernetesResource & { spec: unknown }>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

const gadgetCrd = {
  metadata: { name: 'gadgets.s12.tosdk.io' },
  spec: {
    group: 's12.tosdk.io',
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' } } },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
};

/** A logger that records what it is given, per level. */
function recordingLogger(): Logger & {
  lines: Array<{ level: string; message: string; fields?: LogFields }>;
} {
  const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
  const logger = {
    lines,
    debug: (message: string, fields?: LogFields) => lines.push({ level: 'debug', message, fields }),
    info: (message: string, fields?: LogFields) => lines.push({ level: 'info', message, fields }),
    warn: (message: string, fields?: LogFields) => lines.push({ level: 'warn', message, fields }),
    error: (message: string, fields?: LogFields) => lines.push({ level: 'error', message, fields }),
    child: () => logger,
  };
  return logger;
}

describe('review S12: the client against @tosdk/apiserver', () => {
  let server: KubeApiServer;
  let client: KubernetesClient;
  const clients: KubernetesClient[] = [];
  const newClient = (options: KubernetesClientOptions = {}) => {
    const c = KubernetesClient.fromKubeConfig(server.kubeConfig(), options);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    server = await KubeApiServer.start({ port: 0 });
    client = newClient();
    await client.create(CRD, gadgetCrd);
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const found = await client
        .request<{ resources?: { name: string }[] }>('/apis/s12.tosdk.io/v1')
        .catch(() => undefined);
      if (found?.resources?.some((r) => r.name === 'gadgets')) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await server.stop();
  });

  it('[FINDING S12-CL1] delete with dryRun and a propagationPolicy, precondition or grace period really deletes the object', async () => {
    const cm = (name: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default' },
      data: { k: 'v' },
    });
    const made = await client.create(ResourceTypes.ConfigMap, cm('dry-delete-policy'));
    const withPolicy = new ResourceID('dry-delete-policy', 'default');
    await client.delete(ResourceTypes.ConfigMap, withPolicy, {
      dryRun: true,
      propagationPolicy: 'Background',
    });
    // kube-apiserver reads DeleteOptions from the body when there is one, and then ignores the query
    expect(await client.get(ResourceTypes.ConfigMap, withPolicy)).toBeDefined();
    await client.delete(ResourceTypes.ConfigMap, withPolicy, {
      dryRun: true,
      preconditions: { uid: made.metadata!.uid },
    });
    expect(await client.get(ResourceTypes.ConfigMap, withPolicy)).toBeDefined();
    await client.delete(ResourceTypes.ConfigMap, withPolicy, { dryRun: true, gracePeriodSeconds: 0 });
    expect(await client.get(ResourceTypes.ConfigMap, withPolicy)).toBeDefined();
    // without dryRun it is deleted
    await client.delete(ResourceTypes.ConfigMap, withPolicy, { propagationPolicy: 'Background' });
    expect(await client.get(ResourceTypes.ConfigMap, withPolicy)).toBeUndefined();
  });

  it('[FINDING S12-CL3] a Warning the API server sends with a write (an unknown field it dropped) reaches nobody', async () => {
    const logger = recordingLogger();
    const warned = newClient({ logger });
    const created = await warned.create(Gadget, {
      apiVersion: 's12.tosdk.io/v1',
      kind: 'Gadget',
      metadata: { name: 'typo', namespace: 'default' },
      spec: { size: 1, colour: 'red' } as Gadget['spec'],
    });
    // the server dropped the field and said so in a Warning header
    expect((created.spec as Record<string, unknown>).colour).toBeUndefined();
    const warnings = logger.lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toContain('unknown field "spec.colour"');
    expect(warnings[0].fields).toMatchObject({
      method: 'POST',
      path: '/apis/s12.tosdk.io/v1/namespaces/default/gadgets',
    });
    // the same warning again is not logged twice (client-go's deduplicating warning writer)
    await warned.apply(
      Gadget,
      {
        metadata: { name: 'typo', namespace: 'default' },
        spec: { size: 2, colour: 'red' } as Gadget['spec'],
      },
      { fieldManager: 's12' },
    );
    expect(logger.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('[FINDING S12-CL4] a write cannot ask for fieldValidation=Strict: a typo in a spec is dropped instead of refused', async () => {
    const strict = { fieldValidation: 'Strict' } as const;
    const typo = {
      apiVersion: 's12.tosdk.io/v1',
      kind: 'Gadget',
      metadata: { name: 'strict', namespace: 'default' },
      spec: { size: 1, colour: 'red' } as Gadget['spec'],
    };
    const refused = await client.create(Gadget, typo, strict).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(KubernetesApiError);
    expect((refused as KubernetesApiError).status).toBe(400);
    expect((refused as KubernetesApiError).message).toContain('unknown field "spec.colour"');
    const id = new ResourceID('strict', 'default');
    expect(await client.get(Gadget, id)).toBeUndefined();

    await client.create(Gadget, { ...typo, spec: { size: 1 } }, strict);
    for (const write of [
      () => client.mergePatch(Gadget, id, { spec: { colour: 'blue' } }, strict),
      () =>
        client.apply(
          Gadget,
          {
            metadata: { name: 'strict', namespace: 'default' },
            spec: { size: 3, colour: 'blue' } as Gadget['spec'],
          },
          { fieldManager: 's12', ...strict },
        ),
    ]) {
      const error = await write().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KubernetesApiError);
      expect((error as KubernetesApiError).message).toContain('colour');
    }
    // Ignore: no warning, the field dropped
    const logger = recordingLogger();
    await newClient({ logger }).mergePatch(
      Gadget,
      id,
      { spec: { colour: 'green' } },
      { fieldValidation: 'Ignore' },
    );
    expect(logger.lines.filter((l) => l.level === 'warn')).toEqual([]);
  });
});
