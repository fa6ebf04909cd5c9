import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { Context } from '../../../api/context.js';
import type { EventSourceContext } from '../../../api/event-source-context.js';
import { UpdateControl } from '../../../api/controls.js';
import type { EventSources, Reconciler } from '../../../api/reconciler.js';
import type { KubernetesResource } from '../../../api/resource-type.js';
import { defineResource } from '../../../api/resource-type.js';
import { ResourceID } from '../../../api/resource-id.js';
import { KubernetesApiError } from '../../../client/errors.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor as waitForWithin,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import { InformerEventSource } from '../informer-event-source.js';
import type { OwnApplyOptions } from '../resource-operations.js';

/**
 * Adversarial review of 9ac5082 (a server-side apply whose intent the cached managed fields already
 * hold is not sent): nothing may be skipped that would change the object, and a skip must never
 * hide a foreign change.
 */
const bed = apiServerSuite();

/** Slow is fine under CI's load, only a condition never met fails. */
const WAIT_MS = 30_000;
jest.setTimeout(120_000);
const waitFor = (condition: () => boolean | Promise<boolean>, what: string) =>
  waitForWithin(condition, what, WAIT_MS);
const CM = ResourceTypes.ConfigMap;

type Intent = (w: Widget) => Array<Record<string, unknown>>;

/**
 * Applies, per widget, the ConfigMaps (or child widgets) `intent` says, in order, through
 * `context.resourceOperations().serverSideApply` with `options`; records results and errors.
 */
class ApplyReconciler implements Reconciler<Widget> {
  readonly runs: string[] = [];
  readonly errors: unknown[] = [];
  readonly results: Array<Record<string, unknown>> = [];
  options: OwnApplyOptions = {};
  constructor(
    public intent: Intent,
    private readonly secondary: 'configmaps' | 'widgets' = 'configmaps',
  ) {}

  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    if (this.secondary === 'configmaps')
      return { configmaps: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context) };
    return { children: new InformerEventSource<Widget, Widget>({ type: Widget }, context) };
  }

  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    if (w.metadata!.name!.endsWith('-child')) return UpdateControl.noUpdate();
    this.runs.push(`${w.spec?.value}/${w.spec?.size ?? ''}`);
    try {
      for (const body of this.intent(w)) {
        const applied = body.status
          ? await context.resourceOperations().serverSideApplyStatus(body as never, this.options)
          : await context.resourceOperations().serverSideApply(body as never, this.options);
        this.results.push(applied);
      }
    } catch (error) {
      this.errors.push(error);
    }
    return UpdateControl.noUpdate();
  }
}

function owned(w: Widget) {
  const { name, uid } = w.metadata!;
  return [{ apiVersion: Widget.apiVersion, kind: Widget.kind, name: name!, uid: uid!, controller: true }];
}

/** The ConfigMap `<widget>-cm` with `data`. */
function configMap(w: Widget, data: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${w.metadata!.name}-cm`, namespace: w.metadata!.namespace, ownerReferences: owned(w) },
    data,
  };
}

async function started(reconciler: ApplyReconciler, ns: string, spec: Widget['spec']) {
  const operator = bed.operator();
  operator.register(reconciler, { resourceType: Widget, name: `review-ssa-${ns}`, namespaces: [ns] });
  await operator.start();
  await bed.admin.create(Widget, widget('w', ns, spec));
  return operator;
}

const cmWrites = (ns: string) => bed.server.requests.writes({ namespace: ns, resource: 'configmaps' });

describe('review: the server-side apply skip (9ac5082) never skips a change', () => {
  it('[ES-19] a ConfigMap with several managers: a co-owned field and a foreign addition are no reason to write, a field another manager changed by update is applied back', async () => {
    const ns = await newNamespace(bed.admin);
    const cid = new ResourceID('w-cm', ns);
    const reconciler = new ApplyReconciler((w) => [configMap(w, { a: w.spec!.value! })]);
    await started(reconciler, ns, { value: 'one' });
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.a === 'one', 'ConfigMap applied');
    // another applier co-owns a with the same value and adds b: nothing of ours changed
    await bed.admin.apply(
      CM,
      { metadata: { name: 'w-cm', namespace: ns }, data: { a: 'one', b: 'x' } },
      {
        fieldManager: 'co-owner',
        force: false,
      },
    );
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: 1 } });
    await waitFor(() => reconciler.runs.includes('one/1'), 'reconciled after the co-owner wrote');
    const before = cmWrites(ns);
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: 2 } });
    await waitFor(() => reconciler.runs.includes('one/2'), 'reconciled again');
    expect(cmWrites(ns)).toBe(before);
    expect((await bed.admin.get(CM, cid))?.data).toEqual({ a: 'one', b: 'x' });

    // an update by someone else changes a: the co-owner and we lose it; our intent is applied back
    await bed.admin.mergePatch(CM, cid, { data: { a: 'tampered' } });
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.a === 'one', 'a applied back');
    expect(reconciler.errors).toEqual([]);
  });

  it('[ES-19] with force: false a field another applier took is not skipped: the apply is sent and its conflict reaches the reconciler', async () => {
    const ns = await newNamespace(bed.admin);
    const cid = new ResourceID('w-cm', ns);
    const reconciler = new ApplyReconciler((w) => [configMap(w, { a: w.spec!.value! })]);
    reconciler.options = { force: false };
    await started(reconciler, ns, { value: 'one' });
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.a === 'one', 'ConfigMap applied');
    await bed.admin.apply(
      CM,
      { metadata: { name: 'w-cm', namespace: ns }, data: { a: 'theirs' } },
      {
        fieldManager: 'taker',
        force: true,
      },
    );
    await waitFor(() => reconciler.errors.length > 0, 'the conflicting apply fails');
    expect(reconciler.errors[0]).toBeInstanceOf(KubernetesApiError);
    expect((reconciler.errors[0] as KubernetesApiError).status).toBe(409);
    expect((await bed.admin.get(CM, cid))?.data?.a).toBe('theirs');
  });

  it('[ES-19] applies within one reconciliation read each other through the own-write cache: back to an earlier value and dropping a field are both sent', async () => {
    const ns = await newNamespace(bed.admin);
    const cid = new ResourceID('w-cm', ns);
    const reconciler = new ApplyReconciler((w) =>
      w.spec?.value === 'flip'
        ? [configMap(w, { a: '1', b: '1' }), configMap(w, { a: '2', b: '1' }), configMap(w, { a: '1' })]
        : [configMap(w, { a: '0' })],
    );
    await started(reconciler, ns, { value: 'start' });
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.a === '0', 'ConfigMap applied');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'flip' } });
    await waitFor(() => reconciler.results.length >= 4, 'three applies returned');
    expect(reconciler.errors).toEqual([]);
    // every run of 'flip' ends with { a: '1' }: b is dropped by the last apply of any run
    await waitFor(
      async () => JSON.stringify((await bed.admin.get(CM, cid))?.data) === '{"a":"1"}',
      'the last apply of the run sent',
    );
  });

  // H8 finding F1: failed before the fix (the apply was skipped and reported as success)
  it('[ES-19] an intent carrying a stale metadata.resourceVersion is sent (the server answers 409), not skipped as if it had succeeded; also for a status apply', async () => {
    const ns = await newNamespace(bed.admin);
    const cid = new ResourceID('w-cm', ns);
    const kid = new ResourceID('w-child', ns);
    // on 'locked' the intents repeat what is there, conditional on a version long gone
    const stale = (w: Widget) => (w.spec?.value === 'locked' ? { resourceVersion: '1' } : {});
    const reconciler = new ApplyReconciler((w) => [
      {
        ...configMap(w, { a: 'same' }),
        metadata: { name: 'w-cm', namespace: ns, ownerReferences: owned(w), ...stale(w) },
      },
    ]);
    await started(reconciler, ns, { value: 'one' });
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.a === 'same', 'ConfigMap applied');
    const before = cmWrites(ns);
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'locked' } });
    await waitFor(
      () => reconciler.runs.some((r) => r.startsWith('locked')),
      'reconciled with the stale intent',
    );
    // a shorter wait: the 409 comes with the reconciliation already seen above
    await waitForWithin(() => reconciler.errors.length > 0, 'the conditional apply fails', 10_000);
    expect((reconciler.errors[0] as KubernetesApiError).status).toBe(409);
    expect(cmWrites(ns)).toBe(before + 1); // the apply was sent, and refused
    expect(bed.server.requests.count({ namespace: ns, resource: 'configmaps', code: 409 })).toBe(1);
    expect(reconciler.results.length).toBe(1); // no result handed back for the refused apply

    // the status apply of a child widget, conditional on a stale version
    const statusReconciler = new ApplyReconciler(
      (w) => [
        {
          apiVersion: Widget.apiVersion,
          kind: Widget.kind,
          metadata: { name: 'w-child', namespace: w.metadata!.namespace, ownerReferences: owned(w) },
          spec: { value: 'child' },
        },
        {
          apiVersion: Widget.apiVersion,
          kind: Widget.kind,
          metadata: { name: 'w-child', namespace: w.metadata!.namespace, ...stale(w) },
          status: { observed: 'same' },
        },
      ],
      'widgets',
    );
    const ns2 = await newNamespace(bed.admin);
    await started(statusReconciler, ns2, { value: 'one' });
    const kid2 = new ResourceID(kid.name, ns2);
    await waitFor(
      async () => (await bed.admin.get(Widget, kid2))?.status?.observed === 'same',
      'child status applied',
    );
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns2), { spec: { value: 'locked' } });
    await waitFor(() => statusReconciler.errors.length > 0, 'the conditional status apply fails');
    expect((statusReconciler.errors[0] as KubernetesApiError).status).toBe(409);
  });

  // H8 finding F2 (/tmp/tosdk/H8-findings.md): failed before a0be387 (the apply was skipped)
  it('[ES-19] an empty object is a value: an intent adding an empty map, or dropping one it applied before, is sent', async () => {
    const ns = await newNamespace(bed.admin);
    const kid = new ResourceID('w-child', ns);
    const child = (w: Widget, spec: Record<string, unknown>) => ({
      apiVersion: Widget.apiVersion,
      kind: Widget.kind,
      metadata: { name: 'w-child', namespace: ns, ownerReferences: owned(w) },
      spec,
    });
    // the two intents differ only by an empty map
    const reconciler = new ApplyReconciler(
      (w) => [child(w, w.spec?.value === 'with' ? { value: 'child', config: {} } : { value: 'child' })],
      'widgets',
    );
    const specOf = async () => JSON.stringify((await bed.admin.get(Widget, kid))?.spec);
    await started(reconciler, ns, { value: 'without' });
    await waitFor(async () => (await specOf()) === '{"value":"child"}', 'child applied');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'with' } });
    await waitForWithin(
      async () => (await specOf()) === '{"value":"child","config":{}}',
      'the empty map applied',
      10_000,
    );
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'without' } });
    await waitForWithin(
      async () => (await specOf()) === '{"value":"child"}',
      'the empty map dropped',
      10_000,
    );
    expect(reconciler.errors).toEqual([]);
  });

  // H8 finding F3: failed before the fix (the apply was skipped)
  it('[ES-19] through a metadata-only source, an intent dropping a data key we applied is sent (the cache cannot show that the key is there)', async () => {
    const ns = await newNamespace(bed.admin);
    const cid = new ResourceID('w-cm', ns);
    let source!: InformerEventSource<KubernetesResource, Widget>;
    const errors: unknown[] = [];
    const operator = bed.operator();
    operator.register(
      {
        prepareEventSources(context: EventSourceContext<Widget>): EventSources {
          source = new InformerEventSource<KubernetesResource, Widget>(
            { type: CM, metadataOnly: true },
            context,
          );
          return { configmaps: source };
        },
        async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
          // 'both': a label and data.x; then only the label: data.x must go
          const intent = configMap(w, { x: '1' });
          if (w.spec?.value !== 'both') delete intent.data;
          (intent.metadata as { labels?: object }).labels = { app: 'w' };
          await context
            .resourceOperations()
            .serverSideApply(intent)
            .catch((e: unknown) => errors.push(e));
          return UpdateControl.noUpdate<Widget>();
        },
      },
      { name: 'meta-apply', resourceType: Widget, namespaces: [ns] },
    );
    await operator.start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'both' }));
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.x === '1', 'ConfigMap applied with data');
    await waitFor(() => source.get(cid)?.kind === 'PartialObjectMetadata', 'cached as metadata');
    const applies = () =>
      bed.server.requests.log.filter(
        (r) =>
          r.namespace === ns && r.resource === 'configmaps' && r.path.includes('fieldManager=meta-apply'),
      ).length;
    const before = applies();
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'label-only' } });
    await waitForWithin(
      async () => (await bed.admin.get(CM, cid))?.data?.x === undefined,
      'data.x dropped by the apply',
      10_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; applies sent since: ${applies() - before}`);
    });
    expect(errors).toEqual([]);
  });

  // H8 finding F5: failed before the fix (the apply was skipped)
  it('[ES-19] a custom resource without a status subresource: its status is applied by the main apply, so a changed status is sent', async () => {
    const Plain = defineResource<Widget>({ group: 'review.tosdk.io', version: 'v1', kind: 'Plain' });
    const CRD = defineResource<KubernetesResource>({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      scope: 'Cluster',
    });
    const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    if (!(await bed.admin.get(CRD, new ResourceID('plains.review.tosdk.io')))) {
      await bed.admin.create(CRD, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'plains.review.tosdk.io' },
        spec: {
          group: 'review.tosdk.io',
          scope: 'Namespaced',
          names: { plural: 'plains', singular: 'plain', kind: 'Plain', listKind: 'PlainList' },
          // no subresources: status is an ordinary field
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
            },
          ],
        },
      } as KubernetesResource);
    }
    await waitFor(
      async () =>
        (await bed.admin.list(Plain, { namespace: 'default' }).catch(() => undefined)) !== undefined,
      'the Plain CRD served',
    );
    const ns = await newNamespace(bed.admin);
    const pid = new ResourceID('w-plain', ns);
    let applied = 0;
    const errors: unknown[] = [];
    const operator = bed.operator();
    operator.register(
      {
        prepareEventSources(context: EventSourceContext<Widget>): EventSources {
          return { plains: new InformerEventSource<Widget, Widget>({ type: Plain }, context) };
        },
        async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
          await context
            .resourceOperations()
            .serverSideApply({
              apiVersion: Plain.apiVersion,
              kind: Plain.kind,
              metadata: { name: 'w-plain', namespace: ns, ownerReferences: owned(w) },
              spec: { value: 'fixed' },
              status: { observed: w.spec?.value },
            })
            .then(() => applied++)
            .catch((e: unknown) => errors.push(e));
          return UpdateControl.noUpdate<Widget>();
        },
      },
      { name: 'plain-apply', resourceType: Widget, namespaces: [ns] },
    );
    await operator.start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(async () => (await bed.admin.get(Plain, pid))?.status?.observed === 'one', 'Plain applied');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'two' } });
    await waitForWithin(
      async () => (await bed.admin.get(Plain, pid))?.status?.observed === 'two',
      'the changed status applied',
      10_000,
    );
    expect(errors).toEqual([]);
  });

  // H8 finding F6: failed before the fix (the apply was skipped)
  it('[ES-19] a custom resource without a status subresource: an intent that no longer carries the status we applied is sent (it drops the status)', async () => {
    const Plain = await plainKind();
    const ns = await newNamespace(bed.admin);
    const pid = new ResourceID('w-plain', ns);
    const errors: unknown[] = [];
    const operator = bed.operator();
    operator.register(
      {
        prepareEventSources(context: EventSourceContext<Widget>): EventSources {
          return { plains: new InformerEventSource<Widget, Widget>({ type: Plain }, context) };
        },
        async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
          const intent: Widget = {
            apiVersion: Plain.apiVersion,
            kind: Plain.kind,
            metadata: { name: 'w-plain', namespace: ns, ownerReferences: owned(w) },
            spec: { value: 'fixed' },
          };
          if (w.spec?.value !== 'none') intent.status = { observed: w.spec?.value };
          await context
            .resourceOperations()
            .serverSideApply(intent)
            .catch((e: unknown) => errors.push(e));
          return UpdateControl.noUpdate<Widget>();
        },
      },
      { name: 'plain-drop', resourceType: Widget, namespaces: [ns] },
    );
    await operator.start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(async () => (await bed.admin.get(Plain, pid))?.status?.observed === 'one', 'Plain applied');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'none' } });
    await waitForWithin(
      async () => (await bed.admin.get(Plain, pid))?.status?.observed === undefined,
      'the status we applied dropped',
      10_000,
    );
    expect(errors).toEqual([]);
  });

  it('[ES-19] a ConfigMap deleted while the watch is away is applied again once the delete is seen (a skip on the stale cache hides nothing for good)', async () => {
    const ns = await newNamespace(bed.admin);
    const cid = new ResourceID('w-cm', ns);
    const reconciler = new ApplyReconciler((w) => [configMap(w, { a: w.spec!.value! })]);
    await started(reconciler, ns, { value: 'one' });
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.a === 'one', 'ConfigMap applied');
    // the ConfigMap watch comes back late; meanwhile the ConfigMap is deleted and the widget reconciled
    bed.server.faults.addLatency({ verb: 'watch', resource: 'configmaps', ms: 1_500 });
    bed.server.faults.closeAllWatches();
    await bed.admin.delete(CM, cid);
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: 7 } });
    await waitFor(() => reconciler.runs.includes('one/7'), 'reconciled while the cache is stale');
    bed.server.faults.clear();
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.a === 'one', 'ConfigMap applied again');
    expect(reconciler.errors).toEqual([]);
  });

  it('[ES-19] a custom resource keeps what was written: 1 and "1", "1000m" and "1" are different intents and are sent', async () => {
    const ns = await newNamespace(bed.admin);
    const kid = new ResourceID('w-child', ns);
    const child = (w: Widget, size: unknown, value: string) => ({
      apiVersion: Widget.apiVersion,
      kind: Widget.kind,
      metadata: { name: 'w-child', namespace: ns, ownerReferences: owned(w) },
      spec: { size, value },
    });
    const reconciler = new ApplyReconciler((w) => {
      switch (w.spec?.value) {
        case 'number':
          return [child(w, 1, '1000m')];
        case 'string':
          return [child(w, '1', '1000m')];
        default:
          return [child(w, '1', '1')];
      }
    }, 'widgets');
    await started(reconciler, ns, { value: 'number' });
    await waitFor(async () => (await bed.admin.get(Widget, kid))?.spec?.size === 1, 'child applied');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'string' } });
    await waitFor(
      async () => ((await bed.admin.get(Widget, kid))?.spec?.size as unknown) === '1',
      'the string applied',
    );
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'canonical' } });
    await waitFor(
      async () => (await bed.admin.get(Widget, kid))?.spec?.value === '1',
      '"1" applied over "1000m"',
    );
    expect(reconciler.errors).toEqual([]);
  });

  it('[ES-19] a status field another manager changed by update is applied back by the status apply', async () => {
    const ns = await newNamespace(bed.admin);
    const kid = new ResourceID('w-child', ns);
    const reconciler = new ApplyReconciler(
      (w) => [
        {
          apiVersion: Widget.apiVersion,
          kind: Widget.kind,
          metadata: { name: 'w-child', namespace: w.metadata!.namespace, ownerReferences: owned(w) },
          spec: { value: 'child' },
        },
        {
          apiVersion: Widget.apiVersion,
          kind: Widget.kind,
          metadata: { name: 'w-child', namespace: ns },
          status: { observed: w.spec?.value },
        },
      ],
      'widgets',
    );
    await started(reconciler, ns, { value: 'one' });
    await waitFor(
      async () => (await bed.admin.get(Widget, kid))?.status?.observed === 'one',
      'child status applied',
    );
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { size: 3 } });
    await waitFor(() => reconciler.runs.includes('one/3'), 'reconciled with nothing to change');
    await bed.admin.mergePatch(
      Widget,
      kid,
      { status: { observed: 'tampered' } },
      {
        subresource: 'status',
      },
    );
    await waitFor(
      async () => (await bed.admin.get(Widget, kid))?.status?.observed === 'one',
      'status applied back',
    );
    expect(reconciler.errors).toEqual([]);
  });
});

/** The kind `Plain` (review.tosdk.io/v1) of a CRD without a status subresource, created once per server. */
async function plainKind() {
  const Plain = defineResource<Widget>({ group: 'review.tosdk.io', version: 'v1', kind: 'Plain' });
  const CRD = defineResource<KubernetesResource>({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    scope: 'Cluster',
  });
  const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  if (!(await bed.admin.get(CRD, new ResourceID('plains.review.tosdk.io')))) {
    await bed.admin.create(CRD, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'plains.review.tosdk.io' },
      spec: {
        group: 'review.tosdk.io',
        scope: 'Namespaced',
        names: { plural: 'plains', singular: 'plain', kind: 'Plain', listKind: 'PlainList' },
        // no subresources: status is an ordinary field
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
          },
        ],
      },
    } as KubernetesResource);
  }
  await waitFor(
    async () => (await bed.admin.list(Plain, { namespace: 'default' }).catch(() => undefined)) !== undefined,
    'the Plain CRD served',
  );
  return Plain;
}
