import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import type { EventSourceContext, EventSources } from '../../../api/reconciler.js';
import { ResourceID } from '../../../api/resource-id.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import { EventSourceUsageError } from '../errors.js';
import { InformerEventSource } from '../informer-event-source.js';
import { ownedConfigMap } from './helpers.js';

const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();

/** A widget reconciler whose ConfigMap source caches only the secondaries of `owned` widgets. */
class RestrictedReconciler {
  readonly owned = new Set<string>();
  source!: InformerEventSource<V1ConfigMap, Widget>;
  unrestricted!: InformerEventSource<V1ConfigMap, Widget>;
  runs: Array<{ widget: string; secondaries: string[] }> = [];

  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    this.source = new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context);
    this.source.restrictTo((cm) => this.source.primaryIdsOf(cm).some((id) => this.owned.has(id.name)));
    this.unrestricted = new InformerEventSource<V1ConfigMap, Widget>({ type: CM, name: 'all' }, context);
    return { owned: this.source, all: this.unrestricted };
  }

  reconcile(w: Widget, context: Context<Widget>): UpdateControl<Widget> {
    const secondaries = this.source.getSecondaryResources(w).map((c) => c.metadata!.name!);
    this.runs.push({ widget: w.metadata!.name!, secondaries });
    void context;
    return UpdateControl.noUpdate();
  }
}

describe('InformerEventSource restrictTo/readmit/primaryIdsOf (hooks for sharded secondaries, issue 19)', () => {
  it('caches only admitted secondaries (its informer unshared), readmit follows a changed predicate, primaryIdsOf maps like the mapper', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new RestrictedReconciler();
    r.owned.add('w0');
    const operator = bed.operator();
    operator.register(r, { resourceType: Widget, name: 'restricted', namespaces: [ns] });
    const widgets = [];
    for (let i = 0; i < 4; i++) widgets.push(await bed.admin.create(Widget, widget(`w${i}`, ns)));
    for (const [i, w] of widgets.entries()) {
      await bed.admin.create(CM, ownedConfigMap(`cm-${i}-a`, ns, w));
      await bed.admin.create(CM, ownedConfigMap(`cm-${i}-b`, ns, w));
    }
    await operator.start();
    expect(r.source.keys().sort()).toEqual([`${ns}/cm-0-a`, `${ns}/cm-0-b`]);
    expect(r.unrestricted.keys()).toHaveLength(8);
    // the restricted source has an informer of its own: two lists of configmaps in ns
    expect(bed.server.requests.count({ verb: 'list', resource: 'configmaps', namespace: ns })).toBe(2);
    expect(r.source.primaryIdsOf(r.unrestricted.get(new ResourceID('cm-2-a', ns))!)).toEqual([
      new ResourceID('w2', ns),
    ]);
    expect(() => r.source.restrictTo(() => true)).toThrow(EventSourceUsageError);

    // the predicate changes: w0 leaves, w1 and w2 come
    r.owned.delete('w0');
    r.owned.add('w1');
    r.owned.add('w2');
    await r.source.readmit();
    expect(r.source.keys().sort()).toEqual(['cm-1-a', 'cm-1-b', 'cm-2-a', 'cm-2-b'].map((n) => `${ns}/${n}`));
    await waitFor(
      () => r.runs.some((run) => run.widget === 'w1' && run.secondaries.length === 2),
      'w1 sees its two',
    );
    // the watch applies the predicate too: a new secondary of w3 is not cached, one of w2 is
    await bed.admin.create(CM, ownedConfigMap('cm-3-c', ns, widgets[3]));
    await bed.admin.create(CM, ownedConfigMap('cm-2-c', ns, widgets[2]));
    await waitFor(() => r.source.get(new ResourceID('cm-2-c', ns)) !== undefined, 'cm-2-c cached');
    await waitFor(
      () => r.unrestricted.get(new ResourceID('cm-3-c', ns)) !== undefined,
      'cm-3-c seen by the other',
    );
    expect(r.source.get(new ResourceID('cm-3-c', ns))).toBeUndefined();
    expect(r.source.list()).toHaveLength(5);
  });
});
