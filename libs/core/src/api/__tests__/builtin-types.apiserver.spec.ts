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

  it('[FINDING S13-IK7] Node, ResourceQuota, LimitRange, EndpointSlice, StorageClass and PriorityClass are ResourceTypes the client creates, applies and reads', async () => {
    await client.create(ResourceTypes.Node, {
      metadata: { name: 'worker-1' },
      status: { capacity: { cpu: '2' } },
    });
    await client.create(ResourceTypes.ResourceQuota, {
      metadata: { name: 'team', namespace: 'default' },
      spec: { hard: { pods: '10' } },
    });
    await client.apply(
      ResourceTypes.LimitRange,
      {
        apiVersion: 'v1',
        kind: 'LimitRange',
        metadata: { name: 'defaults', namespace: 'default' },
        spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] },
      },
      { fieldManager: 'op' },
    );
    await client.apply(
      ResourceTypes.EndpointSlice,
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'web-1', namespace: 'default' },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.1'] }],
        ports: [{ port: 80 }],
      },
      { fieldManager: 'op' },
    );
    await client.create(ResourceTypes.StorageClass, {
      metadata: { name: 'fast' },
      provisioner: 'example.com/ssd',
    });
    await client.create(ResourceTypes.PriorityClass, { metadata: { name: 'high' }, value: 1000 });
    expect((await client.get(ResourceTypes.Node, new ResourceID('worker-1')))?.status?.allocatable).toEqual({
      cpu: '2',
    });
    const ns = (name: string): ResourceID => new ResourceID(name, 'default');
    expect((await client.get(ResourceTypes.ResourceQuota, ns('team')))?.spec?.hard).toEqual({ pods: '10' });
    expect((await client.get(ResourceTypes.LimitRange, ns('defaults')))?.spec?.limits[0]?.default).toEqual({
      cpu: '1',
    });
    expect((await client.get(ResourceTypes.EndpointSlice, ns('web-1')))?.ports?.[0]?.protocol).toBe('TCP');
    expect((await client.get(ResourceTypes.StorageClass, new ResourceID('fast')))?.reclaimPolicy).toBe(
      'Delete',
    );
    const priorities = await client.list(ResourceTypes.PriorityClass);
    expect(priorities.items.map((c) => c.metadata?.name)).toEqual([
      'high',
      'system-cluster-critical',
      'system-node-critical',
    ]);
  });
});
