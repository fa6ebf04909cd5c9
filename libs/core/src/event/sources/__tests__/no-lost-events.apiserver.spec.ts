import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { Context } from '../../../api/context.js';
import { DeleteControl, UpdateControl } from '../../../api/controls.js';
import type { Cleaner, EventSourceContext, Reconciler } from '../../../api/reconciler.js';
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
 * Issue 11 §1: an own write that changes nothing gets the object's current resourceVersion back,
 * which may be someone else's change. That change must still reconcile. The race windows are
 * widened with the API server's fault injection: latency on our write (the foreign change lands
 * while our request waits at the server, "during"), or a dropped and delayed watch (the foreign
 * change lands before our write and its event reaches the informer after our write returned,
 * "before, late watch"), or a compacted history (the change comes back through a re-list).
 */
const bed = apiServerSuite();

/**
 * Under load (CI runs the suite on 2 cores, two workers) every wait gets 30 s, and each test (and
 * the suite's server start) 120 s, above any wait: slow is fine, only a condition never met fails.
 */
const WAIT_MS = 30_000;
jest.setTimeout(120_000);
const waitFor = (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = WAIT_MS) =>
  waitForWithin(condition, what, Math.max(timeoutMs, WAIT_MS));
const CM = ResourceTypes.ConfigMap;
const WINDOW_MS = 800;

type Timing = 'during' | 'late watch' | 're-list';

/**
 * Runs `write` (a write that changes nothing) so that `foreign` lands in the window `timing` names
 * and returns what the write returned.
 */
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
      // our request waits at the server; the foreign change (another verb or subresource) does not
      faults.addLatency({ verb: 'patch', resource, namespace: ns, subresource, ms: WINDOW_MS });
      const pending = write();
      await foreign();
      return await pending;
    }
    // the informers' watches drop and come back late: the foreign change lands before our write
    // and its event reaches the informer after our write returned
    faults.addLatency({ verb: 'watch', resource, ms: WINDOW_MS });
    faults.addLatency({ verb: 'list', resource, ms: WINDOW_MS });
    faults.closeAllWatches();
    await foreign();
    if (timing === 're-list') faults.compact();
    return await write();
  } finally {
    faults.clear();
  }
}

interface PrimaryCase {
  effect: 'spec change' | 'delete' | 'label change';
  timing: Timing;
}

const WHEN: Record<Timing, string> = {
  during: 'while it is in flight',
  'late watch': 'before it, seen late by the watch',
  're-list': 'before it, seen by a re-list',
};

const primaryCases: PrimaryCase[] = [
  { effect: 'spec change', timing: 'during' },
  { effect: 'spec change', timing: 'late watch' },
  { effect: 'spec change', timing: 're-list' },
  { effect: 'delete', timing: 'during' },
  { effect: 'delete', timing: 'late watch' },
  { effect: 'label change', timing: 'during' },
  { effect: 'label change', timing: 'late watch' },
].map((c) => ({ ...c, when: WHEN[c.timing as Timing] })) as Array<PrimaryCase & { when: string }>;

describe('no lost event after an own write that changed nothing (issue 11 §1)', () => {
  it.each(primaryCases)(
    '[ES-19] primary: a $effect made $when, an own status patch through resourceOperations() that changes nothing, reconciles',
    async ({ effect, timing }) => {
      const ns = await newNamespace(bed.admin);
      const id = new ResourceID('w', ns);
      const runs: Widget[] = [];
      let cleanups = 0;
      let raced = false;
      let returned: Widget | undefined;
      await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
      // the status already holds what the reconciler writes: its write changes nothing
      await bed.admin.mergePatch(Widget, id, { status: { observed: 'same' } }, { subresource: 'status' });
      const foreign = (): Promise<unknown> =>
        effect === 'spec change'
          ? bed.admin.mergePatch(Widget, id, { spec: { value: 'two' } })
          : effect === 'delete'
            ? bed.admin.delete(Widget, id)
            : bed.admin.mergePatch(Widget, id, { metadata: { labels: { foreign: 'yes' } } });
      const reconciler: Reconciler<Widget> & Cleaner<Widget> = {
        reconcile: async (w: Widget, c: Context<Widget>) => {
          runs.push(w);
          // the race runs in a reconciliation caused by a later change, so that nothing else is
          // still on its way (the finalizer's own event came before that change's on the watch)
          if (w.spec?.value !== 'race' || raced) return UpdateControl.noUpdate();
          raced = true;
          returned = await race(
            timing,
            ns,
            'widgets',
            'status',
            () => c.resourceOperations().jsonMergePatchPrimaryStatus(w, { status: { observed: 'same' } }),
            foreign,
          );
          return UpdateControl.noUpdate();
        },
        cleanup: () => {
          cleanups++;
          return DeleteControl.defaultDelete();
        },
      };
      bed.operator().register(
        reconciler,
        // a label change reconciles only without generation awareness
        { resourceType: Widget, name: 'race', namespaces: [ns], generationAware: effect !== 'label change' },
      );
      await bed.operators[0].start();
      await waitFor(() => runs.length >= 1, 'first reconcile');
      await bed.admin.mergePatch(Widget, id, { spec: { value: 'race' } });
      await waitFor(() => returned !== undefined, 'our write returned', WAIT_MS);
      // the write changed nothing and returned the foreign change's version: the window was hit
      if (effect === 'spec change') expect(returned!.spec?.value).toBe('two');
      if (effect === 'delete') expect(returned!.metadata?.deletionTimestamp).toBeDefined();
      if (effect === 'label change') expect(returned!.metadata?.labels?.foreign).toBe('yes');
      if (effect === 'delete') {
        await waitFor(
          async () => (await bed.admin.get(Widget, id)) === undefined,
          'cleaned up and gone',
          15_000,
        );
        expect(cleanups).toBe(1);
      } else if (effect === 'spec change') {
        await waitFor(() => runs.some((r) => r.spec?.value === 'two'), 'the spec change reconciled', WAIT_MS);
      } else {
        await waitFor(
          () => runs.some((r) => r.metadata?.labels?.foreign === 'yes'),
          'the label change reconciled',
          15_000,
        );
      }
    },
  );

  it.each(
    (['during', 'late watch', 're-list'] as Timing[]).map((timing) => ({ timing, when: WHEN[timing] })),
  )(
    '[ES-10][ES-12] secondary: a data change made $when, an own server-side apply through resourceOperations() that changes nothing, reconciles',
    async ({ timing }) => {
      const ns = await newNamespace(bed.admin);
      const cmId = new ResourceID('w-cm', ns);
      const seen: Array<Record<string, string> | undefined> = [];
      let source: InformerEventSource<V1ConfigMap, Widget> | undefined;
      let returned: V1ConfigMap | undefined;
      const foreign = async (): Promise<unknown> => {
        // an update (PUT), so latency on our apply (a patch) does not hold it back
        const current = (await bed.admin.get(CM, cmId))!;
        return bed.admin.update(CM, { ...current, data: { ...current.data, b: 'theirs' } });
      };
      bed.operator().register(
        {
          prepareEventSources: (c: EventSourceContext<Widget>) => [
            // managedFields dropped from the cache: nothing proves the apply a no-op, so it is sent
            // and returns the foreign change (with our entry cached, an unchanged intent is not sent)
            (source = new InformerEventSource<V1ConfigMap, Widget>(
              { type: CM, name: 'cms', managedFields: 'dropAll' },
              c,
            )),
          ],
          reconcile: async (w: Widget, c: Context<Widget>) => {
            seen.push(c.getSecondaryResource(CM)?.data);
            const desired = ownedConfigMap('w-cm', ns, w, { a: 'ours' });
            if (w.spec?.value !== 'race' || returned) {
              await c.resourceOperations().serverSideApply(desired);
              return UpdateControl.noUpdate();
            }
            returned = await race(
              timing,
              ns,
              'configmaps',
              undefined,
              () => c.resourceOperations().serverSideApply(desired),
              foreign,
            );
            return UpdateControl.noUpdate();
          },
        },
        { resourceType: Widget, name: 'race-cm', namespaces: [ns] },
      );
      await bed.operators[0].start();
      await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
      await waitFor(() => seen.length >= 1 && source !== undefined, 'first reconcile');
      await waitFor(async () => {
        const live = await bed.admin.get(CM, cmId);
        return (
          live !== undefined &&
          source!.get(cmId)?.metadata?.resourceVersion === live.metadata?.resourceVersion
        );
      }, 'the ConfigMap is cached');
      await waitFor(() => !source!.hasPendingOwnWrite(cmId), 'own create consumed');
      await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'race' } });
      await waitFor(() => returned !== undefined, 'our apply returned', WAIT_MS);
      expect(returned!.data).toEqual({ a: 'ours', b: 'theirs' });
      await waitFor(() => seen.some((d) => d?.b === 'theirs'), 'the data change reconciled', WAIT_MS);
    },
  );
});
