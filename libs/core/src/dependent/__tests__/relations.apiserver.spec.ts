import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { CRUDKubernetesDependentResource } from '../crud-kubernetes-dependent-resource.js';
import { KubernetesDependentResource } from '../kubernetes-dependent-resource.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

const suite = apiServerSuite();

const observed = async (ns: string, name: string, value = 'a') =>
  (await suite.admin.get(Widget, new ResourceID(name, ns)))?.status?.observed === value;

class StatusReconciler implements Reconciler<Widget> {
  reconcile(resource: Widget) {
    if (resource.status?.observed === resource.spec?.value) return UpdateControl.noUpdate<Widget>();
    resource.status = { observed: resource.spec?.value };
    return UpdateControl.patchStatus(resource);
  }
}

/** A Secret whose content is derived from the ConfigMap dependent (reads another dependent). */
class SecretFromConfigMap extends CRUDKubernetesDependentResource<V1Secret, Widget> {
  constructor() {
    super({ resourceType: ResourceTypes.Secret, name: 'secret' });
  }
  protected desired(p: Widget, c: Context<Widget>): V1Secret {
    const source = c
      .managedWorkflowAndDependentResourceContext()
      .getSecondaryResource<V1ConfigMap>('configmap');
    return {
      metadata: { name: `${p.metadata!.name!}-secret` },
      stringData: { copy: source?.data?.['value'] ?? '' },
    };
  }
}
class ConfigMapOf extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
  constructor() {
    super({ resourceType: ResourceTypes.ConfigMap, name: 'configmap' });
  }
  protected desired(p: Widget): V1ConfigMap {
    return { metadata: { name: `${p.metadata!.name!}-cm` }, data: { value: p.spec?.value ?? '' } };
  }
}

describe('dependents referring to each other against @tosdk/apiserver', () => {
  it('[DR-09] dependents that reference each other converge for many primaries at once; Secret stringData does not loop', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr09',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new ConfigMapOf() },
          { dependent: new SecretFromConfigMap(), dependsOn: ['configmap'] },
        ],
      },
    });
    await suite.operators[0].start();
    const names = Array.from({ length: 20 }, (_, i) => `w${i}`);
    await Promise.all(names.map((n) => suite.admin.create(Widget, widget(n, ns, { value: n }))));
    await waitFor(
      async () => (await Promise.all(names.map((n) => observed(ns, n, n)))).every(Boolean),
      'all reconciled',
    );
    for (const n of names) {
      const s = await suite.admin.get(ResourceTypes.Secret, new ResourceID(`${n}-secret`, ns));
      expect(Buffer.from(s!.data!['copy'], 'base64').toString()).toBe(n);
    }
    // a further pass with unchanged dependents writes no secret (stringData sanitized to data)
    const before = suite.server.requests.writes({ namespace: ns, resource: 'secrets' });
    await Promise.all(
      names.map((n) => suite.admin.mergePatch(Widget, new ResourceID(n, ns), { spec: { size: 9 } })),
    );
    await suite.admin.create(Widget, widget('marker', ns, { value: 'm' }));
    await waitFor(() => observed(ns, 'marker', 'm'), 'marker');
    expect(suite.server.requests.writes({ namespace: ns, resource: 'secrets' })).toBe(before + 1);
  });

  it('[DR-14] a dependent read through a primary-to-secondary relation (a ConfigMap named in the spec), with a primary index', async () => {
    const ns = await newNamespace(suite.admin);
    /** A shared ConfigMap that primaries name in spec.value: many primaries to one secondary. */
    class Shared extends KubernetesDependentResource<V1ConfigMap, Widget> {
      constructor() {
        super({
          resourceType: ResourceTypes.ConfigMap,
          name: 'shared',
          informer: { labelSelector: 'shared=true' },
        });
      }
      protected desired(p: Widget): V1ConfigMap {
        return { metadata: { name: p.spec!.value! } };
      }
      protected override targetSecondaryResourceID(p: Widget): ResourceID {
        return new ResourceID(p.spec!.value!, p.metadata!.namespace);
      }
      protected override mappers(context: EventSourceContext<Widget>) {
        // primaries indexed by the ConfigMap they name; a ConfigMap maps to every primary naming it
        context.primaryCache.addIndexer?.('by-config', (p) => [
          `${p.metadata!.namespace!}/${p.spec?.value ?? ''}`,
        ]);
        return {
          secondaryToPrimaryMapper: (cm: V1ConfigMap) =>
            (
              context.primaryCache.byIndex?.(
                'by-config',
                `${cm.metadata!.namespace!}/${cm.metadata!.name!}`,
              ) ?? []
            ).map((p) => ResourceID.fromResource(p)),
          primaryToSecondaryMapper: (p: Widget) => [new ResourceID(p.spec!.value!, p.metadata!.namespace)],
        };
      }
    }
    const shared = new Shared();
    class Copy extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
      constructor() {
        super({
          resourceType: ResourceTypes.ConfigMap,
          name: 'copy',
          informer: { labelSelector: 'copy=true' },
        });
      }
      protected desired(p: Widget, c: Context<Widget>): V1ConfigMap {
        const source = shared.getSecondaryResource(p, c);
        return {
          metadata: { name: `${p.metadata!.name!}-copy`, labels: { copy: 'true' } },
          data: { ...source?.data },
        };
      }
    }
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr14',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: shared,
            readyPostcondition: (_d: unknown, p: Widget, c: Context<Widget>) =>
              shared.getSecondaryResource(p, c) !== undefined,
          },
          { dependent: new Copy(), dependsOn: ['shared'] },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'common', namespace: ns, labels: { shared: 'true' } },
      data: { k: 'v1' },
    });
    await suite.admin.create(Widget, widget('a', ns, { value: 'common' }));
    await suite.admin.create(Widget, widget('b', ns, { value: 'common' }));
    const copy = (n: string) => suite.admin.get(ResourceTypes.ConfigMap, new ResourceID(`${n}-copy`, ns));
    await waitFor(
      async () => (await copy('a'))?.data?.['k'] === 'v1' && (await copy('b'))?.data?.['k'] === 'v1',
      'copied',
    );
    // the shared ConfigMap carries no owner or annotation: its change reaches every primary naming it
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('common', ns), {
      data: { k: 'v2' },
    });
    await waitFor(
      async () => (await copy('a'))?.data?.['k'] === 'v2' && (await copy('b'))?.data?.['k'] === 'v2',
      'both see v2',
    );
  });
});
