import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { AggregatedOperatorError } from '../../workflow/errors.js';
import type { BulkDependentResource } from '../bulk-dependent-resource.js';
import { CRUDKubernetesDependentResource } from '../crud-kubernetes-dependent-resource.js';
import { KubernetesDependentResource } from '../kubernetes-dependent-resource.js';
import { DependentResourceError } from '../errors.js';
import { ConfigMapDependent, apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

/**
 * Adversarial review S13 of dependent resources against JOSDK (operator-framework-core,
 * processing/dependent), driven through @tosdk/apiserver.
 */
const suite = apiServerSuite();

class StatusReconciler implements Reconciler<Widget> {
  reconcile(resource: Widget, _context?: Context<Widget>) {
    if (resource.status?.observed === resource.spec?.value) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed: resource.spec?.value };
    return UpdateControl.patchStatus(resource);
  }
}

const cm = (ns: string, name: string) => suite.admin.get(ResourceTypes.ConfigMap, new ResourceID(name, ns));
const observed = async (ns: string, name: string, value: string) =>
  (await suite.admin.get(Widget, new ResourceID(name, ns)))?.status?.observed === value;
const writes = (ns: string) =>
  suite.server.requests.log.filter(
    (q) => q.namespace === ns && q.resource === 'configmaps' && !['get', 'list', 'watch'].includes(q.verb),
  ).length;

/** A ConfigMap whose label and annotation carry the widget's value; its data never changes. */
class LabelledConfigMap extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
  constructor() {
    super({ resourceType: ResourceTypes.ConfigMap, useSSA: false });
  }
  protected desired(p: Widget): V1ConfigMap {
    return {
      metadata: {
        name: `${p.metadata!.name!}-labelled`,
        labels: { version: p.spec?.value ?? '' },
        annotations: { 'example.com/version': p.spec?.value ?? '' },
      },
      data: { fixed: 'yes' },
    };
  }
}

describe('S13 review: dependents', () => {
  // JOSDK: KubernetesDependentResource.match without SSA is GenericKubernetesResourceMatcher.match(
  // desired, actual, false, false, ...): a JSON diff from desired to actual where, under
  // metadata.labels and metadata.annotations, only "add" operations (others' entries) match; a
  // desired entry missing or with another value is a "remove"/"replace" and updates the resource.
  it('[FINDING S13-DW2] a dependent without server-side apply never updates its labels or annotations when only they change, nor repairs them when someone removes them', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 's13dw2',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new LabelledConfigMap() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'v1' }));
    await waitFor(
      async () => (await cm(ns, 'w-labelled'))?.metadata?.labels?.['version'] === 'v1',
      'created',
    );
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'v2' } });
    await waitFor(() => observed(ns, 'w', 'v2'), 'reconciled v2');
    await waitFor(async () => {
      const meta = (await cm(ns, 'w-labelled'))?.metadata;
      return meta?.labels?.['version'] === 'v2' && meta.annotations?.['example.com/version'] === 'v2';
    }, 'label and annotation updated to v2');
    // someone drops our label and adds theirs: ours is put back, theirs kept
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-labelled', ns), {
      metadata: { labels: { version: null, theirs: 'x' } },
    });
    await waitFor(
      async () => (await cm(ns, 'w-labelled'))?.metadata?.labels?.['version'] === 'v2',
      'label repaired',
    );
    expect((await cm(ns, 'w-labelled'))?.metadata?.labels?.['theirs']).toBe('x');
    // labels added by others alone cause no write
    const before = writes(ns);
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-labelled', ns), {
      metadata: { labels: { more: 'y' }, annotations: { 'their/note': 'z' } },
    });
    await suite.admin.create(Widget, widget('marker', ns, { value: 'm' }));
    await waitFor(async () => (await cm(ns, 'marker-labelled')) !== undefined, 'marker');
    await waitFor(() => observed(ns, 'marker', 'm'), 'marker reconciled');
    expect(writes(ns) - before).toBe(2); // their patch and the marker's create
  });

  // JOSDK's AbstractDependentResource.reconcile / handleCreate / handleUpdate: throwIfNull ->
  // DependentResourceException("Desired cannot be null. Primary ID: ...") (and "Created resource" /
  // "Updated resource" for what create and update return).
  it('[FINDING S13-DW5] a dependent whose desired() returns nothing fails with a TypeError from deep inside the framework, not an error naming the dependent and primary', async () => {
    const ns = await newNamespace(suite.admin);
    class Forgetful extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
      constructor() {
        super({ resourceType: ResourceTypes.ConfigMap, name: 'forgetful' });
      }
      protected desired(): V1ConfigMap {
        return undefined as unknown as V1ConfigMap; // a forgotten return
      }
    }
    let error: unknown;
    class R extends StatusReconciler {
      updateErrorStatus(_r: Widget, _c: Context<Widget>, e: unknown) {
        error = e;
        return ErrorStatusUpdateControl.noStatusUpdate<Widget>().withNoRetry();
      }
    }
    suite.operator().register(new R(), {
      resourceType: Widget,
      name: 's13dw5',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Forgetful() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => error !== undefined, 'updateErrorStatus');
    expect(error).toBeInstanceOf(AggregatedOperatorError);
    const cause = (error as AggregatedOperatorError).errorsByDependent.get('forgetful');
    expect(cause).toBeInstanceOf(DependentResourceError);
    expect((cause as DependentResourceError).code).toBe('MissingResource');
    expect((cause as Error).message).toContain('forgetful');
    expect((cause as Error).message).toContain(`${ns}/w`);
    expect((cause as Error).message).toContain('desired()');
  });

  // JOSDK's KubernetesDependentResource.update without SSA: GenericResourceUpdater.updateResource
  // keeps the actual object's metadata (its ownerReferences, finalizers...) and only adds the desired
  // labels and annotations; the update is sent with the actual resourceVersion.
  it('[FINDING S13-DW7] a dependent without server-side apply drops the owner references others added when it updates the object', async () => {
    const ns = await newNamespace(suite.admin);
    class Plain extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
      constructor() {
        super({ resourceType: ResourceTypes.ConfigMap, useSSA: false });
      }
      protected desired(p: Widget): V1ConfigMap {
        return { metadata: { name: `${p.metadata!.name!}-plain` }, data: { value: p.spec?.value ?? '' } };
      }
    }
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 's13dw7',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Plain() }] },
    });
    await suite.operators[0].start();
    const owner = await suite.admin.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'other-owner', namespace: ns },
    });
    await suite.admin.create(Widget, widget('w', ns, { value: 'v1' }));
    await waitFor(async () => (await cm(ns, 'w-plain'))?.data?.['value'] === 'v1', 'created');
    const ours = (await cm(ns, 'w-plain'))!.metadata!.ownerReferences!;
    expect(ours.map((r) => r.kind)).toEqual(['Widget']);
    const theirs = { apiVersion: 'v1', kind: 'ConfigMap', name: 'other-owner', uid: owner.metadata!.uid! };
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-plain', ns), {
      metadata: { ownerReferences: [...ours, theirs], finalizers: ['example.com/keep'] },
    });
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'v2' } });
    await waitFor(async () => (await cm(ns, 'w-plain'))?.data?.['value'] === 'v2', 'updated');
    const meta = (await cm(ns, 'w-plain'))!.metadata!;
    expect(meta.ownerReferences?.map((r) => `${r.kind}/${r.name}`)).toEqual([
      'Widget/w',
      'ConfigMap/other-owner',
    ]);
    expect(meta.finalizers).toEqual(['example.com/keep']);
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-plain', ns), {
      metadata: { finalizers: null },
    });
  });

  // JOSDK's BulkDependentResourceReconciler.reconcile: a bulk dependent that is no Creator, Updater
  // or Deleter (read-only) reports ReconcileResult.noOperation for each of its actual secondaries,
  // without asking for desiredResources (whose default throws "Implement desiredResources in case a
  // non read-only bulk dependent resource").
  it('[FINDING S13-DW9] a read-only bulk dependent fails unless its desiredResources works, and its reconcile result lists the desired keys, not the secondaries it has', async () => {
    const ns = await newNamespace(suite.admin);
    class Watched
      extends KubernetesDependentResource<V1ConfigMap, Widget>
      implements BulkDependentResource<V1ConfigMap, Widget>
    {
      constructor() {
        super({
          resourceType: ResourceTypes.ConfigMap,
          name: 'watched',
          informer: { labelSelector: 'watched' },
        });
      }
      protected desired(): V1ConfigMap {
        throw new Error('bulk: not used');
      }
      desiredResources(): Map<string, V1ConfigMap> {
        throw new Error('read-only: nothing is desired');
      }
      getSecondaryResources(p: Widget): Map<string, V1ConfigMap> {
        return new Map(this.informerEventSource!.getSecondaryResources(p).map((c) => [c.metadata!.name!, c]));
      }
      deleteTargetResource(): Promise<void> {
        throw new Error('read-only: nothing is deleted');
      }
    }
    let seen: string[] | undefined;
    let failure: unknown;
    class R extends StatusReconciler {
      override reconcile(resource: Widget, context: Context<Widget>) {
        const result = context.managedWorkflowAndDependentResourceContext().getWorkflowReconcileResult();
        seen = result?.reconcileResults
          .get('watched')
          ?.results.map((r) => `${r.operation}:${(r.resource as V1ConfigMap | undefined)?.metadata?.name}`)
          .sort();
        return super.reconcile(resource);
      }
      updateErrorStatus(_r: Widget, _c: Context<Widget>, e: unknown) {
        failure = e;
        return ErrorStatusUpdateControl.noStatusUpdate<Widget>().withNoRetry();
      }
    }
    for (const name of ['w-1', 'w-2']) {
      await suite.admin.create(ResourceTypes.ConfigMap, {
        metadata: {
          name,
          namespace: ns,
          labels: { watched: 'yes' },
          annotations: { 'tosdk.io/primary-name': 'w', 'tosdk.io/primary-namespace': ns },
        },
      });
    }
    suite.operator().register(new R(), {
      resourceType: Widget,
      name: 's13dw9',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Watched() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => seen !== undefined || failure !== undefined, 'reconciled');
    expect(failure).toBeUndefined();
    expect(seen).toEqual(['none:w-1', 'none:w-2']);
  });

  // JOSDK's KubernetesDependentResource.create with SSA: createResourceOnlyIfNotExistingWithSSA
  // (KubernetesDependentResourceConfig.DEFAULT_CREATE_RESOURCE_ONLY_IF_NOT_EXISTING_WITH_SSA = true)
  // sets metadata.resourceVersion "1" on the applied object, so an object of that name that already
  // exists (and is not the dependent's secondary, else it would update it) fails the apply with 409
  // Conflict and is left as it is; kube-apiserver's store.Update ignores that version when it creates.
  it('[FINDING S13-DW11] a dependent takes over and overwrites an unrelated object that has its name (adding its owner reference, so it is garbage collected with the primary)', async () => {
    const ns = await newNamespace(suite.admin);
    await suite.admin.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'w-cm', namespace: ns },
      data: { value: 'theirs' },
    });
    const errors: unknown[] = [];
    class R extends StatusReconciler {
      updateErrorStatus(_r: Widget, _c: Context<Widget>, e: unknown) {
        errors.push(e);
        return ErrorStatusUpdateControl.noStatusUpdate<Widget>().withNoRetry();
      }
    }
    suite.operator().register(new R(), {
      resourceType: Widget,
      name: 's13dw11',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new ConfigMapDependent({ name: 'cm' }) }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await suite.admin.create(Widget, widget('v', ns));
    await waitFor(
      async () =>
        (await cm(ns, 'v-cm')) !== undefined && (errors.length > 0 || (await observed(ns, 'w', 'a'))),
      'both reconciled',
    );
    const theirs = await cm(ns, 'w-cm');
    expect(theirs?.data).toEqual({ value: 'theirs' });
    expect(theirs?.metadata?.ownerReferences).toBeUndefined();
    const cause = (errors[0] as AggregatedOperatorError | undefined)?.errorsByDependent.get('cm');
    expect(cause).toBeInstanceOf(DependentResourceError);
    expect((cause as DependentResourceError).code).toBe('SecondaryNameTaken');
    expect((cause as Error).message).toContain(`ConfigMap ${ns}/w-cm`);
    // where no object has the name, it is created with one apply and owned by it
    const created = await cm(ns, 'v-cm');
    expect(created?.data).toEqual({ value: 'a' });
    expect(created?.metadata?.managedFields?.map((f) => f.operation)).toEqual(['Apply']);
    expect(
      suite.server.requests.log
        .filter((q) => q.namespace === ns && q.name === 'v-cm' && q.verb !== 'get')
        .map((q) => q.verb),
    ).toEqual(['patch']);
  });
});
