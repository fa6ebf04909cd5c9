import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import type { ModuleMetadata } from '@nestjs/common';
import { ResourceTypes, UpdateControl } from '@tosdk/core';
import type { KubernetesResource } from '@tosdk/core';
import { Test } from '@nestjs/testing';
import { OperatorModule, Reconciler } from '../../index.js';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '../../testing/index.js';
import { OperatorMetricNames, OperatorMetricsModule } from '../index.js';

/** Names of the objects reconciled (each object of this file once: noUpdate, no own writes). */
const reconciled = new Set<string>();

// only the test's objects (not the namespace's kube-root-ca.crt)
@Reconciler({ resource: ResourceTypes.ConfigMap, name: 'maps', labelSelector: 'review=s8-metrics' })
class MapsReconciler {
  reconcile(map: KubernetesResource) {
    reconciled.add(map.metadata!.name!);
    return UpdateControl.noUpdate();
  }
}
@Module({ providers: [MapsReconciler] })
class MapsModule {}

/** The value of the series of `metric` whose label set contains every one of `labels`. */
function sample(body: string, metric: string, labels: Record<string, string>): number | undefined {
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('review S8: OperatorMetricsModule', () => {
  let environment: OperatorTestEnvironment;
  beforeAll(async () => {
    environment = await OperatorTestEnvironment.start({ environment: {} });
  });
  afterAll(async () => {
    await environment?.stop();
  });

  async function reconcileOne(metrics: NonNullable<ModuleMetadata['imports']>, name: string) {
    const t = await createOperatorTestingModule({
      imports: [OperatorModule.forRoot({ readEnvironment: false }), MapsModule, ...metrics],
      testEnvironment: environment,
      http: true,
    });
    const scrape = async () => (await fetch(`${t.url}/metrics`)).text();
    const create = async (n: string) => {
      await t.adminClient.create(ResourceTypes.ConfigMap, {
        metadata: { name: n, namespace: t.namespace, labels: { review: 's8-metrics' } },
      });
      await waitFor(() => reconciled.has(n), { description: `${n} reconciled`, timeoutMs: 15_000 });
    };
    await create(name);
    return { t, scrape, create };
  }

  const started = (body: string, labels: Record<string, string> = {}) =>
    sample(body, OperatorMetricNames.reconciliationsStarted, { controller: 'maps', ...labels });
  const finished = (body: string) =>
    sample(body, `${OperatorMetricNames.reconcileDuration}_count`, { controller: 'maps' }) ?? 0;

  it('guard: one app counts one reconcile of one new object as one started reconciliation', async () => {
    const { t, scrape } = await reconcileOne(
      [OperatorMetricsModule.forRoot({ defaultMetrics: false })],
      'one',
    );
    try {
      await waitFor(async () => finished(await scrape()) >= 1, { timeoutMs: 10_000 });
      const body = await scrape();
      expect(started(body, { kind: 'ConfigMap', version: 'v1' })).toBe(finished(body));
      expect((await fetch(`${t.url}/metrics`)).headers.get('content-type')).toMatch(/text\/plain/);
    } finally {
      await t.close();
    }
  });

  it('[FINDING S8-NE7] a second app in the process with perResourceLabels: true records its reconciliations', async () => {
    // an earlier app of the process (e.g. another test of the file) registered the metrics
    // without per-resource labels
    const first = await Test.createTestingModule({
      imports: [OperatorMetricsModule.forRoot({ defaultMetrics: false })],
    }).compile();
    await first.close();
    const { t, scrape } = await reconcileOne(
      [OperatorMetricsModule.forRoot({ defaultMetrics: false, perResourceLabels: true })],
      'per-resource',
    );
    try {
      // today: prom-client refuses the extra labels ("Added label namespace is not included in
      // initial labelset"), the metrics hub swallows the error, and no series ever appears
      await waitFor(
        async () => started(await scrape(), { name: 'per-resource', namespace: t.namespace }) === 1,
        { description: 'the per-resource series of per-resource', timeoutMs: 5_000 },
      );
    } finally {
      await t.close();
    }
  });

  it('[FINDING S8-NE8] OperatorMetricsModule imported by two modules of one app counts each reconciliation once', async () => {
    @Module({ imports: [OperatorMetricsModule.forRoot({ defaultMetrics: false })] })
    class FeatureWithMetrics {}
    const { t, scrape, create } = await reconcileOne(
      [OperatorMetricsModule.forRoot({ defaultMetrics: false }), FeatureWithMetrics],
      'twice-1',
    );
    try {
      const before = await scrape();
      await create('twice-2');
      await waitFor(async () => finished(await scrape()) > finished(before), { timeoutMs: 10_000 });
      // one new object, one reconciliation: today both sinks count it (2)
      expect(started(await scrape())! - started(before)!).toBe(1);
    } finally {
      await t.close();
    }
  });
});
