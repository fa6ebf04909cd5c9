import { describe, expect, it } from '@jest/globals';
import { DeleteControl, UpdateControl } from '../../api/controls.js';
import { ResourceID } from '../../api/resource-id.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { OperatorOptions } from '../../config/operator-configuration.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { Operator } from '../operator.js';
import type { Widget as WidgetType } from './support.js';
import {
  gate,
  apiServerSuite,
  newNamespace,
  RecordingReconciler,
  waitFor,
  Widget,
  widget,
} from './support.js';

const bed = apiServerSuite();
const { operators } = bed;

const operator = (options: Partial<OperatorOptions> = {}): Operator => bed.operator(options);

const get = (ns: string, name: string) => bed.admin.get(Widget, new ResourceID(name, ns));

describe('event processing against @tosdk/apiserver', () => {
  it('[EP-02] under 50 creates, 20 updates and 30 deletes at once, the secondaries converge to exactly the expected set', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new RecordingReconciler(async (w, context) => {
      await context.client.apply(
        ResourceTypes.ConfigMap,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: `${w.metadata!.name}-cm`,
            namespace: ns,
            ownerReferences: [
              {
                apiVersion: Widget.apiVersion,
                kind: Widget.kind,
                name: w.metadata!.name!,
                uid: w.metadata!.uid!,
                controller: true,
              },
            ],
          },
          data: { value: w.spec?.value ?? '' },
        },
        { fieldManager: 'ep02' },
      );
      return UpdateControl.noUpdate();
    });
    // cleanup deletes the ConfigMap, so a reconcile racing a deletion cannot leave one behind
    const cleaner = Object.assign(r, {
      cleanup: async (w: WidgetType) => {
        await bed.admin.delete(ResourceTypes.ConfigMap, new ResourceID(`${w.metadata!.name}-cm`, ns));
        return DeleteControl.defaultDelete();
      },
    });
    operator({ concurrentReconciliationThreads: 8 }).register(cleaner, {
      resourceType: Widget,
      name: 'ep02',
      namespaces: [ns],
    });
    await operators[0].start();
    const names = Array.from({ length: 50 }, (_, i) => `w${i}`);
    await Promise.all(names.map((n) => bed.admin.create(Widget, widget(n, ns, { value: 'v1' }))));
    await Promise.all([
      ...names
        .slice(0, 20)
        .map((n) => bed.admin.mergePatch(Widget, new ResourceID(n, ns), { spec: { value: 'v2' } })),
      ...names.slice(20).map((n) => bed.admin.delete(Widget, new ResourceID(n, ns))),
    ]);
    const expected = new Map(names.slice(0, 20).map((n) => [`${n}-cm`, 'v2']));
    await waitFor(
      async () => {
        const cms = (await bed.admin.list(ResourceTypes.ConfigMap, { namespace: ns })).items.filter((c) =>
          c.metadata?.name?.endsWith('-cm'),
        );
        const live = cms.filter((c) => !c.metadata?.deletionTimestamp);
        return live.length === 20 && live.every((c) => expected.get(c.metadata!.name!) === c.data?.value);
      },
      'exactly the 20 updated ConfigMaps',
      20_000,
    );
  });

  it('[EP-11] no two reconciliations of one resource overlap; different resources run in parallel up to the limit', async () => {
    const ns = await newNamespace(bed.admin);
    const open = gate();
    const perResource = new Map<string, number>();
    let overlap = false;
    const r = new RecordingReconciler(async (w) => {
      const n = w.metadata!.name!;
      perResource.set(n, (perResource.get(n) ?? 0) + 1);
      if (perResource.get(n)! > 1) overlap = true;
      await open.promise;
      perResource.set(n, perResource.get(n)! - 1);
      return UpdateControl.noUpdate();
    });
    operator({ concurrentReconciliationThreads: 3 }).register(r, {
      resourceType: Widget,
      name: 'ep11',
      namespaces: [ns],
      generationAware: false,
    });
    await operators[0].start();
    for (let i = 0; i < 6; i++) await bed.admin.create(Widget, widget(`w${i}`, ns));
    await waitFor(() => r.active === 3, 'three running');
    for (let i = 0; i < 3; i++)
      await bed.admin.mergePatch(Widget, new ResourceID(`w${i}`, ns), { metadata: { labels: { x: '1' } } });
    open.open();
    await waitFor(() => r.runs.length >= 9, 'all reconciled, with follow-ups');
    expect(r.maxActive).toBe(3);
    expect(overlap).toBe(false);
  });

  it('[EP-12] [EP-21] events during a reconciliation become one follow-up that sees the newest state; isNextReconciliationImminent tells', async () => {
    const ns = await newNamespace(bed.admin);
    const first = gate();
    let imminentSeen = false;
    const r = new RecordingReconciler(async (w, context) => {
      if (w.metadata!.name === 'w' && r.of('w').length === 1) {
        await first.promise;
        imminentSeen = context.isNextReconciliationImminent();
      }
      return UpdateControl.noUpdate();
    });
    operator().register(r, { resourceType: Widget, name: 'ep12', namespaces: [ns] });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'v0' }));
    await waitFor(() => r.of('w').length === 1, 'first run');
    for (const v of ['v1', 'v2', 'v3'])
      await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: v } });
    // one watch stream delivers in order: once the marker is reconciled, the cache holds v3
    await bed.admin.create(Widget, widget('marker1', ns));
    await waitFor(() => r.of('marker1').length === 1, 'marker1 reconciled');
    first.open();
    await waitFor(() => r.of('w').length === 2, 'follow-up');
    await bed.admin.create(Widget, widget('marker2', ns));
    await waitFor(() => r.of('marker2').length === 1, 'marker2 reconciled');
    expect(imminentSeen).toBe(true);
    expect(r.of('w').map((x) => x.value)).toEqual(['v0', 'v3']);
  });

  it('[EP-07] an event while the resource waits for a retry reconciles it at once without using up an attempt', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new RecordingReconciler((w) => {
      if (w.spec?.value !== 'good') throw new Error('not good yet');
      return UpdateControl.noUpdate();
    });
    operator().register(r, {
      resourceType: Widget,
      name: 'ep07',
      namespaces: [ns],
      retry: { maxAttempts: 3, initialInterval: 60_000 },
    });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'bad' }));
    await waitFor(() => r.runs.length === 1, 'first failure');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'still-bad' } });
    await waitFor(() => r.runs.length === 2, 'event-triggered run during backoff');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'good' } });
    await waitFor(() => r.runs.length === 3, 'second event-triggered run');
    // both runs came long before the 60 s retry, and neither used an attempt
    expect(r.runs.map((x) => x.retry)).toEqual([
      undefined,
      { attemptCount: 1, isLastAttempt: false },
      { attemptCount: 1, isLastAttempt: false },
    ]);
  });

  it('[EP-10] retries follow the policy and stop after the last attempt; a new event after exhaustion still reconciles; success resets', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new RecordingReconciler((w) => {
      if (w.spec?.value !== 'good') throw new Error('bad value');
      return UpdateControl.noUpdate();
    });
    const retries: number[] = [];
    operator({ metrics: { retrying: (_id, _c, attempt) => retries.push(attempt) } }).register(r, {
      resourceType: Widget,
      name: 'ep10',
      namespaces: [ns],
      retry: { maxAttempts: 2, initialInterval: 30, intervalMultiplier: 1 },
    });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'bad' }));
    await waitFor(() => r.runs.length === 3, 'first try and two retries');
    expect(r.runs.map((x) => x.retry)).toEqual([
      undefined,
      { attemptCount: 1, isLastAttempt: false },
      { attemptCount: 2, isLastAttempt: true },
    ]);
    // exhausted: a new event still reconciles (still the last attempt); no retry follows its failure
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'worse' } });
    await waitFor(() => r.runs.length === 4, 'event after exhaustion');
    expect(r.runs[3].retry).toEqual({ attemptCount: 2, isLastAttempt: true });
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'good' } });
    await waitFor(() => r.runs.length === 5, 'success');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'bad again' } });
    await waitFor(() => r.runs.length === 8, 'a fresh retry cycle');
    expect(r.runs[5].retry).toBeUndefined();
    expect(retries).toEqual([1, 2, 1, 2]);
  });

  it('[EP-13] rescheduleAfter reconciles after the delay without events; an event before then replaces it', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new RecordingReconciler((_w, _c, run) =>
      run === 1
        ? UpdateControl.noUpdate<Widget>().rescheduleAfter(50)
        : run === 3
          ? UpdateControl.noUpdate<Widget>().rescheduleAfter(60_000)
          : UpdateControl.noUpdate(),
    );
    operator().register(r, { resourceType: Widget, name: 'ep13', namespaces: [ns] });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => r.runs.length === 2, 'rescheduled run');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
    await waitFor(() => r.runs.length === 3, 'event run (requests a 60 s reschedule)');
    await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'c' } });
    await waitFor(() => r.runs.length === 4, 'event replaces the pending reschedule');
    await bed.admin.create(Widget, widget('marker', ns));
    await waitFor(() => r.of('marker').length === 1, 'marker');
    expect(r.of('w').map((x) => x.value)).toEqual(['a', 'a', 'b', 'c']);
  });

  it('[EP-14] maxReconciliationInterval reconciles when nothing else happens; a non-positive value turns it off', async () => {
    const ns = await newNamespace(bed.admin);
    const on = new RecordingReconciler();
    const off = new RecordingReconciler();
    const op = operator();
    op.register(on, {
      resourceType: Widget,
      name: 'ep14-on',
      namespaces: [ns],
      maxReconciliationIntervalMs: 50,
    });
    op.register(off, {
      resourceType: Widget,
      name: 'ep14-off',
      namespaces: [ns],
      maxReconciliationIntervalMs: 0,
    });
    expect(op.register.length).toBe(2);
    await op.start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => on.runs.length >= 3, 'periodic runs');
    expect(off.runs.length).toBe(1);
  });

  it('[EP-15] generation-aware: metadata- or status-only changes do not trigger; spec changes and a deletion mark do; it can be switched off', async () => {
    const ns = await newNamespace(bed.admin);
    const cleanups: string[] = [];
    const cleaning = (name: string) =>
      Object.assign(new RecordingReconciler(), {
        cleanup: () => (cleanups.push(name), DeleteControl.defaultDelete()),
      });
    const aware = cleaning('aware');
    const unaware = cleaning('unaware');
    const op = operator();
    op.register(aware, { resourceType: Widget, name: 'ep15-aware', namespaces: [ns] });
    op.register(unaware, {
      resourceType: Widget,
      name: 'ep15-unaware',
      namespaces: [ns],
      generationAware: false,
    });
    await op.start();
    const id = new ResourceID('w', ns);
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => aware.runs.length === 1 && unaware.runs.length >= 1, 'first runs');
    const unawareBefore = unaware.runs.length;
    await bed.admin.mergePatch(Widget, id, { metadata: { labels: { l: '1' } } });
    await bed.admin.mergePatch(Widget, id, { status: { observed: 'x' } }, { subresource: 'status' });
    await waitFor(() => unaware.runs.length >= unawareBefore + 2, 'unaware sees both');
    await bed.admin.mergePatch(Widget, id, { spec: { value: 'b' } });
    await waitFor(() => aware.runs.length === 2, 'spec change');
    await bed.admin.delete(Widget, id);
    await waitFor(() => cleanups.length === 2, 'deletion mark reaches cleanup of both');
    expect(aware.runs.map((x) => x.value)).toEqual(['a', 'b']);
  });

  it('[EP-16] user filters decide on add/update/delete/generic events; with default filters off the user filter alone decides', async () => {
    const ns = await newNamespace(bed.admin);
    const filtered = new RecordingReconciler();
    const userOnly = new RecordingReconciler();
    const op = operator();
    op.register(filtered, {
      resourceType: Widget,
      name: 'ep16-filtered',
      namespaces: [ns],
      onAddFilter: (w) => w.metadata?.name !== 'ignored',
      onUpdateFilter: (n) => n.spec?.value !== 'skip',
      genericFilter: (w) => w.metadata?.labels?.['mute'] !== 'yes',
    });
    op.register(userOnly, {
      resourceType: Widget,
      name: 'ep16-user',
      namespaces: [ns],
      useDefaultEventFilters: false,
      onUpdateFilter: (n, o) => n.metadata?.labels?.['go'] !== o.metadata?.labels?.['go'],
    });
    await op.start();
    await bed.admin.create(Widget, widget('ignored', ns));
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => filtered.of('w').length === 1 && userOnly.of('w').length === 1, 'adds');
    const id = new ResourceID('w', ns);
    await bed.admin.mergePatch(Widget, id, { spec: { value: 'skip' } });
    await bed.admin.mergePatch(Widget, id, { metadata: { labels: { go: '1' } } });
    await waitFor(() => userOnly.of('w').length === 2, 'label-only change passes the user filter alone');
    await bed.admin.mergePatch(Widget, id, { spec: { value: 'c' } });
    await waitFor(() => filtered.of('w').length === 2, 'spec change');
    await bed.admin.mergePatch(Widget, id, { metadata: { labels: { mute: 'yes' } }, spec: { value: 'd' } });
    await bed.admin.create(Widget, widget('marker', ns));
    await waitFor(() => filtered.of('marker').length === 1 && userOnly.of('marker').length === 1, 'marker');
    expect(filtered.of('ignored')).toHaveLength(0);
    expect(filtered.of('w').map((x) => x.value)).toEqual(['a', 'c']);
    expect(userOnly.of('w').map((x) => x.value)).toEqual(['a', 'skip']);
  });

  it('[EP-17] [EP-26] label and field selectors restrict what is reconciled; two controllers split a kind by label', async () => {
    const ns = await newNamespace(bed.admin);
    const blue = new RecordingReconciler();
    const green = new RecordingReconciler();
    const named = new RecordingReconciler();
    const op = operator();
    op.register(blue, { resourceType: Widget, name: 'blue', namespaces: [ns], labelSelector: 'team=blue' });
    op.register(green, {
      resourceType: Widget,
      name: 'green',
      namespaces: [ns],
      labelSelector: 'team=green',
    });
    op.register(named, {
      resourceType: Widget,
      name: 'named',
      namespaces: [ns],
      fieldSelector: 'metadata.name=b1',
    });
    await op.start();
    const labelled = (name: string, team: string): Widget => ({
      ...widget(name, ns),
      metadata: { name, namespace: ns, labels: { team } },
    });
    await bed.admin.create(Widget, labelled('b1', 'blue'));
    await bed.admin.create(Widget, labelled('g1', 'green'));
    await bed.admin.create(Widget, labelled('b2', 'blue'));
    await waitFor(
      () => blue.runs.length === 2 && green.runs.length === 1 && named.runs.length === 1,
      'split',
    );
    await bed.admin.create(Widget, labelled('marker', 'green'));
    await waitFor(() => green.of('marker').length === 1, 'marker');
    expect(blue.runs.map((x) => x.name).sort()).toEqual(['b1', 'b2']);
    expect(green.runs.map((x) => x.name).sort()).toEqual(['g1', 'marker']);
    expect(named.runs.map((x) => x.name)).toEqual(['b1']);
  });

  it('[OP-04] two operators shard one kind by label selector: each resource is reconciled by exactly one, also after it changes shard', async () => {
    const ns = await newNamespace(bed.admin);
    // each operator stamps its shard into the status, so the split is visible on the API server
    const stamping = (shard: string) =>
      new RecordingReconciler((w) =>
        UpdateControl.patchStatus<Widget>({
          ...w,
          status: { ...(w.status ?? {}), message: `shard ${shard}` },
        }),
      );
    const shardA = stamping('a');
    const shardB = stamping('b');
    const a = operator();
    const b = operator();
    a.register(shardA, { resourceType: Widget, name: 'sharded', namespaces: [ns], labelSelector: 'shard=a' });
    b.register(shardB, { resourceType: Widget, name: 'sharded', namespaces: [ns], labelSelector: 'shard=b' });
    await Promise.all([a.start(), b.start()]);
    const names = Array.from({ length: 10 }, (_, i) => `w${i}`);
    const shardOf = (i: number) => (i % 2 === 0 ? 'a' : 'b');
    await Promise.all(
      names.map((name, i) =>
        bed.admin.create(Widget, {
          ...widget(name, ns),
          metadata: { name, namespace: ns, labels: { shard: shardOf(i) } },
        }),
      ),
    );
    const stampedShard = async (name: string) =>
      (await get(ns, name))?.status?.message?.replace('shard ', '');
    await waitFor(
      async () => (await Promise.all(names.map(stampedShard))).every((s, i) => s === shardOf(i)),
      'every resource stamped by its own shard',
    );
    for (const [i, name] of names.entries()) {
      const mine = shardOf(i) === 'a' ? shardA : shardB;
      const other = shardOf(i) === 'a' ? shardB : shardA;
      expect(mine.of(name).length).toBeGreaterThanOrEqual(1);
      expect(other.of(name)).toHaveLength(0);
    }
    // moving w0 from shard a to shard b hands it over: b reconciles it from then on, a never again
    const runsOfW0InA = shardA.of('w0').length;
    await bed.admin.mergePatch(Widget, new ResourceID('w0', ns), { metadata: { labels: { shard: 'b' } } });
    await waitFor(async () => (await stampedShard('w0')) === 'b', 'w0 stamped by shard b');
    expect(shardB.of('w0').length).toBeGreaterThanOrEqual(1);
    expect(shardA.of('w0')).toHaveLength(runsOfW0InA);
  });

  it('[EP-18] the rate limiter postpones (never drops) reconciliations and wins over reschedule timing', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new RecordingReconciler(() => UpdateControl.noUpdate<Widget>().rescheduleAfter(0));
    operator().register(r, {
      resourceType: Widget,
      name: 'ep18',
      namespaces: [ns],
      rateLimiter: { limitForPeriod: 2, refreshPeriodMs: 300 },
    });
    await operators[0].start();
    const started = Date.now();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => r.runs.length >= 5, 'five runs', 5_000);
    // 2 per 300 ms window: the fifth run cannot start before the third window
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  });

  it('[EP-19] graceful stop: the running reconciliation finishes within the termination timeout; no new one starts', async () => {
    const ns = await newNamespace(bed.admin);
    const hold = gate();
    let finished = false;
    const r = new RecordingReconciler(async (w) => {
      await hold.promise;
      finished = true;
      w.status = { observed: 'done' };
      return UpdateControl.patchStatus(w);
    });
    const op = operator({ terminationTimeoutMs: 10_000, concurrentReconciliationThreads: 1 });
    op.register(r, { resourceType: Widget, name: 'ep19', namespaces: [ns] });
    await op.start();
    await bed.admin.create(Widget, widget('a', ns));
    await bed.admin.create(Widget, widget('b', ns));
    await waitFor(() => r.runs.length === 1, 'one running');
    const stopped = op.stop();
    setImmediate(hold.open);
    await stopped;
    expect(finished).toBe(true);
    expect(r.runs).toHaveLength(1);
    expect(op.runtimeInfo.isStarted()).toBe(false);
  });

  it('[OP-06] runtime info: started flag, registered controllers, health of every event source', async () => {
    const ns = await newNamespace(bed.admin);
    const op = operator();
    const registered = op.register(new RecordingReconciler(), {
      resourceType: Widget,
      name: 'op06',
      namespaces: [ns],
    });
    expect(op.runtimeInfo.isStarted()).toBe(false);
    await op.start();
    expect(op.runtimeInfo.isStarted()).toBe(true);
    expect(op.runtimeInfo.registeredControllers()).toEqual(['op06']);
    expect(registered.health?.()['ControllerResourceEventSource']).toMatchObject({
      healthy: true,
      status: 'synced',
    });
    expect(op.runtimeInfo.isLeaderElectionEnabled()).toBe(false);
    expect(op.runtimeInfo.isLeader()).toBe(true);
    expect(op.runtimeInfo.allEventSourcesHealthy()).toBe(true);
    expect(Object.keys(op.runtimeInfo.eventSourceHealth()['op06'])).toEqual([
      'ControllerResourceEventSource',
    ]);
    await op.stop();
    expect(op.runtimeInfo.isStarted()).toBe(false);
    expect(
      op.runtimeInfo.unhealthyEventSources().map((h) => [h.controller, h.eventSource, h.healthy]),
    ).toEqual([['op06', 'ControllerResourceEventSource', false]]);
  });

  it('[OP-07] metrics hooks fire for events, reconciles, successes, failures, cleanup and retries', async () => {
    const ns = await newNamespace(bed.admin);
    const seen = new Map<string, number>();
    const count = (k: string) => () => void seen.set(k, (seen.get(k) ?? 0) + 1);
    const metrics: Metrics = {
      controllerRegistered: count('controllerRegistered'),
      receivedEvent: count('receivedEvent'),
      reconcileSubmitted: count('reconcileSubmitted'),
      reconciliationStarted: count('reconciliationStarted'),
      reconcileSucceeded: count('reconcileSucceeded'),
      reconcileFailed: count('reconcileFailed'),
      reconciliationFinished: count('reconciliationFinished'),
      cleanupDone: count('cleanupDone'),
      retrying: count('retrying'),
      executorChanged: count('executorChanged'),
    };
    const r = new RecordingReconciler((_w, _c, run) => {
      if (run === 1) throw new Error('first fails');
      return UpdateControl.noUpdate();
    });
    operator({ metrics }).register(r, {
      resourceType: Widget,
      name: 'op07',
      namespaces: [ns],
      retry: { initialInterval: 10 },
    });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => r.runs.length === 2, 'retried');
    await bed.admin.delete(Widget, new ResourceID('w', ns));
    await waitFor(() => (seen.get('cleanupDone') ?? 0) >= 1, 'cleanup done');
    await waitFor(() => (seen.get('reconcileSucceeded') ?? 0) >= 1, 'success');
    for (const hook of Object.keys(metrics)) expect([hook, seen.get(hook) ?? 0]).not.toEqual([hook, 0]);
  });

  it('[OP-05] options have observable effects: per-controller finalizer name and namespaces, operator SSA default and thread count', async () => {
    const ns = await newNamespace(bed.admin);
    const other = await newNamespace(bed.admin);
    const r = Object.assign(new RecordingReconciler(), { cleanup: () => DeleteControl.defaultDelete() });
    const op = operator({ useSSAToPatchPrimaryResource: false, concurrentReconciliationThreads: 1 });
    const registered = op.register(r, (o) => ({
      ...o,
      resourceType: Widget,
      name: 'op05',
      namespaces: [ns],
      finalizerName: 'example.com/op05',
    }));
    expect(registered.configuration.useSSA).toBe(false);
    expect(registered.configuration.fieldManager).toBe('op05');
    await op.start();
    await bed.admin.create(Widget, widget('in', ns));
    await bed.admin.create(Widget, widget('out', other));
    await waitFor(() => r.of('in').length === 1, 'in reconciled');
    expect((await get(ns, 'in'))?.metadata?.finalizers).toEqual(['example.com/op05']);
    await registered.changeNamespaces([ns, other]);
    expect(registered.configuration.namespaces).toEqual([ns, other].sort());
    await waitFor(() => r.of('out').length === 1, 'out reconciled after the namespace change');
    expect(r.maxActive).toBe(1);
  });

  it('[EP-13] rescheduleAfter on DeleteControl runs cleanup again after the delay without events', async () => {
    const ns = await newNamespace(bed.admin);
    let cleanups = 0;
    const r = Object.assign(new RecordingReconciler(), {
      cleanup: () =>
        ++cleanups === 1
          ? DeleteControl.noFinalizerRemoval().rescheduleAfter(50)
          : DeleteControl.defaultDelete(),
    });
    operator().register(r, { resourceType: Widget, name: 'ep13-delete', namespaces: [ns] });
    await operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => r.runs.length === 1, 'reconciled');
    await bed.admin.delete(Widget, new ResourceID('w', ns));
    await waitFor(async () => (await get(ns, 'w')) === undefined, 'deleted after the rescheduled cleanup');
    expect(cleanups).toBe(2);
  });
});
