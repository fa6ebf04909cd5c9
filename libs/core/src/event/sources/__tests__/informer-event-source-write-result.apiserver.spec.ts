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
import { OwnWrites } from '../own-write.js';
import { ownedConfigMap } from './helpers.js';

/**
 * `InformerEventSource.write` (public) serves the write's result until the watch brings its version;
 * what it returns is the caller's: changing it must not change what the source serves (review s3
 * finding F3, the cache side; resourceOperations() hands its callers a copy of its own).
 */
const suite = apiServerSuite();
jest.setTimeout(120_000);
const WAIT_MS = 30_000;
const CM = ResourceTypes.ConfigMap;
const HOLD_WATCH_MS = 1_500;

describe('InformerEventSource.write: the result is the caller’s', () => {
  it('[ES-19] a caller that edits the result of write() does not change what get() serves before the watch has the version', async () => {
    const ns = await newNamespace(suite.admin);
    let seenAfterEdit: string | undefined;
    let done = false;
    let source: InformerEventSource<V1ConfigMap, Widget> | undefined;
    suite.operator().register(
      {
        prepareEventSources: (c: EventSourceContext<Widget>) => [
          (source = new InformerEventSource<V1ConfigMap, Widget>({ type: CM, name: 'cms' }, c)),
        ],
        reconcile: async (w: Widget, c: Context<Widget>) => {
          if (w.spec?.value !== 'go' || done) return UpdateControl.noUpdate();
          const faults = suite.server.faults;
          // the watch comes back late: reads are served from the own-write copy
          faults.addLatency({ verb: 'watch', resource: 'configmaps', ms: HOLD_WATCH_MS });
          faults.addLatency({ verb: 'list', resource: 'configmaps', ms: HOLD_WATCH_MS });
          faults.closeAllWatches();
          try {
            const intent = ownedConfigMap('w-cm', ns, w, { value: 'applied' });
            const id = new ResourceID('w-cm', ns);
            const result = await source!.write(
              id,
              () =>
                c.client.apply(
                  CM,
                  { ...intent, metadata: { ...intent.metadata, name: 'w-cm' } },
                  {
                    fieldManager: 'write-result-test',
                  },
                ),
              OwnWrites.apply(intent),
            );
            result.data!.value = 'edited by the caller';
            seenAfterEdit = source!.get(id)?.data?.value;
          } finally {
            faults.clear();
          }
          done = true;
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'write-result-copy', namespaces: [ns] },
    );
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'go' }));
    await waitFor(() => done, 'the reconciler wrote and read', WAIT_MS);
    const cmId = new ResourceID('w-cm', ns);
    await waitFor(() => !source!.hasPendingOwnWrite(cmId), 'the write seen by the watch', WAIT_MS);
    expect(seenAfterEdit).toBe('applied');
    expect(source!.get(cmId)?.data?.value).toBe('applied');
  });
});
