import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext } from '../../api/event-source-context.js';
import type { EventSources, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { CRUDKubernetesDependentResource } from '../crud-kubernetes-dependent-resource.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

/**
 * Issue 17 (H19): kube-apiserver owns an applied `labels: {}` / `data: {}` in fieldsV1 (`f:data: {}`,
 * structured-merge-diff computes the field set before Go decoding drops the empties) while the
 * object has neither. @tosdk/apiserver now does the same; the managed-fields matcher must still
 * skip such an intent when nothing changed, and still send a change from `data: {}` to `data: {a}`
 * and back.
 */
const suite = apiServerSuite();
jest.setTimeout(120_000);
const WAIT_MS = 30_000;

/** `data: {a: '1'}` while the primary's value is `fill`, else `data: {}`; always `labels: {}`. */
function intent(p: Widget): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${p.metadata!.name!}-cm`, namespace: p.metadata!.namespace, labels: {} },
    data: p.spec?.value === 'fill' ? { a: '1' } : {},
  };
}

/** Marks each pass in the status (`observed` = the spec's size) so the test can wait for it. */
function observedStatus(resource: Widget): UpdateControl<Widget> {
  const observed = `${resource.spec?.size ?? 0}/${resource.spec?.value ?? ''}`;
  if (resource.status?.observed === observed) return UpdateControl.noUpdate<Widget>();
  resource.status = { ...resource.status, observed };
  return UpdateControl.patchStatus(resource);
}

class EmptiesConfigMap extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
  /** `takeOver`: an existing object of its name that is not its secondary is applied over (createOnlyIfMissing: false). */
  constructor(takeOver = false) {
    super({ resourceType: ResourceTypes.ConfigMap, ...(takeOver ? { createOnlyIfMissing: false } : {}) });
  }
  protected desired(p: Widget): V1ConfigMap {
    const d = intent(p);
    delete d.apiVersion;
    delete d.kind;
    return d;
  }
}

class StatusReconciler implements Reconciler<Widget> {
  reconcile(resource: Widget) {
    return observedStatus(resource);
  }
}

/** Applies {@link intent} through `resourceOperations().serverSideApply` on every pass. */
class OperationsApplier implements Reconciler<Widget> {
  readonly errors: unknown[] = [];
  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return { configMaps: new InformerEventSource({ type: ResourceTypes.ConfigMap }, context) };
  }
  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    try {
      await context.resourceOperations().serverSideApply(intent(w));
    } catch (error) {
      this.errors.push(error);
    }
    return observedStatus(w);
  }
}

type Register = (ns: string, name: string) => void;

const viaDependent = (ns: string, name: string, takeOver = false): void => {
  suite.operator().register(new StatusReconciler(), {
    resourceType: Widget,
    name,
    namespaces: [ns],
    workflow: { dependents: [{ dependent: new EmptiesConfigMap(takeOver) }] },
  });
};

const viaOperations: Register = (ns, name) =>
  suite.operator().register(new OperationsApplier(), { resourceType: Widget, name, namespaces: [ns] });

describe.each([
  ['a dependent', viaDependent],
  ['resourceOperations().serverSideApply', viaOperations],
])('an apply of labels: {} and data: {} through %s', (how, register) => {
  const prefix = how === 'a dependent' ? 'dep' : 'ops';

  it('[DR-10] is skipped once applied: no further write while the intent is unchanged', async () => {
    const ns = await newNamespace(suite.admin);
    register(ns, `${prefix}-empties-skip`);
    await suite.operators[0].start();
    const id = new ResourceID('w', ns);
    await suite.admin.create(Widget, widget('w', ns, { size: 0 }));
    const observed = async (v: string) => (await suite.admin.get(Widget, id))?.status?.observed === v;
    await waitFor(() => observed('0/'), 'first pass', WAIT_MS);
    const cm = await suite.admin.get(ResourceTypes.ConfigMap, new ResourceID('w-cm', ns));
    expect(cm).toBeDefined();
    expect(cm?.data).toBeUndefined();
    expect(cm?.metadata?.labels).toBeUndefined();
    // the server owns the empties for our manager, as kube-apiserver does
    const entry = cm?.metadata?.managedFields?.find((e) => e.operation === 'Apply');
    const fields = entry?.fieldsV1 as Record<string, Record<string, unknown>> | undefined;
    expect(fields?.['f:data']).toEqual({});
    expect(fields?.['f:metadata']['f:labels']).toEqual({});
    const writes = () => suite.server.requests.writes({ namespace: ns, resource: 'configmaps' });
    expect(writes()).toBe(1);
    const rv = cm?.metadata?.resourceVersion;
    for (let i = 1; i <= 3; i++) {
      await suite.admin.mergePatch(Widget, id, { spec: { size: i } });
      await waitFor(() => observed(`${i}/`), `pass ${i}`, WAIT_MS);
    }
    expect(writes()).toBe(1);
    expect(
      (await suite.admin.get(ResourceTypes.ConfigMap, new ResourceID('w-cm', ns)))?.metadata?.resourceVersion,
    ).toBe(rv);
  });

  it('[DR-10] sends data: {} -> {a: "1"} -> {} again, and skips after each', async () => {
    const ns = await newNamespace(suite.admin);
    register(ns, `${prefix}-empties-change`);
    await suite.operators[0].start();
    const id = new ResourceID('w', ns);
    const cmId = new ResourceID('w-cm', ns);
    await suite.admin.create(Widget, widget('w', ns, { size: 0 }));
    const observed = async (v: string) => (await suite.admin.get(Widget, id))?.status?.observed === v;
    await waitFor(() => observed('0/'), 'first pass', WAIT_MS);
    const writes = () => suite.server.requests.writes({ namespace: ns, resource: 'configmaps' });
    expect(writes()).toBe(1);

    await suite.admin.mergePatch(Widget, id, { spec: { value: 'fill' } });
    await waitFor(
      async () => (await suite.admin.get(ResourceTypes.ConfigMap, cmId))?.data?.a === '1',
      'data {a: 1} applied',
      WAIT_MS,
    );
    await waitFor(() => observed('0/fill'), 'pass after fill', WAIT_MS);
    expect(writes()).toBe(2);
    await suite.admin.mergePatch(Widget, id, { spec: { size: 1 } });
    await waitFor(() => observed('1/fill'), 'pass with the same intent', WAIT_MS);
    expect(writes()).toBe(2);

    await suite.admin.mergePatch(Widget, id, { spec: { value: 'empty' } });
    await waitFor(
      async () => (await suite.admin.get(ResourceTypes.ConfigMap, cmId))?.data === undefined,
      'data: {} applied (the key removed)',
      WAIT_MS,
    );
    await waitFor(() => observed('1/empty'), 'pass after emptying', WAIT_MS);
    expect(writes()).toBe(3);
    await suite.admin.mergePatch(Widget, id, { spec: { size: 2 } });
    await waitFor(() => observed('2/empty'), 'pass with the same intent', WAIT_MS);
    expect(writes()).toBe(3);
  });
});

describe('labels: {} applied where another manager already set labels', () => {
  // FINDING for H17 (matchers.ts, see /tmp/tosdk/s4/H19-H17.md): kube-apiserver (and now
  // @tosdk/apiserver) records our applied `labels: {}` as the leaf `f:labels: {}`, also when the
  // object already carries someone else's labels. pruneToFields reads a leaf as owning the whole
  // value, so the matcher compares the other manager's `{team: 'x'}` with our `{}` and sends a
  // no-op apply on every reconcile (the server changes nothing, so it never converges).
  it('[DR-10] the intent is skipped once applied (no write per reconcile)', async () => {
    const ns = await newNamespace(suite.admin);
    // the object is someone else's (no owner reference): by default a create would refuse it
    viaDependent(ns, 'dep-empties-foreign', true);
    await suite.admin.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'w-cm', namespace: ns, labels: { team: 'x' } },
    });
    await suite.operators[0].start();
    const id = new ResourceID('w', ns);
    await suite.admin.create(Widget, widget('w', ns, { size: 0 }));
    const observed = async (v: string) => (await suite.admin.get(Widget, id))?.status?.observed === v;
    await waitFor(() => observed('0/'), 'first pass', WAIT_MS);
    const cm = await suite.admin.get(ResourceTypes.ConfigMap, new ResourceID('w-cm', ns));
    expect(cm?.metadata?.labels).toEqual({ team: 'x' });
    const writes = () => suite.server.requests.writes({ namespace: ns, resource: 'configmaps' });
    const after = writes();
    for (let i = 1; i <= 3; i++) {
      await suite.admin.mergePatch(Widget, id, { spec: { size: i } });
      await waitFor(() => observed(`${i}/`), `pass ${i}`, WAIT_MS);
    }
    expect(writes()).toBe(after);
  });
});

/** Applies the child Widget `<name>-child` with `metadata.labels: {}` on every pass. */
class ChildApplier implements Reconciler<Widget> {
  readonly errors: unknown[] = [];
  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return { children: new InformerEventSource<Widget, Widget>({ type: Widget }, context) };
  }
  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    if (w.metadata!.name!.endsWith('-child')) return UpdateControl.noUpdate();
    try {
      await context.resourceOperations().serverSideApply({
        apiVersion: Widget.apiVersion,
        kind: Widget.kind,
        metadata: { name: `${w.metadata!.name}-child`, namespace: w.metadata!.namespace, labels: {} },
        spec: { value: 'child' },
      });
    } catch (error) {
      this.errors.push(error);
    }
    return observedStatus(w);
  }
}

describe('a custom resource applied with metadata.labels: {}', () => {
  // kube-apiserver decodes a custom resource's metadata as Go's ObjectMeta (apiextensions-apiserver
  // objectmeta.Coerce), so the stored child has no labels while our entry owns f:labels: {}; the
  // server does the same since ac01bd0. FINDING for H17 (/tmp/tosdk/s4/H19-H17.md): the matcher at
  // f8313df compares custom resources exactly, metadata's `labels: {}` included, so it sends one
  // no-op apply per reconcile (4 child writes over 3 passes). Flip to `it` when the matcher treats a
  // custom resource's metadata as an ObjectMeta.
  it('[DR-10] is skipped once applied (no write per reconcile)', async () => {
    const ns = await newNamespace(suite.admin);
    const reconciler = new ChildApplier();
    suite
      .operator()
      .register(reconciler, { resourceType: Widget, name: 'cr-meta-empties', namespaces: [ns] });
    await suite.operators[0].start();
    const id = new ResourceID('w', ns);
    await suite.admin.create(Widget, widget('w', ns, { size: 0 }));
    const observed = async (v: string) => (await suite.admin.get(Widget, id))?.status?.observed === v;
    await waitFor(() => observed('0/'), 'first pass', WAIT_MS);
    const child = await suite.admin.get(Widget, new ResourceID('w-child', ns));
    expect(child?.spec?.value).toBe('child');
    expect(child?.metadata?.labels).toBeUndefined();
    const writes = () =>
      suite.server.requests.writes({ namespace: ns, resource: 'widgets', name: 'w-child' });
    expect(writes()).toBe(1);
    for (let i = 1; i <= 3; i++) {
      await suite.admin.mergePatch(Widget, id, { spec: { size: i } });
      await waitFor(() => observed(`${i}/`), `pass ${i}`, WAIT_MS);
    }
    expect(writes()).toBe(1);
    expect(reconciler.errors).toEqual([]);
  });
});
