import { describe, expect, it } from '@jest/globals';
import { ResourceTypes } from '../../api/builtin-types.js';
import { UpdateControl } from '../../api/controls.js';
import type { Context } from '../../api/context.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { WorkflowConfigurationError } from '../../workflow/errors.js';
import {
  ConfigMapDependent,
  DeploymentDependent,
  markDeploymentReady,
  newNamespace,
  NoGCConfigMapDependent,
  apiServerSuite,
  ServiceDependent,
  waitFor,
  Widget,
  widget,
} from './support.js';

const suite = apiServerSuite();
const FINALIZER = 'widgets.test.tosdk.io/finalizer';

class StatusReconciler implements Reconciler<Widget> {
  runs = 0;
  ready: boolean[] = [];
  reconcile(resource: Widget, context: Context<Widget>) {
    this.runs++;
    const result = context.managedWorkflowAndDependentResourceContext().getWorkflowReconcileResult();
    const ready = result?.allDependentResourcesReady() ?? false;
    this.ready.push(ready);
    resource.status = {
      ...resource.status,
      observed: resource.spec?.value,
      message: ready ? 'ready' : 'waiting',
    };
    return UpdateControl.patchStatus(resource);
  }
}

const cm = (ns: string, name: string) => suite.admin.get(ResourceTypes.ConfigMap, new ResourceID(name, ns));
const dep = (ns: string, name: string) => suite.admin.get(ResourceTypes.Deployment, new ResourceID(name, ns));
const svc = (ns: string, name: string) => suite.admin.get(ResourceTypes.Service, new ResourceID(name, ns));

describe('managed workflows against @tosdk/apiserver', () => {
  it('[DR-01][DR-02][WF-01] creates ConfigMap -> Deployment -> Service in order with owner references, updates on drift, leaves matching ones alone', async () => {
    const ns = await newNamespace(suite.admin);
    const r = new StatusReconciler();
    suite.operator().register(r, {
      resourceType: Widget,
      name: 'dr01',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new ConfigMapDependent(), name: 'configmap' },
          { dependent: new DeploymentDependent(), name: 'deployment', dependsOn: ['configmap'] },
          { dependent: new ServiceDependent(), name: 'service', dependsOn: ['deployment'] },
        ],
      },
    });
    await suite.operators[0].start();
    suite.server.requests.reset();
    const w = await suite.admin.create(Widget, widget('w1', ns, { value: 'a', size: 2 }));
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w1', ns)))?.status?.observed === 'a',
      'status',
    );
    const c = await cm(ns, 'w1-cm');
    const d = await dep(ns, 'w1');
    const s = await svc(ns, 'w1');
    expect(c?.data).toEqual({ value: 'a' });
    expect(d?.spec?.replicas).toBe(2);
    expect(s?.spec?.ports?.[0]?.port).toBe(80);
    for (const o of [c, d, s]) {
      expect(o?.metadata?.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Widget', name: 'w1', uid: w.metadata!.uid }),
      ]);
    }
    // created in dependsOn order
    const creates = suite.server.requests.log.filter(
      (q) =>
        q.namespace === ns &&
        q.verb === 'patch' &&
        ['configmaps', 'deployments', 'services'].includes(q.resource),
    );
    expect(creates.map((q) => q.resource)).toEqual(['configmaps', 'deployments', 'services']);
    // no finalizer: everything is garbage collected
    expect((await suite.admin.get(Widget, new ResourceID('w1', ns)))?.metadata?.finalizers).toBeUndefined();

    // drift: someone changes the deployment's replicas; the workflow restores it
    await suite.admin.mergePatch(ResourceTypes.Deployment, new ResourceID('w1', ns), {
      spec: { replicas: 5 },
    });
    await waitFor(async () => (await dep(ns, 'w1'))?.spec?.replicas === 2, 'replicas restored');

    // a matching state is left alone: another reconcile writes no dependent
    const before = suite.server.requests.writes({ namespace: ns, resource: 'configmaps' });
    const runs = r.runs;
    await suite.admin.mergePatch(Widget, new ResourceID('w1', ns), {
      spec: { size: 2, value: 'a' },
      metadata: { labels: { x: 'y' } },
    });
    await suite.admin.mergePatch(Widget, new ResourceID('w1', ns), { spec: { value: 'b' } });
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w1', ns)))?.status?.observed === 'b',
      'status b',
    );
    expect((await cm(ns, 'w1-cm'))?.data?.value).toBe('b');
    expect(r.runs).toBeGreaterThan(runs);
    expect(suite.server.requests.writes({ namespace: ns, resource: 'configmaps' })).toBe(before + 1);
  });

  it('[DR-02] a precondition turning false deletes the dependent and what depends on it', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr02',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new ConfigMapDependent(), name: 'configmap' },
          {
            dependent: new DeploymentDependent(),
            name: 'deployment',
            reconcilePrecondition: (_d: unknown, p: Widget) => p.spec?.value !== 'off',
          },
          { dependent: new ServiceDependent(), name: 'service', dependsOn: ['deployment'] },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns, { value: 'on' }));
    await waitFor(async () => (await svc(ns, 'w')) !== undefined, 'service');
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'off' } });
    await waitFor(
      async () => (await dep(ns, 'w')) === undefined && (await svc(ns, 'w')) === undefined,
      'deleted',
    );
    const deletes = suite.server.requests.log
      .filter((q) => q.namespace === ns && q.verb === 'delete')
      .map((q) => q.resource);
    // the service first; a reconcile before the informer saw the deletion may delete again (404)
    expect(deletes.slice(0, 2)).toEqual(['services', 'deployments']);
    expect(await cm(ns, 'w-cm')).toBeDefined();
  });

  it('[DR-03] a reconciler whose only deletable parts are managed dependents gets a finalizer; cleanup deletes them in reverse order', async () => {
    const ns = await newNamespace(suite.admin);
    suite.operator().register(new StatusReconciler(), {
      resourceType: Widget,
      name: 'dr03',
      namespaces: [ns],
      workflow: {
        dependents: [
          { dependent: new NoGCConfigMapDependent(), name: 'first' },
          {
            dependent: new NoGCConfigMapDependent({ informer: { name: 'second-es' } }, 'two'),
            name: 'second',
            dependsOn: ['first'],
          },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(async () => (await cm(ns, 'w-two')) !== undefined, 'created');
    const primary = await suite.admin.get(Widget, new ResourceID('w', ns));
    expect(primary?.metadata?.finalizers).toEqual([FINALIZER]);
    expect((await cm(ns, 'w-cm'))?.metadata?.ownerReferences).toBeUndefined();
    expect((await cm(ns, 'w-cm'))?.metadata?.annotations).toEqual(
      expect.objectContaining({ 'tosdk.io/primary-name': 'w', 'tosdk.io/primary-namespace': ns }),
    );
    suite.server.requests.reset();
    await suite.admin.delete(Widget, new ResourceID('w', ns));
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns))) === undefined,
      'primary gone',
    );
    expect(await cm(ns, 'w-cm')).toBeUndefined();
    expect(await cm(ns, 'w-two')).toBeUndefined();
    const deletes = suite.server.requests.log
      .filter((q) => q.namespace === ns && q.verb === 'delete' && q.resource === 'configmaps')
      .map((q) => q.name);
    expect(deletes).toEqual(['w-two', 'w-cm']);
  });

  it('[WF-02][WF-03] a ready postcondition gates what follows; the result with condition details reaches the reconciler', async () => {
    const ns = await newNamespace(suite.admin);
    const r = new StatusReconciler();
    suite.operator().register(r, {
      resourceType: Widget,
      name: 'wf02',
      namespaces: [ns],
      workflow: {
        dependents: [
          {
            dependent: new DeploymentDependent(),
            name: 'deployment',
            readyPostcondition: {
              detailedIsMet: (_d: unknown, _p: Widget, ctx: Context<Widget>) => {
                const d = ctx
                  .managedWorkflowAndDependentResourceContext()
                  .getSecondaryResource<import('@kubernetes/client-node').V1Deployment>('deployment');
                const ready = d?.status?.readyReplicas ?? 0;
                return { met: ready >= (d?.spec?.replicas ?? 1), detail: { ready } };
              },
            },
          },
          { dependent: new ServiceDependent(), name: 'service', dependsOn: ['deployment'] },
        ],
      },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns)))?.status?.message === 'waiting',
      'waiting',
    );
    expect(await svc(ns, 'w')).toBeUndefined();
    await markDeploymentReady(suite.admin, ns, 'w');
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns)))?.status?.message === 'ready',
      'ready',
    );
    expect(await svc(ns, 'w')).toBeDefined();
  });

  it('[DR-07] own writes of dependents do not re-trigger the controller', async () => {
    const ns = await newNamespace(suite.admin);
    const r = new StatusReconciler();
    suite.operator().register(r, {
      resourceType: Widget,
      name: 'dr07',
      namespaces: [ns],
      workflow: { dependents: [{ dependent: new ConfigMapDependent(), name: 'configmap' }] },
    });
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns)))?.status?.observed === 'a',
      'status',
    );
    // a foreign change of the configmap triggers and is repaired
    await suite.admin.mergePatch(ResourceTypes.ConfigMap, new ResourceID('w-cm', ns), {
      data: { value: 'z' },
    });
    await waitFor(async () => (await cm(ns, 'w-cm'))?.data?.value === 'a', 'repaired');
    const runs = r.runs;
    // a marker change of the primary: the run count grows by that one reconcile only
    await suite.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'a', size: 3 } });
    await waitFor(() => r.runs > runs, 'reconciled');
    await suite.admin.create(ResourceTypes.ConfigMap, { metadata: { name: 'probe', namespace: ns } });
    await waitFor(async () => (await cm(ns, 'probe')) !== undefined, 'probe');
    expect(r.runs).toBe(runs + 1);
  });
  it('a cycle or an unknown dependsOn fails registration naming them', () => {
    const op = suite.operator();
    const register = (dependents: Array<{ name: string; dependsOn?: string[] }>) => () =>
      op.register(new StatusReconciler(), {
        resourceType: Widget,
        name: `bad-${dependents.length}`,
        workflow: {
          dependents: dependents.map((d) => ({
            ...d,
            dependent: new ConfigMapDependent({ informer: { name: d.name } }, d.name),
          })),
        },
      });
    expect(
      register([
        { name: 'a', dependsOn: ['b'] },
        { name: 'b', dependsOn: ['a'] },
      ]),
    ).toThrow(
      new WorkflowConfigurationError(
        'WorkflowCycle',
        "the workflow's dependsOn relations form a cycle: a -> b -> a",
      ),
    );
    expect(register([{ name: 'a', dependsOn: ['ghost'] }])).toThrow(/"a" depends on "ghost"/);
  });

  it('[WF-10] silent mode: with handleExceptionsInReconciler the reconciler reads the errors from the result', async () => {
    const ns = await newNamespace(suite.admin);
    class Failing extends ConfigMapDependent {
      protected override desired(): never {
        throw new Error('external outage');
      }
    }
    const seen: string[] = [];
    suite.operator().register(
      {
        reconcile(resource: Widget, context: Context<Widget>) {
          const result = context.managedWorkflowAndDependentResourceContext().getWorkflowReconcileResult()!;
          seen.push(...[...result.erroredDependents.values()].map((e) => (e as Error).message));
          resource.status = { message: result.erroredDependentsExist() ? 'degraded' : 'ok' };
          return UpdateControl.patchStatus(resource);
        },
      },
      {
        resourceType: Widget,
        name: 'silent',
        namespaces: [ns],
        workflow: {
          handleExceptionsInReconciler: true,
          dependents: [{ dependent: new Failing({ informer: { name: 'failing' } }, 'bad'), name: 'bad' }],
        },
      },
    );
    await suite.operators[0].start();
    await suite.admin.create(Widget, widget('w', ns));
    await waitFor(
      async () => (await suite.admin.get(Widget, new ResourceID('w', ns)))?.status?.message === 'degraded',
      'degraded',
    );
    expect(seen[0]).toBe('external outage');
  });
});
