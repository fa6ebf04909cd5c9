import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { defineResource, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { KubernetesResource } from '@tosdk/core';
import { OperatorModule, Reconciler } from '../../index.js';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '../../testing/index.js';
import { OperatorHealthModule } from '../index.js';

// a kind whose CRD is never applied
const Missing = defineResource<KubernetesResource>({
  group: 'review.tosdk.io',
  version: 'v1',
  kind: 'Missing',
});

@Reconciler({ resource: Missing, name: 'missing' })
class MissingReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}
@Reconciler({ resource: ResourceTypes.ConfigMap, name: 'maps' })
class MapsReconciler {
  reconcile() {
    return UpdateControl.noUpdate();
  }
}
@Module({ providers: [MapsReconciler, MissingReconciler] })
class BothModule {}
@Module({ providers: [MapsReconciler] })
class MapsModule {}

describe('review S8: health probes', () => {
  let environment: OperatorTestEnvironment;
  beforeAll(async () => {
    environment = await OperatorTestEnvironment.start({ environment: {} });
  });
  afterAll(async () => {
    await environment?.stop();
  });

  it('guard: a controller whose informer could not start (stopOnInformerErrorDuringStartup: false) keeps readiness down, naming it', async () => {
    const t = await createOperatorTestingModule({
      imports: [
        OperatorModule.forRoot({ readEnvironment: false, stopOnInformerErrorDuringStartup: false }),
        BothModule,
        OperatorHealthModule.forRoot(),
      ],
      testEnvironment: environment,
      http: true,
    });
    try {
      expect((await fetch(`${t.url}/health/liveness`)).status).toBe(200);
      const ready = await fetch(`${t.url}/health/readiness`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { error: { operator: { message: string } } };
      expect(body.error.operator.message).toMatch(/missing\//);
    } finally {
      await t.close();
    }
  });

  it('guard: before start both probes answer 503; after start 200 with the controllers named', async () => {
    const t = await createOperatorTestingModule({
      imports: [
        OperatorModule.forRoot({ readEnvironment: false, autoStart: false }),
        MapsModule,
        OperatorHealthModule.forRoot(),
      ],
      testEnvironment: environment,
      http: true,
    });
    try {
      expect((await fetch(`${t.url}/health/liveness`)).status).toBe(503);
      expect((await fetch(`${t.url}/health/readiness`)).status).toBe(503);
      await t.operator.start();
      const ready = await fetch(`${t.url}/health/readiness`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ info: { operator: { controllers: ['maps'] } } });
    } finally {
      await t.close();
    }
  });

  it('guard: readiness goes down when the API server goes away', async () => {
    const own = await OperatorTestEnvironment.start({ environment: {} });
    const t = await createOperatorTestingModule({
      imports: [
        OperatorModule.forRoot({ readEnvironment: false }),
        MapsModule,
        OperatorHealthModule.forRoot(),
      ],
      testEnvironment: own,
      http: true,
    });
    try {
      expect((await fetch(`${t.url}/health/readiness`)).status).toBe(200);
      await own.server!.stop();
      await waitFor(async () => (await fetch(`${t.url}/health/readiness`)).status === 503, {
        description: 'readiness down after the API server stopped',
        timeoutMs: 20_000,
      });
    } finally {
      await t.close();
      await own.stop();
    }
  });
});
