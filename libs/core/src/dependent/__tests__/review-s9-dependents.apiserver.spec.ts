import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { Mappers, primaryAnnotations } from '../../event/sources/mappers.js';
import { KubernetesResourceDeletedCondition } from '../../workflow/kubernetes-resource-deleted-condition.js';
import type { BulkDependentResource } from '../bulk-dependent-resource.js';
import {
  CRUDKubernetesDependentResource,
  CRUDNoGCKubernetesDependentResource,
} from '../crud-kubernetes-dependent-resource.js';
import type { DependentResourceWithExplicitState } from '../dependent-resource-with-explicit-state.js';
import { isDeleter } from '../dependent-resource.js';
import {
  PerResourcePollingDependentResource,
  PollingDependentResource,
} from '../polling-dependent-resource.js';
import {
  ConfigMapDependent,
  NoGCConfigMapDependent,
  apiServerSuite,
  newNamespace,
  stopOperators,
  waitFor,
  Widget,
  widget,
} from './support.js';
import { Gadget } from '../../operator/__tests__/support.js';

/**
 * Adversarial review S9 of dependent resources against @tosdk/apiserver: bulk deletion, external
 * dependents' traits, deletion of dependents with activation conditions.
 */
const suite = apiServerSuite();

class StatusReconciler implements Reconciler<Widget> {
  reconcile(resource: Widget) {
    if (resource.status?.observed === resource.spec?.value) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed: resource.spec?.value };
    return UpdateControl.patchStatus(resource);
  }
}

const getWidget = (ns: string, name: string) => suite.admin.get(Widget, new ResourceID(name, ns));
const observed = async (ns: string, name: string, value = 'a') =>
  (await getWidget(ns, name))?.status?.observed === value;
const configMapNames = async (ns: string, prefix: string) =>
  (await suite.admin.list(ResourceTypes.ConfigMap, { namespace: ns })).items
    .map((c) => c.metadata!.name!)
    .filter((n) => n.startsWith(prefix))
    .sort();

/** The bulk part both test dependents share: `size` ConfigMaps `<primary>-item-<i>`. */
function bulkDesired(p: Widget): Map<string, V1ConfigMap> {
  const out = new Map<string, V1ConfigMap>();
  for (let i = 0; i < (p.spec?.size ?? 0); i++) {
    out.set(String(i), {
      metadata: { name: `${p.metadata!.name!}-item-${i}` },
      data: { v: p.spec?.value ?? '' },
    });
  }
  return out;
}

function bulkActual(secondaries: V1ConfigMap[]): Map<string, V1ConfigMap> {
  const out = new Map<string, V1ConfigMap>();
  for (const c of secondaries) out.set(c.metadata!.name!.split('-').pop()!, c);
  return out;
}

/** A bulk dependent the workflow deletes itself (no owner references). */
class NoGCBulk
  extends CRUDNoGCKubernetesDependentResource<V1ConfigMap, Widget>
  implements BulkDependentResource<V1ConfigMap, Widget>
{
  constructor() {
    super({ resourceType: ResourceTypes.ConfigMap, name: 'items' });
  }
  protected desired(): V1ConfigMap {
    throw new Error('bulk: desiredResources is used');
  }
  desiredResources(p: Widget): Map<string, V1ConfigMap> {
    return bulkDesired(p);
  }
  getSecondaryResources(p: Widget): Map<string, V1ConfigMap> {
    return bulkActual(this.informerEventSource!.getSecondaryResources(p));
  }
  async deleteTargetResource(_p: Widget, r: V1ConfigMap, _k: string, c: Context<Widget>): Promise<void> {
    await c.client.delete(ResourceTypes.ConfigMap, ResourceID.fromResource(r));
  }
}

/** The same bulk dependent, garbage collected through owner references. */
class GCBulk
  extends CRUDKubernetesDependentResource<V1ConfigMap, Widget>
  implements BulkDependentResource<V1ConfigMap, Widget>
{
  constructor() {
    super({ resourceType: ResourceTypes.ConfigMap, name: 'items' });
  }
  protected desired(): V1ConfigMap {
    throw new Error('bulk: desiredResources is used');
  }
  desiredResources(p: Widget): Map<string, V1ConfigMap> {
    return bulkDesired(p);
  }
  getSecondaryResources(p: Widget): Map<string, V1ConfigMap> {
    return bulkActual(this.informerEventSource!.getSecondaryResources(p));
  }
  async deleteTargetResource(_p: Widget, r: V1ConfigMap, _k: string, c: Context<Widget>): Promise<void> {
    await c.client.delete(ResourceTypes.ConfigMap, ResourceID.fromResource(r));
  }
}

describe('S9 review: dependent resources', () => {
  it('[FINDING S9-DW1] deleting the primary of a bulk dependent that is not garbage collected deletes none of its secondaries and keeps the primary forever', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 's9dw1',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new NoGCBulk() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'a', size: 3 }));
    await waitFor(async () => (await configMapNames(ns, 'w-item-')).length === 3, 'three items');
    await waitFor(() => observed(ns, 'w'), 'status');

    await suite.admin.delete(Widget, new ResourceID('w', ns));
    // JOSDK's BulkDependentResourceReconciler.delete: deleteTargetResource for every actual secondary
    await waitFor(async () => (await configMapNames(ns, 'w-item-')).length === 0, 'all items deleted');
    await waitFor(async () => (await getWidget(ns, 'w')) === undefined, 'primary gone');
  });

  it('[FINDING S9-DW2] a reconcile precondition turning false on a bulk dependent deletes none of its secondaries (the workflow fails instead)', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 's9dw2',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: new GCBulk(),
            reconcilePrecondition: (_d: unknown, p: Widget) => p.spec?.value !== 'off',
          },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'a', size: 3 }));
    await waitFor(async () => (await configMapNames(ns, 'w-item-')).length === 3, 'three items');
    await waitFor(() => observed(ns, 'w'), 'status');

    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'off' } });
    // JOSDK's NodeDeleteExecutor calls delete on every Deleter (garbage collected or not), which for
    // a bulk dependent deletes every actual secondary; the reconciler then runs
    await waitFor(async () => (await configMapNames(ns, 'w-item-')).length === 0, 'all items deleted');
    await waitFor(() => observed(ns, 'w', 'off'), 'status off');
  });

  it('[FINDING S9-DW3] a read-only polling dependent (no deleteResource) gives every primary a finalizer', async () => {
    const ns = await newNamespace(suite.admin);
    class Prices extends PollingDependentResource<{ id: string; price: number }, Widget> {
      constructor() {
        super({ periodMs: 60_000, idOf: (p) => p.id, name: 'prices' });
      }
      protected desired(p: Widget) {
        return { id: p.metadata!.name!, price: 0 };
      }
      fetchResources() {
        return Promise.resolve([] as Array<readonly [ResourceID, Array<{ id: string; price: number }>]>);
      }
    }
    const prices = new Prices();
    expect(isDeleter(prices)).toBe(false);
    class PerPrimary extends PerResourcePollingDependentResource<{ id: string }, Widget> {
      protected desired() {
        return { id: 'x' };
      }
      fetchResources() {
        return Promise.resolve([]);
      }
    }
    expect(isDeleter(new PerPrimary({ periodMs: 60_000 }))).toBe(false);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 's9dw3',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: prices }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    // JOSDK: AbstractExternalDependentResource is no Deleter; the workflow has no cleaner
    expect((await getWidget(ns, 'w'))?.metadata?.finalizers ?? []).toEqual([]);
  });

  it('[FINDING S9-DW4] a dependent with an activation condition, deleted because the dependent it depends on has a false precondition, fails on its delete postcondition: its informer is never registered', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 's9dw4',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: new ConfigMapDependent({ name: 'first' }, 'first'),
            reconcilePrecondition: (_d: unknown, p: Widget) => p.spec?.value !== 'off',
          },
          {
            dependent: new NoGCConfigMapDependent({ name: 'second' }, 'second'),
            dependsOn: ['first'],
            activationCondition: () => true,
            deletePostcondition: new KubernetesResourceDeletedCondition<Widget>(),
          },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'off' }));
    // JOSDK's NodeDeleteExecutor registers (or deregisters) the event source by the activation
    // condition before deleting, so the postcondition can read the cache
    await waitFor(() => observed(ns, 'w', 'off'), 'status off');
    expect(await configMapNames(ns, 'w-')).toEqual([]);
  });

  it('[FINDING S9-DW5] an external dependent with explicit state, cleaned up before its per-resource source first polled (after a restart), deletes the state but leaks the external resource', async () => {
    const ns = await newNamespace(suite.admin);
    const external = new Map<string, { id: string; value: string }>();
    let seq = 0;
    const stateName = (p: Widget) => `${p.metadata!.name!}-state`;
    class Database
      extends PerResourcePollingDependentResource<{ id: string; value: string }, Widget>
      implements DependentResourceWithExplicitState<{ id: string; value: string }, Widget, V1ConfigMap>
    {
      readonly stateResourceType = ResourceTypes.ConfigMap;
      constructor(private readonly client: KubernetesClient) {
        super({ periodMs: 60_000, idOf: (e) => e.id, name: 'database' });
      }
      protected desired(p: Widget) {
        return { id: '', value: p.spec?.value ?? '' };
      }
      protected override matchDesired(a: { value: string }, d: { value: string }): boolean {
        return a.value === d.value;
      }
      async fetchResources(p: Widget) {
        const state = await this.client.get(
          ResourceTypes.ConfigMap,
          new ResourceID(stateName(p), p.metadata!.namespace),
        );
        const found = state?.data?.['id'] ? external.get(state.data['id']) : undefined;
        return found ? [{ ...found }] : [];
      }
      create(d: { value: string }) {
        const item = { id: `db-${++seq}`, value: d.value };
        external.set(item.id, item);
        return Promise.resolve({ ...item });
      }
      protected override deleteResource(r: { id: string }): Promise<void> {
        external.delete(r.id);
        return Promise.resolve();
      }
      stateResource(p: Widget, r: { id: string } | undefined): V1ConfigMap {
        return {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: stateName(p),
            namespace: p.metadata!.namespace,
            annotations: primaryAnnotations(p),
          },
          data: r ? { id: r.id } : undefined,
        };
      }
    }
    class StateReconciler extends StatusReconciler {
      prepareEventSources(context: EventSourceContext<Widget>) {
        return {
          state: new InformerEventSource<V1ConfigMap, Widget>(
            { type: ResourceTypes.ConfigMap, secondaryToPrimaryMapper: Mappers.fromDefaultAnnotations() },
            context,
          ),
        };
      }
    }
    const register = () =>
      suite.operator().register(new StateReconciler(), {
        resourceType: Widget,
        name: 's9dw5',
        namespaces: [ns],
        workflow: { dependents: [{ dependent: new Database(suite.admin) }] },
      });
    register();
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    expect([...external.keys()]).toEqual(['db-1']);
    await stopOperators(suite);

    // deleted while no operator runs: the finalizer keeps it for the next one
    await suite.admin.delete(Widget, new ResourceID('w', ns));
    register();
    await suite.operators[0].start();
    await waitFor(async () => (await getWidget(ns, 'w')) === undefined, 'primary gone');
    // JOSDK's PerResourcePollingEventSource.getSecondaryResources fetches a primary never polled,
    // whatever asks (reconcile, delete, a condition)
    expect([...external.keys()]).toEqual([]);
  });

  it('[FINDING S9-DW6] a bulk dependent one of whose desired items fails to write never deletes the items no longer desired', async () => {
    const ns = await newNamespace(suite.admin);
    class Picky extends GCBulk {
      override create(desired: V1ConfigMap, p: Widget, c: Context<Widget>): Promise<V1ConfigMap> {
        if (desired.data?.['v'] === 'bad') return Promise.reject(new Error('admission refused bad items'));
        return super.create(desired, p, c);
      }
      override desiredResources(p: Widget): Map<string, V1ConfigMap> {
        const out = bulkDesired(p);
        // one more item, refused while the value is 'bad'
        if (p.spec?.value === 'bad')
          out.set('9', { metadata: { name: `${p.metadata!.name!}-item-9` }, data: { v: 'bad' } });
        return out;
      }
    }
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 's9dw6',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Picky() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'a', size: 3 }));
    await waitFor(async () => (await configMapNames(ns, 'w-item-')).length === 3, 'three items');
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'bad', size: 1 } });
    // JOSDK's BulkDependentResourceReconciler deletes the extra resources before it reconciles the
    // desired ones, so a failing item does not keep those no longer desired
    await waitFor(async () => (await configMapNames(ns, 'w-item-')).join() === 'w-item-0', 'extras deleted');
  });

  it('[FINDING S9-DW8] a namespaced dependent without owner reference of a cluster-scoped primary is not found as its secondary: deleting the primary leaves it', async () => {
    const ns = await newNamespace(suite.admin);
    const name = `g-${ns}`;
    class GadgetConfigMap extends CRUDNoGCKubernetesDependentResource<V1ConfigMap, Gadget> {
      constructor() {
        super({ resourceType: ResourceTypes.ConfigMap, name: 'config', informer: { namespaces: [ns] } });
      }
      protected desired(g: Gadget): V1ConfigMap {
        return {
          metadata: { name: `${g.metadata!.name!}-cm`, namespace: ns },
          data: { v: g.spec?.value ?? '' },
        };
      }
    }
    const seen: Array<V1ConfigMap | undefined> = [];
    class GadgetReconciler implements Reconciler<Gadget> {
      reconcile(g: Gadget, c: Context<Gadget>) {
        seen.push(c.managedWorkflowAndDependentResourceContext().getSecondaryResource<V1ConfigMap>('config'));
        return UpdateControl.noUpdate<Gadget>();
      }
    }
    suite.operator().register(new GadgetReconciler(), {
      resourceType: Gadget,
      name: 's9dw8',
      workflow: { dependents: [{ dependent: new GadgetConfigMap() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Gadget, {
      apiVersion: Gadget.apiVersion,
      kind: Gadget.kind,
      metadata: { name },
      spec: { value: 'a' },
    });
    await waitFor(async () => (await configMapNames(ns, `${name}-cm`)).length === 1, 'created');
    await waitFor(() => seen.length > 0, 'reconciled');
    // the annotations carry no namespace for a cluster-scoped primary; JOSDK's Mappers.fromMetadata
    // then maps to the primary without namespace, not to the secondary's namespace
    await suite.admin.mergePatch(Gadget, new ResourceID(name), { spec: { value: 'b' } });
    await waitFor(() => seen.at(-1)?.data?.['v'] !== undefined, 'secondary visible to the reconciler');
    await suite.admin.delete(Gadget, new ResourceID(name));
    await waitFor(async () => (await suite.admin.get(Gadget, new ResourceID(name))) === undefined, 'gone');
    expect(await configMapNames(ns, `${name}-cm`)).toEqual([]);
  });

  it("[FINDING S9-DW10] a dependent mapped by annotations is also mapped to a primary of another kind with the same name: a bulk dependent deletes the other controller's secondary as an extra", async () => {
    const ns = await newNamespace(suite.admin);
    // a second controller, of Secrets, with a ConfigMap per Secret (annotations, no owner reference)
    class SecretConfig extends CRUDNoGCKubernetesDependentResource<V1ConfigMap, V1Secret> {
      constructor() {
        super({ resourceType: ResourceTypes.ConfigMap, name: 'secret-config' });
      }
      protected desired(s: V1Secret): V1ConfigMap {
        return { metadata: { name: `${s.metadata!.name!}-config` }, data: { from: 'secret' } };
      }
    }
    suite.operator().register(
      { reconcile: () => UpdateControl.noUpdate<V1Secret>() },
      {
        resourceType: ResourceTypes.Secret,
        name: 's9dw10-secrets',
        namespaces: [ns],
        workflow: { dependents: [{ dependent: new SecretConfig() }] },
      },
    );
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 's9dw10-widgets',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new NoGCBulk() }] },
    });
    await Promise.all(suite.operators.map((o) => o.start()));
    await suite.admin.create(ResourceTypes.Secret, { metadata: { name: 'w', namespace: ns } });
    await waitFor(async () => (await configMapNames(ns, 'w-config')).length === 1, 'secret config');
    await suite.admin.create(Widget, widget('w', ns, { value: 'a', size: 2 }));
    await waitFor(() => observed(ns, 'w'), 'status');
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
    await waitFor(() => observed(ns, 'w', 'b'), 'status b');
    expect(await configMapNames(ns, 'w-item-')).toEqual(['w-item-0', 'w-item-1']);
    // JOSDK writes the primary's type next to its name and namespace (Mappers.fromMetadata maps a
    // secondary annotated with another type to no primary)
    expect(
      suite.server.requests.log.filter(
        (q) =>
          q.namespace === ns && q.resource === 'configmaps' && q.verb === 'delete' && q.name === 'w-config',
      ),
    ).toEqual([]);
  });
});
