import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext } from '../../api/event-source-context.js';
import type { EventSources, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

/**
 * Adversarial review (session 5): the result of a skipped apply (0a4e57a's profile counts its copy,
 * 1.4-3.2 us per restart reconciliation, as a cost to cut). A reconciler may edit what
 * `resourceOperations().serverSideApply` returned, also when nothing was sent. If that result were the
 * cached object, the edit would change the cache: a later intent equal to the edit would be skipped
 * and never reach the server. Also the primary's skipped status patch result through
 * `resourceOperations()`.
 */
const bed = apiServerSuite();
const CM = ResourceTypes.ConfigMap;
const WAIT_MS = 20_000;
jest.setTimeout(60_000);

class EditsResults implements Reconciler<Widget> {
  readonly read: Array<string | undefined> = [];
  readonly skippedResults: string[] = [];
  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return { configmaps: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context) };
  }
  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    const { name, namespace, uid } = w.metadata!;
    this.read.push(context.getSecondaryResource(CM)?.data?.value);
    const value = w.spec?.value ?? '';
    const before = bed.server.requests.writes({ namespace, resource: 'configmaps' });
    const result = await context.resourceOperations().serverSideApply<V1ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `${name}-cm`,
        namespace,
        ownerReferences: [
          { apiVersion: Widget.apiVersion, kind: Widget.kind, name: name!, uid: uid!, controller: true },
        ],
      },
      data: { value },
    });
    if (bed.server.requests.writes({ namespace, resource: 'configmaps' }) === before)
      this.skippedResults.push(value);
    // the reconciler goes on with the result and edits it: to the value the NEXT spec will want
    result.data!.value = `${value}-next`;
    (result.metadata!.labels ??= {}).edited = 'yes';
    return UpdateControl.noUpdate();
  }
}

describe("review s5: a skipped write's result is the reconciler's", () => {
  it('[ES-19] editing the result of a skipped apply changes neither what the source serves nor a later skip decision: the next spec is applied', async () => {
    const ns = await newNamespace(bed.admin);
    const reconciler = new EditsResults();
    const operator = bed.operator();
    operator.register(reconciler, {
      name: 'review-s5-skipped-result',
      resourceType: Widget,
      namespaces: [ns],
    });
    await operator.start();
    const id = new ResourceID('w', ns);
    const cmValue = async () => (await bed.admin.get(CM, new ResourceID('w-cm', ns)))?.data?.value;
    await bed.admin.create(Widget, widget('w', ns, { value: 'a' }));
    await waitFor(async () => (await cmValue()) === 'a', 'applied a', WAIT_MS);
    // a reconciliation that changes nothing: its apply is skipped, and its result edited to 'a-next'
    await bed.admin.mergePatch(Widget, id, { metadata: { labels: { poke: '1' } }, spec: { value: 'a' } });
    await bed.admin.mergePatch(Widget, id, { spec: { size: 1 } });
    await waitFor(() => reconciler.skippedResults.includes('a'), 'a skipped apply of a', WAIT_MS);
    // the next spec wants exactly what the edit wrote into the result
    await bed.admin.mergePatch(Widget, id, { spec: { value: 'a-next' } });
    let value: string | undefined;
    await waitFor(async () => (value = await cmValue()) === 'a-next', 'applied a-next', WAIT_MS).catch(
      () => undefined,
    );
    expect(value).toBe('a-next');
    const cm = await bed.admin.get(CM, new ResourceID('w-cm', ns));
    expect(cm?.metadata?.labels?.edited).toBeUndefined();
    // and no reconciliation ever read an edited ConfigMap from the source before the server had it
    const firstNext = reconciler.read.indexOf('a-next');
    expect(
      reconciler.read.slice(0, firstNext < 0 ? undefined : firstNext).filter((v) => v?.endsWith('-next')),
    ).toEqual([]);
  });
});
