import { describe, expect, it } from '@jest/globals';
import { UpdateControl } from '../../api/controls.js';
import { ResourceID } from '../../api/resource-id.js';
import type { Operator } from '../../operator/operator.js';
import { LeaseType } from '../../operator/leader-election/internal/lease-lock.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';
import { HashRing } from '../hash-ring.js';
import { SHARD_GROUP_LABEL } from '../sharding-configuration.js';
import type { ShardingOptions } from '../sharding-configuration.js';

const bed = apiServerSuite();

// renewals once a second: a tampered Lease stays tampered for about one to two periods
const opts = (name: string, identity: string): ShardingOptions => ({
  name,
  identity,
  leaseNamespace: 'default',
  leaseDurationMs: 4000,
  renewDeadlineMs: 3000,
  retryPeriodMs: 1000,
});

type Tamper = 'delete' | 'holder' | 'label';

/**
 * Two replicas settle; r1 reconciles a widget of its share and is held inside the reconciliation (an
 * external call). Someone else then tampers with r1's membership Lease. Returns the overlaps seen
 * by a recorder of running reconciliations: r2 reconciling the widget while r1 still reconciles it.
 */
async function tamperWhileReconciling(
  tamper: Tamper,
): Promise<{ overlaps: string[]; r2RunsOfTarget: number }> {
  const ns = await newNamespace(bed.admin);
  const group = `t${tamper}${Date.now().toString(36)}`;
  const active = new Map<string, string>();
  const overlaps: string[] = [];
  const overlapsBefore: string[] = [];
  let tampered = false;
  let r2RunsOfTarget = 0;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let r1Entered = false;
  let target = '';
  const reconciler = (replica: string) => ({
    reconcile: async (w: Widget) => {
      const key = `${w.metadata!.namespace}/${w.metadata!.name}`;
      const holder = active.get(key);
      if (holder !== undefined && holder !== replica)
        (tampered ? overlaps : overlapsBefore).push(`${key}: ${holder} and ${replica}`);
      active.set(key, replica);
      if (replica === 'r2' && w.metadata!.name === target) r2RunsOfTarget++;
      try {
        if (replica === 'r1' && w.metadata!.name === target) {
          r1Entered = true;
          await held; // a slow external call
        }
        return UpdateControl.patchStatus<Widget>({ ...w, status: { ...(w.status ?? {}), message: replica } });
      } finally {
        if (active.get(key) === replica) active.delete(key);
      }
    },
  });
  const replicas: Operator[] = [];
  for (const id of ['r1', 'r2']) {
    const op = bed.operator({ sharding: opts(group, id) });
    op.register(reconciler(id), { resourceType: Widget, name: 'tamper', namespaces: [ns] });
    replicas.push(op);
  }
  const r2 = replicas[1];
  try {
    await Promise.all(replicas.map((r) => r.start()));
    const settled = () =>
      replicas.every((r) => r.sharding!.status().settled && r.sharding!.status().members.length === 2);
    await waitFor(settled, 'both replicas settled', 30_000);
    const ring = new HashRing(['r1', 'r2'], 128);
    target = Array.from({ length: 100 }, (_, i) => `w${i}`).find((n) => ring.ownerOf(`${ns}/${n}`) === 'r1')!;
    await bed.admin.create(Widget, widget(target, ns));
    await waitFor(() => r1Entered, 'r1 reconciling its widget', 30_000);

    const leaseId = new ResourceID(`${group}-r1`, 'default');
    const lease = (await bed.admin.get(LeaseType, leaseId))!;
    tampered = true;
    if (tamper === 'delete') {
      // e.g. `kubectl delete lease -l tosdk.io/shard-group=...` during a clean-up
      await bed.admin.delete(LeaseType, leaseId);
    } else if (tamper === 'holder') {
      await bed.admin.update(LeaseType, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: 'someone-else' },
      });
    } else {
      const labels = { ...lease.metadata!.labels };
      delete labels[SHARD_GROUP_LABEL];
      await bed.admin.update(LeaseType, { ...lease, metadata: { ...lease.metadata, labels } });
    }
    // r1 never stopped reconciling the widget: either r2 takes it over anyway (an overlap), or the
    // group settles on both replicas again with r1's Lease repaired (no overlap: the right outcome)
    const repaired = async () => {
      const l = await bed.admin.get(LeaseType, leaseId);
      return (
        l?.spec?.holderIdentity === 'r1' &&
        l.metadata?.labels?.[SHARD_GROUP_LABEL] === group &&
        settled() &&
        // every reconciliation queued by the repair had its chance to run
        r2.sharding!.status().members.length === 2
      );
    };
    let repairedSince: number | undefined;
    await waitFor(
      async () => {
        if (overlaps.length > 0) return true;
        if (!(await repaired())) {
          repairedSince = undefined;
          return false;
        }
        repairedSince ??= Date.now();
        // stable for two renew periods
        return Date.now() - repairedSince > 2000;
      },
      'r2 reconciling the widget, or the group settled on both replicas again',
      30_000,
    );
    // nothing overlapped before the Lease was touched
    expect(overlapsBefore).toEqual([]);
    return { overlaps: [...overlaps], r2RunsOfTarget };
  } finally {
    release();
    await waitFor(
      () => !active.has(`${ns}/${target}`) || active.get(`${ns}/${target}`) !== 'r1',
      'r1 done',
      10_000,
    ).catch(() => undefined);
  }
}

describe('review S8: a membership Lease changed by someone else', () => {
  it('[FINDING S8-SH1] a membership Lease deleted by someone else hands its share to the others while its holder still reconciles it: two replicas reconcile one resource at once', async () => {
    const { overlaps } = await tamperWhileReconciling('delete');
    expect(overlaps).toEqual([]);
  }, 90_000);

  it('[FINDING S8-SH1] a membership Lease whose holderIdentity someone else edited hands its share to the others at once while its holder still reconciles it', async () => {
    const { overlaps } = await tamperWhileReconciling('holder');
    expect(overlaps).toEqual([]);
  }, 90_000);

  it('[FINDING S8-SH1] a membership Lease whose shard-group label someone else removed hands its share to the others at once while its holder still reconciles it', async () => {
    const { overlaps } = await tamperWhileReconciling('label');
    expect(overlaps).toEqual([]);
  }, 90_000);
});
