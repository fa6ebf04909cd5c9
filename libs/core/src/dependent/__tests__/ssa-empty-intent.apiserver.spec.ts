import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext } from '../../api/event-source-context.js';
import type { EventSources, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { matchesManagedFields } from '../matchers.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

/**
 * Issue 15 §1 (no needless writes): an apply whose intent names no field (only apiVersion, kind,
 * metadata.name and namespace: "this object exists") owns nothing, and the API server keeps no
 * managedFields entry for it. The matcher used to answer "no entry of ours, so apply" on every
 * reconcile, one no-op write each time, forever. Any field named in the intent is still applied.
 */
const suite = apiServerSuite();
jest.setTimeout(120_000);
const WAIT_MS = 30_000;

/** The intent of this pass: the ConfigMap exists; with spec.value 'fill', it also has data. */
function intent(p: Widget): V1ConfigMap {
  const cm: V1ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${p.metadata!.name!}-cm`, namespace: p.metadata!.namespace },
  };
  if (p.spec?.value === 'fill') cm.data = { mine: '1' };
  return cm;
}

class ExistsApplier implements Reconciler<Widget> {
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
    const observed = `${w.spec?.size ?? 0}/${w.spec?.value ?? ''}`;
    if (w.status?.observed === observed) return UpdateControl.noUpdate<Widget>();
    w.status = { ...w.status, observed };
    return UpdateControl.patchStatus(w);
  }
}

describe('an apply that names no field', () => {
  it('[DR-10] of an object someone else made is never sent; a field named later is applied, then skipped', async () => {
    const ns = await newNamespace(suite.admin);
    const reconciler = new ExistsApplier();
    suite.operator().register(reconciler, { resourceType: Widget, name: 'exists-only', namespaces: [ns] });
    await suite.admin.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'w-cm', namespace: ns, labels: { team: 'x' } },
      data: { theirs: 'y' },
    });
    const cmId = new ResourceID('w-cm', ns);
    const rv = (await suite.admin.get(ResourceTypes.ConfigMap, cmId))?.metadata?.resourceVersion;
    // the operator's writes of the ConfigMap (the admin's create above is one)
    const all = () => suite.server.requests.writes({ namespace: ns, resource: 'configmaps' });
    const made = all();
    const writes = () => all() - made;
    await suite.operators[0].start();
    const id = new ResourceID('w', ns);
    await suite.admin.create(Widget, widget('w', ns, { size: 0 }));
    const observed = async (v: string) => (await suite.admin.get(Widget, id))?.status?.observed === v;
    await waitFor(() => observed('0/'), 'first pass', WAIT_MS);
    for (let i = 1; i <= 3; i++) {
      await suite.admin.mergePatch(Widget, id, { spec: { size: i } });
      await waitFor(() => observed(`${i}/`), `pass ${i}`, WAIT_MS);
    }
    expect(reconciler.errors).toEqual([]);
    expect(writes()).toBe(0);
    const cm = await suite.admin.get(ResourceTypes.ConfigMap, cmId);
    expect(cm?.metadata?.resourceVersion).toBe(rv);
    expect(cm?.data).toEqual({ theirs: 'y' });

    // a field in the intent is a change: applied once, then skipped
    await suite.admin.mergePatch(Widget, id, { spec: { value: 'fill' } });
    await waitFor(
      async () => (await suite.admin.get(ResourceTypes.ConfigMap, cmId))?.data?.mine === '1',
      'data.mine applied',
      WAIT_MS,
    );
    await waitFor(() => observed('3/fill'), 'pass after fill', WAIT_MS);
    expect(writes()).toBe(1);
    await suite.admin.mergePatch(Widget, id, { spec: { size: 4 } });
    await waitFor(() => observed('4/fill'), 'pass with the same intent', WAIT_MS);
    expect(writes()).toBe(1);

    // dropping it again is a change too (our entry owns data.mine): sent once
    await suite.admin.mergePatch(Widget, id, { spec: { value: 'empty' } });
    await waitFor(
      async () => (await suite.admin.get(ResourceTypes.ConfigMap, cmId))?.data?.mine === undefined,
      'data.mine removed',
      WAIT_MS,
    );
    await waitFor(() => observed('4/empty'), 'pass after emptying', WAIT_MS);
    expect(writes()).toBe(2);
    expect((await suite.admin.get(ResourceTypes.ConfigMap, cmId))?.data).toEqual({ theirs: 'y' });
    expect(reconciler.errors).toEqual([]);
  });

  it('[DR-10] of an object that does not exist creates it, once', async () => {
    const ns = await newNamespace(suite.admin);
    suite
      .operator()
      .register(new ExistsApplier(), { resourceType: Widget, name: 'exists-new', namespaces: [ns] });
    await suite.operators[0].start();
    const id = new ResourceID('w', ns);
    await suite.admin.create(Widget, widget('w', ns, { size: 0 }));
    const observed = async (v: string) => (await suite.admin.get(Widget, id))?.status?.observed === v;
    await waitFor(() => observed('0/'), 'first pass', WAIT_MS);
    expect(await suite.admin.get(ResourceTypes.ConfigMap, new ResourceID('w-cm', ns))).toBeDefined();
    const writes = () => suite.server.requests.writes({ namespace: ns, resource: 'configmaps' });
    expect(writes()).toBe(1);
    for (let i = 1; i <= 2; i++) {
      await suite.admin.mergePatch(Widget, id, { spec: { size: i } });
      await waitFor(() => observed(`${i}/`), `pass ${i}`, WAIT_MS);
    }
    expect(writes()).toBe(1);
  });
});

describe('the matcher with no apply entry of ours', () => {
  const cm = (metadata: Record<string, unknown>, rest: Record<string, unknown> = {}) =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata, ...rest }) as V1ConfigMap;
  const theirs = cm(
    {
      name: 'c',
      namespace: 'n',
      labels: { team: 'x' },
      managedFields: [
        {
          manager: 'other',
          operation: 'Update',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { 'f:team': {} } } },
        },
      ],
    },
    { data: { a: '1' } },
  );

  it('[DR-10] matches an intent of only apiVersion, kind, name and namespace (undefined members absent)', () => {
    expect(matchesManagedFields(theirs, cm({ name: 'c', namespace: 'n' }), 'me')).toBe(true);
    expect(matchesManagedFields(theirs, { metadata: { name: 'c' } }, 'me')).toBe(true);
    expect(
      matchesManagedFields(theirs, cm({ name: 'c', labels: undefined }, { data: undefined }), 'me'),
    ).toBe(true);
  });

  it('[DR-10] does not match once the intent names anything else: it must be applied', () => {
    const intents = [
      cm({ name: 'c', labels: {} }),
      cm({ name: 'c', labels: { team: 'x' } }),
      cm({ name: 'c', annotations: {} }),
      cm({ name: 'c', finalizers: [] }),
      cm({ name: 'c', resourceVersion: '1' }),
      cm({ name: 'c', generateName: 'c-' }),
      cm({ name: 'c', labels: null }),
      cm({ name: 'c' }, { data: {} }),
      cm({ name: 'c' }, { data: { a: '1' } }),
      cm({ name: 'c' }, { status: {} }),
      cm({ name: 'c' }, { immutable: false }),
      cm({ name: 'c' }, { data: null }),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: null } as unknown as V1ConfigMap,
    ];
    for (const intent of intents)
      expect({ intent, match: matchesManagedFields(theirs, intent, 'me') }).toEqual({
        intent,
        match: false,
      });
  });

  it('[DR-10] an apply entry of ours that owns fields still decides: an empty intent drops them', () => {
    const ours = cm(
      {
        name: 'c',
        namespace: 'n',
        managedFields: [
          {
            manager: 'me',
            operation: 'Apply',
            apiVersion: 'v1',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:data': { 'f:a': {} } },
          },
        ],
      },
      { data: { a: '1' } },
    );
    expect(matchesManagedFields(ours, cm({ name: 'c', namespace: 'n' }), 'me')).toBe(false);
  });
});
