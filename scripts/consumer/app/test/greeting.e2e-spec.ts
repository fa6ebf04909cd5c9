import 'reflect-metadata';
import { join } from 'node:path';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import { createOperatorTestingModule } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { AppModule } from '../src/app.module.js';
import { Greeting } from '../src/greeting.resource.js';

// Test-framework globals (describe, it, expect, beforeAll, afterAll): Vitest with globals: true and
// Jest both provide them, so this file runs unchanged under either.
describe('Greeting operator (e2e)', () => {
  let t: OperatorTestingContext;

  beforeAll(async () => {
    t = await createOperatorTestingModule({
      imports: [AppModule],
      crds: [join(process.cwd(), 'deploy/greeting-crd.yaml')],
      http: true,
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  }, 60_000);

  it('creates the ConfigMap and the status, and cleans up on delete', async () => {
    await t.adminClient.create(Greeting, {
      apiVersion: Greeting.apiVersion,
      kind: Greeting.kind,
      metadata: { name: 'world', namespace: t.namespace },
      spec: { message: 'world' },
    });
    const configMap = await t.waitForResource(ResourceTypes.ConfigMap, 'world', undefined, {
      timeoutMs: 30_000,
    });
    expect(configMap.data?.['message']).toBe('Hello, world!');
    const done = await t.waitForResource(Greeting, 'world', (g) => g.status?.configMap === 'world', {
      timeoutMs: 30_000,
    });
    expect(done.status?.observedGeneration).toBe(1);

    const readiness = await fetch(`${t.url}/health/readiness`);
    expect(readiness.status).toBe(200);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toContain('tosdk_reconciliations_succeeded_total');

    await t.adminClient.delete(Greeting, new ResourceID('world', t.namespace));
    await t.waitForDeletion(Greeting, 'world', { timeoutMs: 30_000 });
    await t.waitForDeletion(ResourceTypes.ConfigMap, 'world', { timeoutMs: 30_000 });
  }, 90_000);
});
