import { describe, expect, it } from '@jest/globals';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { DeleteControl, UpdateControl } from '../../api/controls.js';
import type { Cleaner, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import {
  ConfigMapDependent,
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../dependent/__tests__/support.js';
import { KubernetesResourceDeletedCondition } from '../kubernetes-resource-deleted-condition.js';

/**
 * Adversarial review S9 of managed workflows against @tosdk/apiserver: what runs on deletion, and
 * what the reconciler's context reports.
 */
const suite = apiServerSuite();

const cm = (ns: string, name: string) => suite.admin.get(ResourceTypes.ConfigMap, new ResourceID(name, ns));
const getWidget = (ns: string, name: string) => suite.admin.get(Widget, new ResourceID(name, ns));

class CleaningReconciler implements Reconciler<Widget>, Cleaner<Widget> {
  cleanups = 0;
  reconcile(resource: Widget) {
    if (resource.status?.observed === resource.spec?.value) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed: resource.spec?.value };
    return UpdateControl.patchStatus(resource);
  }
  cleanup(_resource: Widget, _context: Context<Widget>) {
    this.cleanups++;
    return DeleteControl.defaultDelete();
  }
}

describe('S9 review: managed workflows', () => {
  it('[FINDING S9-DW7] a Cleaner whose workflow has only garbage-collected dependents never loses its finalizer when one of them has a delete postcondition', async () => {
    const ns = await newNamespace(suite.admin);
    const reconciler = new CleaningReconciler();
    suite.operator().register(reconciler, {
      resourceType: Widget,
      name: 's9dw7',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new ConfigMapDependent({ name: 'base', informer: { name: 'base' } }, 'base') },
          {
            // removed before 'base' when its precondition turns false (the reconcile-path deletion)
            dependent: new ConfigMapDependent({ name: 'top', informer: { name: 'top' } }, 'top'),
            dependsOn: ['base'],
            reconcilePrecondition: (_d: unknown, p: Widget) => p.spec?.value !== 'off',
            deletePostcondition: new KubernetesResourceDeletedCondition<Widget>(),
          },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await cm(ns, 'w-top')) !== undefined, 'dependents created');
    expect((await getWidget(ns, 'w'))?.metadata?.finalizers).toEqual(['widgets.test.tosdk.io/finalizer']);

    await suite.admin.delete(Widget, new ResourceID('w', ns));
    // JOSDK's Controller.cleanup runs the workflow cleanup only when managedWorkflow.hasCleaner()
    // (a dependent it deletes itself); here the garbage collector removes both after the primary
    await waitFor(async () => (await getWidget(ns, 'w')) === undefined, 'primary gone');
    expect(reconciler.cleanups).toBeGreaterThan(0);
  });
});
