import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { Mappers, primaryAnnotations } from '../../event/sources/mappers.js';
import type { BulkDependentResource } from '../bulk-dependent-resource.js';
import type { DependentResourceWithExplicitState } from '../dependent-resource-with-explicit-state.js';
import { PerResourcePollingDependentResource } from '../polling-dependent-resource.js';
import { apiServerSuite, newNamespace, stopOperators, waitFor, Widget, widget } from './support.js';

const suite = apiServerSuite();

interface External {
  id: string;
  value: string;
}

/** An external system assigning its own ids. */
class ExternalSystem {
  private seq = 0;
  readonly items = new Map<string, External>();
  creates = 0;
  create(value: string): External {
    this.creates++;
    const item = { id: `ext-${++this.seq}`, value };
    this.items.set(item.id, item);
    return { ...item };
  }
  update(id: string, value: string): External {
    const item = { id, value };
    this.items.set(id, item);
    return { ...item };
  }
  get(id: string): External | undefined {
    const item = this.items.get(id);
    return item && { ...item };
  }
}

const stateName = (p: Widget, key = '') => `${p.metadata!.name!}-state${key}`;

/** Keeps the external id in a ConfigMap (explicit state). */
class WithState
  extends PerResourcePollingDependentResource<External, Widget>
  implements DependentResourceWithExplicitState<External, Widget, V1ConfigMap>
{
  readonly stateResourceType = ResourceTypes.ConfigMap;
  constructor(
    private readonly system: ExternalSystem,
    private readonly client: KubernetesClient,
  ) {
    super({ periodMs: 60_000, idOf: (e) => e.id, name: 'external' });
  }
  protected desired(p: Widget): External {
    return { id: '', value: p.spec?.value ?? '' };
  }
  protected override matchDesired(actual: External, desired: External): boolean {
    return actual.value === desired.value;
  }
  async fetchResources(p: Widget): Promise<External[]> {
    const state = await this.client.get(
      ResourceTypes.ConfigMap,
      new ResourceID(stateName(p), p.metadata!.namespace),
    );
    const found = state?.data?.['id'] ? this.system.get(state.data['id']) : undefined;
    return found ? [found] : [];
  }
  create(desired: External): Promise<External> {
    return Promise.resolve(this.system.create(desired.value));
  }
  update(actual: External, desired: External): Promise<External> {
    return Promise.resolve(this.system.update(actual.id, desired.value));
  }
  protected override deleteResource(resource: External): Promise<void> {
    this.system.items.delete(resource.id);
    return Promise.resolve();
  }
  stateResource(p: Widget, resource: External | undefined): V1ConfigMap {
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: stateName(p), namespace: p.metadata!.namespace, annotations: primaryAnnotations(p) },
      data: resource ? { id: resource.id } : undefined,
    };
  }
}

class StateReconciler implements Reconciler<Widget> {
  prepareEventSources(context: EventSourceContext<Widget>) {
    return {
      state: new InformerEventSource<V1ConfigMap, Widget>(
        { type: ResourceTypes.ConfigMap, secondaryToPrimaryMapper: Mappers.fromDefaultAnnotations() },
        context,
      ),
    };
  }
  reconcile(resource: Widget) {
    if (resource.status?.observed === resource.spec?.value) return UpdateControl.noUpdate<Widget>();
    resource.status = { observed: resource.spec?.value };
    return UpdateControl.patchStatus(resource);
  }
}

const observed = async (ns: string, name: string, value: string) =>
  (await suite.admin.get(Widget, new ResourceID(name, ns)))?.status?.observed === value;

describe('external dependents against @tosdk/apiserver', () => {
  it('[DR-11] external dependents keep their id in a ConfigMap; it survives restarts; deletion removes both', async () => {
    const ns = await newNamespace(suite.admin);
    const system = new ExternalSystem();
    const register = () =>
      suite.operator().register(new StateReconciler(), {
        resourceType: Widget,
        name: 'dr11',
        namespaces: [ns],
        workflow: { dependents: [{ dependent: new WithState(system, suite.admin) }] },
      });
    register();
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w', 'a'), 'status');
    expect(system.creates).toBe(1);
    const state = await suite.admin.get(ResourceTypes.ConfigMap, new ResourceID('w-state', ns));
    expect(state?.data).toEqual({ id: 'ext-1' });
    await stopOperators(suite);

    register();
    await suite.operators[0].start();
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
    await waitFor(() => observed(ns, 'w', 'b'), 'status b');
    expect(system.creates).toBe(1);
    expect(system.get('ext-1')?.value).toBe('b');

    await suite.admin.delete(Widget, new ResourceID('w', ns));
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns))) === undefined,
      'primary gone',
    );
    expect(system.items.size).toBe(0);
    expect(await suite.admin.get(ResourceTypes.ConfigMap, new ResourceID('w-state', ns))).toBeUndefined();
  });

  it('[DR-11][DR-19] bulk external dependents, one state ConfigMap each', async () => {
    const ns = await newNamespace(suite.admin);
    const system = new ExternalSystem();
    class BulkExternal extends WithState implements BulkDependentResource<External, Widget> {
      desiredResources(p: Widget): Map<string, External> {
        const out = new Map<string, External>();
        for (let i = 0; i < (p.spec?.size ?? 0); i++)
          out.set(String(i), { id: '', value: `${p.spec?.value ?? ''}-${i}` });
        return out;
      }
      getSecondaryResources(p: Widget, c: Context<Widget>): Map<string, External> {
        const out = new Map<string, External>();
        for (const cmap of c.getSecondaryResources(ResourceTypes.ConfigMap)) {
          const key = cmap.metadata?.labels?.['key'];
          const ext = key !== undefined && cmap.data?.['id'] ? system.get(cmap.data['id']) : undefined;
          if (key !== undefined && ext) out.set(key, ext);
        }
        void p;
        return out;
      }
      async deleteTargetResource(
        p: Widget,
        resource: External,
        key: string,
        c: Context<Widget>,
      ): Promise<void> {
        system.items.delete(resource.id);
        await c.client.delete(
          ResourceTypes.ConfigMap,
          new ResourceID(stateName(p, `-${key}`), p.metadata!.namespace),
        );
      }
      override async create(desired: External): Promise<External> {
        return system.create(desired.value);
      }
      override stateResource(p: Widget, resource: External | undefined): V1ConfigMap {
        const key = resource ? resource.value.split('-').pop()! : '';
        return {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: stateName(p, `-${key}`),
            namespace: p.metadata!.namespace,
            labels: { key },
            annotations: primaryAnnotations(p),
          },
          data: resource ? { id: resource.id } : undefined,
        };
      }
      protected override stateResourceOf(): undefined {
        return undefined; // each bulk item creates its own state resource
      }
    }
    suite.operator().register(new StateReconciler(), {
      resourceType: Widget,
      name: 'dr11b',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new BulkExternal(system, suite.admin) }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'v', size: 3 }));
    await waitFor(() => observed(ns, 'w', 'v'), 'status');
    await waitFor(
      async () => (await suite.admin.list(ResourceTypes.ConfigMap, { namespace: ns })).items.length >= 3,
      'three states',
    );
    expect([...system.items.values()].map((e) => e.value).sort()).toEqual(['v-0', 'v-1', 'v-2']);
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: 1 } });
    await waitFor(() => system.items.size === 1, 'two deleted');
    await waitFor(
      async () =>
        (await suite.admin.list(ResourceTypes.ConfigMap, { namespace: ns })).items.filter((c) =>
          c.metadata?.name?.startsWith('w-state'),
        ).length === 1,
      'one state left',
    );
  });
  it('[DR-13] several external dependents of one kind share an event source and are told apart by id', async () => {
    const ns = await newNamespace(suite.admin);
    const store = new Map<string, External>();
    class Named extends PerResourcePollingDependentResource<External, Widget> {
      constructor(readonly suffix: string) {
        super({ periodMs: 60_000, idOf: (e) => e.id, name: `named-${suffix}` });
      }
      protected desired(p: Widget): External {
        return { id: `${p.metadata!.name!}-${this.suffix}`, value: `${this.suffix}:${p.spec?.value ?? ''}` };
      }
      protected override matchDesired(actual: External, desired: External): boolean {
        return actual.value === desired.value;
      }
      fetchResources(p: Widget): Promise<External[]> {
        return Promise.resolve([...store.values()].filter((e) => e.id.startsWith(`${p.metadata!.name!}-`)));
      }
      create(desired: External): Promise<External> {
        store.set(desired.id, { ...desired });
        return Promise.resolve({ ...desired });
      }
      update(actual: External, desired: External): Promise<External> {
        // writes to the actual resource: a wrong pick would overwrite the other dependent's
        const next = { id: actual.id, value: desired.value };
        store.set(actual.id, next);
        return Promise.resolve({ ...next });
      }
    }
    suite.operator().register(new StateReconciler(), {
      resourceType: Widget,
      name: 'dr13x',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new Named('one') },
          { dependent: new Named('two'), useEventSourceWithName: 'named-one' },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w', 'a'), 'status');
    expect(store.get('w-one')?.value).toBe('one:a');
    expect(store.get('w-two')?.value).toBe('two:a');
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
    await waitFor(() => observed(ns, 'w', 'b'), 'status b');
    expect([...store.values()].map((e) => e.value).sort()).toEqual(['one:b', 'two:b']);
  });
});
