import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import type { EventSourceContext } from '../../../api/event-source-context.js';
import type { EventSources, Reconciler } from '../../../api/reconciler.js';
import type { KubernetesResource, ResourceType } from '../../../api/resource-type.js';
import { ResourceID } from '../../../api/resource-id.js';
import type { KubernetesClient } from '../../../client/kubernetes-client.js';
import { Informer } from '../../../informer/informer.js';
import { InformerEventSource } from '../informer-event-source.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';

/**
 * Adversarial review (session 4) of the own-write echo work (issue 15 §2): the watch event of an own
 * write may now carry the very object the writer cached instead of a parse of its line. Whatever a
 * cache holds must still be what the server sent for that version: no other consumer of the same
 * client, no reconciler editing what it got, and no foreign write may change it.
 */
const bed = apiServerSuite();
const CM = ResourceTypes.ConfigMap;
const WAIT_MS = 60_000;
jest.setTimeout(180_000);

/** The object without managedFields (the caches prune them), as comparable text. */
function content(o: KubernetesResource): string {
  const { managedFields: _m, ...metadata } = o.metadata ?? {};
  return JSON.stringify({ ...o, metadata });
}

/** Records every version of `type` in `namespace` the server sends, by resourceVersion (another client's watch). */
function serverVersions(client: KubernetesClient, type: ResourceType, namespace: string, from: string) {
  const versions = new Map<string, string>();
  const controller = new AbortController();
  const done = (async () => {
    for await (const event of client.watch(type, {
      namespace,
      resourceVersion: from,
      signal: controller.signal,
    })) {
      if (event.type === 'BOOKMARK' || event.type === 'ERROR') continue;
      const o = event.object;
      versions.set(o.metadata!.resourceVersion!, content(o));
    }
  })().catch(() => undefined);
  return {
    versions,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

/** The widgets' controller: applies `<name>-cm` with the spec's value and patches status.observed. */
class Writer implements Reconciler<Widget> {
  /** Every primary and ConfigMap the reconciler read, as text, by resourceVersion. */
  readonly seenPrimaries = new Map<string, string>();
  readonly seenConfigMaps = new Map<string, string>();
  /** Labels a reconciliation found on what it read. */
  readonly seenLabels = new Set<string>();

  constructor(private readonly edit: boolean) {}

  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return { configmaps: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context) };
  }

  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    this.seenPrimaries.set(w.metadata!.resourceVersion!, content(w));
    for (const k of Object.keys(w.metadata?.labels ?? {})) this.seenLabels.add(`primary:${k}`);
    const cm = context.getSecondaryResource(CM);
    if (cm) {
      this.seenConfigMaps.set(cm.metadata!.resourceVersion!, content(cm));
      for (const k of Object.keys(cm.metadata?.labels ?? {})) this.seenLabels.add(`configmap:${k}`);
    }
    const { name, namespace, uid } = w.metadata!;
    const applied = await context.resourceOperations().serverSideApply<V1ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `${name}-cm`,
        namespace,
        ownerReferences: [
          { apiVersion: Widget.apiVersion, kind: Widget.kind, name: name!, uid: uid!, controller: true },
        ],
      },
      data: { value: w.spec?.value ?? '' },
    });
    if (this.edit) {
      // a reconciler may edit what it got (its copy of the primary, the write's answer): never the caches
      applied.data = { value: 'edited-locally' };
      (applied.metadata!.labels ??= {})['edited-answer'] = 'yes';
      (w.metadata!.labels ??= {})['edited-primary'] = 'yes';
      // deep in its copy too: nested lists and maps, and the managedFields entries
      const nested = (
        w.spec as { nested?: { list: Array<{ tags: string[] }>; map: Record<string, { v: number }> } }
      ).nested;
      if (nested) {
        nested.list[0].tags.push('edited');
        nested.map.k.v = 99;
      }
      const entry = w.metadata?.managedFields?.[0];
      if (entry) entry.manager = 'edited-manager';
    }
    if (w.status?.observed === w.spec?.value) return UpdateControl.noUpdate();
    w.status = { ...w.status, observed: w.spec?.value };
    return UpdateControl.patchStatus(w);
  }
}

async function converge(ns: string, value: string): Promise<void> {
  const id = new ResourceID('w', ns);
  await waitFor(
    async () => {
      const [w, cm] = await Promise.all([
        bed.admin.get(Widget, id),
        bed.admin.get(CM, new ResourceID('w-cm', ns)),
      ]);
      return w?.status?.observed === value && cm?.data?.value === value;
    },
    `converged on ${value}`,
    WAIT_MS,
  );
}

describe('review s4: own-write echoes', () => {
  it("[ES-01] an Informer of the user on the operator's client, whose transform edits objects in place (as its docs allow), never changes what the controller caches", async () => {
    const ns = await newNamespace(bed.admin);
    const operator = bed.operator();
    const reconciler = new Writer(false);
    operator.register(reconciler, {
      name: 'review-s4-echo-transform',
      resourceType: Widget,
      namespaces: [ns],
    });
    // a dashboard of the user on the same client: tags what it caches, in place
    const tag = <T extends KubernetesResource>(o: T): T => {
      (o.metadata!.labels ??= {})['dashboard-local'] = 'yes';
      return o;
    };
    const mine = [
      new Informer<Widget>({ client: operator.client, type: Widget, namespace: ns, transform: tag }),
      new Informer<V1ConfigMap>({ client: operator.client, type: CM, namespace: ns, transform: tag }),
    ];
    try {
      await operator.start();
      for (const i of mine) await i.start();
      await bed.admin.create(Widget, widget('w', ns, { value: 'v0' }));
      await converge(ns, 'v0');
      for (let i = 1; i <= 12; i++) {
        await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: `v${i}` } });
        await converge(ns, `v${i}`);
      }
      // the user's informers did tag their own objects
      await waitFor(
        () => mine[0].get(new ResourceID('w', ns))?.metadata?.labels?.['dashboard-local'] === 'yes',
        "the user's informer tagged its widget",
        WAIT_MS,
      );
      // one more foreign change makes the controller read what it caches now
      await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'last' } });
      await converge(ns, 'last');
      expect([...reconciler.seenLabels].sort()).toEqual([]);
    } finally {
      for (const i of mine) await i.stop();
    }
  });

  it("[ES-01] every primary and ConfigMap version a reconciler reads is the server's version of that resourceVersion, while it edits what it got and foreign writes interleave", async () => {
    const ns = await newNamespace(bed.admin);
    const start = (await bed.admin.list(Widget, { namespace: ns })).resourceVersion;
    const widgets = serverVersions(bed.admin, Widget, ns, start);
    const configMaps = serverVersions(bed.admin, CM, ns, start);
    const operator = bed.operator();
    const reconciler = new Writer(true);
    operator.register(reconciler, {
      name: 'review-s4-echo-versions',
      resourceType: Widget,
      namespaces: [ns],
    });
    try {
      await operator.start();
      await bed.admin.create(Widget, {
        ...widget('w', ns, { value: 'v0' }),
        spec: { value: 'v0', nested: { list: [{ tags: ['a'] }], map: { k: { v: 1 } } } } as Widget['spec'],
      });
      await converge(ns, 'v0');
      for (let i = 1; i <= 12; i++) {
        await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: `v${i}` } });
        // a foreign change of the ConfigMap right behind our apply, and of the widget's labels
        if (i % 3 === 0)
          await bed.admin.mergePatch(CM, new ResourceID('w-cm', ns), {
            metadata: { annotations: { i: `${i}` } },
          });
        if (i % 4 === 0)
          await bed.admin.mergePatch(Widget, new ResourceID('w', ns), {
            metadata: { labels: { i: `${i}` } },
          });
        await converge(ns, `v${i}`);
      }
      let compared = 0;
      const check = (seen: Map<string, string>, server: Map<string, string>, what: string): string[] => {
        const wrong: string[] = [];
        for (const [rv, text] of seen) {
          const truth = server.get(rv);
          if (truth !== undefined) compared++;
          if (truth !== undefined && truth !== text)
            wrong.push(`${what}@${rv}: read ${text} but the server sent ${truth}`);
        }
        return wrong;
      };
      await waitFor(
        () => [...reconciler.seenPrimaries.keys()].every((rv) => widgets.versions.has(rv)),
        'the server watch saw every version the reconciler read',
        WAIT_MS,
      );
      expect([
        ...check(reconciler.seenPrimaries, widgets.versions, 'widget'),
        ...check(reconciler.seenConfigMaps, configMaps.versions, 'configmap'),
      ]).toEqual([]);
      expect([...reconciler.seenLabels].filter((l) => l.includes('edited'))).toEqual([]);
      // the comparison compared: most primaries and ConfigMaps read were matched to a server version
      expect(compared).toBeGreaterThanOrEqual(12);
    } finally {
      await widgets.stop();
      await configMaps.stop();
    }
  });
  it("[EP-14] a Cleaner that patches resource and status under a short max interval: every primary it reads is the server's version, and a deleted widget is never reconciled again while resyncs are armed", async () => {
    const ns = await newNamespace(bed.admin);
    const start = (await bed.admin.list(Widget, { namespace: ns })).resourceVersion;
    const widgets = serverVersions(bed.admin, Widget, ns, start);
    const operator = bed.operator();
    const runs: Array<{ name: string; kind: 'reconcile' | 'cleanup'; text: string; rv: string }> = [];
    const reconciler: Reconciler<Widget> & {
      cleanup(w: Widget): Promise<import('../../../api/controls.js').DeleteControl>;
    } = {
      prepareEventSources(context: EventSourceContext<Widget>): EventSources {
        return { configmaps: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context) };
      },
      async reconcile(w: Widget, context: Context<Widget>) {
        runs.push({
          name: w.metadata!.name!,
          kind: 'reconcile',
          text: content(w),
          rv: w.metadata!.resourceVersion!,
        });
        await context.resourceOperations().serverSideApply<V1ConfigMap>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${w.metadata!.name}-cm`, namespace: ns },
          data: { value: w.spec?.value ?? '' },
        });
        if (w.status?.observed === w.spec?.value) return UpdateControl.noUpdate<Widget>();
        // the reconciler edits its copy, then asks for both patches
        w.metadata!.annotations = { ...w.metadata!.annotations, seen: w.spec?.value ?? '' };
        w.status = { ...w.status, observed: w.spec?.value };
        return UpdateControl.patchResourceAndStatus(w);
      },
      async cleanup(w: Widget) {
        runs.push({
          name: w.metadata!.name!,
          kind: 'cleanup',
          text: content(w),
          rv: w.metadata!.resourceVersion!,
        });
        const { DeleteControl } = await import('../../../api/controls.js');
        return DeleteControl.defaultDelete();
      },
    };
    operator.register(reconciler, {
      name: 'review-s4-echo-cleaner',
      resourceType: Widget,
      namespaces: [ns],
      maxReconciliationIntervalMs: 100,
    });
    try {
      await operator.start();
      await bed.admin.create(Widget, widget('w', ns, { value: 'v0' }));
      await converge(ns, 'v0');
      for (let i = 1; i <= 8; i++) {
        await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: `v${i}` } });
        await converge(ns, `v${i}`);
      }
      const served = await bed.admin.get(Widget, new ResourceID('w', ns));
      expect(served?.metadata?.annotations?.seen).toBe('v8');
      // resyncs of w are armed all the time (100 ms); delete it
      await bed.admin.delete(Widget, new ResourceID('w', ns));
      await waitFor(
        async () => (await bed.admin.get(Widget, new ResourceID('w', ns))) === undefined,
        'w gone',
        WAIT_MS,
      );
      await waitFor(() => runs.some((r) => r.name === 'w' && r.kind === 'cleanup'), 'w cleaned up', WAIT_MS);
      const gone = runs.length;
      // a sentinel resyncs three times: any resync of w still armed would have fired by then
      await bed.admin.create(Widget, widget('s', ns, { value: 's' }));
      await waitFor(
        () => runs.slice(gone).filter((r) => r.name === 's' && r.kind === 'reconcile').length >= 5,
        'the sentinel reconciled and resynced',
        WAIT_MS,
      );
      expect(runs.slice(gone).filter((r) => r.name === 'w')).toEqual([]);
      await waitFor(
        () => runs.every((r) => widgets.versions.has(r.rv)),
        'the server watch saw every version read',
        WAIT_MS,
      );
      const wrong = runs
        .filter((r) => widgets.versions.get(r.rv) !== r.text)
        .map(
          (r) => `${r.kind} ${r.name}@${r.rv}: read ${r.text}, the server sent ${widgets.versions.get(r.rv)}`,
        );
      expect(wrong).toEqual([]);
    } finally {
      await widgets.stop();
    }
  });
  it("[ES-01] with the watches cut and the history compacted (410, re-list) while own writes are in flight, the controller converges and every version it reads is the server's", async () => {
    const ns = await newNamespace(bed.admin);
    const start = (await bed.admin.list(Widget, { namespace: ns })).resourceVersion;
    const widgets = serverVersions(bed.admin, Widget, ns, start);
    const configMaps = serverVersions(bed.admin, CM, ns, start);
    const operator = bed.operator();
    const reconciler = new Writer(true);
    operator.register(reconciler, { name: 'review-s4-echo-relist', resourceType: Widget, namespaces: [ns] });
    try {
      await operator.start();
      await bed.admin.create(Widget, widget('w', ns, { value: 'v0' }));
      await converge(ns, 'v0');
      for (let i = 1; i <= 8; i++) {
        await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: `v${i}` } });
        // cut every watch while the controller writes; every other time the history is gone too
        bed.server.faults.closeAllWatches();
        if (i % 2 === 0) bed.server.faults.compact();
        await converge(ns, `v${i}`);
      }
      await widgets.stop();
      await configMaps.stop();
      // the reference watches were cut as well: compare only versions they saw
      let compared = 0;
      const wrong: string[] = [];
      for (const [seen, server, what] of [
        [reconciler.seenPrimaries, widgets.versions, 'widget'],
        [reconciler.seenConfigMaps, configMaps.versions, 'configmap'],
      ] as const)
        for (const [rv, text] of seen) {
          const truth = server.get(rv);
          if (truth === undefined) continue;
          compared++;
          if (truth !== text) wrong.push(`${what}@${rv}: read ${text} but the server sent ${truth}`);
        }
      expect(wrong).toEqual([]);
      expect(compared).toBeGreaterThanOrEqual(1);
      expect([...reconciler.seenLabels].filter((l) => l.includes('edited'))).toEqual([]);
    } finally {
      await widgets.stop();
      await configMaps.stop();
    }
  });
});
