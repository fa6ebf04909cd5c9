import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import type { EventSourceContext, Reconciler } from '../../../api/reconciler.js';
import { ResourceID } from '../../../api/resource-id.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor as waitForWithin,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import { InformerEventSource } from '../informer-event-source.js';
import { ownedConfigMap } from './helpers.js';

/**
 * Review s3 (issue 15 §2, H11's own-write CPU cuts: "the own-write judgement without a whole-object
 * comparison when the resourceVersion alone decides"): an own write that changes nothing gets the
 * object's current resourceVersion back, which may be someone else's change. The existing
 * no-lost-events tests cover a primary status merge patch and a secondary server-side apply; these
 * cover the other write kinds a judgement per kind could get wrong: a secondary's merge patch and
 * JSON patch, and the primary's metadata merge patch, status JSON patch and status apply. In each,
 * a foreign change lands while our no-op write is in flight ("during") or before it with the watch
 * seeing it late ("late watch"); the foreign change must still reconcile. They pass on the code of
 * 02:30 UTC; they guard the cuts to come.
 */
const bed = apiServerSuite();
const WAIT_MS = 30_000;
jest.setTimeout(120_000);
const waitFor = (condition: () => boolean | Promise<boolean>, what: string) =>
  waitForWithin(condition, what, WAIT_MS);
const CM = ResourceTypes.ConfigMap;
// wide enough that the foreign change (a GET and a PUT) lands inside it on a loaded CI machine
const WINDOW_MS = 1_200;

type Timing = 'during' | 'late watch';

async function race<T>(
  timing: Timing,
  ns: string,
  resource: string,
  subresource: string | undefined,
  write: () => Promise<T>,
  foreign: () => Promise<unknown>,
): Promise<T> {
  const faults = bed.server.faults;
  try {
    if (timing === 'during') {
      // our write (a PATCH) waits at the server; the foreign change (a PUT) does not
      faults.addLatency({ verb: 'patch', resource, namespace: ns, subresource, ms: WINDOW_MS });
      const pending = write();
      await foreign();
      return await pending;
    }
    faults.addLatency({ verb: 'watch', resource, ms: WINDOW_MS });
    faults.addLatency({ verb: 'list', resource, ms: WINDOW_MS });
    faults.closeAllWatches();
    await foreign();
    return await write();
  } finally {
    faults.clear();
  }
}

const TIMINGS: Timing[] = ['during', 'late watch'];

type SecondaryWrite = 'merge patch' | 'json patch';
const secondaryCases = (['merge patch', 'json patch'] as SecondaryWrite[]).flatMap((write) =>
  TIMINGS.map((timing) => ({ write, timing })),
);

describe('review s3: no lost foreign change after an own no-op write, per write kind', () => {
  it.each(secondaryCases)(
    '[ES-10][ES-12] secondary: a data change made with the watch at "$timing" of our no-op $write through resourceOperations() reconciles',
    async ({ write, timing }) => {
      const ns = await newNamespace(bed.admin);
      const cmId = new ResourceID('w-cm', ns);
      const seen: Array<Record<string, string> | undefined> = [];
      let source: InformerEventSource<V1ConfigMap, Widget> | undefined;
      let returned: V1ConfigMap | undefined;
      const foreign = async (): Promise<unknown> => {
        const current = (await bed.admin.get(CM, cmId))!;
        return bed.admin.update(CM, { ...current, data: { ...current.data, b: 'theirs' } });
      };
      bed.operator().register(
        {
          prepareEventSources: (c: EventSourceContext<Widget>) => [
            (source = new InformerEventSource<V1ConfigMap, Widget>({ type: CM, name: 'cms' }, c)),
          ],
          reconcile: async (w: Widget, c: Context<Widget>) => {
            const cm = c.getSecondaryResource(CM);
            seen.push(cm?.data);
            if (!cm) {
              await c.resourceOperations().create(ownedConfigMap('w-cm', ns, w, { a: 'ours' }));
              return UpdateControl.noUpdate();
            }
            if (w.spec?.value !== 'race' || returned) return UpdateControl.noUpdate();
            const ops = c.resourceOperations();
            returned = await race(
              timing,
              ns,
              'configmaps',
              undefined,
              () =>
                write === 'merge patch'
                  ? ops.jsonMergePatch(cm, { data: { a: 'ours' } })
                  : ops.jsonPatch(cm, [{ op: 'replace', path: '/data/a', value: 'ours' }]),
              foreign,
            );
            return UpdateControl.noUpdate();
          },
        },
        { resourceType: Widget, name: 'review-s3-noop-cm', namespaces: [ns] },
      );
      await bed.operators[0].start();
      await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
      await waitFor(async () => {
        const live = await bed.admin.get(CM, cmId);
        return (
          live !== undefined &&
          source !== undefined &&
          source.get(cmId)?.metadata?.resourceVersion === live.metadata?.resourceVersion &&
          !source.hasPendingOwnWrite(cmId)
        );
      }, 'the ConfigMap created and cached');
      await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'race' } });
      await waitFor(() => returned !== undefined, 'our write returned');
      // the write changed nothing and returned the foreign change's version: the window was hit
      expect(returned!.data).toEqual({ a: 'ours', b: 'theirs' });
      await waitFor(() => seen.some((d) => d?.b === 'theirs'), 'the data change reconciled');
    },
  );

  type PrimaryWrite = 'merge patch of a label' | 'json patch of the status' | 'apply of the status';
  const primaryCases = (
    ['merge patch of a label', 'json patch of the status', 'apply of the status'] as PrimaryWrite[]
  ).flatMap((write) => TIMINGS.map((timing) => ({ write, timing })));

  it.each(primaryCases)(
    '[ES-19] primary: a spec change made with the watch at "$timing" of our no-op $write through resourceOperations() reconciles',
    async ({ write, timing }) => {
      const ns = await newNamespace(bed.admin);
      const id = new ResourceID('w', ns);
      const runs: Widget[] = [];
      let raced = false;
      let returned: Widget | undefined;
      await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
      // what our write sets is there already: it changes nothing
      const labelled = await bed.admin.mergePatch(Widget, id, { metadata: { labels: { mine: 'yes' } } });
      await bed.admin.mergePatch(Widget, id, { status: { observed: 'same' } }, { subresource: 'status' });
      if (write === 'apply of the status') {
        await bed.admin.apply(
          Widget,
          {
            apiVersion: Widget.apiVersion,
            kind: Widget.kind,
            metadata: { name: 'w', namespace: ns },
            status: { observed: 'same' },
          },
          { fieldManager: 'review-s3-noop-primary', subresource: 'status' },
        );
      }
      expect(labelled.metadata?.labels?.mine).toBe('yes');
      const foreign = async (): Promise<unknown> => {
        const current = (await bed.admin.get(Widget, id))!;
        return bed.admin.update(Widget, { ...current, spec: { ...current.spec, value: 'two' } });
      };
      const reconciler: Reconciler<Widget> = {
        reconcile: async (w: Widget, c: Context<Widget>) => {
          runs.push(w);
          if (w.spec?.value !== 'race' || raced) return UpdateControl.noUpdate();
          raced = true;
          const ops = c.resourceOperations();
          returned = await race(
            timing,
            ns,
            'widgets',
            write === 'merge patch of a label' ? undefined : 'status',
            () =>
              write === 'merge patch of a label'
                ? ops.jsonMergePatchPrimary(w, { metadata: { labels: { mine: 'yes' } } })
                : write === 'json patch of the status'
                  ? ops.jsonPatchPrimaryStatus(w, [
                      { op: 'replace', path: '/status/observed', value: 'same' },
                    ])
                  : ops.serverSideApplyPrimaryStatus({
                      apiVersion: Widget.apiVersion,
                      kind: Widget.kind,
                      metadata: { name: 'w', namespace: ns },
                      status: { observed: 'same' },
                    }),
            foreign,
          );
          return UpdateControl.noUpdate();
        },
      };
      bed.operator().register(reconciler, {
        resourceType: Widget,
        name: 'review-s3-noop-primary',
        namespaces: [ns],
        fieldManager: 'review-s3-noop-primary',
      });
      await bed.operators[0].start();
      await waitFor(() => runs.length >= 1, 'first reconcile');
      await bed.admin.mergePatch(Widget, id, { spec: { value: 'race' } });
      await waitFor(() => returned !== undefined, 'our write returned');
      // the write changed nothing and returned the foreign change's version: the window was hit
      expect(returned!.spec?.value).toBe('two');
      await waitFor(() => runs.some((r) => r.spec?.value === 'two'), 'the spec change reconciled');
    },
  );
});
