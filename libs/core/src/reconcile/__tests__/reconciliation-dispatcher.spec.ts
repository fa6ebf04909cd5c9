import { describe, expect, it } from '@jest/globals';
import type { Context, RetryInfo } from '../../api/context.js';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import type { Cleaner, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import type { CustomResource } from '../../api/resource-type.js';
import { defineResource } from '../../api/resource-type.js';
import { KubernetesApiError } from '../../client/errors.js';
import type { ControllerConfigurationOptions } from '../../config/controller-configuration.js';
import { resolveControllerConfiguration } from '../../config/controller-configuration.js';
import { FakeClock, settle } from '../../event/__tests__/fake-clock.js';
import { applyMergePatch } from '../../event/sources/own-write.js';
import type { ExecutionScope } from '../../event/internal/execution.js';
import { currentResourceContext } from '../../logging/resource-context.js';
import type { ResourceContext } from '../../logging/resource-context.js';
import { noopLogger } from '../../util/logger.js';
import { InvalidControlError, ReconcileError, ReconcileTimeoutError } from '../errors.js';
import { ReconciliationDispatcher } from '../internal/reconciliation-dispatcher.js';
import type { DispatcherClient } from '../internal/primary-writer.js';

type Thing = CustomResource<
  { size?: number; label?: string },
  { ready?: boolean; message?: string | null; note?: string }
>;
const Thing = defineResource<Thing>({ group: 'test.tosdk.io', version: 'v1', kind: 'Thing' });
const FINALIZER = 'things.test.tosdk.io/finalizer';

interface Call {
  method: 'get' | 'apply' | 'mergePatch' | 'jsonPatch';
  args: unknown[];
}

/** A client that records every call and answers from a script (default: echo the object back). */
function recordingClient(script: Partial<Record<Call['method'], (...args: unknown[]) => unknown>> = {}) {
  const calls: Call[] = [];
  const answer = (method: Call['method'], args: unknown[], fallback: () => unknown) => {
    calls.push({ method, args });
    const fn = script[method];
    return Promise.resolve().then(() => (fn ? fn(...args) : fallback()));
  };
  let rv = 100;
  /** The object on the "server": what the dispatched resource was; writes answer it with their change. */
  const server: { current?: Thing } = {};
  const client = {
    get: (...args: unknown[]) => answer('get', args, () => undefined),
    apply: (...args: unknown[]) =>
      answer('apply', args, () => {
        const intent = args[1] as Thing;
        const base = server.current ?? thing();
        return {
          ...base,
          ...intent,
          metadata: { ...base.metadata, ...intent.metadata, resourceVersion: String(++rv) },
        };
      }),
    mergePatch: (...args: unknown[]) =>
      answer('mergePatch', args, () => {
        const base = applyMergePatch(server.current ?? thing(), args[2]) as Thing;
        return { ...base, metadata: { ...base.metadata, resourceVersion: String(++rv) } };
      }),
    jsonPatch: (...args: unknown[]) =>
      answer('jsonPatch', args, () => ({
        ...thing(),
        metadata: { ...thing().metadata, resourceVersion: String(++rv) },
      })),
  } as unknown as DispatcherClient;
  return { client, calls, server };
}

function thing(extra: Partial<NonNullable<Thing['metadata']>> = {}, rest: Partial<Thing> = {}): Thing {
  return {
    apiVersion: Thing.apiVersion,
    kind: Thing.kind,
    metadata: { name: 't1', namespace: 'ns', uid: 'u-1', resourceVersion: '7', generation: 2, ...extra },
    spec: { size: 1 },
    status: { ready: false, message: 'old', note: 'keep' },
    ...rest,
  };
}

function setup(
  reconciler: Reconciler<Thing>,
  options: ControllerConfigurationOptions<Thing> = {},
  script: Parameters<typeof recordingClient>[0] = {},
) {
  const { client, calls, server } = recordingClient(script);
  const cached: Thing[] = [];
  const warnings: Array<{ reason: string; message: string }> = [];
  const clock = new FakeClock();
  const config = resolveControllerConfiguration(
    reconciler,
    { resourceType: Thing, name: 'things', ...options },
    {
      currentNamespace: 'default',
      useSSA: true,
    },
  );
  const dispatcher = new ReconciliationDispatcher<Thing>({
    config,
    reconciler,
    client,
    cache: { cacheIfNewer: (r) => (cached.push(r), true) },
    secondary: { sourcesFor: () => [] },
    eventRecorder: {
      normal: async () => undefined,
      warning: async (_r, reason, message) => void warnings.push({ reason, message }),
    },
    logger: noopLogger,
    clock,
  });
  const run = (
    resource: Thing,
    retryInfo?: RetryInfo,
    onFailure: RetryInfo = { attemptCount: 0, isLastAttempt: false },
  ) => {
    server.current = resource;
    const scope: ExecutionScope<Thing> = {
      id: ResourceID.fromResource(resource),
      resource,
      retryInfo,
      isNextReconciliationImminent: () => false,
      retryInfoOnFailure: () => onFailure,
    };
    return dispatcher.handleExecution(scope);
  };
  return { run, calls, cached, warnings, clock };
}

class StatusReconciler implements Reconciler<Thing>, Cleaner<Thing> {
  reconciled: Thing[] = [];
  cleaned: Thing[] = [];
  reconcile(resource: Thing): UpdateControl<Thing> {
    this.reconciled.push(resource);
    resource.status = { ...resource.status, ready: true };
    return UpdateControl.patchStatus(resource);
  }
  cleanup(resource: Thing): DeleteControl {
    this.cleaned.push(resource);
    return DeleteControl.defaultDelete();
  }
}

describe('ReconciliationDispatcher', () => {
  it('[EP-04] adds the finalizer of a Cleaner in its own server-side apply and does not reconcile in that pass', async () => {
    const r = new StatusReconciler();
    const { run, calls, cached } = setup(r);
    const post = await run(thing());
    expect(r.reconciled).toHaveLength(0);
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('apply');
    expect(calls[0].args[1]).toEqual({
      apiVersion: 'test.tosdk.io/v1',
      kind: 'Thing',
      metadata: { name: 't1', namespace: 'ns', finalizers: [FINALIZER] },
    });
    expect(calls[0].args[2]).toEqual({ fieldManager: 'things' });
    expect(post.error).toBeUndefined();
    expect(post.kind).toBeUndefined();
    expect(post.rescheduleDelayMs).toBe(0);
    expect(cached).toHaveLength(1);
  });

  it('[EP-22] without server-side apply adds the finalizer with a tested JSON patch, retried on conflict', async () => {
    const r = new StatusReconciler();
    let failures = 2;
    const { run, calls } = setup(
      r,
      { useSSA: false },
      {
        jsonPatch: () => {
          if (failures-- > 0) throw new KubernetesApiError(409, { reason: 'Conflict', message: 'conflict' });
          return thing({ finalizers: ['other', FINALIZER] });
        },
        get: () => thing({ finalizers: ['other'], resourceVersion: '9' }),
      },
    );
    const post = await run(thing());
    expect(post.error).toBeUndefined();
    expect(calls.map((c) => c.method)).toEqual(['jsonPatch', 'get', 'jsonPatch', 'get', 'jsonPatch']);
    expect(calls[0].args[2]).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'add', path: '/metadata/finalizers', value: [FINALIZER] },
    ]);
    expect(calls[4].args[2]).toEqual([
      { op: 'test', path: '/metadata/finalizers', value: ['other'] },
      { op: 'add', path: '/metadata/finalizers/-', value: FINALIZER },
    ]);
  });

  it('[EP-22] gives up after 10 conflicts with a ReconcileError carrying the API error', async () => {
    const { run, calls } = setup(
      new StatusReconciler(),
      { useSSA: false },
      {
        jsonPatch: () => {
          throw new KubernetesApiError(409, { reason: 'Conflict', message: 'conflict' });
        },
        get: () => thing(),
      },
    );
    const post = await run(thing());
    expect(post.error).toBeInstanceOf(ReconcileError);
    expect((post.error as ReconcileError).cause).toBeInstanceOf(KubernetesApiError);
    expect(calls.filter((c) => c.method === 'jsonPatch')).toHaveLength(10);
  });

  it('[EP-01] calls cleanup on a resource marked for deletion and removes the finalizer with a tested JSON patch', async () => {
    const r = new StatusReconciler();
    const { run, calls } = setup(r);
    const post = await run(thing({ finalizers: ['a', FINALIZER], deletionTimestamp: new Date(0) }));
    expect(r.cleaned).toHaveLength(1);
    expect(r.reconciled).toHaveLength(0);
    expect(calls.map((c) => c.method)).toEqual(['jsonPatch']);
    expect(calls[0].args[2]).toEqual([
      { op: 'test', path: '/metadata/finalizers', value: ['a', FINALIZER] },
      { op: 'remove', path: '/metadata/finalizers/1' },
    ]);
    expect(post).toMatchObject({ kind: 'cleanup', finalizerRemoved: true });
  });

  it('treats a 404 while removing the finalizer as done', async () => {
    const { run } = setup(
      new StatusReconciler(),
      {},
      {
        jsonPatch: () => {
          throw new KubernetesApiError(404, { reason: 'NotFound', message: 'gone' });
        },
      },
    );
    const post = await run(thing({ finalizers: [FINALIZER], deletionTimestamp: new Date(0) }));
    expect(post).toMatchObject({ kind: 'cleanup', finalizerRemoved: true });
    expect(post.error).toBeUndefined();
  });

  it('keeps the finalizer and reschedules on noFinalizerRemoval', async () => {
    class Slow extends StatusReconciler {
      override cleanup(): DeleteControl {
        return DeleteControl.noFinalizerRemoval().rescheduleAfter(500);
      }
    }
    const { run, calls } = setup(new Slow());
    const post = await run(thing({ finalizers: [FINALIZER], deletionTimestamp: new Date(0) }));
    expect(calls).toHaveLength(0);
    expect(post).toEqual({ kind: 'cleanup', rescheduleDelayMs: 500 });
  });

  it('does not reconcile a resource marked for deletion when the reconciler is not a Cleaner', async () => {
    const reconcile = { n: 0 };
    const r: Reconciler<Thing> = { reconcile: () => (reconcile.n++, UpdateControl.noUpdate()) };
    const { run, calls } = setup(r);
    expect(await run(thing({ deletionTimestamp: new Date(0) }))).toEqual({});
    expect(reconcile.n).toBe(0);
    expect(calls).toHaveLength(0);
  });

  it('[EP-23] patches the status with server-side apply: the intent holds only apiVersion, kind, name, namespace and status', async () => {
    const r = new StatusReconciler();
    const { run, calls, cached } = setup(r);
    const post = await run(thing({ finalizers: [FINALIZER] }));
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('apply');
    expect(calls[0].args[1]).toEqual({
      apiVersion: 'test.tosdk.io/v1',
      kind: 'Thing',
      metadata: { name: 't1', namespace: 'ns' },
      status: { ready: true, message: 'old', note: 'keep' },
    });
    expect(calls[0].args[2]).toEqual({ fieldManager: 'things', subresource: 'status' });
    expect(post.kind).toBe('reconcile');
    expect(cached[0]).toBe(post.updatedResource);
  });

  it('[EP-24] without server-side apply patches the status with a merge patch: no resourceVersion, removed and null fields become null', async () => {
    const r: Reconciler<Thing> = {
      reconcile: (resource) => {
        resource.status = { ready: true, message: null };
        return UpdateControl.patchStatus(resource);
      },
    };
    const { run, calls } = setup(r, { useSSA: false });
    await run(thing());
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('mergePatch');
    expect(calls[0].args[2]).toEqual({ status: { ready: true, message: null, note: null } });
    expect(calls[0].args[3]).toEqual({ fieldManager: 'things', subresource: 'status' });
  });

  it('[EP-23] patchResourceAndStatus applies the resource (keeping the finalizer, no server-owned fields) then the status', async () => {
    const r: Reconciler<Thing> & Cleaner<Thing> = {
      reconcile: (resource) => {
        resource.spec = { size: 3 };
        resource.metadata!.finalizers = [];
        resource.metadata!.labels = { a: 'b' };
        resource.status = { ready: true };
        return UpdateControl.patchResourceAndStatus(resource);
      },
      cleanup: () => DeleteControl.defaultDelete(),
    };
    const { run, calls } = setup(r, { name: 'x' });
    await run(thing({ finalizers: [FINALIZER] }));
    expect(calls.map((c) => [c.method, (c.args[2] as { subresource?: string }).subresource])).toEqual([
      ['apply', undefined],
      ['apply', 'status'],
    ]);
    expect(calls[0].args[1]).toEqual({
      apiVersion: 'test.tosdk.io/v1',
      kind: 'Thing',
      metadata: { name: 't1', namespace: 'ns', finalizers: [FINALIZER], labels: { a: 'b' } },
      spec: { size: 3 },
    });
  });

  it('[EP-23] patchResource without server-side apply sends the merge-patch difference', async () => {
    const r: Reconciler<Thing> = {
      reconcile: (resource) => {
        resource.spec = { label: 'x' };
        return UpdateControl.patchResource(resource);
      },
    };
    const { run, calls } = setup(r, { useSSA: false });
    await run(thing());
    expect(calls[0].method).toBe('mergePatch');
    expect(calls[0].args[2]).toEqual({ spec: { size: null, label: 'x' } });
  });

  it('gives the reconciler a copy, the retry info and the resource logging context', async () => {
    let seen: { ctx?: ResourceContext; retry?: RetryInfo; same?: boolean; last?: boolean } = {};
    const original = thing();
    const r: Reconciler<Thing> = {
      reconcile: async (resource, context: Context<Thing>) => {
        await settle();
        seen = {
          ctx: currentResourceContext(),
          retry: context.getRetryInfo(),
          same: resource === original,
          last: context.isLastAttempt(),
        };
        return UpdateControl.noUpdate();
      },
    };
    const { run, calls } = setup(r);
    await run(original, { attemptCount: 2, isLastAttempt: true });
    expect(calls).toHaveLength(0);
    expect(seen.same).toBe(false);
    expect(seen.retry).toEqual({ attemptCount: 2, isLastAttempt: true });
    expect(seen.last).toBe(true);
    expect(seen.ctx).toEqual({
      controller: 'things',
      'resource.apiVersion': 'test.tosdk.io/v1',
      'resource.kind': 'Thing',
      'resource.name': 't1',
      'resource.namespace': 'ns',
      'resource.resourceVersion': '7',
      'resource.generation': 2,
      'resource.uid': 'u-1',
    });
    expect(currentResourceContext()).toBeUndefined();
  });

  it('fails with InvalidControlError when reconcile returns nothing or a control for another resource', async () => {
    const none = setup({ reconcile: () => undefined as unknown as UpdateControl<Thing> });
    const post = await none.run(thing());
    expect(post.error).toBeInstanceOf(InvalidControlError);
    expect((post.error as InvalidControlError).code).toBe('InvalidControl');
    const other = setup({ reconcile: () => UpdateControl.patchStatus(thing({ name: 'other' })) });
    const post2 = await other.run(thing());
    expect(post2.error).toBeInstanceOf(InvalidControlError);
    expect(other.calls).toHaveLength(0);
  });

  it('fails with ReconcileTimeoutError when reconcile never settles', async () => {
    const { run, clock } = setup(
      { reconcile: () => new Promise<UpdateControl<Thing>>(() => undefined) },
      { reconcileTimeoutMs: 1000 },
    );
    const pending = run(thing());
    await clock.advance(1000);
    const post = await pending;
    expect(post.error).toBeInstanceOf(ReconcileTimeoutError);
  });

  it('[EP-09] calls updateErrorStatus with the retry info, patches its status, publishes a Warning event', async () => {
    const infos: Array<RetryInfo | undefined> = [];
    const r: Reconciler<Thing> = {
      reconcile: () => {
        throw new Error('database down');
      },
      updateErrorStatus: (resource, context, error) => {
        infos.push(context.getRetryInfo());
        resource.status = { message: (error as Error).message };
        return ErrorStatusUpdateControl.patchStatus(resource);
      },
    };
    const { run, calls, warnings } = setup(r);
    const post = await run(thing(), undefined, { attemptCount: 0, isLastAttempt: false });
    expect(infos).toEqual([{ attemptCount: 0, isLastAttempt: false }]);
    expect(calls).toHaveLength(1);
    expect((calls[0].args[1] as Thing).status).toEqual({ message: 'database down' });
    expect(post.error).toBeInstanceOf(ReconcileError);
    expect(((post.error as ReconcileError).cause as Error).message).toBe('database down');
    await settle();
    expect(warnings).toEqual([{ reason: 'ReconcileFailed', message: 'database down' }]);
  });

  it('[EP-09] withNoRetry turns the failure into a finished reconciliation (no retry)', async () => {
    const r: Reconciler<Thing> = {
      reconcile: () => {
        throw new Error('invalid spec');
      },
      updateErrorStatus: () => ErrorStatusUpdateControl.noStatusUpdate<Thing>().withNoRetry(),
    };
    const { run, calls } = setup(r, { recordReconcileErrorEvents: false });
    const post = await run(thing());
    expect(post.error).toBeUndefined();
    expect(calls).toHaveLength(0);
  });
});
