import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EnvironmentConfigurationError, operatorOptionsFromEnvironment } from '@tosdk/nestjs';
import { createOperatorTestingModule, OperatorTestEnvironment, waitFor } from '@tosdk/nestjs/testing';
import type { OperatorTestingContext } from '@tosdk/nestjs/testing';
import { FixtureAppModule } from './fixtures/nest-app/app.module.js';
import { Greeting, GREETING_CRD_PATH } from './fixtures/nest-app/greeting/greeting.resource.js';

describe('sharding with the Nest module', () => {
  let env: OperatorTestEnvironment;
  let t: OperatorTestingContext;

  beforeAll(async () => {
    env = await OperatorTestEnvironment.start({ crds: [GREETING_CRD_PATH] });
    t = await createOperatorTestingModule({
      testEnvironment: env,
      imports: [
        FixtureAppModule.forRoot({
          operator: {
            autoStart: false,
            // the module option gives the group; TOSDK_SHARDING* fields are merged over it
            sharding: { name: 'nest-shards', leaseNamespace: 'default', identity: 'from-option' },
            readEnvironment: true,
            environment: {
              TOSDK_SHARDING: 'true',
              TOSDK_SHARDING_IDENTITY: 'nest-1',
              TOSDK_SHARDING_LEASE_DURATION_MS: '4000',
              TOSDK_SHARDING_RENEW_DEADLINE_MS: '3000',
              TOSDK_SHARDING_RETRY_PERIOD_MS: '250',
            },
          },
        }),
      ],
      http: true,
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await env?.stop();
  });

  it('[SH-08] the module takes sharding from its option and TOSDK_SHARDING*; health shows the shard', async () => {
    await t.operator.start();
    expect(t.operator.sharding?.configuration).toMatchObject({
      name: 'nest-shards',
      identity: 'nest-1',
      leaseDurationMs: 4000,
    });
    const body = await waitFor(async () => {
      const res = await fetch(`${t.url!}/health/readiness`);
      const json = (await res.json()) as { info?: Record<string, { shard?: { settled?: boolean } }> };
      return json.info?.['operator']?.shard?.settled ? json : undefined;
    });
    expect(body.info?.['operator']).toMatchObject({
      status: 'up',
      shard: { identity: 'nest-1', members: ['nest-1'], settled: true, member: true },
    });
  });

  it('[SH-08] /metrics carries the shard: info, members, settled and the primaries in its share', async () => {
    for (const name of ['m-1', 'm-2', 'm-3']) {
      await t.adminClient.create(Greeting, {
        apiVersion: Greeting.apiVersion,
        kind: Greeting.kind,
        metadata: { name, namespace: t.namespace },
        spec: { message: name },
      });
    }
    const shard = 'shard_group="nest-shards",shard="nest-1"';
    const owned = new RegExp(
      `^tosdk_shard_owned_resources\\{${shard},controller="greetingreconciler",group="fixtures.tosdk.io",version="v1",kind="Greeting"\\} 3$`,
      'm',
    );
    const text = await waitFor(async () => {
      const body = await (await fetch(`${t.url!}/metrics`)).text();
      return owned.test(body) ? body : undefined;
    });
    expect(text).toMatch(new RegExp(`^tosdk_shard_info\\{${shard}\\} 1$`, 'm'));
    expect(text).toMatch(new RegExp(`^tosdk_shard_members\\{${shard}\\} 1$`, 'm'));
    expect(text).toMatch(new RegExp(`^tosdk_shard_settled\\{${shard}\\} 1$`, 'm'));
  });

  it('[SH-08] a bad TOSDK_SHARDING value is a typed error naming the variable', () => {
    expect(() => operatorOptionsFromEnvironment({ TOSDK_SHARDING: 'on' })).toThrow(
      EnvironmentConfigurationError,
    );
    expect(() => operatorOptionsFromEnvironment({ TOSDK_SHARDING: 'on' })).toThrow(/TOSDK_SHARDING/);
    expect(
      operatorOptionsFromEnvironment({ TOSDK_SHARDING: 'true', TOSDK_SHARDING_NAME: 'x' }).sharding,
    ).toEqual({
      enabled: true,
      name: 'x',
    });
  });
});
