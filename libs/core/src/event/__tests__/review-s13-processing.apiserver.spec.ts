/**
 * Review s13 (primary resource processing) against JOSDK's `ControllerEventSource` and
 * `InternalEventFilters`, on the in-memory API server.
 */
import { describe, expect, it, jest } from '@jest/globals';
import { DeleteControl, UpdateControl } from '../../api/controls.js';
import type { Cleaner, Reconciler } from '../../api/reconciler.js';
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

const FINALIZER = 's13.test.tosdk.io/cleanup';

describe('review s13: which updates of a primary reconcile', () => {
  it.each([true, false])(
    '[FINDING S13-EP4] a Cleaner whose finalizer could not be added is reconciled again by a metadata-only change (an annotation), which adds it (useSSA: %s)',
    async (useSSA) => {
      const ns = await newNamespace(bed.admin);
      const id = new ResourceID('w', ns);
      let reconciles = 0;
      let failures = 0;
      const reconciler: Reconciler<Widget> & Cleaner<Widget> = {
        reconcile: () => {
          reconciles++;
          return UpdateControl.noUpdate();
        },
        cleanup: () => DeleteControl.defaultDelete(),
      };
      bed.operator({ metrics: { reconcileFailed: () => void failures++ } }).register(reconciler, {
        resourceType: Widget,
        name: 's13-ep4',
        namespaces: [ns],
        finalizerName: FINALIZER,
        useSSA,
        // no retry: the failed finalizer write is final until something happens to the resource
        retry: { maxAttempts: 0 },
      });
      await bed.operators[0].start();
      // the finalizer write is refused once (an admission webhook, a missing RBAC rule fixed later)
      bed.server.faults.failNext({ verb: 'patch', resource: 'widgets', namespace: ns, code: 403 });
      await bed.admin.create(Widget, widget('w', ns));
      await waitFor(() => failures === 1, 'the refused finalizer write');
      expect((await bed.admin.get(Widget, id))?.metadata?.finalizers).toBeUndefined();

      // an operator nudges the resource: JOSDK's onUpdateFinalizerNeededAndApplied accepts any
      // update of a resource without the finalizer
      await bed.admin.mergePatch(Widget, id, { metadata: { annotations: { nudge: '1' } } });
      await waitFor(
        async () => (await bed.admin.get(Widget, id))?.metadata?.finalizers?.includes(FINALIZER) ?? false,
        'the finalizer added after the nudge',
      );
      await waitFor(() => reconciles === 1, 'the reconciliation after the finalizer');
    },
  );
});
