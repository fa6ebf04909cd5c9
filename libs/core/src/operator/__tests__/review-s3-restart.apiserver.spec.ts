import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import type { Context } from '../../api/context.js';
import { UpdateControl } from '../../api/controls.js';
import type { EventSourceContext } from '../../api/event-source-context.js';
import type { EventSources, Reconciler } from '../../api/reconciler.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from './support.js';

/**
 * Review s3 (issue 15 §2, H12's no-change restart cuts): a restarted operator must not reconcile a
 * primary before its secondaries' cache is synced, or the README's reconciler sees no ConfigMap,
 * cannot prove its apply a no-op and writes (or, in a reconciler that creates what it does not see,
 * fails with AlreadyExists). The ConfigMaps' list and watch are slowed with the API server's fault
 * injection so a start that does not wait for them shows. Also: the restart writes nothing.
 */
const suite = apiServerSuite();
jest.setTimeout(180_000);
const WAIT_MS = 60_000;
const CM = ResourceTypes.ConfigMap;
const N = 20;
const SLOW_MS = 1_000;

class ReadmeReconciler implements Reconciler<Widget> {
  /** Per reconciliation: the widget's name and whether its ConfigMap was in the cache. */
  readonly runs: Array<{ name: string; sawConfigMap: boolean }> = [];

  prepareEventSources(context: EventSourceContext<Widget>): EventSources {
    return { configmaps: new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context) };
  }

  async reconcile(w: Widget, context: Context<Widget>): Promise<UpdateControl<Widget>> {
    const { name, namespace, uid } = w.metadata!;
    this.runs.push({ name: name!, sawConfigMap: context.getSecondaryResource(CM) !== undefined });
    await context.resourceOperations().serverSideApply<V1ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `${name}-cm`,
        namespace,
        ownerReferences: [
          { apiVersion: Widget.apiVersion, kind: Widget.kind, name: name!, uid: uid!, controller: true },
        ],
      },
      data: { value: w.spec?.value ?? '' },
    });
    w.status = { ...w.status, observed: w.spec?.value };
    return UpdateControl.patchStatus(w);
  }
}

describe('review s3: a no-change restart', () => {
  it('[ES-19] with the secondaries listed slowly, no primary is reconciled before its ConfigMap is cached, and nothing is written', async () => {
    const ns = await newNamespace(suite.admin);
    const options = { resourceType: Widget, name: 'review-s3-restart', namespaces: [ns] };
    suite.operator().register(new ReadmeReconciler(), options);
    await suite.operators[0].start();
    for (let i = 0; i < N; i++) await suite.admin.create(Widget, widget(`w${i}`, ns, { value: `v${i}` }));
    await waitFor(
      async () =>
        (await suite.admin.list(Widget, { namespace: ns })).items.filter(
          (w) => w.status?.observed === w.spec?.value,
        ).length === N,
      'all converged',
      WAIT_MS,
    );
    await waitFor(
      async () =>
        (await suite.admin.list(CM, { namespace: ns })).items.filter((c) => c.metadata?.name?.endsWith('-cm'))
          .length === N,
      'all ConfigMaps applied',
      WAIT_MS,
    );
    await suite.operators[0].stop();
    const writes = () =>
      suite.server.requests.writes({ namespace: ns, resource: 'configmaps' }) +
      suite.server.requests.writes({ namespace: ns, resource: 'widgets' });
    const before = writes();

    const again = new ReadmeReconciler();
    suite.operator().register(again, options);
    const faults = suite.server.faults;
    faults.addLatency({ verb: 'list', resource: 'configmaps', ms: SLOW_MS });
    faults.addLatency({ verb: 'watch', resource: 'configmaps', ms: SLOW_MS });
    try {
      await suite.operators[1].start();
      await waitFor(
        () => new Set(again.runs.map((r) => r.name)).size === N,
        'every widget reconciled',
        WAIT_MS,
      );
    } finally {
      faults.clear();
    }
    expect(again.runs.filter((r) => !r.sawConfigMap)).toEqual([]);
    expect(writes() - before).toBe(0);
  });
});
