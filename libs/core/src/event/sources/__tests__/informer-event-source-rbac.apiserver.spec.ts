import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { KubeApiServer } from '@tosdk/apiserver';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { EventSourceContext } from '../../../api/reconciler.js';
import { defineResource } from '../../../api/resource-type.js';
import type { KubernetesResource } from '../../../api/resource-type.js';
import { KubernetesClient } from '../../../client/kubernetes-client.js';
import { EventSourceStartError } from '../../../operator/errors.js';
import { Operator } from '../../../operator/operator.js';
import { waitFor, Widget, widget } from '../../../operator/__tests__/support.js';
import { InformerEventSourceStartError } from '../errors.js';
import { InformerEventSource } from '../informer-event-source.js';
import { ownedConfigMap } from './helpers.js';

const CM = ResourceTypes.ConfigMap;
const rbac = (kind: string) =>
  defineResource<KubernetesResource & Record<string, unknown>>({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind,
    scope: kind.startsWith('Cluster') ? 'Cluster' : 'Namespaced',
  });
const CRD = defineResource<KubernetesResource & Record<string, unknown>>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  scope: 'Cluster',
});

let server: KubeApiServer;
let admin: KubernetesClient;
const NS = 'default';

beforeAll(async () => {
  server = await KubeApiServer.start({ port: 0, rbac: true, users: [{ name: 'op', token: 'op-token' }] });
  admin = KubernetesClient.fromKubeConfig(server.kubeConfig());
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  await admin.create(CRD, {
    metadata: { name: 'widgets.test.tosdk.io' },
    spec: {
      group: 'test.tosdk.io',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
        },
      ],
    },
  });
  await waitFor(async () => {
    const list = await admin
      .request<{ resources?: unknown[] }>('/apis/test.tosdk.io/v1')
      .catch(() => undefined);
    return (list?.resources?.length ?? 0) > 0;
  }, 'CRD served');
  // the operator may work with widgets, not with configmaps
  await admin.create(rbac('ClusterRole'), {
    metadata: { name: 'widgets' },
    rules: [{ apiGroups: ['test.tosdk.io'], resources: ['widgets', 'widgets/status'], verbs: ['*'] }],
  });
  await admin.create(rbac('ClusterRoleBinding'), {
    metadata: { name: 'op-widgets' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'widgets' },
    subjects: [{ kind: 'User', name: 'op' }],
  });
});
afterAll(async () => {
  admin.close();
  await server.stop();
});

function reconciler(seen: string[]) {
  return {
    prepareEventSources: (c: EventSourceContext<Widget>) => ({
      cms: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, c),
    }),
    reconcile: (w: Widget, c: Context<Widget>) => {
      seen.push(`${w.metadata!.name}:${c.getSecondaryResources(CM).length}`);
      return UpdateControl.noUpdate();
    },
  };
}

describe('an informer event source without access (403) at start', () => {
  it('[ES-18] with stopOnInformerErrorDuringStartup the start fails with a clear error; without it the operator starts, reports the source unhealthy and recovers when access is granted', async () => {
    const strict = new Operator({ kubeConfig: server.kubeConfig('op'), cacheSyncTimeoutMs: 10_000 });
    strict.register(reconciler([]), { resourceType: Widget, name: 'strict', namespaces: [NS] });
    const error = await strict.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventSourceStartError);
    expect((error as EventSourceStartError).eventSource).toBe('cms');
    expect((error as EventSourceStartError).cause).toBeInstanceOf(InformerEventSourceStartError);
    expect((error as Error).message).toMatch(/403|forbidden/i);

    const seen: string[] = [];
    const lenient = new Operator({
      kubeConfig: server.kubeConfig('op'),
      stopOnInformerErrorDuringStartup: false,
    });
    lenient.register(reconciler(seen), { resourceType: Widget, name: 'lenient', namespaces: [NS] });
    try {
      await lenient.start();
      expect(lenient.runtimeInfo.unhealthyEventSources().map((u) => u.eventSource)).toEqual(['cms']);
      const w = await admin.create(Widget, widget('w', NS));
      await waitFor(() => seen.includes('w:0'), 'primaries reconcile meanwhile');
      await admin.create(CM, ownedConfigMap('c', NS, w));
      await admin.create(rbac('Role'), {
        metadata: { name: 'cms', namespace: NS },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
      });
      await admin.create(rbac('RoleBinding'), {
        metadata: { name: 'op-cms', namespace: NS },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cms' },
        subjects: [{ kind: 'User', name: 'op' }],
      });
      await waitFor(() => lenient.runtimeInfo.allEventSourcesHealthy(), 'recovered', 20_000);
      await waitFor(() => seen.includes('w:1'), 'the secondary reconciles its primary after recovery');
    } finally {
      await lenient.stop();
    }
  });
});
