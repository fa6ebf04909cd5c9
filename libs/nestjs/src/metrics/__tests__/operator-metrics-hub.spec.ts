import 'reflect-metadata';
import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import type { ControllerMetricsInfo, Metrics } from '@tosdk/core';
import { register } from 'prom-client';
import { METRICS_SINK_IDENTITY } from '../../operator.constants.js';
import { OperatorMetricsHub } from '../operator-metrics-hub.js';
import { OperatorMetricNames, OperatorMetricsModule, PrometheusOperatorMetrics } from '../index.js';

const controller = {
  name: 'maps',
  resourceType: ResourceTypes.ConfigMap,
} as unknown as ControllerMetricsInfo;
const id = new ResourceID('a', 'ns');

describe('OperatorMetricsHub', () => {
  it('[FINDING S8-NE7] logs a failing sink once and keeps feeding the others', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const hub = new OperatorMetricsHub();
      class BrokenSink implements Metrics {
        reconciliationStarted(): void {
          throw new Error('label set mismatch');
        }
      }
      const counted: string[] = [];
      hub.add(new BrokenSink());
      hub.add({ reconciliationStarted: (r: ResourceID) => void counted.push(r.name) });
      hub.reconciliationStarted(id, controller);
      hub.reconciliationStarted(id, controller);
      expect(counted).toEqual(['a', 'a']);
      const lines = warn.mock.calls.map((c) => String(c[0]));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/BrokenSink.*label set mismatch/);
    } finally {
      warn.mockRestore();
    }
  });

  it('[FINDING S8-NE8] feeds sinks of one identity once', () => {
    const hub = new OperatorMetricsHub();
    const target = {};
    let calls = 0;
    const sink = () => ({ [METRICS_SINK_IDENTITY]: target, reconciliationStarted: () => void calls++ });
    hub.add(sink());
    hub.add(sink());
    hub.reconciliationStarted(id, controller);
    expect(calls).toBe(1);
  });

  it('[FINDING S8-NE7] a later module with other durationBuckets gets its buckets', async () => {
    for (const buckets of [
      [0.5, 1],
      [0.125, 2],
    ]) {
      const module = await Test.createTestingModule({
        imports: [OperatorMetricsModule.forRoot({ defaultMetrics: false, durationBuckets: buckets })],
      }).compile();
      module.get(PrometheusOperatorMetrics).reconciliationFinished(id, controller, 'reconcile', 100);
      await module.close();
    }
    const body = await register.getSingleMetricAsString(OperatorMetricNames.reconcileDuration);
    expect(body).toContain('le="0.125"');
    expect(body).not.toContain('le="0.5"');
  });
});
