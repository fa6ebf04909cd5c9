import { describe, expect, it } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import {
  apiServerSuite,
  Gadget,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../operator/__tests__/support.js';
import type { Logger } from '../../util/logger.js';
import type { ShardingOptions } from '../sharding-configuration.js';

const bed = apiServerSuite();

const timings = (identity: string, leaseNamespace: string): ShardingOptions => ({
  identity,
  leaseNamespace,
  leaseDurationMs: 2000,
  renewDeadlineMs: 1500,
  retryPeriodMs: 250,
});

const stamp = (by: string) => ({
  reconcile: (w: Widget) =>
    Promise.resolve(
      UpdateControl.patchStatus<Widget>({ ...w, status: { ...(w.status ?? {}), message: by } }),
    ),
});

describe('review S8: shard groups', () => {
  it('[S8-guard] one sharded replica reconciles every resource that existed before it started, as without sharding', async () => {
    const ns = await newNamespace(bed.admin);
    const names = Array.from({ length: 30 }, (_, i) => `w${i}`);
    await Promise.all(names.map((n) => bed.admin.create(Widget, widget(n, ns))));
    const op = bed.operator({ sharding: { ...timings('solo', ns), name: 'solo' } });
    op.register(stamp('solo'), { resourceType: Widget, name: 'solo', namespaces: [ns] });
    await op.start();
    await waitFor(
      async () =>
        (await bed.admin.list(Widget, { namespace: ns })).items.every((w) => w.status?.message === 'solo'),
      'every widget reconciled by the single replica',
      30_000,
    );
    expect(op.sharding!.status()).toMatchObject({ members: ['solo'], settled: true, member: true });
  }, 60_000);

  it('[FINDING S8-SH7] two different operators sharded in one namespace with the default group name form one ring: resources assigned to the other operator are never reconciled', async () => {
    // e.g. two operators deployed to one "operators" namespace, each turned on with TOSDK_SHARDING=true
    const leases = await newNamespace(bed.admin);
    const ns = await newNamespace(bed.admin);
    const widgets = bed.operator({ sharding: timings('widget-op-0', leases) });
    widgets.register(stamp('widget-op'), { resourceType: Widget, name: 'widgets', namespaces: [ns] });
    const gadgets = bed.operator({ sharding: timings('gadget-op-0', leases) });
    gadgets.register(
      { reconcile: () => Promise.resolve(UpdateControl.noUpdate<Gadget>()) },
      {
        resourceType: Gadget,
        name: 'gadgets',
      },
    );
    await Promise.all([widgets.start(), gadgets.start()]);
    await waitFor(
      () => widgets.sharding!.status().settled && gadgets.sharding!.status().settled,
      'both operators settled',
      30_000,
    );
    const names = Array.from({ length: 40 }, (_, i) => `w${i}`);
    await Promise.all(names.map((n) => bed.admin.create(Widget, widget(n, ns))));
    const unreconciled = async () =>
      (await bed.admin.list(Widget, { namespace: ns })).items
        .filter((w) => w.status?.message !== 'widget-op')
        .map((w) => w.metadata!.name);
    await waitFor(async () => (await unreconciled()).length === 0, 'every widget reconciled', 10_000).catch(
      async (e: unknown) => {
        throw new Error(
          `${(e as Error).message}: ${(await unreconciled()).length}/${names.length} never reconciled; widget operator sees members ${JSON.stringify(widgets.sharding!.status().members)}`,
        );
      },
    );
  }, 60_000);

  it('[S8-SH7] replicas of one group running different controllers on a shared kind stay in one ring and log an error naming sharding.name', async () => {
    const lines: string[] = [];
    const make = (): Logger => ({
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => lines.push(message),
      error: (message) => lines.push(message),
      child: () => make(),
    });
    const leases = await newNamespace(bed.admin);
    const ns = await newNamespace(bed.admin);
    const v1 = bed.operator({ logger: make(), sharding: timings('v1-0', leases) });
    v1.register(stamp('v1'), { resourceType: Widget, name: 'widgets', namespaces: [ns] });
    const v2 = bed.operator({ sharding: timings('v2-0', leases) });
    v2.register(stamp('v2'), { resourceType: Widget, name: 'widgets-v2', namespaces: [ns] });
    await Promise.all([v1.start(), v2.start()]);
    // one ring: splitting one kind between two rings could reconcile a resource twice
    await waitFor(
      () => [v1, v2].every((o) => o.sharding!.status().settled && o.sharding!.status().members.length === 2),
      'one ring of both operators',
      30_000,
    );
    await waitFor(
      () => lines.some((l) => l.includes('sharding.name') && l.includes('widgets-v2')),
      'an error naming sharding.name and the other controllers',
      10_000,
    );
  }, 60_000);
});
