import 'reflect-metadata';
import { join } from 'node:path';
import { ResourceTypes } from '@tosdk/core';
import { createOperatorTestingModule, WaitForAbortedError } from '@tosdk/nestjs/testing';
import { describe, expect, it } from 'vitest';
import { AppModule } from '../src/app.module.js';
import { Greeting } from '../src/greeting.resource.js';

// Vitest only (the esm-vitest variant copies this file): what the README promises of Vitest, its
// test-context `signal` in a wait and `await using` of a testing module.
describe('Greeting operator under Vitest (test context)', () => {
  it('takes the test signal in a wait, gives a wait up on its own signal, and await using closes the module', async ({
    signal,
  }) => {
    let url = '';
    {
      await using t = await createOperatorTestingModule({
        imports: [AppModule],
        crds: [join(process.cwd(), 'deploy/greeting-crd.yaml')],
        http: true,
      });
      url = t.url ?? '';
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await t.adminClient.create(Greeting, {
        apiVersion: Greeting.apiVersion,
        kind: Greeting.kind,
        metadata: { name: 'context', namespace: t.namespace },
        spec: { message: 'context' },
      });
      const configMap = await t.waitForResource(ResourceTypes.ConfigMap, 'context', undefined, {
        timeoutMs: 30_000,
        signal,
      });
      expect(configMap.data?.['message']).toBe('Hello, context!');

      const giveUp = new AbortController();
      const never = t.waitForResource(ResourceTypes.ConfigMap, 'never', undefined, {
        timeoutMs: 600_000,
        signal: giveUp.signal,
      });
      giveUp.abort(new Error('given up by the test'));
      await expect(never).rejects.toBeInstanceOf(WaitForAbortedError);
      expect((await fetch(`${url}/health/readiness`)).status).toBe(200);
    }
    // the block's end closed the module: its HTTP server is gone
    await expect(fetch(`${url}/health/readiness`)).rejects.toThrow();
  }, 90_000);
});
