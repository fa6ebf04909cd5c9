import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
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
 * Issue 15 §2: when an own write's answer comes before its watch event, the event is not parsed
 * again: the informer receives the copy the source already serves (the API server sends the
 * answer's text byte for byte). Nothing else changes: the event is judged as before, the caller's
 * result stays the caller's, and a change by someone else still reconciles.
 */
const suite = apiServerSuite();
jest.setTimeout(120_000);
const WAIT_MS = 30_000;
const CM = ResourceTypes.ConfigMap;
const HOLD_WATCH_MS = 1_000;

describe('own writes whose answer comes first', () => {
  it('the watch event of an own write becomes the copy the source served, and only foreign changes reconcile', async () => {
    const ns = await newNamespace(suite.admin);
    let source: InformerEventSource<V1ConfigMap, Widget> | undefined;
    let served: V1ConfigMap | undefined;
    let result: V1ConfigMap | undefined;
    let reconciles = 0;
    const cmId = new ResourceID('w-cm', ns);
    suite.operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          (source = new InformerEventSource<V1ConfigMap, Widget>({ type: CM, name: 'cms' }, c)),
        ],
        reconcile: async (w: Widget, c: Context<Widget>) => {
          reconciles++;
          if (served) {
            w.status = { observed: `${w.spec?.value ?? ''}-${reconciles}` };
            return UpdateControl.patchStatus(w);
          }
          const faults = suite.server.faults;
          // the watch comes back after the answer: the answer is first
          faults.addLatency({ verb: 'watch', resource: 'configmaps', ms: HOLD_WATCH_MS });
          faults.addLatency({ verb: 'list', resource: 'configmaps', ms: HOLD_WATCH_MS });
          faults.closeAllWatches();
          try {
            result = await c
              .resourceOperations()
              .serverSideApply<V1ConfigMap>(ownedConfigMap('w-cm', ns, w, { value: 'applied' }));
            served = source!.get(cmId);
          } finally {
            faults.clear();
          }
          w.status = { observed: 'first' };
          return UpdateControl.patchStatus(w);
        },
      },
      { resourceType: Widget, name: 'own-write-echo', namespaces: [ns], useSSA: false },
    );
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'go' }));
    await waitFor(() => served !== undefined, 'the reconciler applied the ConfigMap', WAIT_MS);
    await waitFor(() => !source!.hasPendingOwnWrite(cmId), 'the watch brought the apply', WAIT_MS);
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns)))?.status?.observed === 'first',
      'the status on the server',
      WAIT_MS,
    );
    // the informer holds the very copy that was served: its event was not parsed a second time
    expect(served?.data?.value).toBe('applied');
    expect(source!.get(cmId)).toBe(served);
    // the caller's result is still its own
    expect(result).not.toBe(served);
    expect(result).toEqual(served);
    // our own writes (the apply, the status patch) reconciled nothing more; a foreign change does
    expect(reconciles).toBe(1);
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'changed' } });
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns)))?.status?.observed === 'changed-2',
      'the foreign spec change reconciled',
      WAIT_MS,
    );
    // and the foreign ConfigMap change too
    await suite.admin.mergePatch(CM, cmId, { data: { value: 'theirs' } });
    await waitFor(() => reconciles >= 3, 'the foreign ConfigMap change reconciled', WAIT_MS);
    expect(source!.get(cmId)?.data?.value).toBe('theirs');
  });
});
