import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ResourceID, ResourceTypes } from '@tosdk/core';
import { OperatorTestEnvironment } from '../operator-test-environment.js';
import { waitFor } from '../wait-for.js';

describe('testing helpers: what a failed wait says', () => {
  let env: OperatorTestEnvironment;
  let namespace: string;

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start();
    namespace = await env.createNamespace();
  }, 30_000);

  afterAll(async () => {
    await env?.stop();
  });

  it('"did not appear" when the object never existed', async () => {
    const wait = env.waitForResource(ResourceTypes.ConfigMap, new ResourceID('never', namespace), undefined, {
      timeoutMs: 300,
    });
    await expect(wait).rejects.toMatchObject({ code: 'WaitForTimeout' });
    await expect(wait).rejects.toThrow(`ConfigMap ${namespace}/never did not appear within 300 ms`);
  });

  it('"appeared but the condition did not hold" when it exists in another state', async () => {
    const created = await env.adminClient.create(ResourceTypes.ConfigMap, {
      metadata: { name: 'there', namespace },
      data: { ready: 'no' },
    });
    const wait = env.waitForResource(
      ResourceTypes.ConfigMap,
      new ResourceID('there', namespace),
      (cm) => cm.data?.['ready'] === 'yes',
      { timeoutMs: 300 },
    );
    await expect(wait).rejects.toThrow(
      `ConfigMap ${namespace}/there appeared (last seen at resourceVersion ${created.metadata!.resourceVersion}) but the condition did not hold within 300 ms`,
    );
    await expect(wait).rejects.not.toThrow(/did not appear/);
  });

  it('waitFor names its description, and a description function is asked at the timeout', async () => {
    await expect(waitFor(() => false, { timeoutMs: 100, description: 'the moon' })).rejects.toThrow(
      'the moon did not hold within 100 ms',
    );
    let polls = 0;
    await expect(
      waitFor(
        () => {
          polls++;
          return undefined;
        },
        { timeoutMs: 100, intervalMs: 10, description: () => `nothing after ${polls} polls` },
      ),
    ).rejects.toThrow(new RegExp(`nothing after ${'\\d+'} polls within 100 ms`));
    expect(polls).toBeGreaterThan(1);
  });
});
