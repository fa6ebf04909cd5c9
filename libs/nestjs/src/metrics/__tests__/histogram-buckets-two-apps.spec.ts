import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { ResourceTypes, UpdateControl } from '@tosdk/core';
import type { KubernetesResource } from '@tosdk/core';
import { OperatorModule, Reconciler } from '../../index.js';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '../../testing/index.js';
import { OperatorMetricNames, OperatorMetricsModule } from '../index.js';

const reconciled = new Set<string>();

@Reconciler({ resource: ResourceTypes.ConfigMap, name: 'bucketed', labelSelector: 'test=histogram-buckets' })
class BucketedReconciler {
  reconcile(map: KubernetesResource) {
    reconciled.add(`${map.metadata!.namespace}/${map.metadata!.name}`);
    return UpdateControl.noUpdate();
  }
}
@Module({ providers: [BucketedReconciler] })
class BucketedModule {}

/** The value of `metric` for the controller `bucketed` (first series whose labels include it). */
function sample(body: string, metric: string): number {
  for (const line of body.split('\n')) {
    if (line.startsWith(`${metric}{`) && line.includes('controller="bucketed"'))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('OperatorMetricsModule: two apps of one process with other durationBuckets', () => {
  let environment: OperatorTestEnvironment;
  beforeAll(async () => {
    environment = await OperatorTestEnvironment.start({ environment: {} });
  });
  afterAll(async () => {
    await environment?.stop();
  });

  async function app(durationBuckets: number[]) {
    const t = await createOperatorTestingModule({
      imports: [
        OperatorModule.forRoot({ readEnvironment: false }),
        BucketedModule,
        OperatorMetricsModule.forRoot({ defaultMetrics: false, durationBuckets }),
      ],
      testEnvironment: environment,
      http: true,
    });
    const reconcile = async (name: string) => {
      await t.adminClient.create(ResourceTypes.ConfigMap, {
        metadata: { name, namespace: t.namespace, labels: { test: 'histogram-buckets' } },
      });
      await waitFor(() => reconciled.has(`${t.namespace}/${name}`), {
        description: `${name} reconciled`,
        timeoutMs: 15_000,
      });
    };
    return { t, reconcile, scrape: async () => (await fetch(`${t.url}/metrics`)).text() };
  }

  it('the earlier app keeps recording its durations in the exposed histogram, with the later buckets', async () => {
    const first = await app([0.5, 1]);
    const second = await app([2, 4]);
    try {
      const count = `${OperatorMetricNames.reconcileDuration}_count`;
      const before = sample(await second.scrape(), count);
      await first.reconcile('by-the-first-app');
      await waitFor(async () => sample(await second.scrape(), count) >= before + 1, {
        description: "the first app's reconciliation in the exposed histogram",
        timeoutMs: 10_000,
      });
      const body = await first.scrape();
      // one histogram is exposed, with the buckets of the module made last
      expect(body).toContain(`${OperatorMetricNames.reconcileDuration}_bucket{le="4"`);
      expect(body).not.toContain(`${OperatorMetricNames.reconcileDuration}_bucket{le="0.5"`);
      expect(sample(body, count)).toBeGreaterThanOrEqual(before + 1);
    } finally {
      await second.t.close();
      await first.t.close();
    }
  });
});
