import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
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
import { ConditionResult } from '../condition.js';
import { KubernetesResourceDeletedCondition } from '../kubernetes-resource-deleted-condition.js';
import type { WorkflowReconcileResult } from '../workflow-result.js';

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

  // updateErrorStatus gets the failed reconciliation's context (with the failure's retry info), so
  // the managed workflow's result, as JOSDK hands the error handler the reconcile's own context.
  it("[FINDING S9-DW11] updateErrorStatus cannot read the failed workflow run: the context's getWorkflowReconcileResult() is undefined", async () => {
    const ns = await newNamespace(suite.admin);
    class Failing extends ConfigMapDependent {
      protected override desired(): V1ConfigMap {
        throw new Error('broken');
      }
    }
    let seen: WorkflowReconcileResult | undefined | 'none' = 'none';
    class R implements Reconciler<Widget> {
      reconcile() {
        return UpdateControl.noUpdate<Widget>();
      }
      updateErrorStatus(resource: Widget, c: Context<Widget>) {
        seen = c.managedWorkflowAndDependentResourceContext().getWorkflowReconcileResult();
        return ErrorStatusUpdateControl.noStatusUpdate<Widget>().withNoRetry();
      }
    }
    suite.operator().register(new R(), {
      resourceType: Widget,
      name: 's9dw11',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new Failing({ informer: { name: 'bad' } }, 'bad'), name: 'bad' },
          {
            dependent: new ConfigMapDependent({ informer: { name: 'ok' } }, 'ok'),
            name: 'ok',
            readyPostcondition: () => ConditionResult.unmet('not yet'),
          },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => seen !== 'none', 'updateErrorStatus');
    const result = seen as unknown as WorkflowReconcileResult | undefined;
    expect(result?.erroredDependents.has('bad')).toBe(true);
    expect(result?.getDependentConditionResult('ok', 'ready')).toEqual({ met: false, detail: 'not yet' });
  });
});
