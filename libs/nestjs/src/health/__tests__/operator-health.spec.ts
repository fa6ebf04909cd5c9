import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { Controller, Get } from '@nestjs/common';
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
});
