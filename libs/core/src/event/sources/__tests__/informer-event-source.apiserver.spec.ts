import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { EventSourceContext, EventSources } from '../../../api/reconciler.js';
import { ResourceID } from '../../../api/resource-id.js';
import type { Operator } from '../../../operator/operator.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import { MissingPrimaryToSecondaryMapperError } from '../errors.js';
import { InformerEventSource, PRIMARY_INDEX } from '../informer-event-source.js';
import { Mappers } from '../mappers.js';
import { configMap, ownedConfigMap } from './helpers.js';

const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();
const { operators } = bed;

const operator = (): Operator => bed.operator();

interface Run {
  name: string;
  secondary?: Record<string, string>;
}

/** A widget reconciler that applies one owned ConfigMap through resourceOperations and records what it saw. */
class ConfigMapReconciler {
  runs: Run[] = [];
  source!: InformerEventSource<V1ConfigMap, Widget>;
  readAfterWrite: Array<{ get?: string; list: number; index: number }> = [];
  constructor(
    private readonly options: Partial<
      ConstructorParameters<typeof InformerEventSource<V1ConfigMap, Widget>>[0]
    > = {},
  ) {}

  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    this.source = new InformerEventSource<V1ConfigMap, Widget>({ type: CM, ...this.options }, context);
    return { configmaps: this.source };
  }

  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    const before = context.getSecondaryResource(CM);
    this.runs.push({ name: w.metadata!.name!, secondary: before?.data });
    const desired = ownedConfigMap(`${w.metadata!.name}-cm`, w.metadata!.namespace!, w, {
      value: w.spec?.value ?? '',
    });
    await context.resourceOperations().serverSideApply(desired);
    const id = new ResourceID(desired.metadata!.name!, desired.metadata!.namespace);
    this.readAfterWrite.push({
      get: context.getSecondaryResource(CM)?.data?.value,
      list: this.source
        .list(id.namespace)
        .filter((c) => c.metadata?.name === id.name && c.data?.value === w.spec?.value).length,
      index: this.source
        .byIndex(PRIMARY_INDEX, ResourceID.fromResource(w).key)
        .filter((c) => c.data?.value === w.spec?.value).length,
    });
    return UpdateControl.noUpdate();
  }
}

describe('InformerEventSource against @tosdk/apiserver', () => {
  it('[ES-01][ES-10][ES-11] an owned secondary triggers its primary; our own apply is readable at once and does not re-trigger, a change by someone else does', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new ConfigMapReconciler();
    operator().register(r, { resourceType: Widget, name: 'es01', namespaces: [ns] });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(() => r.runs.length === 1, 'first reconcile');
    const cmId = new ResourceID('w-cm', ns);
    // read after write inside the reconciliation: get, list and the primary index
    await waitFor(() => r.readAfterWrite.length === 1, 'write done');
    expect(r.readAfterWrite[0]).toEqual({ get: 'one', list: 1, index: 1 });
    // our own event arrives and is recognised as ours
    await waitFor(() => r.source.get(cmId)?.metadata?.resourceVersion !== undefined, 'cm cached');
    await waitFor(async () => {
      const live = await bed.admin.get(CM, cmId);
      return (
        !r.source.hasPendingOwnWrite(cmId) &&
        r.source.get(cmId)?.metadata?.resourceVersion === live?.metadata?.resourceVersion
      );
    }, 'own event consumed');
    // someone else changes the secondary: one reconcile, which sees the change
    await bed.admin.mergePatch(CM, cmId, { data: { value: 'theirs' } });
    await waitFor(() => r.runs.length >= 2, 'reconcile after foreign change');
    expect(r.runs[1].secondary).toEqual({ value: 'theirs' });
    // the reconcile put our value back with its own write: no further reconcile follows
    await waitFor(async () => (await bed.admin.get(CM, cmId))?.data?.value === 'one', 'restored');
    await waitFor(() => !r.source.hasPendingOwnWrite(cmId), 'own event consumed again');
    // a last foreign change as a barrier: had the own write re-triggered, there would be 4 runs
    await bed.admin.mergePatch(CM, cmId, { metadata: { labels: { touched: 'yes' } } });
    await waitFor(() => r.runs.length >= 3, 'barrier reconcile');
    await waitFor(() => !r.source.hasPendingOwnWrite(cmId), 'quiet');
    expect(r.runs.length).toBe(3);
    // our apply, their patch, our restoring apply, their label; the barrier's reconcile applies
    // nothing new (its intent is in the cached managed fields), so no write is sent (issue 15 §1)
    expect(bed.server.requests.writes({ resource: 'configmaps', namespace: ns, user: 'admin' })).toBe(4);
  });

  it('[ES-02] every secondary is cached before the first reconcile after start', async () => {
    const ns = await newNamespace(bed.admin);
    const owners: Widget[] = [];
    for (let i = 0; i < 10; i++) owners.push(await bed.admin.create(Widget, widget(`w${i}`, ns)));
    for (const [i, w] of owners.entries()) {
      await bed.admin.create(CM, ownedConfigMap(`w${i}-a`, ns, w));
      await bed.admin.create(CM, ownedConfigMap(`w${i}-b`, ns, w));
    }
    const seen: number[] = [];
    let source!: InformerEventSource<V1ConfigMap, Widget>;
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          (source = new InformerEventSource({ type: CM, name: 'cms' }, c)),
        ],
        reconcile: (_w: Widget, c: Context<Widget>) => {
          seen.push(c.getSecondaryResources(CM).length);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es02', namespaces: [ns] },
    );
    await operators[0].start();
    await waitFor(() => seen.length >= 10, 'all reconciled');
    expect(seen.slice(0, 10)).toEqual(Array(10).fill(2));
    expect(source.list(ns)).toHaveLength(20);
  });

  it('[ES-02] secondary informers list while the primaries are listed; the first reconcile still sees them all', async () => {
    const ns = await newNamespace(bed.admin);
    const w = await bed.admin.create(Widget, widget('w', ns));
    await bed.admin.create(CM, ownedConfigMap('w-a', ns, w));
    // the primaries' list is slow: the secondaries' list need not wait for it
    bed.server.faults.addLatency({ verb: 'list', resource: 'widgets', namespace: ns, ms: 500 });
    const seen: number[] = [];
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          new InformerEventSource({ type: CM, name: 'cms' }, c),
        ],
        reconcile: (_w: Widget, c: Context<Widget>) => {
          seen.push(c.getSecondaryResources(CM).length);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es02-parallel', namespaces: [ns] },
    );
    await operators[0].start();
    await waitFor(() => seen.length >= 1, 'reconciled');
    expect(seen[0]).toBe(1);
    // the log is in order of answers: the ConfigMaps were listed before the slow Widget list ended
    const lists = bed.server.requests.log
      .filter((r) => r.verb === 'list' && r.namespace === ns)
      .map((r) => r.resource);
    expect(lists).toEqual(['configmaps', 'widgets']);
  });

  it('[ES-06] annotation (default keys) and label mappers trigger their primaries; an empty mapping reconciles nothing', async () => {
    const ns = await newNamespace(bed.admin);
    const runs: string[] = [];
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => ({
          byAnnotation: new InformerEventSource(
            {
              type: CM,
              secondaryToPrimaryMapper: Mappers.fromDefaultAnnotations(),
              labelSelector: 'via=annotation',
            },
            c,
          ),
          byLabel: new InformerEventSource(
            { type: CM, secondaryToPrimaryMapper: Mappers.fromLabel('primary'), labelSelector: 'via=label' },
            c,
          ),
        }),
        reconcile: (w: Widget) => {
          runs.push(w.metadata!.name!);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es06', namespaces: [ns] },
    );
    await operators[0].start();
    await bed.admin.create(Widget, widget('a', ns));
    await bed.admin.create(Widget, widget('b', ns));
    await waitFor(() => runs.length === 2, 'initial');
    await bed.admin.create(
      CM,
      configMap(
        'x',
        ns,
        { v: '1' },
        { labels: { via: 'annotation' }, annotations: { 'tosdk.io/primary-name': 'a' } },
      ),
    );
    await waitFor(() => runs.filter((n) => n === 'a').length === 2, 'annotation maps to a');
    // no annotation: the mapper returns nothing
    await bed.admin.create(CM, configMap('none', ns, { v: '1' }, { labels: { via: 'annotation' } }));
    await bed.admin.create(CM, configMap('y', ns, { v: '1' }, { labels: { via: 'label', primary: 'b' } }));
    await waitFor(() => runs.filter((n) => n === 'b').length === 2, 'label maps to b');
    expect(runs.filter((n) => n === 'a')).toHaveLength(2);
  });

  it('[ES-07][ES-08] many primaries share one secondary: an index on primaries maps the secondary to all of them, the primary-to-secondary mapper finds it, and without one the lookup fails clearly while the cache still serves it', async () => {
    const ns = await newNamespace(bed.admin);
    const seen: Record<string, string | undefined> = {};
    let unmapped!: InformerEventSource<V1ConfigMap, Widget>;
    let failure: unknown;
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => {
          c.primaryCache.addIndexer!('byConfigMap', (w) =>
            w.spec?.value ? [`${w.metadata!.namespace}/${w.spec.value}`] : [],
          );
          const s2p = (cm: V1ConfigMap) =>
            c.primaryCache.byIndex!('byConfigMap', ResourceID.fromResource(cm).key).map((w) =>
              ResourceID.fromResource(w),
            );
          unmapped = new InformerEventSource<V1ConfigMap, Widget>(
            { type: CM, secondaryToPrimaryMapper: s2p, labelSelector: 'shared=yes' },
            c,
          );
          return {
            shared: new InformerEventSource<V1ConfigMap, Widget>(
              {
                type: CM,
                secondaryToPrimaryMapper: s2p,
                primaryToSecondaryMapper: (w) =>
                  w.spec?.value ? [new ResourceID(w.spec.value, w.metadata!.namespace)] : [],
              },
              c,
            ),
            unmapped,
          };
        },
        reconcile: (w: Widget, c: Context<Widget>) => {
          seen[w.metadata!.name!] = c.getSecondaryResource(CM, 'shared')?.data?.v;
          try {
            unmapped.getSecondaryResources(w);
          } catch (error) {
            failure = error;
          }
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es07', namespaces: [ns] },
    );
    await operators[0].start();
    await bed.admin.create(CM, configMap('common', ns, { v: '1' }, { labels: { shared: 'yes' } }));
    await bed.admin.create(Widget, widget('p1', ns, { value: 'common' }));
    await bed.admin.create(Widget, widget('p2', ns, { value: 'common' }));
    await waitFor(() => seen.p1 === '1' && seen.p2 === '1', 'both see the shared secondary');
    await bed.admin.mergePatch(CM, new ResourceID('common', ns), { data: { v: '2' } });
    await waitFor(
      () => seen.p1 === '2' && seen.p2 === '2',
      'a change of the shared secondary reconciles both',
    );
    expect(failure).toBeInstanceOf(MissingPrimaryToSecondaryMapperError);
    expect((failure as MissingPrimaryToSecondaryMapperError).code).toBe('MissingPrimaryToSecondaryMapper');
    expect(unmapped.get(new ResourceID('common', ns))?.data?.v).toBe('2');
  });

  it('[ES-09] user filters decide which secondary events reconcile', async () => {
    const ns = await newNamespace(bed.admin);
    const runs: Array<string | undefined> = [];
    let source!: InformerEventSource<V1ConfigMap, Widget>;
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          (source = new InformerEventSource<V1ConfigMap, Widget>(
            {
              type: CM,
              name: 'cms',
              onUpdateFilter: (n) => n.data?.trigger === 'yes',
              onAddFilter: () => false,
            },
            c,
          )),
        ],
        reconcile: (_w: Widget, c: Context<Widget>) => {
          runs.push(c.getSecondaryResource(CM)?.data?.trigger);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es09', namespaces: [ns] },
    );
    await operators[0].start();
    const w = await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => runs.length === 1, 'initial');
    await bed.admin.create(CM, ownedConfigMap('c', ns, w, { trigger: 'no' }));
    const id = new ResourceID('c', ns);
    await waitFor(() => source.get(id) !== undefined, 'cached');
    await bed.admin.mergePatch(CM, id, { data: { trigger: 'no', other: 'x' } });
    await waitFor(() => source.get(id)?.data?.other === 'x', 'update cached');
    await bed.admin.mergePatch(CM, id, { data: { trigger: 'yes' } });
    await waitFor(() => runs.length >= 2, 'accepted update reconciles');
    await waitFor(
      async () =>
        source.get(id)?.metadata?.resourceVersion ===
        (await bed.admin.get(CM, id))?.metadata?.resourceVersion,
      'quiet',
    );
    expect(runs).toEqual([undefined, 'yes']);
  });

  it('[ES-21] two ConfigMap event sources; the context lists their secondaries once each', async () => {
    const ns = await newNamespace(bed.admin);
    let names: string[] = [];
    operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => ({
          red: new InformerEventSource<V1ConfigMap, Widget>({ type: CM, labelSelector: 'red=yes' }, c),
          blue: new InformerEventSource<V1ConfigMap, Widget>({ type: CM, labelSelector: 'blue=yes' }, c),
        }),
        reconcile: (_w: Widget, c: Context<Widget>) => {
          names = c
            .getSecondaryResources(CM)
            .map((cm) => cm.metadata!.name!)
            .sort();
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'es21', namespaces: [ns] },
    );
    const w = await bed.admin.create(Widget, widget('w', ns));
    await bed.admin.create(CM, ownedConfigMap('r', ns, w, {}, { red: 'yes' }));
    await bed.admin.create(CM, ownedConfigMap('b', ns, w, {}, { blue: 'yes' }));
    await bed.admin.create(CM, ownedConfigMap('both', ns, w, {}, { red: 'yes', blue: 'yes' }));
    await operators[0].start();
    await waitFor(() => names.length > 0, 'reconciled');
    expect(names).toEqual(['b', 'both', 'r']);
  });

  it('[ES-11] an own write outside the label selection is not served from the cache: once deleted it is gone, not a ghost', async () => {
    const ns = await newNamespace(bed.admin);
    // the reconciler's ConfigMap carries no label, so this source does not watch it
    const r = new ConfigMapReconciler({
      labelSelector: 'via=label',
      secondaryToPrimaryMapper: Mappers.fromLabel('primary'),
    });
    operator().register(r, { resourceType: Widget, name: 'es11-selection', namespaces: [ns] });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(() => r.readAfterWrite.length === 1, 'write done');
    const cmId = new ResourceID('w-cm', ns);
    expect(await bed.admin.get(CM, cmId)).toBeDefined();
    await bed.admin.delete(CM, cmId);
    // a barrier: the source's watch has gone past the delete
    await bed.admin.create(CM, configMap('barrier', ns, { a: 'b' }, { labels: { via: 'label' } }));
    await waitFor(() => r.source.get(new ResourceID('barrier', ns)) !== undefined, 'barrier seen');
    expect(await bed.admin.get(CM, cmId)).toBeUndefined();
    expect(r.source.get(cmId)).toBeUndefined();
    expect(r.source.list(ns).map((c) => c.metadata?.name)).toEqual(['barrier']);
    expect(r.source.hasPendingOwnWrite(cmId)).toBe(false);
  });
});
