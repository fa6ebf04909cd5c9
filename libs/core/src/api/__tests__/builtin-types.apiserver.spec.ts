// ResourceTypes of the kinds operators create as dependents, through the client against
// @tosdk/apiserver: their URLs (group, version, plural) reach the resources the server serves.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { ResourceTypes } from '../builtin-types.js';
import { ResourceID } from '../resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';

describe('ResourceTypes against @tosdk/apiserver', () => {
  let server: KubeApiServer;
  let client: KubernetesClient;
  beforeAll(async () => {
    server = await KubeApiServer.start({ port: 0 });
    client = KubernetesClient.fromKubeConfig(server.kubeConfig());
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('[FINDING S12-PK4] PodDisruptionBudget, NetworkPolicy, HorizontalPodAutoscaler and CronJob are ResourceTypes the client creates, applies and reads', async () => {
    const meta = { name: 'web', namespace: 'default' };
    await client.create(ResourceTypes.PodDisruptionBudget, {
      metadata: meta,
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    await client.create(ResourceTypes.NetworkPolicy, { metadata: meta, spec: { podSelector: {} } });
    await client.apply(
      ResourceTypes.HorizontalPodAutoscaler,
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: meta,
        spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3 },
      },
      { fieldManager: 'op' },
    );
    await client.create(ResourceTypes.CronJob, {
      metadata: meta,
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: {
          spec: {
            template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
          },
        },
      },
    });
    const id = new ResourceID('web', 'default');
    expect((await client.get(ResourceTypes.PodDisruptionBudget, id))?.spec?.minAvailable).toBe(1);
    expect((await client.get(ResourceTypes.NetworkPolicy, id))?.spec?.policyTypes).toEqual(['Ingress']);
    expect((await client.get(ResourceTypes.HorizontalPodAutoscaler, id))?.spec?.minReplicas).toBe(1);
    expect((await client.get(ResourceTypes.CronJob, id))?.spec?.concurrencyPolicy).toBe('Allow');
  });
});
