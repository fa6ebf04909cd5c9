import { describe, expect, it } from '@jest/globals';
import { HashRing } from '../hash-ring.js';
import {
  InvalidShardingConfigurationError,
  shardingConfiguration,
  shardingEnabled,
  shardingFromEnvironment,
} from '../sharding-configuration.js';

const keys = Array.from({ length: 3000 }, (_, i) => `ns-${i % 7}/item-${i}`);

describe('hash ring', () => {
  it('[SH-04] splits 3,000 keys about evenly over three members, the same on every replica whatever the order', () => {
    const a = new HashRing(['p1', 'p2', 'p3'], 128);
    const b = new HashRing(['p3', 'p1', 'p2'], 128);
    expect(b.fingerprint).toBe(a.fingerprint);
    const counts = new Map<string, number>();
    for (const k of keys) {
      const owner = a.ownerOf(k)!;
      expect(b.ownerOf(k)).toBe(owner);
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    for (const m of ['p1', 'p2', 'p3']) {
      expect(counts.get(m)).toBeGreaterThan(700);
      expect(counts.get(m)).toBeLessThan(1300);
    }
    expect(new HashRing([], 128).ownerOf('x')).toBeUndefined();
  });

  it('[SH-05] a member leaving moves only its own keys; one joining takes keys only to itself', () => {
    const three = new HashRing(['p1', 'p2', 'p3'], 128);
    const two = new HashRing(['p1', 'p3'], 128);
    const four = new HashRing(['p1', 'p2', 'p3', 'p4'], 128);
    expect(two.fingerprint).not.toBe(three.fingerprint);
    let moved = 0;
    for (const k of keys) {
      if (three.ownerOf(k) !== 'p2') expect(two.ownerOf(k)).toBe(three.ownerOf(k));
      if (four.ownerOf(k) !== 'p4') expect(four.ownerOf(k)).toBe(three.ownerOf(k));
      else moved++;
    }
    expect(moved).toBeGreaterThan(400);
    expect(moved).toBeLessThan(1100);
  });
});

describe('sharding configuration', () => {
  it('[SH-06] fills defaults and names the lease after the group and identity', () => {
    const c = shardingConfiguration({ identity: 'pod-1', leaseNamespace: 'ops' });
    expect(c).toMatchObject({
      name: 'tosdk-shards',
      leaseName: 'tosdk-shards-pod-1',
      leaseNamespace: 'ops',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      virtualNodes: 128,
    });
    expect(shardingEnabled(undefined)).toBe(false);
    expect(shardingEnabled({})).toBe(true);
    expect(shardingEnabled({ enabled: false })).toBe(false);
  });

  it.each([
    [{ name: 'Bad_Name' }, /sharding.name "Bad_Name"/],
    [{ identity: 'UPPER' }, /sharding.identity "UPPER"/],
    [{ leaseDurationMs: 1500 }, /whole seconds/],
    [{ leaseDurationMs: 5000, renewDeadlineMs: 5000 }, /greater than renewDeadlineMs/],
    [{ renewDeadlineMs: 2000, retryPeriodMs: 2000 }, /1.2 x retryPeriodMs/],
    [{ virtualNodes: 0 }, /virtualNodes must be a positive integer/],
    [{ shardKey: 'x' as never }, /shardKey must be a function/],
  ])('[SH-06] refuses %p with a typed error that names the option', (options, message) => {
    const attempt = () => shardingConfiguration({ identity: 'a', leaseNamespace: 'ops', ...options });
    expect(attempt).toThrow(InvalidShardingConfigurationError);
    expect(attempt).toThrow(message);
  });

  it('[SH-07] reads TOSDK_SHARDING* variables; none set is off; bad values are typed errors naming the variable', () => {
    expect(shardingFromEnvironment({})).toBeUndefined();
    expect(
      shardingFromEnvironment({
        TOSDK_SHARDING: 'true',
        TOSDK_SHARDING_NAME: 'web',
        TOSDK_SHARDING_IDENTITY: 'pod-2',
        TOSDK_SHARDING_LEASE_DURATION_MS: '4000',
        TOSDK_SHARDING_VIRTUAL_NODES: '64',
      }),
    ).toEqual({ enabled: true, name: 'web', identity: 'pod-2', leaseDurationMs: 4000, virtualNodes: 64 });
    expect(shardingFromEnvironment({ TOSDK_SHARDING: 'false' })).toEqual({ enabled: false });
    expect(() => shardingFromEnvironment({ TOSDK_SHARDING: 'yes' })).toThrow(/TOSDK_SHARDING must be/);
    expect(() =>
      shardingFromEnvironment({ TOSDK_SHARDING: 'true', TOSDK_SHARDING_RETRY_PERIOD_MS: 'soon' }),
    ).toThrow(InvalidShardingConfigurationError);
  });
});
