import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { Controller, Get, Module } from '@nestjs/common';
import type { DynamicModule, ModuleMetadata } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { Test } from '@nestjs/testing';
import { KubernetesClient } from '@tosdk/core';
import { OperatorModule } from '../../index.js';
import { OperatorHealthIndicator, OperatorHealthModule } from '../index.js';

@Controller('probe')
class MyProbes {
  constructor(
    private readonly health: HealthCheckService,
    private readonly operator: OperatorHealthIndicator,
  ) {}

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.operator.isReady('my-operator')]);
  }
}

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

describe('OperatorHealthModule', () => {
  it('lets the app replace the ready-made controller with its own, on the exported indicator', async () => {
    const module = await Test.createTestingModule({
      imports: [
        OperatorModule.forRoot({ client: offlineClient(), autoStart: false, readEnvironment: false }),
        OperatorHealthModule.forRoot({ controller: false }),
      ],
      controllers: [MyProbes],
    }).compile();
    const app = module.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    try {
      const url = await app.getUrl();
      expect((await fetch(`${url}/health/readiness`)).status).toBe(404);
      const mine = await fetch(`${url}/probe/ready`);
      expect(mine.status).toBe(503);
      expect(await mine.json()).toMatchObject({
        status: 'error',
        error: { 'my-operator': { status: 'down', started: false } },
      });
    } finally {
      await app.close();
    }
  });

  async function serve(health: DynamicModule, extra: Partial<ModuleMetadata> = {}) {
    const module = await Test.createTestingModule({
      imports: [
        OperatorModule.forRoot({ client: offlineClient(), autoStart: false, readEnvironment: false }),
        health,
      ],
      ...extra,
    }).compile();
    const app = module.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
  }

  it('serves the probes at configured paths (forRoot)', async () => {
    const { app, url } = await serve(
      OperatorHealthModule.forRoot({ path: 'probes', readinessPath: 'ready' }),
    );
    try {
      expect((await fetch(`${url}/health/readiness`)).status).toBe(404);
      // not started: down, with Terminus's body
      const ready = await fetch(`${url}/probes/ready`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('cache-control')).toContain('no-cache');
      expect((await fetch(`${url}/probes/liveness`)).status).toBe(503);
    } finally {
      await app.close();
    }
  });

  it('takes the paths from an async factory with injected providers (forRootAsync)', async () => {
    @Module({ providers: [{ provide: 'HEALTH_BASE', useValue: 'async-probes' }], exports: ['HEALTH_BASE'] })
    class SettingsModule {}
    const { app, url } = await serve(
      OperatorHealthModule.forRootAsync({
        imports: [SettingsModule],
        inject: ['HEALTH_BASE'],
        useFactory: async (base: string) => ({ path: base, livenessPath: 'alive' }),
      }),
    );
    try {
      expect((await fetch(`${url}/async-probes/alive`)).status).toBe(503);
      expect((await fetch(`${url}/async-probes/readiness`)).status).toBe(503);
      expect((await fetch(`${url}/health/liveness`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('keeps the default paths of one module when another uses its own', async () => {
    const first = await serve(OperatorHealthModule.forRoot());
    const second = await serve(OperatorHealthModule.forRoot({ path: 'other' }));
    try {
      expect((await fetch(`${first.url}/health/readiness`)).status).toBe(503);
      expect((await fetch(`${second.url}/other/readiness`)).status).toBe(503);
    } finally {
      await first.app.close();
      await second.app.close();
    }
  });
});
