import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import { ResourceID } from '../../api/resource-id.js';
import type { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { CRUDKubernetesDependentResource } from '../crud-kubernetes-dependent-resource.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

/**
 * What a dependent's write returned reaches the reconciler through the workflow's result
 * (`getWorkflowReconcileResult()`); it is the reconciler's to read and change. The event source
 * serves its own-write copy until the watch brings the write's version (held back here), so that
 * copy must not be the object the reconciler got (review s3 F3, the dependents' side).
 */
const suite = apiServerSuite();
jest.setTimeout(120_000);
const WAIT_MS = 30_000;
const CM = ResourceTypes.ConfigMap;
const HOLD_WATCH_MS = 1_500;

class ConfigMapDependent extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
  constructor() {
    super({ resourceType: CM, name: 'cm' });
  }
  protected desired(w: Widget): V1ConfigMap {
    return { metadata: { name: `${w.metadata!.name}-cm` }, data: { value: 'applied' } };
  }
}

describe('a dependent’s write result is the reconciler’s, not the cache’s', () => {
  it('[DR-10] a reconciler that edits the ConfigMap in its workflow result does not change what getSecondaryResource returns', async () => {
    const ns = await newNamespace(suite.admin);
    const dependent = new ConfigMapDependent();
    let seenAfterEdit: string | undefined;
    let done = false;
    let source: InformerEventSource<V1ConfigMap, Widget> | undefined;
    suite.operator().register(
      {
        reconcile: (_w: Widget, c: Context<Widget>) => {
          if (done) return UpdateControl.noUpdate<Widget>();
          source = c.eventSourceRetriever().getEventSource('cm') as
            InformerEventSource<V1ConfigMap, Widget> | undefined;
          const result = c
            .managedWorkflowAndDependentResourceContext()
            .getWorkflowReconcileResult()
            ?.reconcileResults.get('cm');
          const cm = result?.results[0]?.resource as V1ConfigMap | undefined;
          if (!cm) return UpdateControl.noUpdate<Widget>();
          cm.data!.value = 'edited by the reconciler';
          seenAfterEdit = c.getSecondaryResource(CM)?.data?.value;
          done = true;
          return UpdateControl.noUpdate<Widget>();
        },
      },
      {
        resourceType: Widget,
        name: 'dr10-dependent-result',
        namespaces: [ns],
        workflow: { dependents: [{ dependent }] },
      },
    );
    // the watch comes back late: reads are served from the own-write copy
    const faults = suite.server.faults;
    faults.addLatency({ verb: 'watch', resource: 'configmaps', ms: HOLD_WATCH_MS });
    try {
      await suite.operators[0].start();
      faults.closeAllWatches();
      await suite.admin.create(Widget, widget('w', ns));
      await waitFor(() => done, 'the reconciler read its workflow result', WAIT_MS);
    } finally {
      faults.clear();
    }
    await waitFor(
      () => !source!.hasPendingOwnWrite(new ResourceID('w-cm', ns)),
      'the write seen by the watch',
      WAIT_MS,
    );
    expect(seenAfterEdit).toBe('applied');
  });
});
