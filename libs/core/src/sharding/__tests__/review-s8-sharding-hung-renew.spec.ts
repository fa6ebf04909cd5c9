import { describe, expect, it } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import { ResourceID } from '../../api/resource-id.js';
import type { ResourceType } from '../../api/resource-type.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { LeaseType } from '../../operator/leader-election/internal/lease-lock.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';
import { HashRing } from '../hash-ring.js';
import type { ShardingOptions } from '../sharding-configuration.js';

const bed = apiServerSuite();

const opts = (name: string, identity: string): ShardingOptions => ({
  name,
  identity,
  leaseNamespace: 'default',
  leaseDurationMs: 3000,
  renewDeadlineMs: 2000,
  retryPeriodMs: 250,
});

/**
 * A client of the server whose Lease updates hang while `hang` is on (the API server accepted the
 * connection and never answers, as an overloaded or half-partitioned server does until the client's
 * request timeout, 60 s by default). `release()` ends the hung requests with an error.
 */
function hangingLeaseClient(): {
  client: KubernetesClient;
  hang: () => void;
  release: () => void;
  real: KubernetesClient;
} {
  const real = KubernetesClient.fromKubeConfig(bed.server.kubeConfig());
  let hanging = false;
  const waiting: Array<() => void> = [];
  const client = Object.create(real) as KubernetesClient;
  client.update = ((type: ResourceType, obj: never, options?: never) => {
    if (hanging && type === LeaseType) {
      return new Promise((_resolve, reject) => waiting.push(() => reject(new Error('socket timeout'))));
    }
    return real.update(type, obj, options);
  }) as KubernetesClient['update'];
  return {
    client,
    real,
    hang: () => (hanging = true),
    release: () => {
      hanging = false;
      for (const w of waiting.splice(0)) w();
    },
  };
}

describe('review S8: a membership renewal that hangs', () => {
  async function setup(group: string) {
    const ns = await newNamespace(bed.admin);
    const runs: Array<{ by: string; name: string; value?: string }> = [];
    const stamp = (by: string) => ({
      reconcile: async (w: Widget) => {
        runs.push({ by, name: w.metadata!.name!, value: w.spec?.value });
        return UpdateControl.patchStatus<Widget>({ ...w, status: { ...(w.status ?? {}), message: by } });
      },
    });
    const lease = hangingLeaseClient();
    // a client instead of a kubeConfig: the membership shares it, so its renewals hang
    const r1 = bed.operator({ kubeConfig: undefined, client: lease.client, sharding: opts(group, 'r1') });
    const r2 = bed.operator({ sharding: opts(group, 'r2') });
    r1.register(stamp('r1'), { resourceType: Widget, name: 'hung', namespaces: [ns] });
    r2.register(stamp('r2'), { resourceType: Widget, name: 'hung', namespaces: [ns] });
    await Promise.all([r1.start(), r2.start()]);
    await waitFor(
      () => [r1, r2].every((r) => r.sharding!.status().settled && r.sharding!.status().members.length === 2),
      'both replicas settled',
      30_000,
    );
    const ring = new HashRing(['r1', 'r2'], 128);
    const target = Array.from({ length: 100 }, (_, i) => `w${i}`).find(
      (n) => ring.ownerOf(`${ns}/${n}`) === 'r1',
    )!;
    await bed.admin.create(Widget, widget(target, ns, { value: 'v1' }));
    const message = async () => (await bed.admin.get(Widget, new ResourceID(target, ns)))?.status?.message;
    await waitFor(async () => (await message()) === 'r1', 'r1 reconciled its widget', 30_000);
    return { ns, runs, lease, r1, r2, target, message };
  }

  it('[FINDING S8-SH2] a replica whose Lease renewal hangs never stops reconciling: after another replica took its resource over, both reconcile it', async () => {
    const { ns, runs, lease, r1, target, message } = await setup(`h${Date.now().toString(36)}`);
    try {
      lease.hang();
      // r1 cannot renew: r2 takes the widget over once r1's Lease expired (leader election's rule:
      // r1 stops at renewDeadlineMs, before the others may count it dead)
      await waitFor(async () => (await message()) === 'r2', 'r2 took the widget over', 30_000);
      expect(r1.sharding!.status().member).toBe(false);
      await bed.admin.mergePatch(Widget, new ResourceID(target, ns), { spec: { value: 'after' } });
      await waitFor(
        () => runs.some((r) => r.by === 'r2' && r.name === target && r.value === 'after'),
        'r2 reconciled the change',
        30_000,
      );
      // r1 got the same watch event at the same time; give it the chance to (wrongly) reconcile
      await waitFor(
        () => runs.some((r) => r.by === 'r1' && r.value === 'after'),
        'r1 reconciling the change it no longer owns',
        3_000,
      ).catch(() => undefined);
      expect(runs.filter((r) => r.by === 'r1' && r.value === 'after')).toEqual([]);
    } finally {
      lease.release();
      await r1.stop();
      lease.real.close();
    }
  }, 90_000);

  it("[FINDING S8-SH2] stop() of a sharded operator does not return while a membership renewal hangs (it waits for the request's own timeout)", async () => {
    const { lease, r1 } = await setup(`s${Date.now().toString(36)}`);
    try {
      lease.hang();
      // the renewal in flight now hangs; stop() must still end (leader election bounds each
      // round trip by renewDeadlineMs)
      await waitFor(() => !r1.sharding!.status().member, 'r1 past its renew deadline', 30_000);
      let stopped = false;
      void r1.stop().then(() => (stopped = true));
      await waitFor(() => stopped, 'stop() returned', 10_000);
    } finally {
      lease.release();
      await r1.stop();
      lease.real.close();
    }
  }, 90_000);
});
