import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { DeleteControl, UpdateControl } from '../../api/controls.js';
import type { Cleaner, Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { NoGCConfigMapDependent } from '../../dependent/__tests__/support.js';
import type { Event } from '../../event/event.js';
import { CONTROLLER_EVENT_SOURCE_NAME } from '../../event/internal/controller-event-source.js';
import type { ControllerEventSource } from '../../event/internal/controller-event-source.js';
import {
  apiServerSuite,
  gate,
  newNamespace,
  waitFor as waitForWithin,
  Widget,
  widget,
} from '../../operator/__tests__/support.js';
import type { Logger, LogFields } from '../../util/logger.js';
import { ReconcileAbandonedError } from '../errors.js';

const bed = apiServerSuite();

/**
 * Under load (CI runs the suite on 2 cores, two workers) every wait gets 30 s, and each test (and
 * the suite's server start) 120 s, above any wait: slow is fine, only a condition never met fails.
 */
const WAIT_MS = 30_000;
jest.setTimeout(120_000);
const waitFor = (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = WAIT_MS) =>
  waitForWithin(condition, what, Math.max(timeoutMs, WAIT_MS));
const CM = ResourceTypes.ConfigMap;
const WINDOW_MS = 800;

/** The README's reconciler: always returns `UpdateControl.patchStatus` with the status it wants. */
function readmeReconciler(runs: Widget[]) {
  return {
    reconcile: (w: Widget) => {
      runs.push(w);
      w.status = { ...w.status, observed: w.spec?.value };
      return UpdateControl.patchStatus(w);
    },
  };
}

describe('the dispatcher does not send writes that change nothing (issue 15 §1)', () => {
  it.each([true, false])(
    '[EP-23] a reconciler that always returns patchStatus writes nothing on a restart with nothing changed (useSSA: %s)',
    async (useSSA) => {
      const ns = await newNamespace(bed.admin);
      const id = new ResourceID('w', ns);
      const runs: Widget[] = [];
      const options = { resourceType: Widget, name: 'no-change', namespaces: [ns], useSSA };
      bed.operator().register(readmeReconciler(runs), options);
      await bed.operators[0].start();
      await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
      await waitFor(
        async () => (await bed.admin.get(Widget, id))?.status?.observed === 'one',
        'status written',
      );
      const statusWrites = () => bed.server.requests.writes({ namespace: ns, resource: 'widgets' });
      expect(statusWrites()).toBe(2); // our create, the one status patch
      await bed.operators[0].stop();
      // a restart: the new operator reconciles the unchanged resource and must not write
      const again: Widget[] = [];
      bed.operator().register(readmeReconciler(again), options);
      await bed.operators[1].start();
      await waitFor(() => again.length >= 1, 'reconciled after the restart');
      // a foreign write is the barrier: the restart's reconcile has finished before its event's
      await bed.admin.mergePatch(Widget, id, { spec: { value: 'two' } });
      await waitFor(async () => (await bed.admin.get(Widget, id))?.status?.observed === 'two', 'changed');
      expect(statusWrites()).toBe(4); // + the foreign spec change, + its status patch: nothing else
    },
  );

  it("[EP-28] an UpdateControl status patch that returned someone else's change is not cached over it: a spec change landing before it, seen late, reconciles", async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const runs: Widget[] = [];
    let raced = false;
    bed.operator().register(
      {
        reconcile: async (w: Widget) => {
          runs.push(w);
          if (!raced) {
            raced = true;
            // the watch drops and comes back late; meanwhile someone writes exactly our status and
            // changes the spec: our status patch (the cache has no status yet) changes nothing and
            // returns their version
            const faults = bed.server.faults;
            faults.addLatency({ verb: 'watch', resource: 'widgets', ms: WINDOW_MS });
            faults.closeAllWatches();
            await bed.admin.mergePatch(
              Widget,
              id,
              { status: { observed: 'one' } },
              { subresource: 'status' },
            );
            await bed.admin.mergePatch(Widget, id, { spec: { value: 'two' } });
            faults.clear();
          }
          w.status = { ...w.status, observed: w.spec?.value };
          return UpdateControl.patchStatus(w);
        },
      },
      // a merge patch of the status difference is sent as it is (no optimistic locking)
      { resourceType: Widget, name: 'late', namespaces: [ns], useSSA: false },
    );
    await bed.operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(() => runs.some((r) => r.spec?.value === 'two'), 'the spec change reconciled', WAIT_MS);
    await waitFor(
      async () => (await bed.admin.get(Widget, id))?.status?.observed === 'two',
      'status follows',
    );
  });
});

describe('updates of a resource marked for deletion (issue 11 §2)', () => {
  it('[EP-15] a status written by a running cleanup does not call cleanup again; the transition into deletion and a spec change do', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    const cleanups: Widget[] = [];
    const received: Event[] = [];
    let source: ControllerEventSource<Widget> | undefined;
    let statusVersion: string | undefined;
    const op = bed.operator({ metrics: { receivedEvent: (e) => void received.push(e) } });
    const marked: Reconciler<Widget> & Cleaner<Widget> = {
      reconcile: () => UpdateControl.noUpdate<Widget>(),
      cleanup: async (w: Widget, c: Context<Widget>) => {
        cleanups.push(w);
        source = c
          .eventSourceRetriever()
          .getEventSource(CONTROLLER_EVENT_SOURCE_NAME) as ControllerEventSource<Widget>;
        if (w.spec?.value === 'go') return DeleteControl.defaultDelete();
        // progress recorded with the plain client, as cleanups do
        const written = await c.client.mergePatch(
          Widget,
          id,
          { status: { message: 'cleaning' } },
          { subresource: 'status' },
        );
        statusVersion = written.metadata?.resourceVersion;
        return DeleteControl.noFinalizerRemoval().rescheduleAfter(3_600_000);
      },
    };
    op.register(marked, { resourceType: Widget, name: 'marked', namespaces: [ns] });
    await op.start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(
      async () => ((await bed.admin.get(Widget, id))?.metadata?.finalizers?.length ?? 0) > 0,
      'finalizer',
    );
    await bed.admin.delete(Widget, id);
    await waitFor(() => statusVersion !== undefined, 'the cleanup wrote its progress');
    // the informer has delivered the status write to its handlers (they run before reads see it)
    await waitFor(() => source!.get(id)?.metadata?.resourceVersion === statusVersion, 'status event seen');
    expect(
      received.filter(
        (e) => (e as { resource?: Widget }).resource?.metadata?.resourceVersion === statusVersion,
      ),
    ).toEqual([]);
    expect(cleanups).toHaveLength(1);
    // a spec change of the marked resource still reconciles (its generation grew)
    await bed.admin.mergePatch(Widget, id, { spec: { value: 'go' } });
    await waitFor(async () => (await bed.admin.get(Widget, id)) === undefined, 'cleaned up and gone');
    expect(cleanups.map((w) => w.spec?.value)).toEqual(['one', 'go']);
  });
});

describe('cleanup never ends with the finalizer kept and nothing scheduled (issue 11 §3)', () => {
  /** A ConfigMap dependent deleted by the workflow whose delete fails the first `failures` times. */
  class FailingDelete extends NoGCConfigMapDependent {
    deletes = 0;
    constructor(private readonly failures: number) {
      super();
    }
    override async delete(primary: Widget, context: Context<Widget>): Promise<void> {
      this.deletes++;
      if (this.deletes <= this.failures) throw new Error(`delete ${this.deletes} failed`);
      await super.delete(primary, context);
    }
  }

  it.each([
    { mode: 'silent (handleExceptionsInReconciler)', silent: true, cleaner: false },
    { mode: 'silent, with a Cleaner returning defaultDelete()', silent: true, cleaner: true },
    { mode: 'not silent (the failure is retried)', silent: false, cleaner: false },
  ])(
    '[EP-04][DR-03] a dependent whose delete throws, $mode: the primary is not stuck with its finalizer',
    async ({ silent, cleaner }) => {
      const ns = await newNamespace(bed.admin);
      const id = new ResourceID('w', ns);
      const dependent = new FailingDelete(1);
      const reconciler = {
        reconcile: () => UpdateControl.noUpdate<Widget>(),
        ...(cleaner ? { cleanup: () => DeleteControl.defaultDelete() } : {}),
      };
      bed.operator().register(reconciler, {
        resourceType: Widget,
        name: 'stuck',
        namespaces: [ns],
        retry: { initialInterval: 50, maxAttempts: 5 },
        workflow: { dependents: [{ dependent, name: 'cm' }], handleExceptionsInReconciler: silent },
      });
      await bed.operators[0].start();
      await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
      await waitFor(
        async () => (await bed.admin.get(CM, new ResourceID('w-cm', ns))) !== undefined,
        'dependent made',
      );
      await bed.admin.delete(Widget, id);
      await waitFor(
        async () => (await bed.admin.get(Widget, id)) === undefined,
        'the primary is gone',
        WAIT_MS,
      );
      // JOSDK: in silent mode the failed delete does not keep the finalizer; otherwise it is retried
      expect(dependent.deletes).toBe(silent ? 1 : 2);
      const left = await bed.admin.get<V1ConfigMap>(CM, new ResourceID('w-cm', ns));
      expect(left === undefined).toBe(!silent);
    },
  );
});

describe('cleanup with a delete postcondition that no event announces', () => {
  it('[EP-04] the finalizer kept for an unmet delete postcondition comes with a reschedule: the cleanup runs again without any event and completes', async () => {
    const ns = await newNamespace(bed.admin);
    const id = new ResourceID('w', ns);
    let gone = false;
    let checks = 0;
    bed.operator().register(
      { reconcile: () => UpdateControl.noUpdate<Widget>() },
      {
        resourceType: Widget,
        name: 'postcondition',
        namespaces: [ns],
        workflow: {
          dependents: [
            {
              dependent: new NoGCConfigMapDependent(),
              name: 'cm',
              // an external system's state, say: it changes without any Kubernetes event
              deletePostcondition: () => {
                checks++;
                return gone;
              },
            },
          ],
        },
      },
    );
    await bed.operators[0].start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    await waitFor(
      async () => (await bed.admin.get(CM, new ResourceID('w-cm', ns))) !== undefined,
      'dependent made',
    );
    await bed.admin.delete(Widget, id);
    // the ConfigMap's delete event runs the cleanup a second time (the postcondition still unmet);
    // from then on nothing happens to either object
    await waitFor(() => checks >= 2, 'cleanup checked the postcondition after the delete event');
    gone = true;
    await waitFor(
      async () => (await bed.admin.get(Widget, id)) === undefined,
      'rescheduled cleanup removed the finalizer',
      20_000,
    );
  });
});

describe('a reconciliation that outlives stop() writes nothing (issue 18 fix 1)', () => {
  it('[EP-19] with an app-supplied client and a short terminationTimeoutMs: no status patch, no dependent write, no client write after stop; the write is refused with ReconcileAbandonedError', async () => {
    const ns = await newNamespace(bed.admin);
    const release = gate();
    const refused: unknown[] = [];
    let started = false;
    let finished = false;
    const warnings: Array<{ message: string; fields?: LogFields }> = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message, fields) => void warnings.push({ message, fields }),
      error: () => undefined,
      child: () => logger,
    };
    const op = bed.operator({ client: bed.admin, terminationTimeoutMs: 100, logger });
    op.register(
      {
        reconcile: async (w: Widget, c: Context<Widget>) => {
          started = true;
          await release.promise;
          try {
            await c.client.create(CM, { metadata: { name: 'late', namespace: ns }, data: { a: 'b' } });
          } catch (error) {
            refused.push(error);
          }
          try {
            await c.resourceOperations().jsonMergePatchPrimary(w, { metadata: { labels: { late: 'yes' } } });
          } catch (error) {
            refused.push(error);
          }
          finished = true;
          w.status = { observed: 'late' };
          return UpdateControl.patchStatus(w);
        },
      },
      { resourceType: Widget, name: 'slow', namespaces: [ns] },
    );
    await op.start();
    await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
    // the reconcile is running (waiting on the gate) when stop() gives up on it
    await waitFor(() => started, 'reconcile running');
    const writesBefore = bed.server.requests.writes({ namespace: ns });
    await op.stop();
    release.open();
    await waitFor(() => finished, 'the abandoned reconcile ran on');
    await waitFor(() => refused.length >= 2, 'both writes refused');
    expect(refused).toHaveLength(2);
    // its status patch comes after: the dispatcher refuses it too and says so
    await waitFor(
      () => warnings.some((w) => w.message.startsWith('write refused') && w.fields?.write === 'patch status'),
      'status patch refused',
    );
    expect(refused.every((e) => e instanceof ReconcileAbandonedError)).toBe(true);
    expect((refused[0] as ReconcileAbandonedError).code).toBe('ReconcileAbandoned');
    expect((refused[0] as ReconcileAbandonedError).resourceId.key).toBe(`${ns}/w`);
    expect(bed.server.requests.writes({ namespace: ns })).toBe(writesBefore);
    expect(await bed.admin.get(CM, new ResourceID('late', ns))).toBeUndefined();
    expect((await bed.admin.get(Widget, new ResourceID('w', ns)))?.status).toBeUndefined();
  });

  it("[EP-19] the client's own retry of the dispatcher's status patch is not sent after stop (429 with Retry-After before the stop)", async () => {
    const ns = await newNamespace(bed.admin);
    let retried = 0;
    const client = KubernetesClient.fromKubeConfig(bed.server.kubeConfig(), {
      metrics: { clientRetry: () => void retried++ },
    });
    const warnings: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => void warnings.push(message),
      error: () => undefined,
      child: () => logger,
    };
    const op = bed.operator({ client, terminationTimeoutMs: 100, logger });
    op.register(
      {
        reconcile: (w: Widget) => {
          w.status = { observed: 'late' };
          return Promise.resolve(UpdateControl.patchStatus(w));
        },
      },
      { resourceType: Widget, name: 'retry-after-stop', namespaces: [ns] },
    );
    bed.server.faults.failNext({
      verb: 'patch',
      resource: 'widgets',
      subresource: 'status',
      namespace: ns,
      code: 429,
      retryAfterSeconds: 2,
    });
    try {
      await op.start();
      await bed.admin.create(Widget, widget('w', ns, { value: 'one' }));
      // the status patch was refused once; its retry waits for the Retry-After
      await waitFor(() => retried >= 1, 'status patch retried by the client');
      await op.stop();
      const id = new ResourceID('w', ns);
      await waitFor(
        async () =>
          warnings.some((m) => m.startsWith('write refused')) ||
          (await bed.admin.get(Widget, id))?.status !== undefined,
        'the abandoned write refused or sent',
      );
      expect((await bed.admin.get(Widget, id))?.status).toBeUndefined();
    } finally {
      client.close();
    }
  });
});
