import { describe, expect, it } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import { ResourceID } from '../../api/resource-id.js';
import { defineResource } from '../../api/resource-type.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { apiServerSuite, newNamespace, waitFor, Widget } from './support.js';

const bed = apiServerSuite();

describe('runtime info review (session 9)', () => {
  it('a watch refused with 403 in one namespace makes the controller unhealthy, naming that namespace; it recovers', async () => {
    const ns1 = await newNamespace(bed.admin);
    const ns2 = await newNamespace(bed.admin);
    const operator = bed.operator({});
    operator.register(
      { reconcile: () => UpdateControl.noUpdate<Widget>() },
      { resourceType: Widget, name: 'health', namespaces: [ns1, ns2] },
    );
    await operator.start();
    const info = operator.runtimeInfo;
    expect(info.isStarted()).toBe(true);
    await waitFor(() => info.allEventSourcesHealthy(), 'healthy after start');
    const refusal = bed.server.faults.failRate({
      verb: 'watch',
      resource: 'widgets',
      namespace: ns2,
      rate: 1,
      code: 403,
    });
    const listRefusal = bed.server.faults.failRate({
      verb: 'list',
      resource: 'widgets',
      namespace: ns2,
      rate: 1,
      code: 403,
    });
    bed.server.faults.closeAllWatches();
    await waitFor(() => !info.allEventSourcesHealthy(), 'unhealthy after the refusals');
    const unhealthy = info.unhealthyEventSources();
    expect(unhealthy).toHaveLength(1);
    expect(unhealthy[0].reason).toContain(ns2);
    expect(unhealthy[0].reason).not.toContain(`${ns1}:`);
    refusal.remove();
    listRefusal.remove();
    await waitFor(() => info.allEventSourcesHealthy(), 'healthy again', 20_000);
  });

  it('deleting the CRD of a primary makes its controller unhealthy', async () => {
    const ns = await newNamespace(bed.admin);
    const Thing = defineResource<KubernetesResource>({
      group: 'health.tosdk.io',
      version: 'v1',
      kind: 'Thing',
    });
    const CRD = defineResource<KubernetesResource>({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      scope: 'Cluster',
    });
    await bed.admin.create(CRD, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.health.tosdk.io' },
      spec: {
        group: 'health.tosdk.io',
        scope: 'Namespaced',
        names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    } as KubernetesResource);
    await waitFor(
      async () =>
        (
          await bed.admin
            .request<{ resources?: Array<{ name?: string }> }>('/apis/health.tosdk.io/v1')
            .catch(() => undefined)
        )?.resources?.some((r) => r.name === 'things') ?? false,
      'CRD served',
    );
    const operator = bed.operator({});
    operator.register(
      { reconcile: () => UpdateControl.noUpdate<KubernetesResource>() },
      { resourceType: Thing, name: 'things', namespaces: [ns] },
    );
    await operator.start();
    const info = operator.runtimeInfo;
    await waitFor(() => info.allEventSourcesHealthy(), 'healthy after start');
    await bed.admin.delete(CRD, new ResourceID('things.health.tosdk.io'));
    await waitFor(
      async () => !(await bed.admin.get(CRD, new ResourceID('things.health.tosdk.io'))),
      'CRD gone',
    );
    // the server ends the watches of a kind whose CRD is removed (its storage is torn down), as kube
    await waitFor(() => !info.allEventSourcesHealthy(), 'unhealthy after the CRD was deleted', 15_000);
    expect(info.unhealthyEventSources()[0]).toMatchObject({ controller: 'things', healthy: false });
  });
});
