import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { KubernetesClient } from '@tosdk/core';
import { OperatorModule } from '../../index.js';
import { OperatorMetricNames, OperatorMetricsModule } from '../index.js';

function offlineClient(): KubernetesClient {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return KubernetesClient.fromKubeConfig(kc);
}

async function serve(metrics: DynamicModule) {
  const module = await Test.createTestingModule({
    imports: [
      OperatorModule.forRoot({ client: offlineClient(), autoStart: false, readEnvironment: false }),
      metrics,
    ],
  }).compile();
  const app = module.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

describe('OperatorMetricsModule', () => {
  it('serves the scrape endpoint at a configured path (forRoot)', async () => {
    const { app, url } = await serve(
      OperatorMetricsModule.forRoot({ path: '/scrape', defaultMetrics: false }),
    );
    try {
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
      const body = await (await fetch(`${url}/scrape`)).text();
      expect(body).toContain(OperatorMetricNames.queueSize);
    } finally {
      await app.close();
    }
  });

  it('takes its options from an async factory with injected providers (forRootAsync)', async () => {
    @Module({
      providers: [{ provide: 'METRICS_PATH', useValue: '/async-metrics' }],
      exports: ['METRICS_PATH'],
    })
    class SettingsModule {}
    const { app, url } = await serve(
      OperatorMetricsModule.forRootAsync({
        imports: [SettingsModule],
        inject: ['METRICS_PATH'],
        useFactory: async (path: string) => ({ path, defaultMetrics: false }),
      }),
    );
    try {
      expect((await fetch(`${url}/metrics`)).status).toBe(404);
      const scrape = await fetch(`${url}/async-metrics`);
      expect(scrape.status).toBe(200);
      const body = await scrape.text();
      expect(body).toContain(OperatorMetricNames.reconciliationsStarted);
      expect(body).toContain(OperatorMetricNames.reconcileDuration);
    } finally {
      await app.close();
    }
  });
});
