import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import type { Cleaner, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { defineResource } from '../../api/resource-type.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import {
  CRUDKubernetesDependentResource,
  CRUDNoGCKubernetesDependentResource,
} from '../../dependent/crud-kubernetes-dependent-resource.js';
import { GenericKubernetesDependentResource } from '../../dependent/generic-kubernetes-dependent-resource.js';
import type { BulkDependentResource } from '../../dependent/bulk-dependent-resource.js';
import type { DependentResource, ReconcileResult } from '../../dependent/dependent-resource.js';
import { reconcileResult } from '../../dependent/dependent-resource.js';
import { InvalidOperatorConfigurationError } from '../../operator/errors.js';
import { Operator } from '../../operator/operator.js';
import {
  ConfigMapDependent,
  markDeploymentReady,
  newNamespace,
  NoGCConfigMapDependent,
  apiServerSuite,
  waitFor,
  Widget,
  widget,
} from '../../dependent/__tests__/support.js';
import { CRDPresentActivationCondition } from '../crd-present-activation-condition.js';
import { AggregatedOperatorError } from '../errors.js';
import { KubernetesResourceDeletedCondition } from '../kubernetes-resource-deleted-condition.js';

const suite = apiServerSuite();

const cm = (ns: string, name: string) => suite.admin.get(ResourceTypes.ConfigMap, new ResourceID(name, ns));
const statusOf = async (ns: string, name: string) =>
  (await suite.admin.get(Widget, new ResourceID(name, ns)))?.status;

class StatusReconciler implements Reconciler<Widget> {
  runs = 0;
  reconcile(resource: Widget, context: Context<Widget>) {
    this.runs++;
    const result = context.managedWorkflowAndDependentResourceContext().getWorkflowReconcileResult();
    const message = result?.allDependentResourcesReady() ? 'ready' : 'waiting';
    if (resource.status?.observed === resource.spec?.value && resource.status?.message === message)
      return UpdateControl.noUpdate<Widget>();
    resource.status = { ...resource.status, observed: resource.spec?.value, message };
    return UpdateControl.patchStatus(resource);
  }
}

const sourceNames = (
  op: { runtimeInfo: { eventSourceHealth(): Record<string, Record<string, unknown>> } },
  controller: string,
) => Object.keys(op.runtimeInfo.eventSourceHealth()[controller] ?? {});

/** Counts the dependent steps running at once; the first `held` steps wait until released one by one. */
class StepProbe {
  active = 0;
  maxActive = 0;
  started = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly held: number) {}

  async step(): Promise<void> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      if (++this.started <= this.held) await new Promise<void>((resolve) => this.waiting.push(resolve));
    } finally {
      this.active--;
    }
  }

  releaseOne(): void {
    this.waiting.shift()?.();
  }
}

/** A dependent with no secondary of its own whose reconcile is one step of a {@link StepProbe}. */
class ProbeDependent implements DependentResource<string, Widget> {
  constructor(
    readonly name: string,
    private readonly probe: StepProbe,
  ) {}
  async reconcile(): Promise<ReconcileResult<string>> {
    await this.probe.step();
    return reconcileResult({ operation: 'none', resource: this.name });
  }
  getSecondaryResource(): string | undefined {
    return undefined;
  }
}

describe('workflows against @tosdk/apiserver', () => {
  it('[WF-04][WF-06] activation: inactive dependents are neither reconciled nor deleted, their informer exists only while active; the others work', async () => {
    const ns = await newNamespace(suite.admin);
    const optional = new ConfigMapDependent(
      { informer: { name: 'optional-cms', labelSelector: 'app' } },
      'optional',
    );
    const op = suite.operator();
    op.register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'wf04',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: optional,
            name: 'optional',
            activationCondition: (_d: unknown, p: Widget) => p.spec?.value !== 'off',
          },
          {
            dependent: new ConfigMapDependent(
              { informer: { name: 'always-cms', labelSelector: 'app' } },
              'always',
            ),
            name: 'always',
          },
        ],
      },
    });
    await op.start();
    expect(sourceNames(op, 'wf04')).not.toContain('optional-cms');
    await suite.admin.create(Widget, widget('w', ns, { value: 'off' }));
    await waitFor(async () => (await statusOf(ns, 'w'))?.observed === 'off', 'reconciled inactive');
    expect(await cm(ns, 'w-optional')).toBeUndefined();
    expect(await cm(ns, 'w-always')).toBeDefined();
    expect(sourceNames(op, 'wf04')).not.toContain('optional-cms');
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'on' } });
    await waitFor(async () => (await cm(ns, 'w-optional'))?.data?.value === 'on', 'activated');
    expect(sourceNames(op, 'wf04')).toContain('optional-cms');
    // its informer works: a drift is repaired
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-optional', ns), {
      data: { value: 'x' },
    });
    await waitFor(
      async () => (await cm(ns, 'w-optional'))?.data?.value === 'on',
      'repaired through the dynamic informer',
    );
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'off' } });
    await waitFor(async () => (await statusOf(ns, 'w'))?.observed === 'off', 'deactivated');
    expect(sourceNames(op, 'wf04')).not.toContain('optional-cms');
    expect(await cm(ns, 'w-optional')).toBeDefined(); // not deleted
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'on' } });
    await waitFor(async () => (await cm(ns, 'w-optional'))?.data?.value === 'on', 'active again');
    expect(sourceNames(op, 'wf04')).toContain('optional-cms');
  });

  it('[WF-05] CRD-present activation condition', async () => {
    const ns = await newNamespace(suite.admin);
    const Later = defineResource<KubernetesResource>({
      group: 'later.tosdk.io',
      version: 'v1',
      kind: 'Later',
    });
    class LaterDependent extends GenericKubernetesDependentResource<Widget> {
      constructor() {
        super({ resourceType: Later, name: 'later' });
      }
      protected desired(p: Widget): KubernetesResource {
        return { metadata: { name: p.metadata!.name! }, spec: { v: p.spec?.value } } as KubernetesResource;
      }
    }
    const op = suite.operator();
    op.register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'wf05',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: new LaterDependent(),
            activationCondition: new CRDPresentActivationCondition({ checkIntervalMs: 0, checkLimit: 100 }),
          },
          { dependent: new ConfigMapDependent() },
        ],
      },
    });
    await op.start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await statusOf(ns, 'w'))?.observed === 'a', 'reconciled without the CRD');
    expect(await cm(ns, 'w-cm')).toBeDefined();
    const CRD = defineResource<KubernetesResource>({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      scope: 'Cluster',
    });
    await suite.admin.create(CRD, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'laters.later.tosdk.io' },
      spec: {
        group: 'later.tosdk.io',
        scope: 'Namespaced',
        names: { plural: 'laters', singular: 'later', kind: 'Later', listKind: 'LaterList' },
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
    await waitFor(
      async () =>
        (
          await suite.admin
            .request<{ resources?: unknown[] }>('/apis/later.tosdk.io/v1')
            .catch(() => undefined)
        )?.resources !== undefined,
      'served',
    );
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
    await waitFor(
      async () => (await suite.admin.get(Later, new ResourceID('w', ns))) !== undefined,
      'created once the CRD exists',
    );
  });

  it('[WF-07] a false precondition under an inactive dependent: nothing created', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'wf07',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: new ConfigMapDependent({ informer: { name: 'a', labelSelector: 'app' } }, 'a'),
            name: 'a',
            activationCondition: () => false,
          },
          {
            dependent: new ConfigMapDependent({ informer: { name: 'b', labelSelector: 'app' } }, 'b'),
            name: 'b',
            dependsOn: ['a'],
            reconcilePrecondition: () => false,
          },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await statusOf(ns, 'w'))?.observed === 'a', 'reconciled');
    expect(suite.server.requests.writes({ namespace: ns, resource: 'configmaps' })).toBe(0);
  });

  it('[WF-08] cleanup with activation conditions right after start', async () => {
    const ns = await newNamespace(suite.admin);
    await suite.admin.create(Widget, {
      ...widget('w', ns),
      metadata: { name: 'w', namespace: ns, finalizers: ['widgets.test.tosdk.io/finalizer'] },
    });
    await suite.admin.create(ResourceTypes.ConfigMap, {
      metadata: {
        name: 'w-cm',
        namespace: ns,
        annotations: { 'tosdk.io/primary-name': 'w', 'tosdk.io/primary-namespace': ns },
      },
    });
    await suite.admin.delete(Widget, new ResourceID('w', ns));
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'wf08',
      namespaces: [ns],
      workflow: {
        dependents: [{ dependent: new NoGCConfigMapDependent(), activationCondition: () => true }],
      },
    });
    await suite.operators[0].start();
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns))) === undefined,
      'primary gone',
    );
    expect(await cm(ns, 'w-cm')).toBeUndefined();
  });

  it('[WF-09] explicit invocation: the reconciler runs the workflow itself; cleanup still runs', async () => {
    const ns = await newNamespace(suite.admin);
    class Explicit implements Reconciler<Widget>, Cleaner<Widget> {
      cleaned = 0;
      async reconcile(resource: Widget, context: Context<Widget>) {
        if (resource.spec?.value !== 'skip')
          await context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
        resource.status = { observed: resource.spec?.value };
        return UpdateControl.patchStatus(resource);
      }
      async cleanup(_r: Widget, context: Context<Widget>) {
        const result = await context.managedWorkflowAndDependentResourceContext().cleanupManagedWorkflow();
        this.cleaned += result.deleteCalledOnDependents.length;
        return DeleteControl.defaultDelete();
      }
    }
    const r = new Explicit();
    suite.operator().register(r, {
      resourceType: Widget,
      name: 'wf09',
      namespaces: [ns],
      workflow: { explicitInvocation: true, dependents: [{ dependent: new NoGCConfigMapDependent() }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('s', ns, { value: 'skip' }));
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(
      async () =>
        (await statusOf(ns, 's'))?.observed === 'skip' && (await statusOf(ns, 'w'))?.observed === 'a',
      'both',
    );
    expect(await cm(ns, 's-cm')).toBeUndefined();
    expect(await cm(ns, 'w-cm')).toBeDefined();
    await suite.admin.delete(Widget, new ResourceID('w', ns));
    await waitFor(async () => (await suite.admin.get(Widget, new ResourceID('w', ns))) === undefined, 'gone');
    expect(await cm(ns, 'w-cm')).toBeUndefined();
    expect(r.cleaned).toBe(1);
  });

  it('[WF-09] explicit invocation without a Cleaner: cleanup runs implicitly', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(
      {
        async reconcile(resource: Widget, context: Context<Widget>) {
          await context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
          resource.status = { observed: resource.spec?.value };
          return UpdateControl.patchStatus(resource);
        },
      },
      {
        resourceType: Widget,
        name: 'wf09b',
        namespaces: [ns],
        workflow: { explicitInvocation: true, dependents: [{ dependent: new NoGCConfigMapDependent() }] },
      },
    );
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await cm(ns, 'w-cm')) !== undefined, 'created');
    await suite.admin.delete(Widget, new ResourceID('w', ns));
    await waitFor(async () => (await suite.admin.get(Widget, new ResourceID('w', ns))) === undefined, 'gone');
    expect(await cm(ns, 'w-cm')).toBeUndefined();
  });

  it('[WF-10] errors in several dependents reach updateErrorStatus as one aggregated error; independent ones still reconcile', async () => {
    const ns = await newNamespace(suite.admin);
    class Failing extends ConfigMapDependent {
      protected override desired(): V1ConfigMap {
        throw new Error(`${this.suffix} is broken`);
      }
    }
    let seen: unknown;
    class R extends StatusReconciler {
      updateErrorStatus(resource: Widget, _c: Context<Widget>, error: unknown) {
        seen = error;
        resource.status = { message: (error as Error).message };
        return ErrorStatusUpdateControl.patchStatus(resource).withNoRetry();
      }
    }
    suite.operator().register(new R(), {
      resourceType: Widget,
      name: 'wf10',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new Failing({ informer: { name: 'f1' } }, 'one'), name: 'one' },
          { dependent: new Failing({ informer: { name: 'f2' } }, 'two'), name: 'two' },
          { dependent: new ConfigMapDependent({ informer: { name: 'ok' } }, 'ok'), name: 'ok' },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await statusOf(ns, 'w'))?.message !== undefined, 'error status');
    expect(seen).toBeInstanceOf(AggregatedOperatorError);
    expect([...(seen as AggregatedOperatorError).errorsByDependent.keys()].sort()).toEqual(['one', 'two']);
    expect((await statusOf(ns, 'w'))?.message).toContain('one is broken');
    expect(await cm(ns, 'w-ok')).toBeDefined();
  });

  it('[WF-11] a bulk dependent with an activation condition before its event source exists', async () => {
    const ns = await newNamespace(suite.admin);
    class Bulk
      extends CRUDKubernetesDependentResource<V1ConfigMap, Widget>
      implements BulkDependentResource<V1ConfigMap, Widget>
    {
      constructor() {
        super({ resourceType: ResourceTypes.ConfigMap, name: 'bulk', informer: { name: 'bulk-cms' } });
      }
      protected desired(): V1ConfigMap {
        throw new Error('bulk: desiredResources is used');
      }
      desiredResources(p: Widget): Map<string, V1ConfigMap> {
        const out = new Map<string, V1ConfigMap>();
        for (let i = 0; i < (p.spec?.size ?? 0); i++)
          out.set(String(i), { metadata: { name: `${p.metadata!.name!}-${i}` } });
        return out;
      }
      getSecondaryResources(p: Widget): Map<string, V1ConfigMap> {
        return new Map(
          this.informerEventSource!.getSecondaryResources(p).map((c) => [
            c.metadata!.name!.split('-').pop()!,
            c,
          ]),
        );
      }
      async deleteTargetResource(_p: Widget, r: V1ConfigMap, _k: string, c: Context<Widget>): Promise<void> {
        await c.client.delete(ResourceTypes.ConfigMap, ResourceID.fromResource(r));
      }
    }
    const op = suite.operator();
    op.register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'wf11',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new Bulk(), activationCondition: (_d: unknown, p: Widget) => p.spec?.value === 'on' },
        ],
      },
    });
    await op.start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'off', size: 2 }));
    await waitFor(async () => (await statusOf(ns, 'w'))?.observed === 'off', 'reconciled while inactive');
    expect(sourceNames(op, 'wf11')).not.toContain('bulk-cms');
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'on' } });
    await waitFor(
      async () => (await cm(ns, 'w-0')) !== undefined && (await cm(ns, 'w-1')) !== undefined,
      'bulk created',
    );
    expect(sourceNames(op, 'wf11')).toContain('bulk-cms');
  });

  it('[WF-12] a larger workflow of StatefulSets and Services with ready conditions converges', async () => {
    const ns = await newNamespace(suite.admin);
    class Db extends CRUDKubernetesDependentResource<V1StatefulSet, Widget> {
      constructor(readonly tier: string) {
        super({
          resourceType: ResourceTypes.StatefulSet,
          name: `${tier}-set`,
          informer: { labelSelector: `tier=${tier}` },
        });
      }
      protected desired(p: Widget): V1StatefulSet {
        const name = `${p.metadata!.name!}-${this.tier}`;
        return {
          metadata: { name, labels: { tier: this.tier } },
          spec: {
            serviceName: name,
            replicas: 1,
            selector: { matchLabels: { app: name } },
            template: {
              metadata: { labels: { app: name } },
              spec: { containers: [{ name: 'c', image: 'busybox' }] },
            },
          },
        };
      }
    }
    class Svc extends CRUDKubernetesDependentResource<V1Service, Widget> {
      constructor(readonly tier: string) {
        super({
          resourceType: ResourceTypes.Service,
          name: `${tier}-svc`,
          informer: { labelSelector: `tier=${tier}` },
        });
      }
      protected desired(p: Widget): V1Service {
        const name = `${p.metadata!.name!}-${this.tier}`;
        return {
          metadata: { name, labels: { tier: this.tier } },
          spec: { selector: { app: name }, ports: [{ port: 5432 }] },
        };
      }
    }
    const ready = (tier: string) => (_d: unknown, p: Widget, c: Context<Widget>) => {
      const s = c
        .managedWorkflowAndDependentResourceContext()
        .getSecondaryResource<V1StatefulSet>(`${tier}-set`);
      void p;
      return (s?.status?.readyReplicas ?? 0) >= 1;
    };
    const r = new StatusReconciler();
    suite.operator().register(r, {
      resourceType: Widget,
      name: 'wf12',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new Db('db'), readyPostcondition: ready('db') },
          { dependent: new Svc('db'), dependsOn: ['db-set'] },
          { dependent: new Db('cache'), readyPostcondition: ready('cache') },
          { dependent: new Svc('cache'), dependsOn: ['cache-set'] },
          { dependent: new Db('app'), dependsOn: ['db-svc', 'cache-svc'], readyPostcondition: ready('app') },
          { dependent: new Svc('app'), dependsOn: ['app-set'] },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    const setReady = async (name: string) => {
      await waitFor(
        async () =>
          (await suite.admin.get(ResourceTypes.StatefulSet, new ResourceID(name, ns))) !== undefined,
        name,
      );
      await suite.admin.mergePatch(
        ResourceTypes.StatefulSet,
        new ResourceID(name, ns),
        { status: { replicas: 1, readyReplicas: 1 } },
        { subresource: 'status' },
      );
    };
    await setReady('w-db');
    await setReady('w-cache');
    await setReady('w-app');
    await waitFor(async () => (await statusOf(ns, 'w'))?.message === 'ready', 'ready');
    for (const n of ['w-db', 'w-cache', 'w-app'])
      expect(await suite.admin.get(ResourceTypes.Service, new ResourceID(n, ns))).toBeDefined();
    void markDeploymentReady;
  });

  it('[WF-13] deletion waits for a Kubernetes dependent to be gone with KubernetesResourceDeletedCondition', async () => {
    const ns = await newNamespace(suite.admin);
    class Blocked extends CRUDNoGCKubernetesDependentResource<V1ConfigMap, Widget> {
      constructor() {
        super({
          resourceType: ResourceTypes.ConfigMap,
          name: 'blocked',
          informer: { labelSelector: 'role=blocked' },
        });
      }
      protected desired(p: Widget): V1ConfigMap {
        return {
          metadata: {
            name: `${p.metadata!.name!}-blocked`,
            labels: { role: 'blocked' },
            finalizers: ['example.com/hold'],
          },
        };
      }
    }
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'wf13',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: new NoGCConfigMapDependent({ informer: { name: 'base', labelSelector: '!role' } }),
            name: 'base',
          },
          {
            dependent: new Blocked(),
            dependsOn: ['base'],
            deletePostcondition: new KubernetesResourceDeletedCondition(),
          },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await cm(ns, 'w-blocked')) !== undefined, 'created');
    await suite.admin.delete(Widget, new ResourceID('w', ns));
    await waitFor(
      async () => (await cm(ns, 'w-blocked'))?.metadata?.deletionTimestamp !== undefined,
      'deletion requested',
    );
    expect(await cm(ns, 'w-cm')).toBeDefined();
    expect((await suite.admin.get(Widget, new ResourceID('w', ns)))?.metadata?.finalizers).toEqual([
      'widgets.test.tosdk.io/finalizer',
    ]);
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-blocked', ns), {
      metadata: { finalizers: null },
    });
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns))) === undefined,
      'primary gone',
    );
    expect(await cm(ns, 'w-cm')).toBeUndefined();
  });

  it("[WF-01] the operator-level defaultWorkflowExecutorSize bounds a managed workflow that sets no executorSize; the workflow's own size wins; with neither, independent dependents all run at once", async () => {
    const count = 12;
    const bound = async (
      name: string,
      operatorSize: number | undefined,
      workflowSize: number | undefined,
    ): Promise<number> => {
      const ns = await newNamespace(suite.admin);
      const probe = new StepProbe(count);
      const reconciler = new StatusReconciler();
      const op = suite.operator(
        operatorSize === undefined ? {} : { defaultWorkflowExecutorSize: operatorSize },
      );
      op.register(reconciler, {
        resourceType: Widget,
        name,
        namespaces: [ns],
        workflow: {
          executorSize: workflowSize,
          // independent: without a bound all would run at once
          dependents: Array.from({ length: count }, (_, i) => ({
            dependent: new ProbeDependent(`d${i}`, probe),
          })),
        },
      });
      await op.start();
      await suite.admin.create(Widget, widget('w', ns));
      // no size at all: no bound of the workflow's own
      const expected = workflowSize ?? operatorSize ?? Number.POSITIVE_INFINITY;
      for (let released = 0; released < count; released++) {
        // the bound is reached, and one more step starts only once one is released (counting starts,
        // since a released step leaves `active` a moment later)
        await waitFor(
          () =>
            probe.started === Math.min(count, expected + released) &&
            probe.active === Math.min(expected, count - released),
          `${name}: ${released} released`,
        );
        probe.releaseOne();
      }
      await waitFor(async () => (await statusOf(ns, 'w'))?.observed === 'a', `${name}: reconciled`);
      expect(probe.started).toBeGreaterThanOrEqual(count);
      return probe.maxActive;
    };
    expect(await bound('wf-size-op', 2, undefined)).toBe(2);
    expect(await bound('wf-size-own', 2, 3)).toBe(3);
    expect(await bound('wf-size-default', undefined, undefined)).toBe(count);

    for (const bad of [0, -1, 1.5]) {
      let error: unknown;
      try {
        new Operator({ kubeConfig: suite.server.kubeConfig(), defaultWorkflowExecutorSize: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidOperatorConfigurationError);
      expect((error as InvalidOperatorConfigurationError).code).toBe('InvalidOperatorConfiguration');
      expect((error as Error).message).toContain('defaultWorkflowExecutorSize');
    }
  });
  it("[WF-01] by default the workflow executor does not cap concurrency below the controller's: a managed dependent of each of 30 primaries is reconciled at once (the former default of 10 held 20 back)", async () => {
    const primaries = 30;
    const ns = await newNamespace(suite.admin);
    const probe = new StepProbe(primaries);
    const op = suite.operator({ concurrentReconciliationThreads: primaries });
    op.register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'wf-default-width',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new ProbeDependent('probe', probe) }] },
    });
    for (let i = 0; i < primaries; i++) await suite.admin.create(Widget, widget(`w${i}`, ns));
    await op.start();
    // every primary's dependent step is in flight at the same time (held until released)
    await waitFor(() => probe.active === primaries, `${primaries} dependent steps at once`);
    for (let i = 0; i < primaries; i++) probe.releaseOne();
    await waitFor(async () => {
      const list = await suite.admin.list(Widget, { namespace: ns });
      return list.items.filter((w) => w.status?.observed === 'a').length === primaries;
    }, 'all reconciled');
    expect(probe.maxActive).toBe(primaries);
  });
});
