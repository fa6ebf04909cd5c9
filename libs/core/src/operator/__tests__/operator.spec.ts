import { describe, expect, it } from '@jest/globals';
import type { Context } from '../../api/context.js';
import { DeleteControl, UpdateControl } from '../../api/controls.js';
import type { Cleaner, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ControllerConfiguration } from '../../config/controller-configuration.js';
import { Operator } from '../operator.js';
import {
  DuplicateNameError,
  EventSourceStartError,
  InvalidOperatorConfigurationError,
  MissingCustomResourceDefinitionError,
  OperatorStateError,
} from '../errors.js';
import { defineResource } from '../../api/resource-type.js';
import type { OperatorOptions } from '../../config/operator-configuration.js';
import type { Logger } from '../../util/logger.js';
import { currentResourceContext } from '../../logging/resource-context.js';
import type { ResourceContext } from '../../logging/resource-context.js';
import { apiServerSuite, newNamespace, RecordingReconciler, waitFor, Widget, widget } from './support.js';

const bed = apiServerSuite();

const operator = (options: Partial<OperatorOptions> = {}): Operator => bed.operator(options);

@ControllerConfiguration({ resourceType: Widget })
class ConfigMapWidgetReconciler implements Reconciler<Widget>, Cleaner<Widget> {
  cleanups = 0;
  reconciles = 0;
  async reconcile(resource: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    this.reconciles++;
    const { name, namespace } = resource.metadata!;
    await context.client.apply(
      ResourceTypes.ConfigMap,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${name}-cm`, namespace },
        data: { value: resource.spec?.value ?? '' },
      },
      { fieldManager: context.controllerName },
    );
    resource.status = { observed: resource.spec?.value, observedGeneration: resource.metadata?.generation };
    return UpdateControl.patchStatus(resource);
  }
  async cleanup(resource: Widget, context: Context<Widget>): Promise<DeleteControl> {
    this.cleanups++;
    const { name, namespace } = resource.metadata!;
    await context.client.delete(ResourceTypes.ConfigMap, new ResourceID(`${name}-cm`, namespace));
    return DeleteControl.defaultDelete();
  }
}

describe('Operator against @tosdk/apiserver', () => {
  it('[EP-03] stop() on an operator that never started returns cleanly', async () => {
    const op = operator();
    op.register(new ConfigMapWidgetReconciler());
    await expect(op.stop()).resolves.toBeUndefined();
    expect(op.runtimeInfo.isStarted()).toBe(false);
  });

  it('[EP-01] [EP-20] creates a ConfigMap from the primary, patches its status (observedGeneration), and deleting the primary runs cleanup', async () => {
    const ns = await newNamespace(bed.admin);
    const op = operator();
    const reconciler = new ConfigMapWidgetReconciler();
    op.register(reconciler, { namespaces: [ns] });
    await op.start();
    await bed.admin.create(Widget, widget('w1', ns, { value: 'hello' }));
    const id = new ResourceID('w1', ns);
    await waitFor(
      async () => (await bed.admin.get(Widget, id))?.status?.observed === 'hello',
      'status patched',
    );
    const cm = await bed.admin.get(ResourceTypes.ConfigMap, new ResourceID('w1-cm', ns));
    expect(cm?.data).toEqual({ value: 'hello' });
    const w = await bed.admin.get(Widget, id);
    expect(w?.status?.observedGeneration).toBe(w?.metadata?.generation);
    await bed.admin.delete(Widget, id);
    await waitFor(async () => (await bed.admin.get(Widget, id)) === undefined, 'primary gone');
    expect(reconciler.cleanups).toBe(1);
    expect(await bed.admin.get(ResourceTypes.ConfigMap, new ResourceID('w1-cm', ns))).toBeUndefined();
  });

  it('registering after start is an error; start fails clearly when a CRD is not served (checkCrdAndValidateLocalModel)', async () => {
    const ns = await newNamespace(bed.admin);
    const op = operator();
    op.register(new ConfigMapWidgetReconciler(), { namespaces: [ns] });
    await op.start();
    expect(() => op.register(new ConfigMapWidgetReconciler(), { name: 'second', namespaces: [ns] })).toThrow(
      OperatorStateError,
    );
    await expect(op.start()).rejects.toBeInstanceOf(OperatorStateError);

    const Missing = defineResource({ group: 'missing.tosdk.io', version: 'v1', kind: 'Missing' });
    const checked = operator({ checkCrdAndValidateLocalModel: true });
    checked.register(
      { reconcile: () => UpdateControl.noUpdate() },
      { resourceType: Missing, name: 'missing' },
    );
    const error = await checked.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingCustomResourceDefinitionError);
    expect((error as Error).message).toContain('missings.missing.tosdk.io');
    expect(checked.runtimeInfo.isStarted()).toBe(false);

    const unchecked = operator();
    unchecked.register(
      { reconcile: () => UpdateControl.noUpdate() },
      { resourceType: Missing, name: 'missing' },
    );
    await expect(unchecked.start()).rejects.toBeInstanceOf(EventSourceStartError);

    const tolerant = operator({ stopOnInformerErrorDuringStartup: false });
    tolerant.register(
      { reconcile: () => UpdateControl.noUpdate() },
      { resourceType: Missing, name: 'missing' },
    );
    await tolerant.start();
    await waitFor(
      () =>
        tolerant.runtimeInfo
          .unhealthyEventSources()
          .some((h) => h.controller === 'missing' && h.reason !== undefined),
      'unhealthy with a reason',
    );
  });

  it('a 500 or 429 from the API server on the status patch is a failed attempt that is retried until the patch lands', async () => {
    const ns = await newNamespace(bed.admin);
    const op = operator();
    op.register(new ConfigMapWidgetReconciler(), { namespaces: [ns], retry: { initialInterval: 20 } });
    bed.server.faults.failNext({
      verb: 'patch',
      resource: 'widgets',
      subresource: 'status',
      namespace: ns,
      code: 500,
    });
    bed.server.faults.failNext({
      verb: 'patch',
      resource: 'widgets',
      subresource: 'status',
      namespace: ns,
      code: 429,
      retryAfterSeconds: 0,
    });
    await op.start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'v' }));
    await waitFor(
      async () => (await bed.admin.get(Widget, new ResourceID('w', ns)))?.status?.observed === 'v',
      'status after retries',
    );
    expect(
      bed.server.requests.count({
        verb: 'patch',
        resource: 'widgets',
        subresource: 'status',
        namespace: ns,
        code: 500,
      }),
    ).toBe(1);
    expect(
      bed.server.requests.count({
        verb: 'patch',
        resource: 'widgets',
        subresource: 'status',
        namespace: ns,
        code: 429,
      }),
    ).toBe(1);
  });

  it('[OP-03] with leader election only the leader reconciles; a namespace change on a non-leader does not start processing', async () => {
    const ns = await newNamespace(bed.admin);
    const extra = await newNamespace(bed.admin);
    const leaderElection = (identity: string) => ({
      leaseName: 'op03',
      leaseNamespace: ns,
      identity,
      exitOnStopLeading: false,
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 200,
    });
    const one = operator({ leaderElection: leaderElection('one') });
    const two = operator({ leaderElection: leaderElection('two') });
    const r1 = new RecordingReconciler();
    const r2 = new RecordingReconciler();
    const c1 = one.register(r1, { resourceType: Widget, name: 'op03', namespaces: [ns] });
    const c2 = two.register(r2, { resourceType: Widget, name: 'op03', namespaces: [ns] });
    await one.start();
    await waitFor(() => one.runtimeInfo.isLeader(), 'one leads');
    await two.start();
    expect(two.runtimeInfo.isLeaderElectionEnabled()).toBe(true);
    expect(two.runtimeInfo.isLeader()).toBe(false);
    await bed.admin.create(Widget, widget('w', extra));
    await c2.changeNamespaces([ns, extra]);
    await c1.changeNamespaces([ns, extra]);
    await waitFor(() => r1.of('w').length === 1, 'leader reconciles the new namespace');
    await bed.admin.create(Widget, widget('marker', ns));
    await waitFor(() => r1.of('marker').length === 1, 'marker');
    expect(r2.runs).toHaveLength(0);
    expect(two.runtimeInfo.allEventSourcesHealthy()).toBe(true);
  });

  it('[EP-27] a controller per version of one CRD; a conversion failure makes that informer unhealthy (named, with the reason) while the other works', async () => {
    const ns = await newNamespace(bed.admin);
    const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    const version = (name: string, storage: boolean) => ({
      name,
      served: true,
      storage,
      subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
    });
    const CrdType = defineResource({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      scope: 'Cluster',
    });
    await bed.admin.create(CrdType, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'multis.test.tosdk.io' },
      spec: {
        group: 'test.tosdk.io',
        scope: 'Namespaced',
        names: { plural: 'multis', singular: 'multi', kind: 'Multi', listKind: 'MultiList' },
        versions: [version('v1', true), version('v2', false)],
        conversion: {
          strategy: 'Webhook',
          webhook: { clientConfig: { url: 'https://127.0.0.1:1/convert' }, conversionReviewVersions: ['v1'] },
        },
      },
    } as never);
    const V1 = defineResource<Widget>({ group: 'test.tosdk.io', version: 'v1', kind: 'Multi' });
    const V2 = defineResource<Widget>({ group: 'test.tosdk.io', version: 'v2', kind: 'Multi' });
    await waitFor(async () => {
      const list = await bed.admin
        .request<{ resources?: Array<{ name?: string }> }>('/apis/test.tosdk.io/v2')
        .catch(() => undefined);
      return list?.resources?.some((r) => r.name === 'multis') ?? false;
    }, 'v2 served');
    await bed.admin.create(V1, {
      apiVersion: V1.apiVersion,
      kind: 'Multi',
      metadata: { name: 'm', namespace: ns },
      spec: { value: 'x' },
    });
    const r1 = new RecordingReconciler();
    const r2 = new RecordingReconciler();
    const op = operator({ stopOnInformerErrorDuringStartup: false });
    op.register(r1, { resourceType: V1, name: 'multi-v1', namespaces: [ns] });
    op.register(r2, { resourceType: V2, name: 'multi-v2', namespaces: [ns] });
    await op.start();
    await waitFor(() => r1.of('m').length === 1, 'v1 reconciled');
    await waitFor(() => op.runtimeInfo.unhealthyEventSources().length > 0, 'v2 unhealthy');
    const unhealthy = op.runtimeInfo.unhealthyEventSources();
    expect(unhealthy.map((h) => [h.controller, h.eventSource])).toEqual([
      ['multi-v2', 'ControllerResourceEventSource'],
    ]);
    expect(unhealthy[0].reason).toMatch(/conversion/);
    expect(r2.runs).toHaveLength(0);

    const strict = operator();
    strict.register(new RecordingReconciler(), { resourceType: V2, name: 'multi-v2', namespaces: [ns] });
    const error = await strict.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventSourceStartError);
    expect((error as EventSourceStartError).controller).toBe('multi-v2');
  });

  it('every log line written during a reconcile carries the resource context (context.logger and currentResourceContext)', async () => {
    const ns = await newNamespace(bed.admin);
    const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const capture = (bindings: Record<string, unknown> = {}): Logger => ({
      debug: () => undefined,
      info: (message, fields) => void lines.push({ message, fields: { ...bindings, ...fields } }),
      warn: () => undefined,
      error: () => undefined,
      child: (b) => capture({ ...bindings, ...b }),
    });
    let seen: ResourceContext | undefined;
    const op = operator({ logger: capture() });
    op.register(
      {
        reconcile: async (w: Widget, context: Context<Widget>) => {
          await new Promise((resolve) => setImmediate(resolve));
          context.logger.info('reconciling', { step: 1 });
          seen = currentResourceContext();
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'logging', namespaces: [ns] },
    );
    await op.start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => lines.some((l) => l.message === 'reconciling'), 'log line');
    const line = lines.find((l) => l.message === 'reconciling')!;
    expect(line.fields).toMatchObject({
      step: 1,
      controller: 'logging',
      'resource.apiVersion': 'test.tosdk.io/v1',
      'resource.kind': 'Widget',
      'resource.name': 'w',
      'resource.namespace': ns,
      'resource.generation': 1,
    });
    expect(line.fields?.['resource.uid']).toEqual(expect.any(String));
    expect(line.fields?.['resource.resourceVersion']).toEqual(expect.any(String));
    expect(seen?.['resource.name']).toBe('w');
  });

  it('context.eventSourceRetriever registers an event source while running, once per name', async () => {
    const ns = await newNamespace(bed.admin);
    let created = 0;
    let started = 0;
    let registered: unknown[] = [];
    const op = operator();
    op.register(
      {
        reconcile: async (_w: Widget, context: Context<Widget>) => {
          const retriever = context.eventSourceRetriever();
          const make = () => {
            created++;
            return {
              name: 'dyn',
              setEventHandler: () => undefined,
              start: async () => void started++,
              stop: async () => undefined,
            };
          };
          registered = await Promise.all([
            retriever.dynamicallyRegisterEventSource('dyn', make),
            retriever.dynamicallyRegisterEventSource('dyn', make),
          ]);
          return UpdateControl.noUpdate();
        },
      },
      { resourceType: Widget, name: 'dynamic', namespaces: [ns] },
    );
    await op.start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => registered.length === 2, 'registered');
    expect([created, started]).toEqual([1, 1]);
    expect(registered[0]).toBe(registered[1]);
    expect(Object.keys(op.runtimeInfo.eventSourceHealth()['dynamic'])).toEqual([
      'ControllerResourceEventSource',
      'dyn',
    ]);
  });

  it('[OP-03] losing and regaining the lease stops processing, then reconciles every cached primary again', async () => {
    const ns = await newNamespace(bed.admin);
    const r = new RecordingReconciler();
    const op = operator({
      leaderElection: {
        leaseName: 'regain',
        leaseNamespace: ns,
        identity: 'a',
        exitOnStopLeading: false,
        leaseDurationMs: 1000,
        renewDeadlineMs: 800,
        retryPeriodMs: 100,
      },
    });
    op.register(r, { resourceType: Widget, name: 'regain', namespaces: [ns] });
    await op.start();
    await waitFor(() => op.runtimeInfo.isLeader(), 'leading');
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => r.runs.length === 1, 'first run');
    const micro = new Date().toISOString().replace('Z', '000Z');
    await bed.admin.mergePatch(ResourceTypes.Lease, new ResourceID('regain', ns), {
      spec: { holderIdentity: 'intruder', renewTime: micro, acquireTime: micro, leaseDurationSeconds: 1 },
    });
    await waitFor(() => !op.runtimeInfo.isLeader(), 'lost the lease');
    await waitFor(() => op.runtimeInfo.isLeader(), 'regained the lease', 10_000);
    await waitFor(() => r.runs.length === 2, 'reconciled again without an event');
  });

  it('rejects bad operator options and duplicate controller names with typed errors', () => {
    expect(() => new Operator({})).toThrow(InvalidOperatorConfigurationError);
    expect(() => new Operator({ client: bed.admin, concurrentReconciliationThreads: 0 })).toThrow(
      /concurrentReconciliationThreads/,
    );
    expect(() => new Operator({ client: bed.admin, terminationTimeoutMs: -1 })).toThrow(
      /terminationTimeoutMs/,
    );
    expect(() => new Operator({ client: bed.admin, leaderElection: { leaseName: 'Bad Name' } })).toThrow(
      /leaseName/,
    );
    const op = operator({ client: bed.admin });
    op.register(new RecordingReconciler(), { resourceType: Widget, name: 'same' });
    expect(() => op.register(new RecordingReconciler(), { resourceType: Widget, name: 'same' })).toThrow(
      DuplicateNameError,
    );
    // the overrider's result is validated too
    expect(
      () => new Operator({ client: bed.admin }, (o) => ({ ...o, concurrentReconciliationThreads: 0 })),
    ).toThrow(InvalidOperatorConfigurationError);
  });

  it('[EP-19] after stop() nothing of the operator keeps the process alive (sockets closed, timers gone)', async () => {
    const ns = await newNamespace(bed.admin);
    const count = () =>
      process
        .getActiveResourcesInfo()
        .filter((r) => r !== 'TTYWrap' && r !== 'FSReqCallback')
        .reduce<Record<string, number>>((acc, r) => ({ ...acc, [r]: (acc[r] ?? 0) + 1 }), {});
    const within = (now: Record<string, number>, base: Record<string, number>) =>
      Object.entries(now).every(([k, n]) => n <= (base[k] ?? 0));
    const baseline = count();
    const op = new Operator({ kubeConfig: bed.server.kubeConfig(), terminationTimeoutMs: 5000 });
    const r = new RecordingReconciler((w) => {
      w.status = { observed: 'x' };
      return UpdateControl.patchStatus(w).rescheduleAfter(60_000);
    });
    op.register(r, {
      resourceType: Widget,
      name: 'alive',
      namespaces: [ns],
      retry: { initialInterval: 60_000 },
    });
    await op.start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => r.runs.length >= 1, 'reconciled');
    expect(within(count(), baseline)).toBe(false);
    await op.stop();
    await waitFor(() => within(count(), baseline), `no handles left beyond ${JSON.stringify(baseline)}`);
  });
});
