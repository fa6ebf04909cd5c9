import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import type { V1Secret } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import { ResourceID } from '../../api/resource-id.js';
import { Operator } from '../../operator/operator.js';
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
      const uids: string[] = [];
      for (let i = 0; i < 25; i++) {
        const name = `cm-${i}`;
        const created = await client.create(ConfigMap, {
          metadata: { name, namespace: 'default' },
          data: { a: '1' },
        });
        uids.push(created.metadata!.uid!);
        await client.mergePatch(ConfigMap, new ResourceID(name, 'default'), { data: { b: '2' } });
        await client.apply(
          ConfigMap,
          { metadata: { name, namespace: 'default' }, data: { c: '3' } },
          { fieldManager: 'retry-test' },
        );
      }
      // a delete is repeated only with a precondition (a blind repeat could delete a namesake)
      for (let i = 0; i < 25; i++) {
        await client.delete(ConfigMap, new ResourceID(`cm-${i}`, 'default'), {
          preconditions: { uid: uids[i] },
        });
      }
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

  it("an operator's transient write failure is retried by its client: no reconcile retry is spent, and Metrics.clientRetry reports it", async () => {
    const admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
    await admin.create(ResourceTypes.Namespace, { metadata: { name: 'op-retry' } });
    const retries: string[] = [];
    const reconcileRetries: number[] = [];
    let runs = 0;
    const operator = new Operator({
      kubeConfig: server.kubeConfig(),
      clientOptions: { retry: { initialDelayMs: 1, maxDelayMs: 4 } },
      metrics: {
        clientRetry: (verb, reason) => retries.push(`${verb}:${reason}`),
        retrying: (_id, _c, attempt) => reconcileRetries.push(attempt),
      },
    });
    operator.register(
      {
        reconcile: async (secret: V1Secret, context: Context<V1Secret>) => {
          runs++;
          await context.client.apply(
            ResourceTypes.ConfigMap,
            { metadata: { name: `child-${secret.metadata!.name}`, namespace: 'op-retry' }, data: { a: '1' } },
            { fieldManager: 'op-retry' },
          );
          return UpdateControl.noUpdate<V1Secret>();
        },
      },
      { resourceType: ResourceTypes.Secret, name: 'secrets', namespaces: ['op-retry'] },
    );
    await operator.start();
    try {
      server.faults.failNext({
        verb: 'patch',
        resource: 'configmaps',
        namespace: 'op-retry',
        code: 500,
        times: 2,
      });
      await admin.create(ResourceTypes.Secret, { metadata: { name: 's1', namespace: 'op-retry' } });
      const deadline = Date.now() + 10_000;
      while (!(await admin.get(ResourceTypes.ConfigMap, new ResourceID('child-s1', 'op-retry')))) {
        if (Date.now() > deadline) throw new Error('the child was not created within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(retries).toEqual(['apply:500', 'apply:500']);
      expect(reconcileRetries).toEqual([]);
      expect(runs).toBe(1);
    } finally {
      await operator.stop();
      admin.close();
    }
  });
});
