// Review S12 (client): what an operator author observes against @tosdk/apiserver, which answers
// as kube-apiserver does (DeleteOptions, fieldValidation, Warning headers).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { defineResource } from '../../api/resource-type.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../kubernetes-client.js';
import type { KubernetesClientOptions } from '../kubernetes-client.js';

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
});
