import { beforeAll, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { EventSourceContext } from '../../../api/reconciler.js';
import { defineResource } from '../../../api/resource-type.js';
import type { KubernetesResource } from '../../../api/resource-type.js';
import { EventSourceStartError } from '../../../operator/errors.js';
import { Operator } from '../../../operator/operator.js';
import { apiServerSuite, waitFor, Widget, widget } from '../../../operator/__tests__/support.js';
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

const bed = apiServerSuite({ rbac: true, users: [{ name: 'op', token: 'op-token' }] });
const NS = 'default';

beforeAll(async () => {
  // the operator may work with widgets, not with configmaps
  await bed.admin.create(rbac('ClusterRole'), {
    metadata: { name: 'widgets' },
    rules: [{ apiGroups: ['test.tosdk.io'], resources: ['widgets', 'widgets/status'], verbs: ['*'] }],
  });
  await bed.admin.create(rbac('ClusterRoleBinding'), {
    metadata: { name: 'op-widgets' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'widgets' },
    subjects: [{ kind: 'User', name: 'op' }],
  });
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
    const strict = new Operator({ kubeConfig: bed.server.kubeConfig('op'), cacheSyncTimeoutMs: 10_000 });
    strict.register(reconciler([]), { resourceType: Widget, name: 'strict', namespaces: [NS] });
    const error = await strict.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventSourceStartError);
    expect((error as EventSourceStartError).eventSource).toBe('cms');
    expect((error as EventSourceStartError).cause).toBeInstanceOf(InformerEventSourceStartError);
    expect((error as Error).message).toMatch(/403|forbidden/i);

    const seen: string[] = [];
    const lenient = new Operator({
      kubeConfig: bed.server.kubeConfig('op'),
      stopOnInformerErrorDuringStartup: false,
    });
    lenient.register(reconciler(seen), { resourceType: Widget, name: 'lenient', namespaces: [NS] });
    try {
      await lenient.start();
      expect(lenient.runtimeInfo.unhealthyEventSources().map((u) => u.eventSource)).toEqual(['cms']);
      const w = await bed.admin.create(Widget, widget('w', NS));
      await waitFor(() => seen.includes('w:0'), 'primaries reconcile meanwhile');
      await bed.admin.create(CM, ownedConfigMap('c', NS, w));
      await bed.admin.create(rbac('Role'), {
        metadata: { name: 'cms', namespace: NS },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
      });
      await bed.admin.create(rbac('RoleBinding'), {
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
