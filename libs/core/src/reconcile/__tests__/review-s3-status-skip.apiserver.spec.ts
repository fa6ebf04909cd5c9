import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext, PrimaryResourceCache } from '../../api/event-source-context.js';
import type { EventSources, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

/**
 * Review s3 (issue 15 §1's status skip, last session; not a commit of this session): a status write
 * "that would change nothing" is judged against the CACHED primary. When someone else changed the
 * status and the watch has not delivered it yet, the cache is stale: the reconciler's status looks
 * written already, the write is skipped, and when the foreign status change arrives a
 * generation-aware controller (the default) filters it (no new generation). The server keeps the
 * foreign status although the reconciler's last word was its own; JOSDK (which sends the patch)
 * would have written it. The watch of the primaries is held back with fault latency to open the
 * window a loaded cluster opens by itself.
 */
const suite = apiServerSuite();
jest.setTimeout(120_000);
const WAIT_MS = 30_000;
const CM = ResourceTypes.ConfigMap;
const HOLD_MS = 1_500;

class OwnStatus implements Reconciler<Widget> {
  primaries?: PrimaryResourceCache<Widget>;
  /** The status each run saw. */
  readonly seen: Array<string | undefined> = [];
  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    this.primaries = context.primaryCache;
    return { configmaps: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context) };
  }
  reconcile(w: Widget) {
    this.seen.push(w.status?.observed);
    w.status = { ...w.status, observed: 'ours' };
    return UpdateControl.patchStatus(w);
  }
}

describe('review s3: the status skip against a stale cache', () => {
  // pre-existing (last session's issue 15 §1 status skip); H15 finding F6, fixed: a skipped write lets the next update through
  it('[EP-25] a status changed by someone else while the watch lags is set back by the next reconciliation’s patchStatus', async () => {
    const ns = await newNamespace(suite.admin);
    const id = new ResourceID('w', ns);
    const reconciler = new OwnStatus();
    suite
      .operator()
      .register(reconciler, { resourceType: Widget, name: 'review-s3-stale-skip', namespaces: [ns] });
    await suite.operators[0].start();
    const created = await suite.admin.create(Widget, widget('w', ns));
    const status = async () => (await suite.admin.get(Widget, id))?.status?.observed;
    await waitFor(async () => (await status()) === 'ours', 'first status written', WAIT_MS);
    await waitFor(() => reconciler.primaries?.get(id)?.status?.observed === 'ours', 'cached', WAIT_MS);
    const faults = suite.server.faults;
    let observed: string | undefined;
    try {
      // the primaries' watch lags; someone else sets the status
      faults.addLatency({ verb: 'watch', resource: 'widgets', ms: HOLD_MS });
      faults.addLatency({ verb: 'list', resource: 'widgets', ms: HOLD_MS });
      faults.closeAllWatches();
      await suite.admin.mergePatch(Widget, id, { status: { observed: 'theirs' } }, { subresource: 'status' });
      // a secondary's change reconciles the widget while the cache still shows our status
      const runs = reconciler.seen.length;
      await suite.admin.create(CM, {
        metadata: {
          name: 'w-cm',
          namespace: ns,
          ownerReferences: [
            { apiVersion: Widget.apiVersion, kind: Widget.kind, name: 'w', uid: created.metadata!.uid! },
          ],
        },
        data: { a: '1' },
      });
      await waitFor(() => reconciler.seen.length > runs, 'reconciled by the ConfigMap', WAIT_MS);
      // the window was hit: that run saw the stale status
      expect(reconciler.seen[runs]).toBe('ours');
    } finally {
      faults.clear();
    }
    // the watch is back: the cache has what the server has
    await waitFor(
      async () =>
        reconciler.primaries?.get(id)?.metadata?.resourceVersion ===
        (await suite.admin.get(Widget, id))?.metadata?.resourceVersion,
      'the watch caught up',
      WAIT_MS,
    );
    await waitFor(async () => (observed = await status()) === 'ours', 'our status set back', 5_000).catch(
      () => undefined,
    );
    expect(observed).toBe('ours');
  });
});
