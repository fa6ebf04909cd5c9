import { describe, expect, it } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import { ResourceID } from '../../api/resource-id.js';
import type { Operator } from '../../operator/operator.js';
import { InvalidOperatorConfigurationError } from '../../operator/errors.js';
import { LeaseType } from '../../operator/leader-election/internal/lease-lock.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import type { Logger } from '../../util/logger.js';
import { HashRing } from '../hash-ring.js';
import { SHARD_ACK_ANNOTATION, SHARD_GROUP_LABEL } from '../sharding-configuration.js';
import type { ShardingOptions } from '../sharding-configuration.js';

const bed = apiServerSuite();

/** Every reconciliation of every replica: who held which key when; overlaps are recorded. */
class Recorder {
  readonly active = new Map<string, string>();
  readonly overlaps: string[] = [];
  readonly runsBy = new Map<string, number>();

  reconciler(replica: string) {
    return {
      reconcile: async (w: Widget) => {
        const key = `${w.metadata!.namespace}/${w.metadata!.name}`;
        const holder = this.active.get(key);
        if (holder !== undefined) this.overlaps.push(`${key}: ${holder} and ${replica}`);
        this.active.set(key, replica);
        this.runsBy.set(replica, (this.runsBy.get(replica) ?? 0) + 1);
        try {
          // an external call: gives a second owner the chance to overlap, were there one
          await new Promise((resolve) => setTimeout(resolve, 5));
          return UpdateControl.patchStatus<Widget>({
            ...w,
            status: { ...(w.status ?? {}), observed: w.spec?.value, message: replica },
          });
        } finally {
          if (this.active.get(key) === replica) this.active.delete(key);
        }
      },
    };
  }
}

const fast = (name: string, identity: string): ShardingOptions => ({
  name,
  identity,
  leaseNamespace: 'default',
  leaseDurationMs: 4000,
  renewDeadlineMs: 3000,
  retryPeriodMs: 250,
});

describe('sharding across operator replicas (in one process)', () => {
  it('[SH-01] three replicas split the resources, never reconcile one twice at once, and rebalance when one leaves and another joins', async () => {
    const ns = await newNamespace(bed.admin);
    const group = `g${Date.now().toString(36)}`;
    const recorder = new Recorder();
    const replicas = new Map<string, Operator>();
    const join = async (id: string) => {
      const op = bed.operator({ sharding: fast(group, id) });
      op.register(recorder.reconciler(id), { resourceType: Widget, name: 'sharded', namespaces: [ns] });
      replicas.set(id, op);
      await op.start();
      return op;
    };
    await Promise.all(['r1', 'r2', 'r3'].map(join));
    await waitFor(
      () =>
        [...replicas.values()].every(
          (r) => r.sharding!.status().settled && r.sharding!.status().members.length === 3,
        ),
      'the three replicas settled on one ring',
      30_000,
    );
    const names = Array.from({ length: 90 }, (_, i) => `w${i}`);
    await Promise.all(names.map((n) => bed.admin.create(Widget, widget(n, ns, { value: 'v1' }))));

    const owners = async (value: string) => {
      const list = await bed.admin.list(Widget, { namespace: ns });
      return list.items.every((w) => w.status?.observed === value) && list.items.length === names.length
        ? list.items.map((w) => w.status!.message!)
        : undefined;
    };
    const setAll = (value: string) =>
      Promise.all(names.map((n) => bed.admin.mergePatch(Widget, new ResourceID(n, ns), { spec: { value } })));

    let split: string[] | undefined;
    await waitFor(async () => (split = await owners('v1')) !== undefined, 'every widget reconciled', 30_000);
    const count = (ids: string[]) =>
      Object.fromEntries(['r1', 'r2', 'r3', 'r4'].map((r) => [r, ids.filter((x) => x === r).length]));
    const first = count(split!);
    // about even: each of three holds a share (90 / 3 = 30, with a consistent-hash spread)
    for (const r of ['r1', 'r2', 'r3']) expect(first[r]).toBeGreaterThanOrEqual(10);
    // every membership lease acknowledges the same ring
    await waitFor(
      async () => {
        const leases = await bed.admin.list(LeaseType, {
          namespace: 'default',
          labelSelector: `${SHARD_GROUP_LABEL}=${group}`,
        });
        const acks = new Set(leases.items.map((l) => l.metadata?.annotations?.[SHARD_ACK_ANNOTATION]));
        return leases.items.length === 3 && acks.size === 1 && !acks.has('');
      },
      'the three leases acknowledging one ring',
      30_000,
    );
    expect(replicas.get('r1')!.sharding!.status()).toMatchObject({ members: ['r1', 'r2', 'r3'] });

    // r2 leaves gracefully: its share moves to r1 and r3, nothing is left behind
    await replicas.get('r2')!.stop();
    await setAll('v2');
    await waitFor(
      async () => {
        const o = await owners('v2');
        return o !== undefined && !o.includes('r2');
      },
      'every widget reconciled by r1 or r3 after r2 left',
      30_000,
    );

    // r4 joins while the resources change: it takes a share, the others hand it over
    const r4 = join('r4');
    await setAll('v3');
    await r4;
    await waitFor(
      () => replicas.get('r4')!.sharding!.status().settled && replicas.get('r1')!.sharding!.status().settled,
      'the ring with r4 settled',
      30_000,
    );
    await setAll('v5');
    let last: string[] | undefined;
    await waitFor(
      async () => (last = await owners('v5')) !== undefined,
      'every widget reconciled after r4 joined',
      30_000,
    );
    expect(count(last!)['r4']).toBeGreaterThanOrEqual(10);
    expect(recorder.overlaps).toEqual([]);
  }, 120_000);

  it('[SH-09] a replica cut off from the API server stops, and the writes of its reconciliation still running are refused once another replica took the resource over', async () => {
    const ns = await newNamespace(bed.admin);
    const group = `f${Date.now().toString(36)}`;
    // r1's client fails every Lease request once cut off (r1 cannot renew its membership)
    const real = KubernetesClient.fromKubeConfig(bed.server.kubeConfig());
    let cutOff = false;
    const blocked = (type: unknown) => cutOff && type === LeaseType;
    const r1Client = Object.create(real) as KubernetesClient;
    r1Client.update = (type, obj, options) =>
      blocked(type) ? Promise.reject(new Error('cut off')) : real.update(type, obj, options);
    r1Client.get = (type, id) => (blocked(type) ? Promise.reject(new Error('cut off')) : real.get(type, id));
    r1Client.list = (type, options) =>
      blocked(type) ? Promise.reject(new Error('cut off')) : real.list(type, options);
    const r1Log: string[] = [];
    const capture = (): Logger => ({
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => r1Log.push(message),
      error: (message) => r1Log.push(message),
      child: () => capture(),
    });
    let hold: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (hold = resolve));
    let r1Entered = false;
    const stamp = (by: string) => ({
      reconcile: async (w: Widget) => {
        if (by === 'r1') {
          r1Entered = true;
          await held; // a hung external call
        }
        return UpdateControl.patchStatus<Widget>({ ...w, status: { ...(w.status ?? {}), message: by } });
      },
    });
    // a client instead of a kubeConfig: the membership shares it, so it is cut off too
    const r1 = bed.operator({
      kubeConfig: undefined,
      client: r1Client,
      logger: capture(),
      sharding: fast(group, 'r1'),
    });
    const r2 = bed.operator({ sharding: fast(group, 'r2') });
    r1.register(stamp('r1'), { resourceType: Widget, name: 'cut', namespaces: [ns] });
    r2.register(stamp('r2'), { resourceType: Widget, name: 'cut', namespaces: [ns] });
    try {
      await Promise.all([r1.start(), r2.start()]);
      await waitFor(
        () =>
          [r1, r2].every((r) => r.sharding!.status().settled && r.sharding!.status().members.length === 2),
        'both replicas settled',
        30_000,
      );
      const ring = new HashRing(['r1', 'r2'], 128);
      const name = Array.from({ length: 100 }, (_, i) => `w${i}`).find(
        (n) => ring.ownerOf(`${ns}/${n}`) === 'r1',
      )!;
      await bed.admin.create(Widget, widget(name, ns));
      await waitFor(() => r1Entered, 'r1 reconciling its widget', 30_000);
      cutOff = true;
      const message = async () => (await bed.admin.get(Widget, new ResourceID(name, ns)))?.status?.message;
      await waitFor(async () => (await message()) === 'r2', 'r2 took the widget over', 30_000);
      expect(r1.sharding!.status().member).toBe(false);
      hold();
      await waitFor(
        () => r1Log.some((m) => m.startsWith('write refused')),
        "r1's late write refused",
        30_000,
      );
      expect(await message()).toBe('r2');
    } finally {
      hold();
      await r1.stop();
      real.close();
    }
  }, 120_000);

  it('[SH-02] sharding and leader election together are refused with a typed error', () => {
    expect(() =>
      bed.operator({
        sharding: { identity: 'a' },
        leaderElection: { leaseName: 'x', leaseNamespace: 'default' },
      }),
    ).toThrow(InvalidOperatorConfigurationError);
  });
});
