import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { Counter, Gauge, Histogram, register, Registry } from 'prom-client';
import { OperatorMetricsModule } from '../operator-metrics.module.js';
import { defineResource, ResourceID } from '@tosdk/core';
import { PrometheusOperatorMetrics } from '../prometheus-operator-metrics.js';
import type {
  OperatorPrometheusMetrics,
  PrometheusOperatorMetricsOptions,
} from '../prometheus-operator-metrics.js';

const type = defineResource({ group: 'sample.tosdk.io', version: 'v1', kind: 'WebPage' });
const controller = { name: 'webpage', resourceType: type };

/** The operator's metrics in a registry of their own, as the module registers them. */
function promMetrics(registry: Registry): OperatorPrometheusMetrics {
  const labelNames = ['controller', 'group', 'version', 'kind', 'namespace', 'name'];
  const registers = [registry];
  const counter = (name: string, extra: string[] = []) =>
    new Counter({ name, help: name, labelNames: [...labelNames, ...extra], registers });
  const histogram = (name: string) => new Histogram({ name, help: name, labelNames, registers });
  return {
    started: counter('started_total'),
    succeeded: counter('succeeded_total'),
    failed: counter('failed_total', ['error']),
    retries: counter('retries_total'),
    events: counter('events_total'),
    cleanups: counter('cleanups_total'),
    queueSize: new Gauge({ name: 'queue_size', help: 'q', registers }),
    inFlight: new Gauge({ name: 'in_flight', help: 'i', registers }),
    reconcileDuration: histogram('reconcile_seconds'),
    cleanupDuration: histogram('cleanup_seconds'),
  };
}

async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('review s14: operator metrics', () => {
  it('[FINDING S14-NM1] with perResourceLabels, the series of a deleted resource are removed after cleanupDone (they were kept forever)', async () => {
    const registry = new Registry();
    const options: PrometheusOperatorMetricsOptions = {
      perResourceLabels: true,
      perResourceRemovalDelayMs: 0,
    };
    const sink = new PrometheusOperatorMetrics(options, promMetrics(registry));
    const gone = new ResourceID('gone', 'web');
    const kept = new ResourceID('kept', 'web');
    for (const id of [gone, kept]) {
      sink.receivedEvent({ resourceId: id }, controller);
      sink.reconciliationStarted(id, controller);
      sink.reconcileFailed(id, controller, 'reconcile', new TypeError('bad'));
      sink.retrying(id, controller, 1, 10);
      sink.reconciliationStarted(id, controller);
      sink.reconcileSucceeded(id, controller);
      sink.reconciliationFinished(id, controller, 'reconcile', 20);
    }
    sink.reconciliationFinished(gone, controller, 'cleanup', 5);
    sink.cleanupDone(gone, controller);
    await until(async () => !(await registry.metrics()).includes('name="gone"'));
    const text = await registry.metrics();
    expect(text).toContain(
      'started_total{controller="webpage",group="sample.tosdk.io",version="v1",kind="WebPage",namespace="web",name="kept"} 2',
    );
    expect(text).toContain(
      'failed_total{controller="webpage",group="sample.tosdk.io",version="v1",kind="WebPage",namespace="web",name="kept",error="TypeError"} 1',
    );
    expect(text).toContain('name="kept"');
  });

  it("[FINDING S14-NM1] OperatorMetricsModule with perResourceLabels removes a deleted resource's counter and histogram series", async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        OperatorMetricsModule.forRoot({
          perResourceLabels: true,
          perResourceRemovalDelayMs: 0,
          defaultMetrics: false,
        }),
      ],
    }).compile();
    try {
      const sink = moduleRef.get(PrometheusOperatorMetrics);
      const id = new ResourceID('s14-gone', 'web');
      sink.reconciliationStarted(id, controller);
      sink.reconcileSucceeded(id, controller);
      sink.reconciliationFinished(id, controller, 'reconcile', 30);
      expect(await register.metrics()).toContain(
        'tosdk_reconciliation_duration_seconds_count{controller="webpage"',
      );
      sink.cleanupDone(id, controller);
      await until(async () => !(await register.metrics()).includes('name="s14-gone"'));
    } finally {
      await moduleRef.close();
    }
  });

  it('[FINDING S14-NM2] two operators in one process: the queue and in-flight gauges show both operators, not whichever changed last', async () => {
    const registry = new Registry();
    const shared = promMetrics(registry);
    const a = new PrometheusOperatorMetrics({}, shared);
    const b = new PrometheusOperatorMetrics({}, shared);
    a.executorChanged(3, 2);
    b.executorChanged(0, 1);
    let text = await registry.metrics();
    expect(text).toContain('queue_size 3');
    expect(text).toContain('in_flight 3');
    // an app closing takes its operator's share out
    a.onApplicationShutdown();
    text = await registry.metrics();
    expect(text).toContain('queue_size 0');
    expect(text).toContain('in_flight 1');
  });
});
