import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1ServiceAccount, V1StatefulSet } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { defineResource } from '../../api/resource-type.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { WorkflowBuilder } from '../../workflow/workflow-builder.js';
import {
  CRUDKubernetesDependentResource,
  CRUDNoGCKubernetesDependentResource,
} from '../crud-kubernetes-dependent-resource.js';
import { GenericKubernetesDependentResource } from '../generic-kubernetes-dependent-resource.js';
import type { KubernetesDependentOptions } from '../kubernetes-dependent-options.js';
import { KubernetesDependentResource } from '../kubernetes-dependent-resource.js';
import type { BulkDependentResource } from '../bulk-dependent-resource.js';
import {
  ConfigMapDependent,
  newNamespace,
  apiServerSuite,
  stopOperators,
  waitFor,
  Widget,
  widget,
} from './support.js';

const suite = apiServerSuite();

class StatusReconciler implements Reconciler<Widget> {
  runs: Array<{ name: string; value?: string }> = [];
  reconcile(resource: Widget) {
    this.runs.push({ name: resource.metadata!.name!, value: resource.spec?.value });
    if (resource.status?.observed === resource.spec?.value) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed: resource.spec?.value };
    return UpdateControl.patchStatus(resource);
  }
}

const cm = (ns: string, name: string) => suite.admin.get(ResourceTypes.ConfigMap, new ResourceID(name, ns));
const observed = async (ns: string, name: string, value = 'a') =>
  (await suite.admin.get(Widget, new ResourceID(name, ns)))?.status?.observed === value;
const cmWrites = (ns: string) => suite.server.requests.writes({ namespace: ns, resource: 'configmaps' });

describe('dependent resources against @tosdk/apiserver', () => {
  it('[DR-04] create-only-if-missing never overwrites an existing resource', async () => {
    const ns = await newNamespace(suite.admin);
    await suite.admin.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'w-cm', namespace: ns },
      data: { value: 'mine' },
    });
    const dependent = new ConfigMapDependent({ createOnlyIfMissing: true, traits: { creator: true } });
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr04',
      namespaces: [ns],
      workflow: { dependents: [{ dependent }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await suite.admin.create(Widget, widget('v', ns));
    await waitFor(async () => (await observed(ns, 'w')) && (await observed(ns, 'v')), 'status');
    expect((await cm(ns, 'w-cm'))?.data).toEqual({ value: 'mine' });
    expect((await cm(ns, 'v-cm'))?.data).toEqual({ value: 'a' });
  });

  it('[DR-05] dependents in another namespace are mapped by annotations with custom keys', async () => {
    const ns = await newNamespace(suite.admin);
    const other = await newNamespace(suite.admin);
    class Remote extends CRUDNoGCKubernetesDependentResource<V1ConfigMap, Widget> {
      constructor() {
        super({
          resourceType: ResourceTypes.ConfigMap,
          informer: { namespaces: [other] },
          annotationKeys: { name: 'example.com/owner', namespace: 'example.com/owner-ns' },
        });
      }
      protected desired(p: Widget): V1ConfigMap {
        return {
          metadata: { name: p.metadata!.name!, namespace: other },
          data: { value: p.spec?.value ?? '' },
        };
      }
    }
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr05',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Remote() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await cm(other, 'w')) !== undefined, 'remote configmap');
    expect((await cm(other, 'w'))?.metadata?.annotations).toEqual({
      'example.com/owner': 'w',
      'example.com/owner-ns': ns,
    });
    // a change there maps back to the primary, which repairs it
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w', other), {
      data: { value: 'x' },
    });
    await waitFor(async () => (await cm(other, 'w'))?.data?.value === 'a', 'repaired');
    // and deletion of the primary deletes it (the primary has a finalizer for that)
    await suite.admin.delete(Widget, new ResourceID('w', ns));
    await waitFor(async () => (await cm(other, 'w')) === undefined, 'deleted with the primary');
  });

  it('[DR-06] filters on a dependent informer decide which changes reconcile', async () => {
    const ns = await newNamespace(suite.admin);
    const r = new StatusReconciler();
    const dependent = new ConfigMapDependent({
      informer: { onUpdateFilter: (n: V1ConfigMap) => n.metadata?.labels?.['ignore'] !== 'true' },
    });
    suite.operator().register(r, {
      resourceType: Widget,
      name: 'dr06',
      namespaces: [ns],
      workflow: { dependents: [{ dependent }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-cm', ns), {
      metadata: { labels: { ignore: 'true' } },
      data: { value: 'drift' },
    });
    await waitFor(
      () => dependent.informerEventSource?.get(new ResourceID('w-cm', ns))?.data?.value === 'drift',
      'cached',
    );
    await suite.admin.create(Widget, widget('marker', ns));
    await waitFor(() => observed(ns, 'marker'), 'marker reconciled');
    expect((await cm(ns, 'w-cm'))?.data?.value).toBe('drift');
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-cm', ns), {
      metadata: { labels: { ignore: 'false' } },
    });
    await waitFor(
      async () => (await cm(ns, 'w-cm'))?.data?.value === 'a',
      'repaired after an accepted change',
    );
  });

  it('[DR-08] dependents survive an operator stop and start: the new operator writes nothing', async () => {
    const ns = await newNamespace(suite.admin);
    const register = () =>
      suite.operator().register(new StatusReconciler(), {
        resourceType: Widget,
        name: 'dr08',
        namespaces: [ns],
        workflow: { dependents: [{ dependent: new ConfigMapDependent() }] },
      });
    register();
    await suite.operators[0].start();
    for (const n of ['a1', 'a2', 'a3']) await suite.admin.create(Widget, widget(n, ns));
    await waitFor(
      async () => (await observed(ns, 'a1')) && (await observed(ns, 'a2')) && (await observed(ns, 'a3')),
      'all',
    );
    await stopOperators(suite);
    const before = suite.server.requests.writes({ namespace: ns });
    const r2 = new StatusReconciler();
    suite.operator().register(r2, {
      resourceType: Widget,
      name: 'dr08',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new ConfigMapDependent() }] },
    });
    await suite.operators[0].start();
    await waitFor(() => new Set(r2.runs.map((x) => x.name)).size === 3, 'reconciled again');
    expect(suite.server.requests.writes({ namespace: ns })).toBe(before);
  });

  it('[DR-10][DR-18] managed-fields matching: an update-created object is taken over by apply once; fields of other managers are kept and ignored', async () => {
    const ns = await newNamespace(suite.admin);
    // created by someone else with update semantics, already annotated for our primary
    await suite.admin.create(
      ResourceTypes.ConfigMap,
      {
        metadata: {
          name: 'w-cm',
          namespace: ns,
          annotations: { 'tosdk.io/primary-name': 'w', 'tosdk.io/primary-namespace': ns },
        },
        data: { value: 'a' },
      },
      { fieldManager: 'legacy' },
    );
    class NoGC extends CRUDNoGCKubernetesDependentResource<V1ConfigMap, Widget> {
      constructor() {
        super({ resourceType: ResourceTypes.ConfigMap });
      }
      protected desired(p: Widget): V1ConfigMap {
        return { metadata: { name: `${p.metadata!.name!}-cm` }, data: { value: p.spec?.value ?? '' } };
      }
    }
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr10',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new NoGC() }] },
    });
    await suite.operators[0].start();
    const writes0 = cmWrites(ns);
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    const taken = await cm(ns, 'w-cm');
    expect(taken?.metadata?.managedFields?.some((m) => m.manager === 'dr10' && m.operation === 'Apply')).toBe(
      true,
    );
    expect(cmWrites(ns)).toBe(writes0 + 1);
    // someone else adds a label and a data key: we do not own them, so no write and they stay
    await suite.admin.mergePatch(
      ResourceTypes.ConfigMap,
      new ResourceID('w-cm', ns),
      { metadata: { labels: { team: 'x' } }, data: { extra: 'theirs' } },
      { fieldManager: 'other' },
    );
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
    await waitFor(() => observed(ns, 'w', 'b'), 'status b');
    const after = await cm(ns, 'w-cm');
    expect(after?.data).toEqual({ value: 'b', extra: 'theirs' });
    expect(after?.metadata?.labels).toEqual({ team: 'x' });
    expect(cmWrites(ns)).toBe(writes0 + 3); // the take-over, their patch, our update for 'b'
  });

  it('[DR-12] generic (untyped) dependents, managed and standalone', async () => {
    const ns = await newNamespace(suite.admin);
    const UntypedConfigMap = defineResource<KubernetesResource>({
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
    });
    class Generic extends GenericKubernetesDependentResource<Widget> {
      constructor(name: string) {
        super({ resourceType: UntypedConfigMap, name });
      }
      protected desired(p: Widget): KubernetesResource {
        return {
          metadata: { name: `${p.metadata!.name!}-${this.name}` },
          data: { v: p.spec?.value },
        } as KubernetesResource;
      }
    }
    const standalone = new Generic('standalone');
    const workflow = new WorkflowBuilder<Widget>().addDependentResource(standalone).build();
    const status = new StatusReconciler();
    class StandaloneReconciler implements Reconciler<Widget> {
      prepareEventSources(context: EventSourceContext<Widget>) {
        return [standalone.eventSource(context)];
      }
      async reconcile(resource: Widget, context: Context<Widget>) {
        await workflow.reconcile(resource, context);
        return status.reconcile(resource);
      }
    }
    suite.operator().register(new StandaloneReconciler(), {
      resourceType: Widget,
      name: 'dr12',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Generic('managed') }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    expect((await cm(ns, 'w-managed'))?.data).toEqual({ v: 'a' });
    expect((await cm(ns, 'w-standalone'))?.data).toEqual({ v: 'a' });
  });

  it('[DR-13] several dependents of one kind: a shared event source by name, and one informer each with label selectors', async () => {
    const ns = await newNamespace(suite.admin);
    class Labeled extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
      constructor(
        readonly suffix: string,
        options: Partial<KubernetesDependentOptions<V1ConfigMap>> = {},
      ) {
        super({ resourceType: ResourceTypes.ConfigMap, name: suffix, ...options });
      }
      protected desired(p: Widget): V1ConfigMap {
        return {
          metadata: { name: `${p.metadata!.name!}-${this.suffix}`, labels: { which: this.suffix } },
          data: { value: `${this.suffix}:${p.spec?.value ?? ''}` },
        };
      }
    }
    class Shared extends StatusReconciler {
      prepareEventSources(context: EventSourceContext<Widget>) {
        return {
          shared: new InformerEventSource<V1ConfigMap, Widget>(
            { type: ResourceTypes.ConfigMap, labelSelector: 'which in (one,two)' },
            context,
          ),
        };
      }
    }
    suite.operator().register(new Shared(), {
      resourceType: Widget,
      name: 'dr13',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new Labeled('one'), useEventSourceWithName: 'shared' },
          { dependent: new Labeled('two'), useEventSourceWithName: 'shared' },
          { dependent: new Labeled('three', { informer: { labelSelector: 'which=three' } }) },
          { dependent: new Labeled('four', { informer: { labelSelector: 'which=four' } }) },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    for (const s of ['one', 'two', 'three', 'four'])
      expect((await cm(ns, `w-${s}`))?.data).toEqual({ value: `${s}:a` });
    const before = cmWrites(ns);
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-two', ns), {
      data: { value: 'drift' },
    });
    await waitFor(async () => (await cm(ns, 'w-two'))?.data?.value === 'two:a', 'two repaired');
    expect(cmWrites(ns)).toBe(before + 2);
    expect((await cm(ns, 'w-one'))?.data?.value).toBe('one:a');
  });

  it('[DR-15] kinds without spec (ServiceAccount) as dependents, not rewritten when unchanged', async () => {
    const ns = await newNamespace(suite.admin);
    class Account extends CRUDKubernetesDependentResource<V1ServiceAccount, Widget> {
      constructor() {
        super({ resourceType: ResourceTypes.ServiceAccount });
      }
      protected desired(p: Widget): V1ServiceAccount {
        return {
          metadata: { name: p.metadata!.name!, labels: { v: p.spec?.value ?? '' } },
          automountServiceAccountToken: false,
        };
      }
    }
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr15',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Account() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    const sa = await suite.admin.get(ResourceTypes.ServiceAccount, new ResourceID('w', ns));
    expect(sa?.automountServiceAccountToken).toBe(false);
    const before = suite.server.requests.writes({ namespace: ns, resource: 'serviceaccounts' });
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'a', size: 2 } });
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
    await waitFor(() => observed(ns, 'w', 'b'), 'status b');
    expect(suite.server.requests.writes({ namespace: ns, resource: 'serviceaccounts' })).toBe(before + 1);
  });

  it('[DR-16] apply-based writes with the whole-object matcher: drift repaired, no write when matching', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr16',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new ConfigMapDependent({ matcher: 'wholeObject', matchLabelsAndAnnotations: true }) },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    const before = cmWrites(ns);
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-cm', ns), {
      metadata: { labels: { app: 'other' } },
    });
    await waitFor(async () => (await cm(ns, 'w-cm'))?.metadata?.labels?.['app'] === 'w', 'label restored');
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'a', size: 4 } });
    await suite.admin.create(Widget, widget('marker', ns));
    await waitFor(() => observed(ns, 'marker'), 'marker');
    expect(cmWrites(ns) - before).toBe(3); // their patch, our repair, the marker's configmap
  });

  it("[DR-16] without server-side apply: created with create, drift repaired with update, other managers' fields kept", async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'nossa',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new ConfigMapDependent({ useSSA: false }) }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    const verbs = () =>
      suite.server.requests.log
        .filter((q) => q.namespace === ns && q.resource === 'configmaps')
        .map((q) => q.verb);
    expect(verbs().filter((v) => v !== 'list' && v !== 'watch')).toEqual(['create']);
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-cm', ns), {
      metadata: { annotations: { theirs: 'yes' } },
      data: { value: 'drift' },
    });
    await waitFor(async () => (await cm(ns, 'w-cm'))?.data?.value === 'a', 'repaired');
    expect((await cm(ns, 'w-cm'))?.metadata?.annotations?.['theirs']).toBe('yes');
    expect(
      suite.server.requests.log.filter(
        (q) => q.namespace === ns && q.resource === 'configmaps' && q.verb === 'update',
      ),
    ).toHaveLength(1);
  });

  it('[DR-17] StatefulSet desired state with claim templates is sanitized so apply does not loop', async () => {
    const ns = await newNamespace(suite.admin);
    class Set_ extends CRUDKubernetesDependentResource<V1StatefulSet, Widget> {
      constructor() {
        super({ resourceType: ResourceTypes.StatefulSet });
      }
      protected desired(p: Widget): V1StatefulSet {
        const name = p.metadata!.name!;
        return {
          metadata: { name },
          spec: {
            serviceName: name,
            replicas: 1,
            selector: { matchLabels: { app: name } },
            template: {
              metadata: { labels: { app: name } },
              spec: { containers: [{ name: 'db', image: 'postgres' }] },
            },
            volumeClaimTemplates: [
              {
                metadata: { name: 'data' },
                spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
              },
            ],
          },
        };
      }
    }
    const r = new StatusReconciler();
    suite.operator().register(r, {
      resourceType: Widget,
      name: 'dr17',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Set_() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    for (let i = 1; i <= 3; i++) {
      await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: i } });
      await waitFor(() => r.runs.length >= i + 1, `reconcile ${i}`);
    }
    await suite.admin.create(Widget, widget('marker', ns));
    await waitFor(() => observed(ns, 'marker'), 'marker');
    expect(suite.server.requests.writes({ namespace: ns, resource: 'statefulsets' })).toBe(2);
  });

  it('[DR-19] bulk dependents create, update and delete to match the desired map', async () => {
    const ns = await newNamespace(suite.admin);
    class Bulk
      extends CRUDKubernetesDependentResource<V1ConfigMap, Widget>
      implements BulkDependentResource<V1ConfigMap, Widget>
    {
      constructor() {
        super({ resourceType: ResourceTypes.ConfigMap });
      }
      protected desired(): V1ConfigMap {
        throw new Error('bulk: desiredResources is used');
      }
      desiredResources(p: Widget): Map<string, V1ConfigMap> {
        const out = new Map<string, V1ConfigMap>();
        for (let i = 0; i < (p.spec?.size ?? 0); i++) {
          out.set(String(i), {
            metadata: { name: `${p.metadata!.name!}-${i}`, namespace: ns },
            data: { v: p.spec?.value ?? '' },
          });
        }
        return out;
      }
      getSecondaryResources(p: Widget): Map<string, V1ConfigMap> {
        const out = new Map<string, V1ConfigMap>();
        for (const c of this.informerEventSource!.getSecondaryResources(p))
          out.set(c.metadata!.name!.split('-').pop()!, c);
        return out;
      }
      async deleteTargetResource(
        _p: Widget,
        resource: V1ConfigMap,
        _key: string,
        context: Context<Widget>,
      ): Promise<void> {
        await context.client.delete(ResourceTypes.ConfigMap, ResourceID.fromResource(resource));
      }
    }
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr19',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Bulk() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'a', size: 3 }));
    const names = async () =>
      (await suite.admin.list(ResourceTypes.ConfigMap, { namespace: ns })).items
        .map((c) => c.metadata!.name!)
        .filter((n) => n.startsWith('w-'))
        .sort();
    await waitFor(async () => (await names()).length === 3, 'three');
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: 1, value: 'b' } });
    await waitFor(
      async () => (await names()).join() === 'w-0' && (await cm(ns, 'w-0'))?.data?.['v'] === 'b',
      'one updated',
    );
  });

  it('[DR-20] read-only dependents take part in conditions', async () => {
    const ns = await newNamespace(suite.admin);
    class Settings extends KubernetesDependentResource<V1ConfigMap, Widget> {
      constructor() {
        super({
          resourceType: ResourceTypes.ConfigMap,
          informer: { labelSelector: 'role=settings' },
          name: 'settings',
        });
      }
      protected desired(p: Widget): V1ConfigMap {
        return { metadata: { name: `${p.metadata!.name!}-settings` } };
      }
      protected override targetSecondaryResourceID(p: Widget): ResourceID {
        return new ResourceID(`${p.metadata!.name!}-settings`, p.metadata!.namespace);
      }
    }
    const settings = new Settings();
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr20',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: settings,
            readyPostcondition: (d: unknown, p: Widget, c: Context<Widget>) =>
              settings.getSecondaryResource(p, c) !== undefined,
          },
          {
            dependent: new ConfigMapDependent({ informer: { labelSelector: 'app' } }),
            dependsOn: ['settings'],
          },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => observed(ns, 'w'), 'status');
    expect(await cm(ns, 'w-cm')).toBeUndefined();
    expect(settings.traits).toEqual({});
    await suite.admin.create(ResourceTypes.ConfigMap, {
      metadata: {
        name: 'w-settings',
        namespace: ns,
        labels: { role: 'settings' },
        annotations: { 'tosdk.io/primary-name': 'w' },
      },
    });
    await waitFor(async () => (await cm(ns, 'w-cm')) !== undefined, 'created once settings exist');
  });
});
