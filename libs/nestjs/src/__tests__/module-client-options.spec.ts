import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { Test } from '@nestjs/testing';
import { KubernetesClient, ResourceID, ResourceTypes } from '@tosdk/core';
import type { Metrics } from '@tosdk/core';
import { OperatorModule } from '../index.js';

// Nothing listens on port 1: every request is refused, which the client retries whatever the verb.
function unreachable(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('the module-made KubernetesClient', () => {
  it('reports its retries to the operator metrics and takes clientOptions, as the client core makes', async () => {
    const retries: string[] = [];
    const metrics: Metrics = { clientRetry: (verb, reason) => retries.push(`${verb}:${reason}`) };
    const moduleRef = await Test.createTestingModule({
      imports: [
        OperatorModule.forRoot({
          kubeConfig: unreachable(),
          autoStart: false,
          readEnvironment: false,
          metrics,
          clientOptions: { retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 } },
        }),
      ],
    }).compile();
    try {
      const client = moduleRef.get(KubernetesClient);
      await expect(client.get(ResourceTypes.ConfigMap, new ResourceID('x', 'default'))).rejects.toThrow(
        /127\.0\.0\.1:1/,
      );
      // exactly maxRetries retries from clientOptions (the default would be 3), each reported
      expect(retries).toHaveLength(2);
      expect(retries[0]).toMatch(/^get:/);
    } finally {
      await moduleRef.close();
    }
  });
});
