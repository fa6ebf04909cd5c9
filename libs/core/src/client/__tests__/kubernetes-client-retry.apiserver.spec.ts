import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../kubernetes-client.js';

const ConfigMap = ResourceTypes.ConfigMap;

describe('KubernetesClient retries against the API server with injected faults', () => {
  let server: KubeApiServer;

  beforeAll(async () => {
    server = await KubeApiServer.start({ port: 0 });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('under 30% failed writes (429, 500, 503) every create, merge patch, apply and delete succeeds for the caller, each injected failure costing one retry', async () => {
    const retries: string[] = [];
    const client = KubernetesClient.fromKubeConfig(server.kubeConfig(), {
      retry: { maxRetries: 10, initialDelayMs: 1, maxDelayMs: 4 },
      metrics: { clientRetry: (verb, reason) => retries.push(`${verb}:${reason}`) },
    });
    const fault = server.faults.failRate({
      resource: 'configmaps',
      verbs: ['create', 'patch', 'delete'],
      rate: 0.3,
      code: [429, 500, 503],
      retryAfterSeconds: 0,
      seed: 7,
    });
    try {
      for (let i = 0; i < 25; i++) {
        const name = `cm-${i}`;
        await client.create(ConfigMap, { metadata: { name, namespace: 'default' }, data: { a: '1' } });
        await client.mergePatch(ConfigMap, new ResourceID(name, 'default'), { data: { b: '2' } });
        await client.apply(
          ConfigMap,
          { metadata: { name, namespace: 'default' }, data: { c: '3' } },
          { fieldManager: 'retry-test' },
        );
      }
      for (let i = 0; i < 25; i++) await client.delete(ConfigMap, new ResourceID(`cm-${i}`, 'default'));
    } finally {
      fault.remove();
    }
    expect(fault.injected).toBeGreaterThan(10);
    expect(retries).toHaveLength(fault.injected);
    // nothing left behind, nothing doubled
    const left = await client.list(ConfigMap, { namespace: 'default' });
    expect(left.items.filter((c) => c.metadata?.name?.startsWith('cm-'))).toEqual([]);
    expect(server.requests.count({ verb: 'create', resource: 'configmaps', code: 201 })).toBe(25);
    client.close();
  });
});
