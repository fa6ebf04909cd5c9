import { describe, expect, it } from '@jest/globals';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import { Operator } from '../../operator/operator.js';
import {
  InvalidShardingConfigurationError,
  shardingConfiguration,
  shardingEnabled,
  shardingFromEnvironment,
} from '../sharding-configuration.js';
import type { ShardingOptions } from '../sharding-configuration.js';

/** A client that is never called (the operator is only constructed, never started). */
const client = () => ({ isClosed: false, close: () => undefined }) as unknown as KubernetesClient;

const refused = (options: unknown, option: string) => {
  let thrown: unknown;
  try {
    shardingConfiguration(options as ShardingOptions, { env: {} });
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(InvalidShardingConfigurationError);
  expect((thrown as InvalidShardingConfigurationError).code).toBe('InvalidShardingConfiguration');
  expect((thrown as Error).message).toContain(option);
};

describe('review S8: sharding configuration', () => {
  it('[S8-guard] wrong types and out-of-range values are refused with a typed error naming the option', () => {
    const base = { identity: 'pod-1', leaseNamespace: 'ops' };
    refused({ ...base, leaseDurationMs: '15000' }, 'leaseDurationMs');
    refused({ ...base, leaseDurationMs: Number.NaN }, 'leaseDurationMs');
    refused({ ...base, leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 }, 'whole seconds');
    refused({ ...base, renewDeadlineMs: 20_000 }, 'renewDeadlineMs');
    refused({ ...base, retryPeriodMs: 9_000 }, 'retryPeriodMs');
    refused({ ...base, virtualNodes: 2.5 }, 'virtualNodes');
    refused({ ...base, virtualNodes: 0 }, 'virtualNodes');
    refused({ ...base, name: 'My_Group' }, 'sharding.name');
    refused({ ...base, identity: 'Pod_1' }, 'sharding.identity');
    refused({ ...base, identity: '' }, 'sharding.identity');
    refused({ ...base, leaseNamespace: 'Ops' }, 'leaseNamespace');
    refused({ ...base, shardKey: 'namespace/name' }, 'shardKey');
    refused(null, 'expected an object');
  });

  it('[S8-guard] an identity taken from HOSTNAME that cannot name a Lease is refused with a typed error', () => {
    let thrown: unknown;
    try {
      shardingConfiguration({ leaseNamespace: 'ops' }, { env: { HOSTNAME: 'Dev-Laptop.local' } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidShardingConfigurationError);
    expect((thrown as Error).message).toContain('Dev-Laptop.local');
  });

  it('[S8-guard] TOSDK_SHARDING* values that are not booleans or numbers are refused with a typed error naming the variable', () => {
    const bad: Array<[Record<string, string>, string]> = [
      [{ TOSDK_SHARDING: 'yes' }, 'TOSDK_SHARDING'],
      [
        { TOSDK_SHARDING: 'true', TOSDK_SHARDING_LEASE_DURATION_MS: '15s' },
        'TOSDK_SHARDING_LEASE_DURATION_MS',
      ],
      [{ TOSDK_SHARDING: 'true', TOSDK_SHARDING_RETRY_PERIOD_MS: 'fast' }, 'TOSDK_SHARDING_RETRY_PERIOD_MS'],
      [{ TOSDK_SHARDING: 'true', TOSDK_SHARDING_VIRTUAL_NODES: 'many' }, 'TOSDK_SHARDING_VIRTUAL_NODES'],
    ];
    for (const [env, variable] of bad) {
      expect(() => shardingFromEnvironment(env)).toThrow(InvalidShardingConfigurationError);
      expect(() => shardingFromEnvironment(env)).toThrow(variable);
    }
    expect(shardingFromEnvironment({})).toBeUndefined();
    expect(shardingFromEnvironment({ TOSDK_SHARDING: 'false', TOSDK_SHARDING_NAME: 'x' })).toEqual({
      enabled: false,
      name: 'x',
    });
    // a number out of range from the environment still fails with the typed error on use
    const options = shardingFromEnvironment({ TOSDK_SHARDING: 'true', TOSDK_SHARDING_VIRTUAL_NODES: '-3' })!;
    expect(() => shardingConfiguration({ ...options, identity: 'a', leaseNamespace: 'ops' })).toThrow(
      InvalidShardingConfigurationError,
    );
  });

  it('[S8-guard] an Operator with invalid sharding options throws the typed error from its constructor', () => {
    const c = client();
    try {
      expect(
        () =>
          new Operator({
            client: c,
            currentNamespace: 'ops',
            sharding: { identity: 'a', leaseNamespace: 'ops', renewDeadlineMs: 30_000 },
          }),
      ).toThrow(InvalidShardingConfigurationError);
      // sharding off: no validation, no membership
      const off = new Operator({
        client: c,
        currentNamespace: 'ops',
        sharding: { enabled: false, renewDeadlineMs: 30_000 },
      });
      expect(off.sharding).toBeUndefined();
    } finally {
      c.close();
    }
  });

  it("[FINDING S8-SH8] sharding.enabled given as the string 'false' (an untyped config file) turns sharding ON instead of being refused", () => {
    const options = {
      enabled: 'false',
      identity: 'a',
      leaseNamespace: 'ops',
    } as unknown as ShardingOptions;
    let thrown: unknown;
    let enabled: boolean | undefined;
    try {
      enabled = shardingEnabled(options);
      if (enabled) shardingConfiguration(options, { env: {} });
    } catch (error) {
      thrown = error;
    }
    // either refused with the typed error naming `enabled`, or read as off; never silently on
    if (thrown !== undefined) {
      expect(thrown).toBeInstanceOf(InvalidShardingConfigurationError);
      expect((thrown as Error).message).toContain('enabled');
    } else {
      expect(enabled).toBe(false);
    }
  });

  it('[S8-SH8] an Operator given sharding.enabled that is not a boolean throws the typed error naming sharding.enabled', () => {
    const c = client();
    try {
      for (const enabled of ['false', 'true', 0, 1]) {
        expect(
          () =>
            new Operator({
              client: c,
              currentNamespace: 'ops',
              sharding: { enabled, identity: 'a', leaseNamespace: 'ops' } as unknown as ShardingOptions,
            }),
        ).toThrow(/sharding\.enabled/);
      }
      expect(() =>
        shardingConfiguration({ enabled: 'no' } as unknown as ShardingOptions, { env: {} }),
      ).toThrow(InvalidShardingConfigurationError);
    } finally {
      c.close();
    }
  });
});
