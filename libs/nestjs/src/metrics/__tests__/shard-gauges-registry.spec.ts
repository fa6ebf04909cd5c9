import 'reflect-metadata';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import type { ShardMetricsSource } from '@tosdk/core';
import { Gauge, register } from 'prom-client';
import { OperatorMetricNames, OperatorMetricsModule, PrometheusOperatorMetrics } from '../index.js';

const shard: ShardMetricsSource = {
  group: 'gauges-test',
  identity: 'replica-1',
  members: () => 2,
  settled: () => true,
  ownedResources: () => [],
};

describe('OperatorMetricsModule: the tosdk_shard_* gauges', () => {
  afterAll(() => {
    register.clear();
  });

  it("are this package's even when a gauge of the same name was registered before it, and show the shards its sinks are told of", async () => {
    register.clear();
    // someone else's gauge under the name (another library, or a stale copy of this package's)
    new Gauge({ name: OperatorMetricNames.shardInfo, help: 'not ours' });
    const moduleRef = await Test.createTestingModule({
      imports: [OperatorMetricsModule.forRoot({ defaultMetrics: false })],
    }).compile();
    try {
      moduleRef.get(PrometheusOperatorMetrics).shardingStarted(shard);
      const body = await register.metrics();
      expect(body).toContain(
        `${OperatorMetricNames.shardInfo}{shard_group="gauges-test",shard="replica-1"} 1`,
      );
      expect(body).toContain(
        `${OperatorMetricNames.shardMembers}{shard_group="gauges-test",shard="replica-1"} 2`,
      );
      expect(body).not.toContain('not ours');
      moduleRef.get(PrometheusOperatorMetrics).shardingStopped(shard);
      expect(await register.metrics()).not.toContain('replica-1');
    } finally {
      await moduleRef.close();
    }
  });
});
