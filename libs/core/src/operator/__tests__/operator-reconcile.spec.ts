import { describe, expect, it } from '@jest/globals';
import type { Context, RetryInfo } from '../../api/context.js';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import type { Cleaner, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { OperatorOptions } from '../../config/operator-configuration.js';
import type { Operator } from '../operator.js';
import {
  Gadget,
  apiServerSuite,
  newNamespace,
  RecordingReconciler,
  waitFor,
  Widget,
  widget,
} from './support.js';

const FINALIZER = 'widgets.test.tosdk.io/finalizer';
const bed = apiServerSuite();
const { operators } = bed;

const operator = (options: Partial<OperatorOptions> = {}): Operator => bed.operator(options);

class CleaningReconciler extends RecordingReconciler implements Cleaner<Widget> {
  cleanups: string[] = [];
  cleanup(resource: Widget): DeleteControl {
    this.cleanups.push(resource.metadata!.name!);
    return DeleteControl.defaultDelete();
  }
}

const statusOf = (value: string | undefined) => (r: Widget) => {
  r.status = { ...r.status, observed: value ?? r.spec?.value };
  return UpdateControl.patchStatus(r);
};

describe('reconciliation against @tosdk/apiserver', () => {
  it('[EP-04] adds the finalizer in a separate write before the first reconcile and removes it after cleanup', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new CleaningReconciler(statusOf(undefined));
    operator().register(r, { resourceType: Widget, name: 'ep04', namespaces: [ns] });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    const id = new ResourceID('w', ns);
    await waitFor(async () => (await bed.admin.get(Widget, id))?.status?.observed === 'a', 'status');
    expect(r.runs[0].finalizers).toEqual([FINALIZER]);
    const writes = bed.server.requests.log.filter(
      (q) => q.resource === 'widgets' && q.namespace === ns && q.verb === 'patch',
    );
    expect(writes[0].subresource).toBeUndefined();
    expect(writes.some((q) => q.subresource === 'status')).toBe(true);
    expect(writes.findIndex((q) => q.subresource === 'status')).toBeGreaterThan(0);
    await bed.admin.delete(Widget, id);
    await waitFor(async () => (await bed.admin.get(Widget, id)) === undefined, 'deleted');
    expect(r.cleanups).toEqual(['w']);
  });

  it('[EP-22] finalizer add and remove work with server-side apply off (JSON patch, retried on conflict)', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new CleaningReconciler();
    operator().register(r, { resourceType: Widget, name: 'ep22', namespaces: [ns], useSSA: false });
    await operators[0].start();
    bed.server.faults.failNext({ verb: 'patch', resource: 'widgets', namespace: ns, code: 409, times: 2 });
    await bed.admin.create(Widget, widget('w', ns));
    const id = new ResourceID('w', ns);
    await waitFor(() => r.of('w').length > 0, 'reconciled');
    expect((await bed.admin.get(Widget, id))?.metadata?.finalizers).toEqual([FINALIZER]);
    expect(bed.server.requests.count({ verb: 'patch', resource: 'widgets', namespace: ns, code: 409 })).toBe(
      2,
    );
    bed.server.faults.failNext({ verb: 'patch', resource: 'widgets', namespace: ns, code: 409, times: 1 });
    await bed.admin.delete(Widget, id);
    await waitFor(async () => (await bed.admin.get(Widget, id)) === undefined, 'deleted');
    expect(r.cleanups).toEqual(['w']);
  });

  it('[EP-05] cleanup and finalizers work on built-in kinds without a generation (Service, Pod)', async () => {
    const ns = await newNamespace(bed.admin);
    const reconciled: string[] = [];
    const cleaned: string[] = [];
    const cleaner = {
      reconcile: (r: KubernetesResource) => {
        reconciled.push(`${r.kind}/${r.metadata!.name}`);
        return UpdateControl.noUpdate();
      },
      cleanup: (r: KubernetesResource) => {
        cleaned.push(`${r.kind}/${r.metadata!.name}`);
        return DeleteControl.defaultDelete();
      },
    };
    const op = operator();
    op.register(cleaner, { resourceType: ResourceTypes.Service, name: 'services', namespaces: [ns] });
    op.register({ ...cleaner }, { resourceType: ResourceTypes.Pod, name: 'pods', namespaces: [ns] });
    await op.start();
    await bed.admin.create(ResourceTypes.Service, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's', namespace: ns },
      spec: { ports: [{ port: 80 }] },
    });
    await bed.admin.create(ResourceTypes.Pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: ns },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    await waitFor(() => reconciled.includes('Service/s') && reconciled.includes('Pod/p'), 'reconciled');
    const service = await bed.admin.get(ResourceTypes.Service, new ResourceID('s', ns));
    const pod = await bed.admin.get(ResourceTypes.Pod, new ResourceID('p', ns));
    expect(service?.metadata?.finalizers).toEqual(['services/finalizer']);
    expect(pod?.metadata?.finalizers).toEqual(['pods/finalizer']);
    await bed.admin.delete(ResourceTypes.Service, new ResourceID('s', ns));
    await bed.admin.delete(ResourceTypes.Pod, new ResourceID('p', ns), { gracePeriodSeconds: 0 });
    await waitFor(
      async () => (await bed.admin.get(ResourceTypes.Service, new ResourceID('s', ns))) === undefined,
      'service gone',
    );
    await waitFor(
      async () => (await bed.admin.get(ResourceTypes.Pod, new ResourceID('p', ns))) === undefined,
      'pod gone',
    );
    expect(cleaned.sort()).toEqual(['Pod/p', 'Service/s']);
  });

  it('[EP-06] reconciles a cluster-scoped custom resource', async () => {
    const seen: string[] = [];
    operator().register(
      {
        reconcile: (r: Gadget) => {
          seen.push(r.metadata!.name!);
          r.status = { observed: r.spec?.value };
          return UpdateControl.patchStatus(r);
        },
      },
      { resourceType: Gadget, name: 'gadgets' },
    );
    await operators[0].start();
    await bed.admin.create(Gadget, {
      apiVersion: Gadget.apiVersion,
      kind: Gadget.kind,
      metadata: { name: 'g1' },
      spec: { value: 'x' },
    });
    await waitFor(
      async () => (await bed.admin.get(Gadget, new ResourceID('g1')))?.status?.observed === 'x',
      'gadget status',
    );
    expect(seen).toContain('g1');
  });

  it('[EP-08] a Deployment is a primary: reconciled and its status updated', async () => {
    const ns = await newNamespace(bed.admin);
    type Deployment = NonNullable<(typeof ResourceTypes.Deployment)['__type']>;
    operator().register(
      {
        reconcile: (d: Deployment) => {
          d.status = { ...d.status, observedGeneration: d.metadata?.generation, replicas: 0 };
          return UpdateControl.patchStatus(d);
        },
      },
      { resourceType: ResourceTypes.Deployment, name: 'deployments', namespaces: [ns] },
    );
    await operators[0].start();
    await bed.admin.create(ResourceTypes.Deployment, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: ns },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'd' } },
        template: {
          metadata: { labels: { app: 'd' } },
          spec: { containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    });
    await waitFor(
      async () =>
        (await bed.admin.get(ResourceTypes.Deployment, new ResourceID('d', ns)))?.status
          ?.observedGeneration === 1,
      'deployment status',
    );
  });

  it('[EP-09] updateErrorStatus gets the retry info after every failed attempt, its status patch lands, noRetry stops retries', async () => {
    const ns = await newNamespace(bed.admin);
    const infos: RetryInfo[] = [];
    let attempts = 0;
    const r: Reconciler<Widget> = {
      reconcile: () => {
        attempts++;
        throw new Error(`failure ${attempts}`);
      },
      updateErrorStatus: (resource, context: Context<Widget>, error) => {
        const info = context.getRetryInfo()!;
        infos.push(info);
        resource.status = { message: (error as Error).message, count: info.attemptCount };
        const control = ErrorStatusUpdateControl.patchStatus(resource);
        return info.attemptCount >= 2 ? control.withNoRetry() : control;
      },
    };
    operator().register(r, {
      resourceType: Widget,
      name: 'ep09',
      namespaces: [ns],
      retry: { maxAttempts: 5, initialInterval: 20 },
    });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(
      async () => (await bed.admin.get(Widget, new ResourceID('w', ns)))?.status?.count === 2,
      'error status',
    );
    expect(infos).toEqual([
      { attemptCount: 0, isLastAttempt: false },
      { attemptCount: 1, isLastAttempt: false },
      { attemptCount: 2, isLastAttempt: false },
    ]);
    const status = (await bed.admin.get(Widget, new ResourceID('w', ns)))?.status;
    expect(status?.message).toBe('failure 3');
    // noRetry ended the retry cycle: the next event starts a fresh one (attempt count 0, not 3)
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'next' } });
    await waitFor(
      async () => (await bed.admin.get(Widget, new ResourceID('w', ns)))?.status?.message === 'failure 4',
      'fourth',
    );
    expect(infos[3]).toEqual({ attemptCount: 0, isLastAttempt: false });
    await waitFor(async () => {
      const events = await bed.admin.list(ResourceTypes.Event, { namespace: ns });
      return events.items.some((e) => e.reason === 'ReconcileFailed' && e.type === 'Warning');
    }, 'Warning event');
  });

  it('[EP-23] patchStatus, patchResource and patchResourceAndStatus work with server-side apply; the finalizer is never dropped', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new CleaningReconciler((w, _c, run) => {
      if (run === 1) {
        w.metadata!.labels = { touched: 'yes' };
        w.metadata!.finalizers = [];
        w.spec = { ...w.spec, size: 2 };
        w.status = { observed: 'both' };
        return UpdateControl.patchResourceAndStatus(w);
      }
      if (run === 2) {
        w.status = { ...w.status, extra: 'second' };
        return UpdateControl.patchStatus(w);
      }
      return UpdateControl.noUpdate();
    });
    operator().register(r, { resourceType: Widget, name: 'ep23', namespaces: [ns], generationAware: false });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    const id = new ResourceID('w', ns);
    await waitFor(async () => (await bed.admin.get(Widget, id))?.status?.extra === 'second', 'second status');
    const w = (await bed.admin.get(Widget, id))!;
    expect(w.metadata?.labels).toEqual({ touched: 'yes' });
    expect(w.metadata?.finalizers).toEqual([FINALIZER]);
    expect(w.spec).toEqual({ value: 'a', size: 2 });
    expect(w.status).toEqual({ observed: 'both', extra: 'second' });
    const managers = (w.metadata?.managedFields ?? []).map((m) => m.manager);
    expect(managers).toContain('ep23');
  });

  it('[EP-23] [EP-24] without server-side apply: merge patches, no optimistic locking, null removes a status field', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new RecordingReconciler((w, _c, run) => {
      if (run === 1) {
        w.spec = { ...w.spec, size: 5 };
        w.status = { observed: 'x', message: 'temporary' };
        return UpdateControl.patchResourceAndStatus(w);
      }
      if (run === 2) {
        w.status = { ...w.status, message: null as unknown as string };
        return UpdateControl.patchStatus(w);
      }
      return UpdateControl.noUpdate();
    });
    operator().register(r, {
      resourceType: Widget,
      name: 'ep24',
      namespaces: [ns],
      useSSA: false,
      generationAware: false,
    });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    const id = new ResourceID('w', ns);
    await waitFor(async () => (await bed.admin.get(Widget, id))?.spec?.size === 5, 'spec patched');
    // a concurrent spec change makes the reconciler's copy stale; the status patch must not conflict
    await bed.admin.mergePatch(Widget, id, { spec: { value: 'b' } });
    await waitFor(async () => {
      const s = (await bed.admin.get(Widget, id))?.status;
      return s?.observed === 'x' && s.message === undefined;
    }, 'message removed');
    expect(bed.server.requests.count({ resource: 'widgets', namespace: ns, code: 409 })).toBe(0);
  });

  it('[EP-25] status updates do not re-trigger the controller and do not conflict with concurrent spec changes', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new RecordingReconciler(async (w) => {
      w.status = { observed: w.spec?.value, count: (w.status?.count ?? 0) + 1 };
      return UpdateControl.patchStatus(w);
    });
    operator().register(r, { resourceType: Widget, name: 'ep25', namespaces: [ns] });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    const id = new ResourceID('w', ns);
    await waitFor(async () => (await bed.admin.get(Widget, id))?.status?.count === 1, 'first status');
    for (const v of ['b', 'c', 'd']) await bed.admin.mergePatch(Widget, id, { spec: { value: v } });
    await waitFor(
      async () => (await bed.admin.get(Widget, id))?.status?.observed === 'd',
      'last spec observed',
    );
    const runs = r.of('w').length;
    // a marker change proves the watch delivered everything before it, status events included
    await bed.admin.mergePatch(Widget, id, { metadata: { labels: { marker: '1' } } });
    await waitFor(async () => (await bed.admin.get(Widget, id))?.metadata?.labels?.marker === '1', 'marker');
    expect(r.of('w').length).toBe(runs);
    expect(runs).toBeLessThanOrEqual(4);
    expect(bed.server.requests.count({ resource: 'widgets', namespace: ns, code: 409 })).toBe(0);
  });

  it('[EP-28] a status patched by the reconciler is visible (or newer) in the next reconcile, before its watch event', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new RecordingReconciler((w) => {
      // cut the watch: the next reconcile can only see this patch through the cache of own writes
      bed.server.faults.closeAllWatches();
      const count = (w.status?.count ?? 0) + 1;
      w.status = { count };
      const control = UpdateControl.patchStatus(w);
      return count < 10 ? control.rescheduleAfter(0) : control;
    });
    operator().register(r, { resourceType: Widget, name: 'ep28', namespaces: [ns] });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(
      async () => (await bed.admin.get(Widget, new ResourceID('w', ns)))?.status?.count === 10,
      'count 10',
    );
    const seen = r.of('w').map((x) => x.status?.count ?? 0);
    // every run saw the previous run's patch: 0, 1, 2, ... 9 (never a stale repeat)
    expect(seen.slice(0, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('[EP-15] [ES-12] a spec edit contained in the response of our status patch still reconciles (its watch event arrives after the patch)', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const r = new RecordingReconciler(async (w, _c, run) => {
      if (run === 1) {
        // the stream is down (re-watching is slow) while a user edits the spec: the status patch
        // response (newer) carries the edit and is cached before the edit's own watch event arrives
        bed.server.faults.addLatency({ verb: 'watch', resource: 'widgets', namespace: ns, ms: 1_000 });
        bed.server.faults.closeAllWatches();
        await bed.admin.mergePatch(Widget, id, { spec: { value: 'edited' } });
      }
      w.status = { ...w.status, observed: w.spec?.value };
      return UpdateControl.patchStatus(w);
    });
    operator().register(r, { resourceType: Widget, name: 'lost-edit', namespaces: [ns] });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'first' }));
    await waitFor(
      async () => (await bed.admin.get(Widget, id))?.status?.observed === 'edited',
      'the edited spec reconciled',
    );
    expect(r.of('w').map((run) => run.value)).toEqual(['first', 'edited']);
    expect(r.of('w')[1].generation).toBe(2);
  });
});
