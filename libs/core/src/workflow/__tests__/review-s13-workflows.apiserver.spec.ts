import { describe, expect, it } from '@jest/globals';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import type { Cleaner, EventSourceContext, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { defineResource } from '../../api/resource-type.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { DependentResource, ReconcileResult } from '../../dependent/dependent-resource.js';
import { reconcileResult } from '../../dependent/dependent-resource.js';
import type { Clock } from '../../util/clock.js';
import {
  ConfigMapDependent,
  apiServerSuite,
  newNamespace,
  NoGCConfigMapDependent,
  waitFor,
  Widget,
  widget,
} from '../../dependent/__tests__/support.js';
import { ConditionResult } from '../condition.js';
import { CRDPresentActivationCondition } from '../crd-present-activation-condition.js';
import { AggregatedOperatorError, WorkflowUsageError } from '../errors.js';
import { WorkflowBuilder } from '../workflow-builder.js';
import type { WorkflowReconcileResult } from '../workflow-result.js';

/**
 * Adversarial review S13 of workflows against JOSDK (operator-framework-core,
 * processing/dependent/workflow), driven through @tosdk/apiserver.
 */
const suite = apiServerSuite();

const cm = (ns: string, name: string) => suite.admin.get(ResourceTypes.ConfigMap, new ResourceID(name, ns));
const statusOf = async (ns: string, name: string) =>
  (await suite.admin.get(Widget, new ResourceID(name, ns)))?.status;

class StatusReconciler implements Reconciler<Widget> {
  reconcile(resource: Widget, _context?: Context<Widget>) {
    if (resource.status?.observed === resource.spec?.value) return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed: resource.spec?.value };
    return UpdateControl.patchStatus(resource);
  }
}

describe('S13 review: workflows', () => {
  // JOSDK's MultipleDependentWithActivationIT (and the workflow docs: "explicitly name the informer
  // ... for all resources of same type with activation condition. This will make sure that only one
  // is registered"): two ConfigMap dependents with activation conditions and one informer name.
  it('[FINDING S13-DW1] two dependents of one kind with activation conditions and one informer name: the second is never reconciled (it has no event source)', async () => {
    const ns = await newNamespace(suite.admin);
    let active = false;
    const activation = () => active;
    const errors: unknown[] = [];
    class R extends StatusReconciler {
      updateErrorStatus(_r: Widget, _c: Context<Widget>, e: unknown) {
        errors.push(e);
        return ErrorStatusUpdateControl.noStatusUpdate<Widget>();
      }
    }
    suite.operator().register(new R(), {
      resourceType: Widget,
      name: 's13dw1',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: new NoGCConfigMapDependent(
              { name: 'cm1', informer: { name: 'configMapInformer' } },
              '1',
            ),
            activationCondition: activation,
          },
          {
            dependent: new NoGCConfigMapDependent(
              { name: 'cm2', informer: { name: 'configMapInformer' } },
              '2',
            ),
            activationCondition: activation,
          },
          { dependent: new ConfigMapDependent({ name: 'always', informer: { name: 'always' } }, 'always') },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'initial' }));
    await waitFor(async () => (await statusOf(ns, 'w'))?.observed === 'initial', 'reconciled');
    expect(await cm(ns, 'w-always')).toBeDefined();
    expect(await cm(ns, 'w-1')).toBeUndefined();
    expect(await cm(ns, 'w-2')).toBeUndefined();
    active = true;
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'changed' } });
    await waitFor(
      async () =>
        (await cm(ns, 'w-1'))?.data?.['value'] === 'changed' &&
        (await cm(ns, 'w-2'))?.data?.['value'] === 'changed',
      `both activated dependents created (errors: ${String(errors[0])})`,
      10_000,
    ).catch((e: unknown) => {
      throw new Error(`${String(e)}; errors seen: ${errors.map(String).join(' | ')}`);
    });
    // off (the shared informer is stopped), then on again: both work with the new informer
    active = false;
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'off' } });
    await waitFor(async () => (await statusOf(ns, 'w'))?.observed === 'off', 'deactivated');
    expect((await cm(ns, 'w-1'))?.data?.['value']).toBe('changed');
    active = true;
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'again' } });
    await waitFor(
      async () =>
        (await cm(ns, 'w-1'))?.data?.['value'] === 'again' &&
        (await cm(ns, 'w-2'))?.data?.['value'] === 'again',
      'both reactivated dependents updated',
    );
    // and their shared informer serves both: a drift of the second is repaired
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-2', ns), {
      data: { value: 'x' },
    });
    await waitFor(async () => (await cm(ns, 'w-2'))?.data?.['value'] === 'again', 'drift repaired');
  });

  // JOSDK's CRDPresentActivationCondition: DEFAULT_CRD_CHECK_INTERVAL = Duration.ofSeconds(10)
  // (DEFAULT_CRD_CHECK_LIMIT = 10); a missing CRD is looked up again once 10 s have passed.
  it('[FINDING S13-DW3] with the default options a CRD installed after the first check is not seen 10 s later (checked again only after 60 s)', async () => {
    let now = 1_000_000;
    const clock: Clock = { now: () => now, setTimeout: () => ({}), clearTimeout: () => undefined };
    const condition = new CRDPresentActivationCondition<Widget>({ clock });
    const Soon = defineResource<KubernetesResource>({ group: 'soon.tosdk.io', version: 'v1', kind: 'Soon' });
    const dependent = { name: 'soon', resourceType: Soon } as unknown as DependentResource<unknown, Widget>;
    const context = { client: suite.admin } as unknown as Context<Widget>;
    const primary = widget('w', 'default');
    const lookups = () =>
      suite.server.requests.log.filter(
        (q) => q.resource === 'customresourcedefinitions' && q.name === 'soons.soon.tosdk.io',
      ).length;
    expect(await condition.isMet(dependent, primary, context)).toBe(false);
    expect(lookups()).toBe(1);
    const CRD = defineResource<KubernetesResource>({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      scope: 'Cluster',
    });
    await suite.admin.create(CRD, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'soons.soon.tosdk.io' },
      spec: {
        group: 'soon.tosdk.io',
        scope: 'Namespaced',
        names: { plural: 'soons', singular: 'soon', kind: 'Soon', listKind: 'SoonList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    } as KubernetesResource);
    now += 9_000;
    expect(await condition.isMet(dependent, primary, context)).toBe(false); // within the interval
    expect(lookups()).toBe(1);
    now += 1_001;
    expect(await condition.isMet(dependent, primary, context)).toBe(true);
    expect(lookups()).toBe(2);
  });

  // JOSDK's DefaultWorkflow.reconcile (and cleanup) put the result into
  // context.managedWorkflowAndDependentResourceContext() (RECONCILE_RESULT_KEY / CLEANUP_RESULT_KEY)
  // before throwing, for any workflow: getWorkflowReconcileResult() then returns it, also in
  // updateErrorStatus, which gets the reconciliation's context.
  it('[FINDING S13-DW4] after a standalone workflow ran, getWorkflowReconcileResult() of the context is undefined, in reconcile and in updateErrorStatus', async () => {
    const ns = await newNamespace(suite.admin);
    class Failing extends ConfigMapDependent {
      protected override desired(): never {
        throw new Error('broken');
      }
    }
    const bad = new Failing({ name: 'bad', informer: { name: 'bad' } }, 'bad');
    const ok = new ConfigMapDependent({ name: 'ok', informer: { name: 'ok' } }, 'ok');
    const workflow = new WorkflowBuilder<Widget>()
      .addDependentResource(bad)
      .addDependentResource(ok)
      .withReadyPostcondition(() => ConditionResult.unmet('not yet'))
      .build();
    let inReconcile: WorkflowReconcileResult | undefined | 'none' = 'none';
    let inErrorStatus: WorkflowReconcileResult | undefined | 'none' = 'none';
    let thrown: unknown;
    class R implements Reconciler<Widget> {
      prepareEventSources(context: EventSourceContext<Widget>) {
        return [bad.eventSource(context), ok.eventSource(context)];
      }
      async reconcile(resource: Widget, context: Context<Widget>) {
        try {
          await workflow.reconcile(resource, context);
        } finally {
          inReconcile = context.managedWorkflowAndDependentResourceContext().getWorkflowReconcileResult();
        }
        return UpdateControl.noUpdate<Widget>();
      }
      updateErrorStatus(_r: Widget, context: Context<Widget>, error: unknown) {
        thrown = error;
        inErrorStatus = context.managedWorkflowAndDependentResourceContext().getWorkflowReconcileResult();
        return ErrorStatusUpdateControl.noStatusUpdate<Widget>().withNoRetry();
      }
    }
    suite.operator().register(new R(), { resourceType: Widget, name: 's13dw4', namespaces: [ns] });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(() => inErrorStatus !== 'none', 'updateErrorStatus');
    expect(thrown).toBeInstanceOf(AggregatedOperatorError);
    for (const seen of [inReconcile, inErrorStatus]) {
      const result = seen as unknown as WorkflowReconcileResult | undefined;
      expect(result?.erroredDependents.has('bad')).toBe(true);
      expect(result?.getDependentConditionResult('ok', 'ready')).toEqual({ met: false, detail: 'not yet' });
    }
  });

  // JOSDK's DefaultManagedWorkflowAndDependentResourceContext.reconcileManagedWorkflow and
  // cleanupManageWorkflow: IllegalStateException("Workflow explicit invocation is not set.") unless
  // the workflow is declared with explicitInvocation (the framework runs it then, Controller.reconcile
  // and Controller.cleanup).
  it('[FINDING S13-DW6] without explicitInvocation, reconcileManagedWorkflow() and cleanupManagedWorkflow() from the reconciler run the workflow a second time instead of failing', async () => {
    const ns = await newNamespace(suite.admin);
    let reconciles = 0;
    class Counting extends NoGCConfigMapDependent {
      override reconcile(p: Widget, c: Context<Widget>) {
        reconciles++;
        return super.reconcile(p, c);
      }
    }
    const caught: unknown[] = [];
    let cleanups = 0;
    class R implements Reconciler<Widget>, Cleaner<Widget> {
      async reconcile(resource: Widget, context: Context<Widget>) {
        await context
          .managedWorkflowAndDependentResourceContext()
          .reconcileManagedWorkflow()
          .catch((e: unknown) => caught.push(e));
        resource.status = { ...resource.status, observed: resource.spec?.value };
        return UpdateControl.patchStatus(resource);
      }
      async cleanup(_r: Widget, context: Context<Widget>) {
        cleanups++;
        await context
          .managedWorkflowAndDependentResourceContext()
          .cleanupManagedWorkflow()
          .catch((e: unknown) => caught.push(e));
        return DeleteControl.defaultDelete();
      }
    }
    suite.operator().register(new R(), {
      resourceType: Widget,
      name: 's13dw6',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new Counting({ informer: { name: 'counting' } }) }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await statusOf(ns, 'w'))?.observed === 'a', 'reconciled');
    expect(caught[0]).toBeInstanceOf(WorkflowUsageError);
    expect(String(caught[0])).toContain('explicitInvocation');
    expect(reconciles).toBe(caught.length); // the framework's run only
    await suite.admin.delete(Widget, new ResourceID('w', ns));
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns))) === undefined,
      'deleted',
    );
    expect(cleanups).toBe(1);
    expect(caught.at(-1)).toBeInstanceOf(WorkflowUsageError);
    expect(await cm(ns, 'w-cm')).toBeUndefined(); // the framework's cleanup deleted it
  });

  // JOSDK's AbstractWorkflowExecutor.isConditionMet: a condition of a node evaluated once in a run
  // is not evaluated again in that run (the result kept for its type is returned): the activation
  // condition handleReconcile evaluated is the one NodeDeleteExecutor uses.
  it('[FINDING S13-DW8] a node whose activation condition holds and whose reconcile precondition does not has its activation condition evaluated twice in one run (and may flip between the two)', async () => {
    const calls: string[] = [];
    const deleted: string[] = [];
    const node: DependentResource<string, Widget> = {
      name: 'node',
      traits: { deleter: true },
      reconcile(): Promise<ReconcileResult<string>> {
        calls.push('reconcile');
        return Promise.resolve(reconcileResult({ operation: 'none', resource: 'x' }));
      },
      getSecondaryResource: () => undefined,
      delete() {
        deleted.push('node');
        return Promise.resolve();
      },
    };
    let flips = 0;
    const workflow = new WorkflowBuilder<Widget>()
      .addDependentResource(node)
      .withActivationCondition(() => {
        calls.push('activation');
        return flips++ === 0; // active at first, inactive if asked again
      })
      .withReconcilePrecondition(() => false)
      .build();
    const result = await workflow.reconcile(widget('w', 'n'), {} as Context<Widget>);
    expect(calls).toEqual(['activation']);
    expect(deleted).toEqual(['node']); // active for the whole run, so deleted
    expect(result.deletedDependents).toEqual(['node']);
    expect(result.getDependentConditionResult('node', 'activation')?.met).toBe(true);
  });

  // JOSDK's WorkflowInactiveDependentAccessIT: a reconciler reading the secondary of a dependent whose
  // activation condition is false "should not throw an exception even if the condition is false"
  // (AbstractDependentResource.getSecondaryResource reads context.getSecondaryResources(type):
  // nothing registered, nothing found).
  it('[FINDING S13-DW10] reading the secondary of a never-activated dependent through the workflow context throws DependentNotConfigured instead of giving undefined', async () => {
    const ns = await newNamespace(suite.admin);
    const outcomes: string[] = [];
    class R extends StatusReconciler {
      override reconcile(resource: Widget, context?: Context<Widget>) {
        try {
          const optional = context!
            .managedWorkflowAndDependentResourceContext()
            .getSecondaryResource('optional');
          outcomes.push(optional === undefined ? 'undefined' : 'found');
        } catch (e) {
          outcomes.push(String(e));
        }
        return super.reconcile(resource);
      }
    }
    suite.operator().register(new R(), {
      resourceType: Widget,
      name: 's13dw10',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: new ConfigMapDependent(
              { name: 'optional', informer: { name: 'optional' } },
              'optional',
            ),
            activationCondition: () => false,
          },
          { dependent: new ConfigMapDependent({ name: 'always', informer: { name: 'always' } }, 'always') },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await statusOf(ns, 'w'))?.observed === 'a', 'reconciled');
    expect(outcomes[0]).toBe('undefined');
    expect(await cm(ns, 'w-always')).toBeDefined();
  });
});
