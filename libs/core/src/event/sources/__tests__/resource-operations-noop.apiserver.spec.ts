import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { Context } from '../../../api/context.js';
import type { EventSourceContext } from '../../../api/event-source-context.js';
import { UpdateControl } from '../../../api/controls.js';
import type { Reconciler } from '../../../api/reconciler.js';
import { ResourceID } from '../../../api/resource-id.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor as waitForWithin,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import type { EventSources } from '../../../api/reconciler.js';
import { InformerEventSource } from '../informer-event-source.js';

const bed = apiServerSuite();

/** Slow is fine under CI's load, only a condition never met fails. */
const WAIT_MS = 30_000;
jest.setTimeout(120_000);
const waitFor = (condition: () => boolean | Promise<boolean>, what: string) =>
  waitForWithin(condition, what, WAIT_MS);
const CM = ResourceTypes.ConfigMap;

/**
 * The README's reconciler: a ConfigMap by `resourceOperations().serverSideApply` (optionally its
 * labels through a status-less kind, so only the main apply), then `UpdateControl.patchStatus`.
 */
class ReadmeReconciler implements Reconciler<Widget> {
  readonly runs: Widget[] = [];
  readonly applied: V1ConfigMap[] = [];
  /** What the source caches right after each apply returned. */
  readonly cached: Array<V1ConfigMap | undefined> = [];

  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return { configmaps: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context) };
  }

  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    this.runs.push(w);
    const { name, namespace, uid } = w.metadata!;
    const cm = await context.resourceOperations().serverSideApply<V1ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `${name}-cm`,
        namespace,
        labels: { app: 'widgets' },
        ownerReferences: [
          { apiVersion: Widget.apiVersion, kind: Widget.kind, name: name!, uid: uid!, controller: true },
        ],
      },
      data: { value: w.spec?.value ?? '' },
    });
    this.applied.push(cm);
    this.cached.push(context.getSecondaryResource(CM));
    w.status = { ...w.status, observed: w.spec?.value };
    return UpdateControl.patchStatus(w);
  }
}

describe('ResourceOperations sends no server-side apply that would change nothing (issue 15 §1)', () => {
  it("[ES-19] the README's reconciler writes nothing on a restart with nothing changed; a foreign change of an applied field and a new intent are applied", async () => {
    const ns = await newNamespace(bed.admin);
    const wid = new ResourceID('w', ns);
    const cid = new ResourceID('w-cm', ns);
    const options = { resourceType: Widget, name: 'noop-apply', namespaces: [ns] };
    const first = new ReadmeReconciler();
    bed.operator().register(first, options);
    await bed.operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(
      async () => (await bed.admin.get(Widget, wid))?.status?.observed === 'one',
      'status written',
    );
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.value === 'one', 'ConfigMap applied');
    const cmWrites = () => bed.server.requests.writes({ namespace: ns, resource: 'configmaps' });
    const widgetWrites = () => bed.server.requests.writes({ namespace: ns, resource: 'widgets' });
    expect(cmWrites()).toBe(1);
    expect(widgetWrites()).toBe(2); // our create and the one status patch
    await bed.operators[0].stop();

    // a restart with nothing changed: the reconcile runs and returns the cached ConfigMap, unwritten
    const again = new ReadmeReconciler();
    bed.operator().register(again, options);
    await bed.operators[1].start();
    await waitFor(() => again.applied.length >= 1, 'reconciled after the restart');
    expect(again.applied[0].data).toEqual({ value: 'one' });
    expect(again.applied[0].metadata?.name).toBe('w-cm');
    // what a skipped apply returns is a copy: changing it cannot change the cache
    expect(again.applied[0]).toEqual(again.cached[0]);
    expect(again.applied[0]).not.toBe(again.cached[0]);
    expect(cmWrites()).toBe(1);
    expect(widgetWrites()).toBe(2);

    // someone else changes a field we applied: it is theirs now, so the next apply is sent and takes it back
    await bed.admin.mergePatch(CM, cid, { data: { value: 'theirs' } });
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.value === 'one', 'taken back');
    expect(cmWrites()).toBe(3); // their patch, our apply

    // someone else adds a field of their own: ours still hold the intent, nothing is sent
    const runsBefore = again.runs.length;
    await bed.admin.mergePatch(CM, cid, { metadata: { labels: { extra: 'x' } } });
    await waitFor(() => again.runs.length > runsBefore, 'their label change reconciled');
    expect(cmWrites()).toBe(4); // their patch only
    expect((await bed.admin.get(CM, cid))?.metadata?.labels).toEqual({ app: 'widgets', extra: 'x' });

    // a new intent is applied
    await bed.admin.mergePatch(Widget, wid, { spec: { value: 'two' } });
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.value === 'two', 'new intent applied');
    await waitFor(
      async () => (await bed.admin.get(Widget, wid))?.status?.observed === 'two',
      'status follows',
    );
    expect(cmWrites()).toBe(5);
  });

  it('[ES-19] an apply that drops a field it applied before is sent (the skip compares both ways)', async () => {
    const ns = await newNamespace(bed.admin);
    const cid = new ResourceID('w-cm', ns);
    let withExtra = true;
    const reconciler: Reconciler<Widget> = {
      prepareEventSources: (context) => ({
        configmaps: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context),
      }),
      reconcile: async (w, context) => {
        const data: Record<string, string> = { value: w.spec?.value ?? '' };
        if (withExtra) data.extra = 'yes';
        await context.resourceOperations().serverSideApply<V1ConfigMap>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: `${w.metadata!.name}-cm`,
            namespace: w.metadata!.namespace,
            ownerReferences: [
              {
                apiVersion: Widget.apiVersion,
                kind: Widget.kind,
                name: w.metadata!.name!,
                uid: w.metadata!.uid!,
                controller: true,
              },
            ],
          },
          data,
        });
        return UpdateControl.noUpdate<Widget>();
      },
    };
    bed.operator().register(reconciler, { resourceType: Widget, name: 'noop-drop', namespaces: [ns] });
    await bed.operators[bed.operators.length - 1].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.extra === 'yes', 'applied with extra');
    withExtra = false;
    // a foreign label on the ConfigMap reconciles the Widget (a Widget's metadata change would not:
    // generation-aware); the intent without `extra` must be applied, which drops it
    await bed.admin.mergePatch(CM, cid, { metadata: { labels: { poke: '1' } } });
    await waitFor(async () => (await bed.admin.get(CM, cid))?.data?.extra === undefined, 'extra dropped');
    expect((await bed.admin.get(CM, cid))?.data).toEqual({ value: 'one' });
  });

  it('[ES-19] a status apply of a secondary that changes nothing is not sent; a changed status is', async () => {
    const ns = await newNamespace(bed.admin);
    const wid = new ResourceID('w', ns);
    const oid = new ResourceID('other', ns);
    await bed.admin.create(Widget, widget('other', ns, { value: 'x' }));
    let version = 'v1';
    const runs: string[] = [];
    // the primary is a Widget; its secondary is another Widget whose status it applies
    const reconciler: Reconciler<Widget> = {
      prepareEventSources: (context) => ({
        others: new InformerEventSource<Widget, Widget>(
          { type: Widget, secondaryToPrimaryMapper: () => [wid], primaryToSecondaryMapper: () => [oid] },
          context,
        ),
      }),
      reconcile: async (w, context) => {
        if (w.metadata?.name !== 'w') return UpdateControl.noUpdate<Widget>();
        runs.push(version);
        await context.resourceOperations().serverSideApplyStatus<Widget>({
          apiVersion: Widget.apiVersion,
          kind: Widget.kind,
          metadata: { name: 'other', namespace: ns },
          status: { observed: version },
        });
        return UpdateControl.noUpdate<Widget>();
      },
    };
    bed.operator().register(reconciler, { resourceType: Widget, name: 'noop-status', namespaces: [ns] });
    await bed.operators[bed.operators.length - 1].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'a' }));
    await waitFor(
      async () => (await bed.admin.get(Widget, oid))?.status?.observed === 'v1',
      'status applied',
    );
    const statusWrites = () =>
      bed.server.requests.writes({ namespace: ns, resource: 'widgets', subresource: 'status' });
    expect(statusWrites()).toBe(1);
    // the same intent again (a spec change of the primary reconciles it): not sent
    const before = runs.length;
    await bed.admin.mergePatch(Widget, wid, { spec: { value: 'b' } });
    await waitFor(() => runs.length > before, 'reconciled again');
    expect(statusWrites()).toBe(1);
    // a changed intent is sent
    version = 'v2';
    await bed.admin.mergePatch(Widget, wid, { spec: { value: 'c' } });
    await waitFor(
      async () => (await bed.admin.get(Widget, oid))?.status?.observed === 'v2',
      'new status applied',
    );
    expect(statusWrites()).toBe(2);
  });
});
