import { describe, expect, it } from '@jest/globals';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { OperatorMetricsHub } from '../operator-metrics-hub.js';
import { OperatorMetricNames } from '../operator-metric-names.js';
import { PrometheusOperatorMetrics } from '../prometheus-operator-metrics.js';

describe('tosdk_client_retries_total', () => {
  it('counts the retries the Kubernetes client reports (Metrics.clientRetry), by verb and reason, through the hub', async () => {
    const registry = new Registry();
    const counter = (name: string) => new Counter({ name, help: name, registers: [registry] });
    const gauge = (name: string) => new Gauge({ name, help: name, registers: [registry] });
    const histogram = (name: string) => new Histogram({ name, help: name, registers: [registry] });
    const metrics = new PrometheusOperatorMetrics(
      {},
      {
        started: counter('started'),
        succeeded: counter('succeeded'),
        failed: counter('failed'),
        retries: counter('retries'),
        events: counter('events'),
        cleanups: counter('cleanups'),
        queueSize: gauge('queue'),
        inFlight: gauge('inflight'),
        reconcileDuration: histogram('reconcile_seconds'),
        cleanupDuration: histogram('cleanup_seconds'),
        clientRetries: new Counter({
          name: OperatorMetricNames.clientRetries,
          help: 'client retries',
          labelNames: ['verb', 'reason'],
          registers: [registry],
        }),
      },
    );
    const hub = new OperatorMetricsHub();
    hub.add(metrics);
    hub.clientRetry('apply', '500');
    hub.clientRetry('apply', '500');
    hub.clientRetry('get', '429');
    const text = await registry.metrics();
    expect(text).toContain('tosdk_client_retries_total{verb="apply",reason="500"} 2');
    expect(text).toContain('tosdk_client_retries_total{verb="get",reason="429"} 1');
  });
});
