import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { LeaseType } from '../../operator/leader-election/internal/lease-lock.js';
import { defineResource } from '../../api/resource-type.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { apiServerSuite, newNamespace, waitFor } from '../../operator/__tests__/support.js';
import { ShardingLeasePermissionError } from '../sharding-configuration.js';
import { systemClock } from '../../util/clock.js';
import type { Clock } from '../../util/clock.js';
import { ShardMembership } from '../shard-membership.js';
import type { ShardingOptions } from '../sharding-configuration.js';

/**
 * Review s14 (sharding): what a user running two or three sharded replicas sees when a replica's
 * wall clock is stepped or a replica dies.
 */
const bed = apiServerSuite();
const RBAC_USER = 'shard-operator';
const rbacBed = apiServerSuite({ rbac: true, users: [{ name: RBAC_USER, token: 'shard-operator-token' }] });

const Role = defineResource<KubernetesResource>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'Role',
});
const RoleBinding = defineResource<KubernetesResource>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'RoleBinding',
});

/** Grants RBAC_USER `verbs` on leases in `ns` (a Role and its RoleBinding). */
async function grantLeases(ns: string, verbs: string[]): Promise<void> {
  await rbacBed.admin.create(Role, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'shards', namespace: ns },
    rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs }],
  } as KubernetesResource);
  await rbacBed.admin.create(RoleBinding, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'shards', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'shards' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: RBAC_USER }],
  } as KubernetesResource);
}
jest.setTimeout(60_000);

const clients: KubernetesClient[] = [];
const members: ShardMembership[] = [];
afterEach(async () => {
  await Promise.all(members.splice(0).map((m) => m.stop({ release: true })));
  for (const c of clients.splice(0)) c.close();
});

const options = (name: string, identity: string, retryPeriodMs: number): ShardingOptions => ({
  name,
  identity,
  leaseNamespace: 'default',
  leaseDurationMs: 3000,
  renewDeadlineMs: 2000,
  retryPeriodMs,
});

function member(
  group: string,
  identity: string,
  retryPeriodMs: number,
  clock: Clock = systemClock,
): ShardMembership {
  const client = KubernetesClient.fromKubeConfig(bed.server.kubeConfig());
  clients.push(client);
  const m = new ShardMembership(options(group, identity, retryPeriodMs), client, { clock });
  members.push(m);
  return m;
}

const keys = Array.from({ length: 64 }, (_, i) => `ns/k${i}`);

describe('review s14: sharding', () => {
  it('[FINDING S14-LE1] a replica whose wall clock is stepped forward neither counts the others dead nor takes their share (no key owned twice)', async () => {
    const group = `jump${Date.now().toString(36)}`;
    let offset = 0;
    // the wall clock (what now() reads) jumps; elapsed time does not (NTP step, VM resumed)
    const jumping: Clock = { ...systemClock, now: () => systemClock.now() + offset };
    const a = member(group, 'a', 800);
    const b = member(group, 'b', 100, jumping);
    await Promise.all([a.start(), b.start()]);
    const settled = (m: ShardMembership) => m.status().settled && m.status().members.length === 2;
    await waitFor(() => settled(a) && settled(b), 'both settled on a ring of two', 20_000);
    const overlaps = new Set<string>();
    const memberCounts = new Set<number>();
    const sample = () => {
      for (const k of keys) if (a.current().owns(k) && b.current().owns(k)) overlaps.add(k);
      memberCounts.add(b.status().members.length);
    };
    const sampler = setInterval(sample, 5);
    try {
      offset = 60_000;
      // a renews every 800 ms, b every 100 ms: b's periods fall between a's renewals
      let ticks = 0;
      await waitFor(() => {
        sample();
        return ++ticks > 300 || overlaps.size > 0;
      }, 'b lived through many periods after its clock jump');
      await waitFor(() => settled(a) && settled(b), 'both settled again', 20_000);
    } finally {
      clearInterval(sampler);
    }
    // client-go judges expiry on the monotonic clock: a step of the wall clock expires nothing
    expect([...overlaps]).toEqual([]);
    expect([...memberCounts]).toEqual([2]);
  });

  it('[FINDING S14-LE2] the membership Lease of a replica that died without releasing it is deleted once it expired (no Lease left behind per crashed pod)', async () => {
    const group = `gc${Date.now().toString(36)}`;
    const a = member(group, 'a', 250);
    const b = member(group, 'b', 250);
    await Promise.all([a.start(), b.start()]);
    await waitFor(
      () => a.status().settled && a.status().members.length === 2,
      'a settled on a ring of two',
      20_000,
    );
    const leaseOf = (identity: string) =>
      bed.admin.get(LeaseType, new ResourceID(`${group}-${identity}`, 'default'));
    expect(await leaseOf('b')).toBeDefined();
    // b dies: it stops renewing and nobody releases its Lease (SIGKILL, node lost)
    members.splice(members.indexOf(b), 1);
    await b.stop({ release: false });
    expect(await leaseOf('b')).toBeDefined();
    await waitFor(() => a.status().members.join() === 'a', 'a counts b dead', 20_000);
    // kube-apiserver's identity leases of apiservers that are gone are deleted once expired
    // (apiserverleasegc); a Deployment's crashed pods never come back under their names
    await waitFor(async () => (await leaseOf('b')) === undefined, "b's expired Lease is deleted", 20_000);
    expect(await leaseOf('a')).toBeDefined();
    expect(a.status().member).toBe(true);
  });

  it('[FINDING S14-LE5] without list on leases (a Role copied from leader election), start() rejects with ShardingLeasePermissionError naming list and the namespace instead of starting a replica that never reconciles', async () => {
    const ns = await newNamespace(rbacBed.admin);
    await grantLeases(ns, ['get', 'create', 'update', 'delete']);
    const client = KubernetesClient.fromKubeConfig(rbacBed.server.kubeConfig(RBAC_USER));
    clients.push(client);
    const m = new ShardMembership(
      { ...options(`nolist${Date.now().toString(36)}`, 'a', 250), leaseNamespace: ns },
      client,
    );
    members.push(m);
    let thrown: unknown;
    await m.start().catch((error: unknown) => (thrown = error));
    expect(thrown).toBeInstanceOf(ShardingLeasePermissionError);
    expect((thrown as ShardingLeasePermissionError).verb).toBe('list');
    expect((thrown as Error).message).toContain(`namespace "${ns}"`);
    // what it created on the way is not left behind
    const leases = await rbacBed.admin.list(LeaseType, { namespace: ns });
    expect(leases.items.map((l) => l.metadata?.name)).toEqual([]);
  });
});
