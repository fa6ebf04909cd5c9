import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Operator, UpdateControl } from '@tosdk/core';
import type { ShardMetricsSource } from '@tosdk/core';
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

  it('[SH-08] with a second replica, each /metrics counts only its own share; the share comes back when it leaves', async () => {
    for (let i = 4; i <= 12; i++) {
      await t.adminClient.create(Greeting, {
        apiVersion: Greeting.apiVersion,
        kind: Greeting.kind,
        metadata: { name: `m-${i}`, namespace: t.namespace },
        spec: { message: `m-${i}` },
      });
    }
    const total = 12;
    let shard: ShardMetricsSource | undefined;
    let stopped: ShardMetricsSource | undefined;
    const other = new Operator({
      kubeConfig: env.kubeConfig,
      sharding: {
        name: 'nest-shards',
        leaseNamespace: 'default',
        identity: 'core-2',
        leaseDurationMs: 4000,
        renewDeadlineMs: 3000,
        retryPeriodMs: 250,
      },
      metrics: {
        shardingStarted: (s) => (shard = s),
        shardingStopped: (s) => (stopped = s),
      },
    });
    other.register(
      { reconcile: () => Promise.resolve(UpdateControl.noUpdate<Greeting>()) },
      { resourceType: Greeting, name: 'greetings-core', namespaces: [t.namespace] },
    );
    const nestOwned = (body: string): number | undefined => {
      const m =
        /^tosdk_shard_owned_resources\{shard_group="nest-shards",shard="nest-1",controller="greetingreconciler"[^}]*\} (\d+)$/m.exec(
          body,
        );
      return m ? Number(m[1]) : undefined;
    };
    const scrape = async () => (await fetch(`${t.url!}/metrics`)).text();
    try {
      await other.start();
      const split = await waitFor(
        async () => {
          const body = await scrape();
          const mine = nestOwned(body);
          const theirs = shard?.ownedResources()[0]?.count;
          const settled = /^tosdk_shard_settled\{shard_group="nest-shards",shard="nest-1"\} 1$/m.test(body);
          const two = /^tosdk_shard_members\{shard_group="nest-shards",shard="nest-1"\} 2$/m.test(body);
          return settled &&
            two &&
            shard?.settled() &&
            mine !== undefined &&
            theirs !== undefined &&
            mine + theirs === total
            ? { mine, theirs }
            : undefined;
        },
        { timeoutMs: 30_000 },
      );
      expect(shard).toMatchObject({ group: 'nest-shards', identity: 'core-2' });
      expect(shard!.members()).toBe(2);
      // each replica counts its part of the ring, not everything its informer sees
      expect(split.mine).toBeGreaterThan(0);
      expect(split.theirs).toBeGreaterThan(0);
    } finally {
      await other.stop();
    }
    expect(stopped).toBe(shard);
    await waitFor(
      async () => {
        const body = await scrape();
        return nestOwned(body) === total &&
          /^tosdk_shard_members\{shard_group="nest-shards",shard="nest-1"\} 1$/m.test(body)
          ? true
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
  }, 60_000);

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
