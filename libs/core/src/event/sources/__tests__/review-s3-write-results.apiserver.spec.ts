import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import type { PrimaryResourceCache } from '../../../api/event-source-context.js';
import type { EventSourceContext } from '../../../api/reconciler.js';
import { ResourceID } from '../../../api/resource-id.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import { InformerEventSource } from '../informer-event-source.js';
import { ownedConfigMap } from './helpers.js';

/**
 * Review (issue 15 §2, H11's brief: "the result a user gets from a client call must stay what it is
 * today"): what a write through resourceOperations() returns is the user's to read and change. The
 * copy the event source serves until the informer has the write's version must not be that same
 * object, or a reconciler that edits its result (a common habit: `const cm = await apply(...);
 * cm.data.x = ...`) changes what getSecondaryResource / the primary cache answer. The watch is held
 * back with the API server's fault injection so the own-write copy is what reads see.
 */
const suite = apiServerSuite();
jest.setTimeout(120_000);
const WAIT_MS = 30_000;
const CM = ResourceTypes.ConfigMap;
const HOLD_WATCH_MS = 1_500;

describe('review s3: a write’s result is the caller’s, not the cache’s', () => {
  // pre-existing (InformerEventSource.write caches the very object it returns); see H15 finding F3
  it('[ES-19] a reconciler that edits the result of resourceOperations().serverSideApply does not change what getSecondaryResource returns', async () => {
    const ns = await newNamespace(suite.admin);
    let seenAfterEdit: string | undefined;
    let returned = false;
    let source: InformerEventSource<V1ConfigMap, Widget> | undefined;
    suite.operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          (source = new InformerEventSource<V1ConfigMap, Widget>({ type: CM, name: 'cms' }, c)),
        ],
        reconcile: async (w: Widget, c: Context<Widget>) => {
          if (w.spec?.value !== 'go' || returned) return UpdateControl.noUpdate();
          const faults = suite.server.faults;
          // the watch comes back late: reads are served from the own-write copy
          faults.addLatency({ verb: 'watch', resource: 'configmaps', ms: HOLD_WATCH_MS });
          faults.addLatency({ verb: 'list', resource: 'configmaps', ms: HOLD_WATCH_MS });
          faults.closeAllWatches();
          try {
            const result = await c
              .resourceOperations()
              .serverSideApply(ownedConfigMap('w-cm', ns, w, { value: 'applied' }));
            result.data!.value = 'edited by the reconciler';
            seenAfterEdit = c.getSecondaryResource(CM)?.data?.value;
          } finally {
            faults.clear();
          }
          returned = true;
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'review-s3-result-alias', namespaces: [ns] },
    );
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'go' }));
    await waitFor(() => returned, 'the reconciler applied and read', WAIT_MS);
    // the held-back watch delivered the write (no request of the test left pending)
    const cmId = new ResourceID('w-cm', ns);
    await waitFor(() => !source!.hasPendingOwnWrite(cmId), 'the write seen by the watch', WAIT_MS);
    expect(seenAfterEdit).toBe('applied');
  });

  // pre-existing (cache-view/controller-event-source own-write caching + last session's status skip); H15 finding F4
  // The primary's own-write overlay holds the write's answer (through the managed-fields pruning,
  // a shallow copy or the very object), so its nested objects are shared with what
  // resourceOperations() returned. A reconciler that edits that result and returns it with
  // patchStatus then has its status compared with the edited cache and skipped as "no change"
  // (issue 15 §1's skip): the status is never written. Merge-patch mode only reaches the skip
  // through the cache; SSA mode when our status apply entry owns the status.
  const primaryCases = [
    { mode: 'merge patch (useSSA: false)', useSSA: false },
    { mode: 'server-side apply', useSSA: true },
  ];
  it.each(primaryCases)(
    '[ES-19] $mode: a reconciler that edits the result of its own primary status write and returns it with patchStatus gets that status written',
    async ({ useSSA }) => {
      const ns = await newNamespace(suite.admin);
      const id = new ResourceID('w', ns);
      let returned = false;
      let primaries: PrimaryResourceCache<Widget> | undefined;
      suite.operator().register(
        {
          prepareEventSources: (c: EventSourceContext<Widget>) => {
            primaries = c.primaryCache;
            return [];
          },
          reconcile: async (w: Widget, c: Context<Widget>) => {
            if (w.spec?.value !== 'go' || returned) return UpdateControl.noUpdate<Widget>();
            const faults = suite.server.faults;
            // the watch comes back late (until the test clears the faults): reads and the status
            // skip see the own-write overlay
            faults.addLatency({ verb: 'watch', resource: 'widgets', ms: HOLD_WATCH_MS });
            faults.addLatency({ verb: 'list', resource: 'widgets', ms: HOLD_WATCH_MS });
            faults.closeAllWatches();
            const ops = c.resourceOperations();
            const written = useSSA
              ? await ops.serverSideApplyPrimaryStatus({
                  apiVersion: Widget.apiVersion,
                  kind: Widget.kind,
                  metadata: { name: 'w', namespace: ns },
                  status: { observed: 'first' },
                })
              : await ops.jsonMergePatchPrimaryStatus(w, { status: { observed: 'first' } });
            // the reconciler goes on with what the write returned
            written.status!.observed = 'final';
            returned = true;
            return UpdateControl.patchStatus(written);
          },
        },
        { resourceType: Widget, name: 'review-s3-primary-alias', namespaces: [ns], useSSA },
      );
      await suite.operators[0].start();
      await suite.admin.create(Widget, widget('w', ns, { value: 'go' }));
      let written: string | undefined;
      try {
        await waitFor(() => returned, 'the reconciler wrote', WAIT_MS);
        await waitFor(
          async () => (written = (await suite.admin.get(Widget, id))?.status?.observed) === 'final',
          'the returned status written',
          5_000,
        ).catch(() => undefined);
      } finally {
        suite.server.faults.clear();
      }
      // the watch is back (a later foreign change reaches the cache): no request of the test left pending
      await suite.admin.mergePatch(Widget, id, { metadata: { labels: { ping: 'yes' } } });
      await waitFor(() => primaries!.get(id)?.metadata?.labels?.ping === 'yes', 'the watch is back', WAIT_MS);
      expect(written).toBe('final');
    },
  );
});
