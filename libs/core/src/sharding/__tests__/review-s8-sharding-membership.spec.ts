import { afterEach, describe, expect, it } from '@jest/globals';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { LeaseType } from '../../operator/leader-election/internal/lease-lock.js';
import { FakeClock } from '../../operator/leader-election/__tests__/fake-clock.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';
import type { Logger } from '../../util/logger.js';
import { HashRing } from '../hash-ring.js';
import { ShardMembership } from '../shard-membership.js';
import {
  ShardingLeaseNamespaceNotFoundError,
  ShardingLeasePermissionError,
} from '../sharding-configuration.js';
import type { ShardingOptions } from '../sharding-configuration.js';

const bed = apiServerSuite();

const fast = (name: string, identity: string, more: Partial<ShardingOptions> = {}): ShardingOptions => ({
  name,
  identity,
  leaseNamespace: 'default',
  leaseDurationMs: 2000,
  renewDeadlineMs: 1500,
  retryPeriodMs: 250,
  ...more,
});

/** A logger keeping warnings and errors (with their fields) as text. */
function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const make = (): Logger => ({
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => lines.push(`${message} ${JSON.stringify(fields ?? {})}`),
    error: (message, fields) => lines.push(`${message} ${JSON.stringify(fields ?? {})}`),
    child: () => make(),
  });
  return { logger: make(), lines };
}

const clients: KubernetesClient[] = [];
const members: ShardMembership[] = [];
afterEach(async () => {
  await Promise.all(members.splice(0).map((m) => m.stop({ release: true })));
  for (const c of clients.splice(0)) c.close();
});

function member(options: ShardingOptions, logger?: Logger, clock?: FakeClock): ShardMembership {
  const client = KubernetesClient.fromKubeConfig(bed.server.kubeConfig());
  clients.push(client);
  const m = new ShardMembership(options, client, { logger, clock });
  members.push(m);
  return m;
}

const group = (prefix: string) => `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const keys = Array.from({ length: 200 }, (_, i) => `ns/k${i}`);
const settledOn = (m: ShardMembership, ids: string[]) =>
  m.status().settled && JSON.stringify(m.status().members) === JSON.stringify(ids);

describe('review S8: shard membership', () => {
  it('[S8-guard] a single replica owns every key once settled, and two replicas split the keys with no key owned twice or by nobody', async () => {
    const g = group('one');
    const a = member(fast(g, 'a'));
    await a.start();
    await waitFor(() => settledOn(a, ['a']), 'a alone settled', 20_000);
    expect(keys.every((k) => a.current().owns(k))).toBe(true);
    const b = member(fast(g, 'b'));
    await b.start();
    await waitFor(() => settledOn(a, ['a', 'b']) && settledOn(b, ['a', 'b']), 'a and b settled', 20_000);
    const ring = new HashRing(['a', 'b'], 128);
    for (const k of keys) {
      expect([a.current().owns(k), b.current().owns(k)]).toEqual([
        ring.ownerOf(k) === 'a',
        ring.ownerOf(k) === 'b',
      ]);
    }
  }, 60_000);

  it('[S8-guard] stop() clears every timer and, with release, deletes the Lease; no renewal recreates it afterwards', async () => {
    const g = group('stop');
    const clock = new FakeClock(Date.now());
    const a = member(fast(g, 'a'), undefined, clock);
    await a.start();
    const id = new ResourceID(`${g}-a`, 'default');
    expect(await bed.admin.get(LeaseType, id)).toBeDefined();
    await a.stop({ release: true });
    expect(await bed.admin.get(LeaseType, id)).toBeUndefined();
    expect(a.status().member).toBe(true); // still within its renew deadline; but nothing runs any more
    await clock.advance(10_000);
    expect(clock.pending).toBe(0);
    expect(await bed.admin.get(LeaseType, id)).toBeUndefined();
  }, 60_000);

  it('[S8-guard] a few 500 answers to Lease updates do not cost a replica its share (renewed on the next period)', async () => {
    const g = group('err');
    const a = member(fast(g, 'a'));
    const b = member(fast(g, 'b'));
    await Promise.all([a.start(), b.start()]);
    await waitFor(() => settledOn(a, ['a', 'b']) && settledOn(b, ['a', 'b']), 'a and b settled', 20_000);
    const ring = a.status().ring;
    bed.server.faults.failNext({ verb: 'update', resource: 'leases', code: 500, times: 2 });
    bed.server.faults.failNext({ verb: 'update', resource: 'leases', code: 409, times: 1 });
    // both keep renewing: a later Lease of each shows a renewTime after the faults were used up
    const since = Date.now();
    await waitFor(
      async () => {
        for (const id of ['a', 'b']) {
          const l = await bed.admin.get(LeaseType, new ResourceID(`${g}-${id}`, 'default'));
          if (!(Date.parse(String(l?.spec?.renewTime)) > since + 500)) return false;
        }
        return true;
      },
      'both renewed after the faults',
      20_000,
    );
    expect(a.status()).toMatchObject({ settled: true, member: true, ring });
    expect(b.status()).toMatchObject({ settled: true, member: true, ring });
  }, 60_000);

  it('[FINDING S8-SH3] a leaseNamespace that does not exist: start() succeeds, the replica never joins and reconciles nothing, and nothing is logged', async () => {
    const { logger, lines } = capture();
    const ns = await newNamespace(bed.admin);
    const op = bed.operator({
      logger,
      sharding: fast(group('nons'), 'a', { leaseNamespace: 'no-such-ns' }),
    });
    const seen: string[] = [];
    op.register(
      {
        reconcile: (w: Widget) => {
          seen.push(w.metadata!.name!);
          return Promise.resolve({} as never);
        },
      },
      { resourceType: Widget, name: 'nons', namespaces: [ns] },
    );
    await bed.admin.create(Widget, widget('w1', ns));
    let outcome: unknown;
    void op.start().then(
      () => (outcome = 'started'),
      (e: unknown) => (outcome = e),
    );
    // a clear error is what the user needs: start() rejecting, or at least a warning naming the
    // namespace; the widget is never reconciled
    await waitFor(
      () =>
        (outcome instanceof Error && outcome.message.includes('no-such-ns')) ||
        lines.some((l) => l.includes('no-such-ns')),
      'an error or a warning naming the missing lease namespace',
      8_000,
    ).catch((e: unknown) => {
      throw new Error(
        `${(e as Error).message}; start() ${String(outcome)}, member=${String(op.sharding!.status().member)}, reconciled=${JSON.stringify(seen)}, logged=${JSON.stringify(lines)}`,
      );
    });
    // start() rejects with the typed error, which says which option to change
    expect(outcome).toBeInstanceOf(ShardingLeaseNamespaceNotFoundError);
    expect((outcome as ShardingLeaseNamespaceNotFoundError).code).toBe('ShardingLeaseNamespaceNotFound');
    expect((outcome as Error).message).toContain('sharding.leaseNamespace');
    expect((outcome as Error).message).toContain('TOSDK_SHARDING_NAMESPACE');
    expect(seen).toEqual([]);
  }, 60_000);

  it('[S8-SH3] a Lease request the API server forbids (403) makes start() reject with a typed error naming the permission and the namespace', async () => {
    const g = group('deny');
    const a = member(fast(g, 'a'));
    bed.server.faults.failNext({ verb: 'get', resource: 'leases', code: 403, times: 1 });
    let thrown: unknown;
    await a.start().catch((error: unknown) => (thrown = error));
    expect(thrown).toBeInstanceOf(ShardingLeasePermissionError);
    expect((thrown as ShardingLeasePermissionError).code).toBe('ShardingLeasePermission');
    expect((thrown as Error).message).toContain('"default"');
    expect((thrown as Error).message).toContain('TOSDK_SHARDING_NAMESPACE');
    expect(a.status().member).toBe(false);
  }, 60_000);

  it('[S8-SH6] a replica restarted under the identity of a predecessor that stopped without releasing its Lease joins once that Lease expired', async () => {
    const { logger, lines } = capture();
    const g = group('succ');
    const before = member(fast(g, 'same'));
    await before.start();
    await waitFor(() => settledOn(before, ['same']), 'the predecessor settled', 20_000);
    await before.stop(); // no release: as after a crash
    const after = member(fast(g, 'same'), logger);
    await after.start();
    await waitFor(() => settledOn(after, ['same']), 'the successor settled alone', 20_000);
    expect(keys.every((k) => after.current().owns(k))).toBe(true);
    // it waited for the old Lease to expire, saying why
    expect(lines.some((l) => l.includes('sharding.identity'))).toBe(true);
  }, 60_000);

  it('[FINDING S8-SH4] replicas configured with different virtualNodes (e.g. mid rolling update) never settle: nothing is reconciled, and nothing says why', async () => {
    const { logger, lines } = capture();
    const g = group('vn');
    const a = member(fast(g, 'a', { virtualNodes: 128 }), logger);
    const b = member(fast(g, 'b', { virtualNodes: 64 }), logger);
    await Promise.all([a.start(), b.start()]);
    await waitFor(
      () =>
        (a.status().settled && b.status().settled) ||
        lines.some((l) => /virtualNodes|virtual nodes/i.test(l)),
      'a settled ring, or an error naming the virtualNodes mismatch',
      8_000,
    ).catch((e: unknown) => {
      const owned = keys.filter((k) => a.current().owns(k) || b.current().owns(k)).length;
      throw new Error(
        `${(e as Error).message}; a=${JSON.stringify(a.status())} b=${JSON.stringify(b.status())}; keys owned by anyone: ${owned}/${keys.length}; logged=${JSON.stringify(lines)}`,
      );
    });
    // the error names the option, its variable and both values
    await waitFor(
      () =>
        lines.some(
          (l) =>
            l.includes('sharding.virtualNodes') &&
            l.includes('TOSDK_SHARDING_VIRTUAL_NODES') &&
            l.includes('64') &&
            l.includes('128'),
        ),
      'an error naming sharding.virtualNodes with both values',
      8_000,
    );
  }, 60_000);

  it('[FINDING S8-SH5] a ShardMembership stopped and started again reports itself settled but owns nothing: its share of the ring is reconciled by nobody', async () => {
    const g = group('re');
    const a = member(fast(g, 'a'));
    const b = member(fast(g, 'b'));
    await Promise.all([a.start(), b.start()]);
    await waitFor(() => settledOn(a, ['a', 'b']) && settledOn(b, ['a', 'b']), 'a and b settled', 20_000);
    await a.stop({ release: true });
    await waitFor(() => settledOn(b, ['b']), 'b alone settled after a left', 20_000);
    await a.start();
    await waitFor(() => settledOn(b, ['a', 'b']), 'b settled on a and b again', 20_000);
    const orphans = () => keys.filter((k) => !a.current().owns(k) && !b.current().owns(k));
    await waitFor(() => orphans().length === 0, 'every key owned by a or b', 8_000).catch((e: unknown) => {
      throw new Error(
        `${(e as Error).message}; a=${JSON.stringify(a.status())}, ${orphans().length}/${keys.length} keys owned by nobody`,
      );
    });
  }, 60_000);

  it('[FINDING S8-SH6] two replicas given the same identity (e.g. TOSDK_SHARDING_IDENTITY set in the Deployment) both own every key, silently', async () => {
    const { logger, lines } = capture();
    const g = group('dup');
    const a = member(fast(g, 'same'), logger);
    const b = member(fast(g, 'same'), logger);
    await Promise.all([a.start(), b.start()]);
    const both = () => keys.filter((k) => a.current().owns(k) && b.current().owns(k));
    // wait until either both claim keys (the defect) or one of them reported the clash
    await waitFor(
      () => both().length > 0 || lines.some((l) => /identity/i.test(l)),
      'a duplicate-identity report, or both owning keys',
      8_000,
    ).catch(() => undefined);
    expect({ bothOwn: both().length, reported: lines.some((l) => /identity/i.test(l)) }).toEqual({
      bothOwn: 0,
      reported: true,
    });
  }, 60_000);
});
