/**
 * Review s13 (primary resource processing) against JOSDK's `ReconciliationDispatcher` and
 * `EventProcessor`: findings about what the dispatcher does with a reconciler's controls.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import {
  apiServerSuite,
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
          seen.push({ size: w.spec?.size, value: w.spec?.value });
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
      expect(seen.slice(0, 2)).toEqual([{ value: 'a' }, { size: 3, value: 'a' }]);

      // one follow-up only: the next run is the one a foreign spec change causes
      await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
      await waitFor(() => seen.some((s) => s.value === 'b'), 'the reconciliation of the foreign change');
      expect(seen).toEqual([{ value: 'a' }, { size: 3, value: 'a' }, { size: 3, value: 'b' }]);
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
