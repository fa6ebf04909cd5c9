import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext } from '../../api/event-source-context.js';
import type { EventSources, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import {
  apiServerSuite,
  Gadget,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../operator/__tests__/support.js';

/**
 * Adversarial review (session 5): the widgets scenario of the benchmark (per widget one server-side
 * apply of a ConfigMap and one status patch, the README's reconciler), small, under what the
 * benchmark never does: foreign spec changes while the controller writes, foreign changes of the
 * ConfigMaps it applied, cut watches and a compacted history. Every widget must end converged on its
 * last spec, and an operator started again on the converged server must reconcile each widget once
 * and write nothing (issue 15 §1), with merge-patch and SSA status writes.
 */
const bed = apiServerSuite();
const CM = ResourceTypes.ConfigMap;
const N = 120;
const WAIT_MS = 40_000;
jest.setTimeout(120_000);

class Widgets implements Reconciler<Widget> {
  readonly runs = new Map<string, number>();
  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return { configmaps: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context) };
  }
  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    const { name, namespace, uid } = w.metadata!;
    this.runs.set(name!, (this.runs.get(name!) ?? 0) + 1);
    await context.resourceOperations().serverSideApply<V1ConfigMap>({
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
    w.status = { ...w.status, observed: w.spec?.value };
    return UpdateControl.patchStatus(w);
  }
}

async function converged(ns: string, expected: Map<string, string>): Promise<string[]> {
  const [widgets, cms] = await Promise.all([
    bed.admin.list(Widget, { namespace: ns }),
    bed.admin.list(CM, { namespace: ns }),
  ]);
  const data = new Map(cms.items.map((c) => [c.metadata!.name!, c.data?.value]));
  const wrong: string[] = [];
  for (const [name, value] of expected) {
    const w = widgets.items.find((x) => x.metadata!.name === name);
    if (w?.spec?.value !== value || w.status?.observed !== value || data.get(`${name}-cm`) !== value)
      wrong.push(
        `${name}: spec ${w?.spec?.value} status ${w?.status?.observed} cm ${data.get(`${name}-cm`)}`,
      );
  }
  return wrong;
}

describe.each([
  ['merge patch', false],
  ['server-side apply', true],
])('review s5: widgets under foreign changes and cut watches (%s status)', (_kind, useSSA) => {
  it('[EP-25][ES-19] every widget converges on its last spec; restarted, the operator reconciles each once and writes nothing', async () => {
    const ns = await newNamespace(bed.admin);
    const operator = bed.operator();
    const reconciler = new Widgets();
    operator.register(reconciler, {
      name: 'review-s5-widgets',
      resourceType: Widget,
      namespaces: [ns],
      useSSA,
    });
    await operator.start();
    const expected = new Map<string, string>();
    await Promise.all(
      Array.from({ length: N }, (_, i) => {
        expected.set(`w${i}`, 'v0');
        return bed.admin.create(Widget, widget(`w${i}`, ns, { value: 'v0' }));
      }),
    );
    // while the controller works: foreign spec changes, foreign edits of its ConfigMaps, cuts
    for (let wave = 1; wave <= 3; wave++) {
      await Promise.all(
        Array.from({ length: N }, async (_, i) => {
          if ((i + wave) % 3 === 0) {
            expected.set(`w${i}`, `v${wave}`);
            await bed.admin.mergePatch(Widget, new ResourceID(`w${i}`, ns), { spec: { value: `v${wave}` } });
          } else if ((i + wave) % 3 === 1) {
            // someone else sets the ConfigMap's value: the controller must set it back
            await bed.admin
              .mergePatch(CM, new ResourceID(`w${i}-cm`, ns), { data: { value: 'foreign' } })
              .catch(() => undefined); // not created yet
          }
        }),
      );
      bed.server.faults.closeAllWatches();
      if (wave === 2) bed.server.faults.compact();
    }
    let wrong: string[] = [];
    await waitFor(
      async () => (wrong = await converged(ns, expected)).length === 0,
      'every widget converged',
      WAIT_MS,
    ).catch(() => undefined);
    expect(wrong).toEqual([]);
    await operator.stop();

    // started again on the converged server: one reconciliation each, no write
    const restartedAt = Date.now();
    const again = bed.operator();
    const second = new Widgets();
    again.register(second, { name: 'review-s5-widgets', resourceType: Widget, namespaces: [ns], useSSA });
    await again.start();
    await waitFor(() => second.runs.size === N, 'every widget reconciled after the restart', WAIT_MS);
    // a sentinel created now converges: whatever the restart would still do has had its turn
    await bed.admin.create(Widget, widget('sentinel', ns, { value: 's' }));
    await waitFor(
      async () => (await bed.admin.get(Widget, new ResourceID('sentinel', ns)))?.status?.observed === 's',
      'the sentinel converged',
      WAIT_MS,
    );
    const writes = bed.server.requests.log.filter(
      (r) =>
        r.time >= restartedAt &&
        r.namespace === ns &&
        ['create', 'update', 'patch', 'delete'].includes(r.verb) &&
        r.name !== 'sentinel' &&
        !(r.verb === 'create' && r.resource === 'widgets') && // the admin's sentinel
        r.name !== 'sentinel-cm',
    );
    expect(writes.map((r) => `${r.verb} ${r.resource}/${r.subresource ?? ''} ${r.name}`)).toEqual([]);
    expect([...second.runs].filter(([name, n]) => name !== 'sentinel' && n !== 1)).toEqual([]);
  });
});

/** The same controller on a cluster-scoped kind: its ConfigMaps live in one namespace. */
class Gadgets implements Reconciler<Gadget> {
  readonly runs = new Map<string, number>();
  constructor(private readonly ns: string) {}
  prepareEventSources(context: EventSourceContext<Gadget>): EventSources {
    return {
      configmaps: new InformerEventSource<V1ConfigMap, Gadget>({ type: CM, namespaces: [this.ns] }, context),
    };
  }
  async reconcile(g: Gadget, context: Context<Gadget>): Promise<UpdateControl<Gadget>> {
    const { name, uid } = g.metadata!;
    this.runs.set(name!, (this.runs.get(name!) ?? 0) + 1);
    await context.resourceOperations().serverSideApply<V1ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `${name}-cm`,
        namespace: this.ns,
        ownerReferences: [
          { apiVersion: Gadget.apiVersion, kind: Gadget.kind, name: name!, uid: uid!, controller: true },
        ],
      },
      data: { value: g.spec?.value ?? '' },
    });
    g.status = { ...g.status, observed: g.spec?.value };
    return UpdateControl.patchStatus(g);
  }
}

describe('review s5: a cluster-scoped primary', () => {
  it('[EP-25][ES-19] gadgets (cluster-scoped) converge under a foreign status change and cut watches; restarted, nothing is written', async () => {
    const ns = await newNamespace(bed.admin);
    const names = Array.from({ length: 30 }, (_, i) => `${ns}-g${i}`);
    const operator = bed.operator();
    const gadgets = new Gadgets(ns);
    const labelSelector = `review=${ns}`;
    operator.register(gadgets, { name: 'review-s5-gadgets', resourceType: Gadget, labelSelector });
    await operator.start();
    const expected = new Map<string, string>();
    await Promise.all(
      names.map((name) => {
        expected.set(name, 'v0');
        return bed.admin.create(Gadget, {
          apiVersion: Gadget.apiVersion,
          kind: Gadget.kind,
          metadata: { name, labels: { review: ns } },
          spec: { value: 'v0' },
        });
      }),
    );
    const state = async () => {
      const [list, cms] = await Promise.all([
        bed.admin.list(Gadget, { labelSelector }),
        bed.admin.list(CM, { namespace: ns }),
      ]);
      const data = new Map(cms.items.map((c) => [c.metadata!.name!, c.data?.value]));
      return names.filter((n) => {
        const g = list.items.find((x) => x.metadata!.name === n);
        return (
          g?.spec?.value !== expected.get(n) ||
          g?.status?.observed !== expected.get(n) ||
          data.get(`${n}-cm`) !== expected.get(n)
        );
      });
    };
    await waitFor(async () => (await state()).length === 0, 'gadgets converged', WAIT_MS);
    // someone else changes a status and a spec; the watches are cut
    await bed.admin.mergePatch(
      Gadget,
      new ResourceID(names[0]),
      { status: { observed: 'theirs' } },
      { subresource: 'status' },
    );
    await bed.admin.mergePatch(Gadget, new ResourceID(names[0]), { spec: { value: 'v1' } });
    expected.set(names[0], 'v1');
    await bed.admin.mergePatch(Gadget, new ResourceID(names[1]), { spec: { value: 'v1' } });
    expected.set(names[1], 'v1');
    bed.server.faults.closeAllWatches();
    let wrong: string[] = [];
    await waitFor(async () => (wrong = await state()).length === 0, 'gadgets converged again', WAIT_MS).catch(
      () => undefined,
    );
    expect(wrong).toEqual([]);
    await operator.stop();

    const restartedAt = Date.now();
    const again = bed.operator();
    const second = new Gadgets(ns);
    again.register(second, { name: 'review-s5-gadgets', resourceType: Gadget, labelSelector });
    await again.start();
    await waitFor(
      () => second.runs.size === names.length,
      'every gadget reconciled after the restart',
      WAIT_MS,
    );
    await bed.admin.create(CM, { metadata: { name: 'sentinel', namespace: ns } });
    await waitFor(
      async () => (await bed.admin.get(CM, new ResourceID('sentinel', ns))) !== undefined,
      'sentinel',
      WAIT_MS,
    );
    const writes = bed.server.requests.log.filter(
      (r) =>
        r.time >= restartedAt &&
        ['create', 'update', 'patch', 'delete'].includes(r.verb) &&
        (names.includes(r.name ?? '') || names.some((n) => r.name === `${n}-cm`)),
    );
    expect(writes.map((r) => `${r.verb} ${r.resource}/${r.subresource ?? ''} ${r.name}`)).toEqual([]);
    expect([...second.runs].filter(([, n]) => n !== 1)).toEqual([]);
  });
});
