/**
 * Review s13 (primary resource processing) against JOSDK's `ReconciliationDispatcher` and
 * `EventProcessor`: findings about what the dispatcher does with a reconciler's controls.
 */
import { describe, expect, it, jest } from '@jest/globals';
import type { RetryInfo } from '../../api/context.js';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import type { Cleaner, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import {
  apiServerSuite,
  gate,
  newNamespace,
  waitFor as waitForWithin,
  Widget,
  widget,
} from '../../operator/__tests__/support.js';

const bed = apiServerSuite();

/** Slow is fine on a loaded machine: only a condition never met fails. */
const WAIT_MS = 30_000;
jest.setTimeout(120_000);
const waitFor = (condition: () => boolean | Promise<boolean>, what: string) =>
  waitForWithin(condition, what, WAIT_MS);

interface Seen {
  size?: number;
  status?: string;
  value?: string;
  label?: string;
}

describe('review s13: the writes of an UpdateControl and the reconciliations they cause', () => {
  it.each([
    ['patchResource', true],
    ['patchResource', false],
    ['patchResourceAndStatus', true],
    ['patchResourceAndStatus', false],
  ] as const)(
    '[FINDING S13-EP1] a spec change returned with UpdateControl.%s reconciles again, once, with the new spec (useSSA: %s)',
    async (how, useSSA) => {
      const ns = await newNamespace(bed.admin);
      const seen: Seen[] = [];
      // the defaulting pattern: persist a default into the spec, let the next reconciliation work with it
      const reconciler: Reconciler<Widget> = {
        reconcile: (w) => {
          seen.push({ size: w.spec?.size, value: w.spec?.value, status: w.status?.message });
          if (w.spec?.size !== undefined) return UpdateControl.noUpdate();
          w.spec = { ...w.spec, size: 3 };
          w.status = { message: 'defaulted' };
          return how === 'patchResource'
            ? UpdateControl.patchResource(w)
            : UpdateControl.patchResourceAndStatus(w);
        },
      };
      bed
        .operator()
        .register(reconciler, { resourceType: Widget, name: 's13-ep1', namespaces: [ns], useSSA });
      await bed.operators[0].start();
      await bed.admin.create(Widget, widget('w', ns, { value: 'a' }));
      await waitFor(() => seen.length >= 2, 'a reconciliation after the spec patch');
      // patchResourceAndStatus: the follow-up sees the status written after the resource
      const status = how === 'patchResourceAndStatus' ? 'defaulted' : undefined;
      expect(seen.slice(0, 2)).toEqual([{ value: 'a' }, { size: 3, value: 'a', status }]);

      // one follow-up only: the next run is the one a foreign spec change causes
      await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
      await waitFor(() => seen.some((s) => s.value === 'b'), 'the reconciliation of the foreign change');
      expect(seen).toEqual([
        { value: 'a' },
        { size: 3, value: 'a', status },
        { size: 3, value: 'b', status },
      ]);
    },
  );

  it.each([true, false])(
    '[FINDING S13-EP1] a metadata-only patchResource (a label, the generation unchanged) does not reconcile again (useSSA: %s)',
    async (useSSA) => {
      const ns = await newNamespace(bed.admin);
      const seen: Seen[] = [];
      const reconciler: Reconciler<Widget> = {
        reconcile: (w) => {
          seen.push({ value: w.spec?.value, label: w.metadata?.labels?.done });
          if (w.metadata?.labels?.done) return UpdateControl.noUpdate();
          w.metadata = { ...w.metadata, labels: { ...w.metadata?.labels, done: 'yes' } };
          return UpdateControl.patchResource(w);
        },
      };
      bed
        .operator()
        .register(reconciler, { resourceType: Widget, name: 's13-ep1-meta', namespaces: [ns], useSSA });
      await bed.operators[0].start();
      await bed.admin.create(Widget, widget('w', ns, { value: 'a' }));
      await waitFor(() => seen.length >= 1, 'the first reconciliation');
      await waitFor(
        async () => (await bed.admin.get(Widget, new ResourceID('w', ns)))?.metadata?.labels?.done === 'yes',
        'the label on the server',
      );
      await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
      await waitFor(() => seen.some((s) => s.value === 'b'), 'the reconciliation of the foreign change');
      expect(seen).toEqual([{ value: 'a' }, { value: 'b', label: 'yes' }]);
    },
  );
});

const FINALIZER = 's13.test.tosdk.io/cleanup';

/** Whether the widget is gone from the server. */
const gone = (id: ResourceID) => async () => (await bed.admin.get(Widget, id)) === undefined;
const finalizers = async (id: ResourceID) => (await bed.admin.get(Widget, id))?.metadata?.finalizers;

describe('review s13: cleanup and failures in combination (checked against JOSDK, no divergence)', () => {
  it('[EP-10] a cleanup that throws is retried by the retry policy (with its retry info) until it removes the finalizer', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const infos: Array<RetryInfo | undefined> = [];
    const reconciler: Reconciler<Widget> & Cleaner<Widget> = {
      reconcile: () => UpdateControl.noUpdate(),
      cleanup: (_w, context) => {
        infos.push(context.getRetryInfo());
        if (infos.length < 3) throw new Error(`not yet ${infos.length}`);
        return DeleteControl.defaultDelete();
      },
    };
    const options = {
      resourceType: Widget,
      name: 's13-cleanup-retry',
      namespaces: [ns],
      finalizerName: FINALIZER,
    };
    bed.operator().register(reconciler, { ...options, retry: { initialInterval: 20 } });
    await bed.operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await finalizers(id))?.includes(FINALIZER) ?? false, 'the finalizer');
    await bed.admin.delete(Widget, id);
    await waitFor(gone(id), 'the widget deleted after the third cleanup');
    expect(infos).toEqual([
      undefined,
      { attemptCount: 1, isLastAttempt: false },
      { attemptCount: 2, isLastAttempt: false },
    ]);
  });

  it('[EP-01] a delete during a reconciliation runs cleanup once, after it, and nothing else', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const hold = gate();
    let reconciles = 0;
    let cleanups = 0;
    const reconciler: Reconciler<Widget> & Cleaner<Widget> = {
      reconcile: async () => {
        reconciles++;
        await hold.promise;
        return UpdateControl.noUpdate<Widget>().rescheduleAfter(60_000);
      },
      cleanup: () => {
        cleanups++;
        return DeleteControl.defaultDelete();
      },
    };
    const options = {
      resourceType: Widget,
      name: 's13-delete-during',
      namespaces: [ns],
      finalizerName: FINALIZER,
    };
    bed.operator().register(reconciler, options);
    await bed.operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => reconciles === 1, 'the reconciliation');
    await bed.admin.delete(Widget, id);
    hold.open();
    await waitFor(gone(id), 'the widget deleted');
    expect({ reconciles, cleanups }).toEqual({ reconciles: 1, cleanups: 1 });
  });

  it('[EP-04] a finalizer removed by someone else while cleanup runs: the finalizer removal finds it gone, cleanup is not called again', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const hold = gate();
    let cleanups = 0;
    const reconciler: Reconciler<Widget> & Cleaner<Widget> = {
      reconcile: () => UpdateControl.noUpdate(),
      cleanup: async () => {
        cleanups++;
        await hold.promise;
        return DeleteControl.defaultDelete();
      },
    };
    const options = {
      resourceType: Widget,
      name: 's13-fin-gone',
      namespaces: [ns],
      finalizerName: FINALIZER,
    };
    bed.operator().register(reconciler, options);
    await bed.operators[0].start();
    // another party's finalizer keeps the object after ours is gone
    const keep = 'other.test.tosdk.io/keep';
    await bed.admin.create(Widget, {
      ...widget('w', ns),
      metadata: { name: 'w', namespace: ns, finalizers: [keep] },
    });
    await waitFor(async () => (await finalizers(id))?.includes(FINALIZER) ?? false, 'our finalizer');
    await bed.admin.delete(Widget, id);
    await waitFor(() => cleanups === 1, 'the cleanup');
    await bed.admin.jsonPatch(Widget, id, [{ op: 'replace', path: '/metadata/finalizers', value: [keep] }]);
    hold.open();
    // a later change of the object, marked and without our finalizer, calls nothing
    await bed.admin.mergePatch(Widget, id, { metadata: { labels: { later: 'yes' } } });
    await waitFor(
      async () => (await bed.admin.get(Widget, id))?.metadata?.labels?.later === 'yes',
      'the label',
    );
    expect(await finalizers(id)).toEqual([keep]);
    expect(cleanups).toBe(1);
    await bed.admin.jsonPatch(Widget, id, [{ op: 'remove', path: '/metadata/finalizers' }]);
  });

  it('[EP-09] a status patch answered 404 (deleted meanwhile) goes to updateErrorStatus once; the delete then drops the resource and its retry', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const errors: string[] = [];
    const dropped: string[] = [];
    let runs = 0;
    const reconciler: Reconciler<Widget> = {
      reconcile: async (w) => {
        runs++;
        await bed.admin.delete(Widget, id);
        w.status = { message: 'done' };
        return UpdateControl.patchStatus(w);
      },
      updateErrorStatus: (_w, _c, error) => {
        errors.push(String(error));
        return ErrorStatusUpdateControl.noStatusUpdate();
      },
    };
    const options = {
      resourceType: Widget,
      name: 's13-status-404',
      namespaces: [ns],
      retry: { initialInterval: 60_000 },
    };
    bed
      .operator({ metrics: { cleanupDone: (rid) => void dropped.push(rid.key) } })
      .register(reconciler, options);
    await bed.operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => dropped.includes(id.key), 'the state of the deleted widget dropped');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('404');
    expect(runs).toBe(1);
  });
});
