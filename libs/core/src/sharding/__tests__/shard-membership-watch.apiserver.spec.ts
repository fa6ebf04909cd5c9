import { afterEach, describe, expect, it } from '@jest/globals';
import { ResourceID } from '../../api/resource-id.js';
import type { ResourceType } from '../../api/resource-type.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import type { WatchOptions } from '../../client/types.js';
import { LeaseType } from '../../operator/leader-election/internal/lease-lock.js';
import { FakeClock, flush } from '../../operator/leader-election/__tests__/fake-clock.js';
import { apiServerSuite, waitFor } from '../../operator/__tests__/support.js';
import { consoleLogger } from '../../util/logger.js';
import { ShardMembership } from '../shard-membership.js';
import type { ShardClient } from '../shard-membership.js';
import type { ShardingOptions } from '../sharding-configuration.js';

const bed = apiServerSuite();

const options = (name: string, identity: string): ShardingOptions => ({
  name,
  identity,
  leaseNamespace: 'default',
  leaseDurationMs: 4000,
  renewDeadlineMs: 3000,
  retryPeriodMs: 1000,
});

/**
 * A client of the server counting its Lease lists. `watch: 'none'` removes `watch`; `'stallable'`
 * forwards the real watch until `stall()`, after which every stream delivers nothing more (as a
 * half-open connection does) until it is aborted.
 */
function leaseClient(watch?: 'none' | 'stallable'): {
  client: ShardClient;
  lists: () => number;
  stall: () => void;
} {
  const real = KubernetesClient.fromKubeConfig(bed.server.kubeConfig());
  clients.push(real);
  let lists = 0;
  let stalled = false;
  const client = Object.create(real) as Omit<KubernetesClient, 'watch'> &
    Partial<Pick<KubernetesClient, 'watch'>>;
  client.list = (type, opts) => {
    if ((type as ResourceType) === LeaseType) lists++;
    return real.list(type, opts);
  };
  if (watch === 'none') client.watch = undefined;
  if (watch === 'stallable') {
    client.watch = ((type: ResourceType, opts: WatchOptions = {}) => ({
      [Symbol.asyncIterator]: () => {
        const inner = real.watch(type, opts)[Symbol.asyncIterator]();
        const hang = () =>
          new Promise<IteratorResult<never>>((resolve) => {
            const end = () => resolve({ done: true, value: undefined });
            if (opts.signal?.aborted) end();
            else opts.signal?.addEventListener('abort', end, { once: true });
          });
        return {
          next: async () => {
            if (stalled) return hang();
            const result = await inner.next();
            return stalled ? hang() : result;
          },
          return: () => inner.return?.() ?? Promise.resolve({ done: true, value: undefined }),
        };
      },
    })) as KubernetesClient['watch'];
  }
  return { client, lists: () => lists, stall: () => (stalled = true) };
}

const clients: KubernetesClient[] = [];
const members: ShardMembership[] = [];
afterEach(async () => {
  await Promise.all(members.splice(0).map((m) => m.stop({ release: true })));
  for (const c of clients.splice(0)) c.close();
});

function member(
  group: string,
  identity: string,
  clock: FakeClock,
  watch?: 'none' | 'stallable',
): { membership: ShardMembership; lists: () => number; stall: () => void } {
  const { client, lists, stall } = leaseClient(watch);
  const membership = new ShardMembership(options(group, identity), client, {
    clock,
    logger: process.env.H7DBG ? consoleLogger('debug') : undefined,
  });
  members.push(membership);
  return { membership, lists, stall };
}

/**
 * Moves the fake clock by `ms`, then waits (real time) until each of `identities` has renewed its
 * Lease within the last period of fake time: its step ran, however slow the machine is.
 */
async function advance(clock: FakeClock, ms: number, group: string, identities: string[]): Promise<void> {
  await clock.advance(ms);
  await waitFor(
    async () => {
      for (const id of identities) {
        const lease = await bed.admin.get(LeaseType, new ResourceID(`${group}-${id}`, 'default'));
        const renewed = Date.parse(String(lease?.spec?.renewTime ?? ''));
        if (!(renewed >= clock.now() - 1000)) return false;
      }
      return true;
    },
    `${identities.join(', ')} renewed at fake time ${clock.now()}`,
    20_000,
  );
}

const settledOn = (m: ShardMembership, ids: string[]) => {
  const s = m.status();
  return s.settled && JSON.stringify(s.members) === JSON.stringify(ids);
};

describe('shard membership read by a watch', () => {
  it('[SH-10] a join, the acknowledgements and a graceful leave are seen through watch events, with no period passing and no list after the first', async () => {
    const group = `w${Date.now().toString(36)}`;
    // time never moves: no renewal or periodic read ever runs after start()
    const clock = new FakeClock();
    const a = member(group, 'a', clock);
    const b = member(group, 'b', clock);
    await a.membership.start();
    expect(settledOn(a.membership, ['a'])).toBe(true);
    const listsAfterStart = a.lists();

    await b.membership.start();
    await waitFor(
      () => settledOn(a.membership, ['a', 'b']) && settledOn(b.membership, ['a', 'b']),
      'both replicas settled on the ring of a and b',
      20_000,
    );
    // the owners split: each key has exactly one owner
    const keys = Array.from({ length: 200 }, (_, i) => `ns/k${i}`);
    const ownedByA = keys.filter((k) => a.membership.current().owns(k));
    const ownedByB = keys.filter((k) => b.membership.current().owns(k));
    expect(ownedByA.length + ownedByB.length).toBe(keys.length);
    expect(ownedByA.filter((k) => ownedByB.includes(k))).toEqual([]);
    expect(ownedByA.length).toBeGreaterThan(0);
    expect(ownedByB.length).toBeGreaterThan(0);

    // b leaves: it deletes its Lease; a sees the delete event and takes everything
    members.splice(members.indexOf(b.membership), 1);
    await b.membership.stop({ release: true });
    await waitFor(() => settledOn(a.membership, ['a']), 'a alone after b left', 20_000);
    expect(keys.every((k) => a.membership.current().owns(k))).toBe(true);
    expect(clock.now()).toBe(new FakeClock().now());
    expect(a.lists()).toBe(listsAfterStart);
  }, 60_000);

  it('[SH-11] without a watch (a client without watch), membership falls back to a list every period', async () => {
    const group = `l${Date.now().toString(36)}`;
    const clock = new FakeClock();
    const a = member(group, 'a', clock, 'none');
    const b = member(group, 'b', clock, 'none');
    await a.membership.start();
    await b.membership.start();
    // b saw a in its first list; a learns of b only at its next period
    await flush();
    expect(a.membership.status().members).toEqual(['a']);
    const before = a.lists();
    for (
      let i = 0;
      i < 6 && !(settledOn(a.membership, ['a', 'b']) && settledOn(b.membership, ['a', 'b']));
      i++
    )
      await advance(clock, 500, group, ['a', 'b']);
    expect(settledOn(a.membership, ['a', 'b'])).toBe(true);
    expect(settledOn(b.membership, ['a', 'b'])).toBe(true);
    expect(a.lists()).toBeGreaterThan(before);
  }, 60_000);

  it('[SH-12] a stalled watch never makes a live member count as dead: expiry is confirmed by a fresh list', async () => {
    const group = `s${Date.now().toString(36)}`;
    const clock = new FakeClock();
    const a = member(group, 'a', clock, 'stallable');
    const b = member(group, 'b', clock);
    await b.membership.start();
    await a.membership.start();
    for (
      let i = 0;
      i < 6 && !(settledOn(a.membership, ['a', 'b']) && settledOn(b.membership, ['a', 'b']));
      i++
    )
      await advance(clock, 500, group, ['a', 'b']);
    expect(settledOn(a.membership, ['a', 'b'])).toBe(true);
    // a's watch cache is current; then its stream stalls: b keeps renewing, a's watch shows none of it
    a.stall();
    const listsBefore = a.lists();
    for (let t = 0; t < 20_000; t += 500) {
      await advance(clock, 500, group, ['a', 'b']);
      expect(a.membership.status().members).toEqual(['a', 'b']);
    }
    expect(settledOn(b.membership, ['a', 'b'])).toBe(true);
    expect(a.lists()).toBeGreaterThan(listsBefore);

    // b dies (stops renewing, Lease left behind): a counts it dead once a fresh list confirms it
    members.splice(members.indexOf(b.membership), 1);
    await b.membership.stop();
    for (let i = 0; i < 20 && !settledOn(a.membership, ['a']); i++) await advance(clock, 500, group, ['a']);
    expect(settledOn(a.membership, ['a'])).toBe(true);
  }, 60_000);

  it('[SH-16] a new ring is acknowledged only after the caches were refilled for it, and a refill runs only when the share grows or shrinks', async () => {
    const group = `r${Date.now().toString(36)}`;
    const clock = new FakeClock();
    const a = member(group, 'a', clock);
    const b = member(group, 'b', clock);
    const refills = { a: [] as string[], b: [] as string[] };
    let releaseB: () => void = () => undefined;
    const participant = (id: 'a' | 'b', m: ShardMembership) => ({
      reassign: () => undefined,
      drained: () => true,
      rescope: () => {
        refills[id].push(m.status().ring ?? '');
        // b's first refill is slow: held until released
        if (id === 'b' && refills.b.length === 1) return new Promise<void>((resolve) => (releaseB = resolve));
        return Promise.resolve();
      },
    });
    a.membership.attach(participant('a', a.membership));
    b.membership.attach(participant('b', b.membership));
    await a.membership.start();
    await waitFor(() => settledOn(a.membership, ['a']), 'a alone', 20_000);
    expect(refills.a).toHaveLength(1); // its first share

    await b.membership.start();
    await waitFor(() => refills.b.length === 1, 'b refilling for the ring of a and b', 20_000);
    await flush();
    // b has not acknowledged while its refill runs, so a cannot pass the barrier either
    expect(b.membership.status().acknowledged).toBeUndefined();
    expect(a.membership.status().settled).toBe(false);
    releaseB();
    await waitFor(
      () => settledOn(a.membership, ['a', 'b']) && settledOn(b.membership, ['a', 'b']),
      'both settled once b refilled',
      20_000,
    );
    // a's share only shrank: no refill before its acknowledgement, one narrowing after the ring settled
    await waitFor(() => refills.a.length === 2, "a's narrowing", 20_000);
    expect(refills.a[1]).toBe(a.membership.status().ring);

    // b leaves: a's share only grows: one refill (before acknowledging), no narrowing after
    members.splice(members.indexOf(b.membership), 1);
    await b.membership.stop({ release: true });
    await waitFor(() => settledOn(a.membership, ['a']), 'a alone again', 20_000);
    await flush();
    expect(refills.a).toHaveLength(3);
  }, 60_000);
});
