import { describe, expect, it } from '@jest/globals';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { defineResource, ReconcileError, ResourceID } from '@tosdk/core';
import type { Metrics } from '@tosdk/core';
import { OperatorMetricsHub } from '../operator-metrics-hub.js';
import { PrometheusOperatorMetrics } from '../prometheus-operator-metrics.js';

const type = defineResource({ group: 'sample.tosdk.io', version: 'v1', kind: 'WebPage' });
const controller = { name: 'webpage', resourceType: type };
const id = new ResourceID('page', 'web');

function make(perResourceLabels: boolean) {
  const registry = new Registry();
  const labelNames = [
    'controller',
    'group',
    'version',
    'kind',
    ...(perResourceLabels ? ['namespace', 'name'] : []),
  ];
  const counter = (name: string, extra: string[] = []) =>
    new Counter({ name, help: name, labelNames: [...labelNames, ...extra], registers: [registry] });
  const histogram = (name: string) => new Histogram({ name, help: name, labelNames, registers: [registry] });
  const metrics = new PrometheusOperatorMetrics(
    { perResourceLabels },
    {
      started: counter('started'),
      succeeded: counter('succeeded'),
      failed: counter('failed', ['error']),
      retries: counter('retries'),
      events: counter('events'),
      cleanups: counter('cleanups'),
      queueSize: new Gauge({ name: 'queue', help: 'q', registers: [registry] }),
      inFlight: new Gauge({ name: 'inflight', help: 'i', registers: [registry] }),
      reconcileDuration: histogram('reconcile_seconds'),
      cleanupDuration: histogram('cleanup_seconds'),
    },
  );
  return { registry, metrics };
}

describe('PrometheusOperatorMetrics', () => {
  it('labels by controller, group, version and kind, and the failure by the error code of its cause', async () => {
    const { registry, metrics } = make(false);
    metrics.controllerRegistered(controller);
    metrics.receivedEvent({ resourceId: id }, controller);
    metrics.reconciliationStarted(id, controller);
    const cause = Object.assign(new Error('conflict'), { code: 'KubernetesApiError' });
    metrics.reconcileFailed(
      id,
      controller,
      'reconcile',
      new ReconcileError('failed', 'webpage', id, { cause }),
    );
    metrics.reconcileFailed(id, controller, 'reconcile', new TypeError('bad'));
    metrics.retrying(id, controller, 1, 2000);
    metrics.reconciliationFinished(id, controller, 'reconcile', 250);
    metrics.reconciliationFinished(id, controller, 'cleanup', 1000);
    metrics.cleanupDone(id, controller);
    metrics.executorChanged(3, 2);
    const text = await registry.metrics();
    const l = 'controller="webpage",group="sample.tosdk.io",version="v1",kind="WebPage"';
    expect(text).toContain(`events{${l}} 1`);
    expect(text).toContain(`started{${l}} 1`);
    expect(text).toContain(`succeeded{${l}} 0`);
    expect(text).toContain(`failed{${l},error="KubernetesApiError"} 1`);
    expect(text).toContain(`failed{${l},error="TypeError"} 1`);
    expect(text).toContain(`retries{${l}} 1`);
    expect(text).toContain(`cleanups{${l}} 1`);
    expect(text).toContain(`reconcile_seconds_sum{${l}} 0.25`);
    expect(text).toContain(`cleanup_seconds_sum{${l}} 1`);
    expect(text).toContain('queue 3');
    expect(text).toContain('inflight 2');
  });

  it('adds namespace and name labels only when asked', async () => {
    const { registry, metrics } = make(true);
    metrics.reconciliationStarted(id, controller);
    expect(await registry.metrics()).toContain('namespace="web",name="page"} 1');
  });
});

describe('OperatorMetricsHub', () => {
  it('forwards every hook to each sink once, and a throwing sink does not stop the others', () => {
    const hub = new OperatorMetricsHub();
    const calls: string[] = [];
    const broken: Metrics = {
      reconciliationStarted: () => {
        throw new Error('sink down');
      },
    };
    const good: Metrics = {
      reconciliationStarted: (i) => calls.push(i.key),
      executorChanged: (q) => calls.push(`q${q}`),
    };
    hub.add(broken);
    hub.add(good);
    hub.add(good);
    hub.reconciliationStarted(id, controller);
    hub.executorChanged(4, 0);
    expect(calls).toEqual(['web/page', 'q4']);
  });
});
