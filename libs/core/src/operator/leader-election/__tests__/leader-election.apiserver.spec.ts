import { describe, it, expect, jest, beforeAll, afterAll, afterEach } from '@jest/globals';
import { KubeApiServer } from '@tosdk/apiserver';
import { defineResource } from '../../../api/resource-type.js';
import type { KubernetesResource } from '../../../api/resource-type.js';
import { ResourceTypes } from '../../../api/builtin-types.js';
import { ResourceID } from '../../../api/resource-id.js';
import { KubernetesClient } from '../../../client/kubernetes-client.js';
import { LeaderElector } from '../leader-elector.js';
import type { LeaderElectionConfiguration } from '../leader-election-configuration.js';
import { LeaderElectionPermissionError } from '../leader-election-errors.js';
import { LeaseType } from '../internal/lease-lock.js';
import { until } from './until.js';

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

const NS = 'ops';
// short durations so a takeover needs seconds, with client-go's rules kept (2 s > 1.5 s > 1.2 x 0.25 s)
const FAST: Partial<LeaderElectionConfiguration> = {
  leaseDurationMs: 2_000,
  renewDeadlineMs: 1_500,
  retryPeriodMs: 250,
};

let server: KubeApiServer;
const clients: KubernetesClient[] = [];
const electors: LeaderElector[] = [];
const samplers: Array<ReturnType<typeof setInterval>> = [];

function clientAs(user: string): KubernetesClient {
  const client = KubernetesClient.fromKubeConfig(server.kubeConfig(user));
  clients.push(client);
  return client;
}

async function grant(user: string, rules: object[]): Promise<void> {
  const admin = clientAs('admin');
  await admin.create(Role, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: `${user}-role`, namespace: NS },
    rules,
  } as KubernetesResource);
  await admin.create(RoleBinding, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: `${user}-binding`, namespace: NS },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${user}-role` },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
  } as KubernetesResource);
}

/** Samples isLeader() of every elector every few ms; counts samples with more than one leader. */
function watchForTwoLeaders(...all: LeaderElector[]): { overlaps: () => number; stop: () => void } {
  let overlaps = 0;
  const timer = setInterval(() => {
    if (all.filter((e) => e.isLeader()).length > 1) overlaps++;
  }, 2);
  samplers.push(timer);
  return { overlaps: () => overlaps, stop: () => clearInterval(timer) };
}

function elector(
  user: string,
  identity: string,
  leaseName: string,
  exit = jest.fn<(code: number) => void>(),
) {
  const e = new LeaderElector({ leaseName, leaseNamespace: NS, identity, ...FAST }, clientAs(user), { exit });
  electors.push(e);
  return e;
}

const callbacks = () => ({ onStartLeading: jest.fn(), onStopLeading: jest.fn() });

beforeAll(async () => {
  server = await KubeApiServer.start({
    port: 0,
    rbac: true,
    users: [
      { name: 'operator', token: 'operator-token' },
      { name: 'reader', token: 'reader-token' },
      { name: 'nobody', token: 'nobody-token' },
    ],
  });
  await clientAs('admin').create(ResourceTypes.Namespace, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NS },
  });
  await grant('operator', [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
  ]);
  await grant('reader', [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['*'] },
  ]);
});

afterEach(async () => {
  for (const timer of samplers.splice(0)) clearInterval(timer);
  server?.faults.clear();
  await Promise.all(electors.splice(0).map((e) => e.stop()));
});

afterAll(async () => {
  for (const c of clients) c.close();
  await server?.stop();
});

async function leaseSpec(name: string) {
  const lease = await clientAs('admin').get(LeaseType, new ResourceID(name, NS));
  return lease?.spec;
}

describe('leader election against the API server', () => {
  it('[OP-01] exactly one of two instances leads; the standby takes over when the leader stops', async () => {
    const a = elector('operator', 'instance-a', 'stop-lease');
    const b = elector('operator', 'instance-b', 'stop-lease');
    const two = watchForTwoLeaders(a, b);
    const cbA = callbacks();
    const cbB = callbacks();
    await a.checkPermissions();
    a.run(cbA);
    await until('instance-a leads', () => a.isLeader());
    b.run(cbB);
    await until('instance-b sees instance-a as leader', () => b.currentLeader() === 'instance-a');
    // several renewals pass with the standby watching
    const renewed = (await leaseSpec('stop-lease'))?.renewTime;
    await until('the lease is renewed', async () => (await leaseSpec('stop-lease'))?.renewTime !== renewed);
    expect(b.isLeader()).toBe(false);
    expect(await leaseSpec('stop-lease')).toMatchObject({
      holderIdentity: 'instance-a',
      leaseDurationSeconds: 2,
      leaseTransitions: 0,
    });

    await a.stop();
    expect(cbA.onStopLeading).toHaveBeenCalledTimes(1);
    await until('instance-b leads', () => b.isLeader());
    expect(await leaseSpec('stop-lease')).toMatchObject({
      holderIdentity: 'instance-b',
      leaseTransitions: 1,
    });
    expect(cbB.onStartLeading).toHaveBeenCalledTimes(1);
    two.stop();
    expect(two.overlaps()).toBe(0);
  });

  it('[OP-01] a leader that cannot renew loses the lease (exit 1) and the standby takes over, never both', async () => {
    const exitA = jest.fn<(code: number) => void>();
    const a = elector('operator', 'instance-a', 'lost-lease', exitA);
    const b = elector('operator', 'instance-b', 'lost-lease');
    const two = watchForTwoLeaders(a, b);
    const cbA = callbacks();
    const cbB = callbacks();
    a.run(cbA);
    await until('instance-a leads', () => a.isLeader());
    b.run(cbB);
    await until('instance-b sees instance-a as leader', () => b.currentLeader() === 'instance-a');

    // freeze the leader: every lease update fails from now on
    server.faults.failNext({
      verb: 'update',
      resource: 'leases',
      namespace: NS,
      code: 500,
      times: 1_000_000,
    });
    await until('instance-a gives up leadership', () => exitA.mock.calls.length > 0);
    expect(exitA).toHaveBeenCalledWith(1);
    expect(cbA.onStopLeading).toHaveBeenCalledTimes(1);
    expect(a.isLeader()).toBe(false);
    expect(b.isLeader()).toBe(false);

    server.faults.clear();
    await until('instance-b leads', () => b.isLeader());
    expect(await leaseSpec('lost-lease')).toMatchObject({
      holderIdentity: 'instance-b',
      leaseTransitions: 1,
    });
    two.stop();
    expect(two.overlaps()).toBe(0);
  });

  it('[OP-02] without create/update on leases, checkPermissions names what is missing and the rule to add', async () => {
    const reader = elector('reader', 'reader-1', 'perm-lease');
    const error = await reader.checkPermissions().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LeaderElectionPermissionError);
    expect((error as LeaderElectionPermissionError).code).toBe('LeaderElectionPermission');
    expect((error as Error).message).toContain(
      'create, update leases.coordination.k8s.io in namespace "ops"',
    );
    expect((error as Error).message).toContain('resources: ["leases"]');

    const nobody = elector('nobody', 'nobody-1', 'perm-lease');
    await expect(nobody.checkPermissions()).rejects.toThrow(
      'leader election needs permission to get, create, update leases.coordination.k8s.io in namespace "ops"',
    );
    await expect(elector('operator', 'op-1', 'perm-lease').checkPermissions()).resolves.toBeUndefined();
  });
});
