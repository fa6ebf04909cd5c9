import { describe, it, expect, jest, afterEach } from '@jest/globals';
import { LeaderElector } from '../leader-elector.js';
import type { LeaderCallbacks } from '../leader-elector.js';
import type { LeaderElectionConfiguration } from '../leader-election-configuration.js';
import {
  LeaderElectionPermissionCheckError,
  LeaderElectionPermissionError,
  LeaderElectionStateError,
} from '../leader-election-errors.js';
import { KubernetesApiError } from '../../../client/errors.js';
import { FakeClock, flush } from './fake-clock.js';
import { LeaseClientDouble, LeaseStore } from './lease-store-double.js';

const LEASE = 'ops/my-operator-leader';
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

interface Candidate {
  elector: LeaderElector;
  client: LeaseClientDouble;
  events: string[];
  exit: jest.Mock<(code: number) => void>;
}

const electors: LeaderElector[] = [];
afterEach(async () => {
  // stop() must not hang even with a frozen client: it is bounded by the renew deadline
  for (const e of electors.splice(0)) void e.stop();
});

function candidate(
  store: LeaseStore,
  clock: FakeClock,
  identity: string,
  overrides: Partial<LeaderElectionConfiguration> = {},
): Candidate {
  const client = new LeaseClientDouble(store, identity);
  const events: string[] = [];
  const exit = jest.fn<(code: number) => void>();
  const elector = new LeaderElector(
    { leaseName: 'my-operator-leader', leaseNamespace: 'ops', identity, ...overrides },
    client,
    { clock, exit, random: () => 0 },
  );
  electors.push(elector);
  const callbacks: LeaderCallbacks = {
    onStartLeading: () => events.push('start'),
    onStopLeading: () => events.push('stop'),
    onNewLeader: (id) => events.push(`leader:${id}`),
  };
  elector.run(callbacks);
  return { elector, client, events, exit };
}

function spec(store: LeaseStore) {
  return store.read(LEASE)?.spec;
}

describe('LeaderElector state machine (fake clock)', () => {
  it('[OP-01] acquires an absent lease: creates it with holder, duration, MicroTimes and zero transitions', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.elector.state).toBe('Leading');
    expect(a.elector.currentLeader()).toBe('a');
    expect(a.events).toEqual(['leader:a', 'start']);
    const s = spec(store)!;
    expect(s).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(s.acquireTime).toMatch(MICRO_TIME);
    expect(s.renewTime).toBe(s.acquireTime);
  });

  it('[OP-01] renews every retry period, keeping acquireTime and transitions', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    const acquired = spec(store)!.acquireTime;
    await clock.advance(2_000);
    const renewed = spec(store)!;
    expect(renewed.acquireTime).toBe(acquired);
    expect(renewed.renewTime).not.toBe(acquired);
    expect(renewed.leaseTransitions).toBe(0);
    await clock.advance(60_000);
    expect(a.elector.isLeader()).toBe(true);
    // one create, then one conditional update per 2 s, without re-reading (fast path)
    expect(store.writes.filter((w) => w.verb === 'update')).toHaveLength(31);
    expect(a.client.requests).toBe(1 + 1 + 31); // get + create + updates
    expect(a.events).toEqual(['leader:a', 'start']);
  });

  it('[OP-01] loses leadership when renewals keep failing until the renew deadline, then exits with 1', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    const lastSuccessSentAt = clock.now();
    a.client.fault = 'fail';
    await clock.advance(9_999);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.events).toEqual(['leader:a', 'start']);
    await clock.advance(1);
    expect(clock.now()).toBe(lastSuccessSentAt + 10_000);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events).toEqual(['leader:a', 'start', 'stop']);
    expect(a.exit).toHaveBeenCalledWith(1);
    expect(a.elector.state).toBe('Stopped');
  });

  it('[OP-01] isLeader() turns false at the deadline even if the timer has not fired (blocked event loop)', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    a.client.fault = 'hang';
    clock.time += 10_000; // time passes without any timer running
    expect(a.elector.isLeader()).toBe(false);
  });

  it('[OP-01] a hung renewal cannot keep it leading: the deadline timer steps down', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a', { exitOnStopLeading: false });
    await clock.advance(0);
    a.client.fault = 'hang';
    await clock.advance(10_000);
    expect(a.events).toEqual(['leader:a', 'start', 'stop']);
    expect(a.exit).not.toHaveBeenCalled();
    expect(a.elector.state).toBe('Candidate');
  });

  it('[OP-01] without exitOnStopLeading it stands by again and re-acquires when the API recovers', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a', { exitOnStopLeading: false });
    await clock.advance(0);
    a.client.fault = 'fail';
    await clock.advance(10_000);
    expect(a.elector.isLeader()).toBe(false);
    a.client.fault = undefined;
    await clock.advance(2_000);
    expect(a.elector.isLeader()).toBe(true);
    expect(a.events).toEqual(['leader:a', 'start', 'stop', 'start']);
    expect(spec(store)).toMatchObject({ holderIdentity: 'a', leaseTransitions: 0 });
  });

  it('[OP-01] a standby takes over only after leaseDuration since it last saw the lease change', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    const b = candidate(store, clock, 'b');
    let both = 0;
    clock.onTick = () => {
      if (a.elector.isLeader() && b.elector.isLeader()) both++;
    };
    await clock.advance(30_000);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.events).toEqual(['leader:a']);
    expect(b.elector.currentLeader()).toBe('a');

    a.client.fault = 'hang'; // the leader freezes: no more renewals
    const frozenAt = clock.now();
    await clock.advance(14_000);
    expect(b.elector.isLeader()).toBe(false);
    await clock.advance(10_000);
    expect(b.elector.isLeader()).toBe(true);
    expect(spec(store)).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    const takeover = store.writes.findIndex((w) => w.by === 'b');
    expect(takeover).toBeGreaterThan(0);
    // the takeover happened more than leaseDuration after a's last renewal
    expect(a.events).toEqual(['leader:a', 'start', 'stop']);
    expect(b.events).toEqual(['leader:a', 'leader:b', 'start']);
    expect(clock.now() - frozenAt).toBeGreaterThan(15_000);
    expect(both).toBe(0);
  });

  it('[OP-01] a fresh candidate waits a full leaseDuration even when the lease timestamps are old', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    store.put(LEASE, {
      metadata: { name: 'my-operator-leader', namespace: 'ops' },
      spec: {
        holderIdentity: 'gone',
        leaseDurationSeconds: 15,
        renewTime: '2020-01-01T00:00:00.000000Z',
        acquireTime: '2020-01-01T00:00:00.000000Z',
        leaseTransitions: 4,
      },
    });
    const b = candidate(store, clock, 'b');
    await clock.advance(14_000);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.currentLeader()).toBe('gone');
    await clock.advance(5_000);
    expect(b.elector.isLeader()).toBe(true);
    expect(spec(store)).toMatchObject({ holderIdentity: 'b', leaseTransitions: 5 });
  });

  it('[OP-01] stop() steps down and releases the lease so a standby takes over at its next try', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    const b = candidate(store, clock, 'b');
    await clock.advance(4_000);
    await a.elector.stop();
    expect(a.events).toEqual(['leader:a', 'start', 'stop']);
    expect(a.exit).not.toHaveBeenCalled();
    expect(spec(store)).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(a.elector.isLeader()).toBe(false);
    expect(a.elector.currentLeader()).toBeUndefined();
    await clock.advance(4_400); // b's jittered retry period at most
    expect(b.elector.isLeader()).toBe(true);
    expect(spec(store)).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1, leaseDurationSeconds: 15 });
    await a.elector.stop(); // idempotent
    expect(a.events).toEqual(['leader:a', 'start', 'stop']);
  });

  it('[OP-01] stop() of a standby leaves the lease alone', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a');
    await clock.advance(0);
    const b = candidate(store, clock, 'b');
    await clock.advance(0);
    const writes = store.writes.length;
    await b.elector.stop();
    expect(store.writes).toHaveLength(writes);
    expect(b.events).toEqual(['leader:a']);
    expect(a.elector.isLeader()).toBe(true);
  });

  it('[OP-01] two candidates creating the lease at once: exactly one wins (AlreadyExists for the other)', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a');
    const b = candidate(store, clock, 'b');
    a.client.gated = b.client.gated = true;
    await clock.advance(0);
    expect(a.client.blocked + b.client.blocked).toBe(2); // both read: absent
    a.client.gated = b.client.gated = false;
    a.client.openGate();
    b.client.openGate();
    await flush();
    expect([a.elector.isLeader(), b.elector.isLeader()].filter(Boolean)).toHaveLength(1);
    expect(store.writes.filter((w) => w.verb === 'create')).toHaveLength(1);
  });

  it('[OP-01] two candidates taking over an expired lease at once: the stale resourceVersion loses (409)', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    store.put(LEASE, {
      metadata: { name: 'my-operator-leader', namespace: 'ops' },
      spec: { holderIdentity: 'old', leaseDurationSeconds: 15, leaseTransitions: 0 },
    });
    const a = candidate(store, clock, 'a');
    const b = candidate(store, clock, 'b');
    await clock.advance(15_000); // tries every 2 s (no jitter here): the one at 14 s still sees it held
    a.client.gated = b.client.gated = true;
    await clock.advance(1_000); // both try at 16 s and read the same expired record
    expect(a.client.blocked).toBe(1);
    expect(b.client.blocked).toBe(1);
    a.client.gated = b.client.gated = false;
    a.client.openGate();
    b.client.openGate();
    await flush(6);
    const leaders = [a, b].filter((c) => c.elector.isLeader());
    expect(leaders).toHaveLength(1);
    expect(spec(store)).toMatchObject({ holderIdentity: leaders[0].client.identity, leaseTransitions: 1 });
    expect(store.writes.filter((w) => w.by !== 'admin')).toHaveLength(1);
  });

  it('[OP-01] a leader that finds another holder in the lease steps down at once', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a', { exitOnStopLeading: false });
    await clock.advance(0);
    store.put(LEASE, {
      metadata: { name: 'my-operator-leader', namespace: 'ops' },
      spec: { holderIdentity: 'intruder', leaseDurationSeconds: 15, leaseTransitions: 1 },
    });
    await clock.advance(2_000);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.events).toEqual(['leader:a', 'start', 'leader:intruder', 'stop']);
  });

  it('[OP-01] an acquire answered only after its own renew deadline does not start leading', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const a = candidate(store, clock, 'a');
    a.client.gated = true;
    await clock.advance(0); // the read waits at the gate
    clock.time += 10_000; // the event loop was blocked past the deadline (no timer ran)
    a.client.gated = false;
    a.client.openGate();
    await flush();
    expect(a.events).toEqual(['leader:a']);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.elector.state).toBe('Candidate');
    await clock.advance(2_000); // the next try renews the lease it holds and leads
    expect(a.elector.isLeader()).toBe(true);
    expect(a.events).toEqual(['leader:a', 'start']);
  });

  it('[OP-01] callbacks that throw do not break the election', async () => {
    const clock = new FakeClock();
    const store = new LeaseStore();
    const client = new LeaseClientDouble(store, 'a');
    const elector = new LeaderElector(
      { leaseName: 'my-operator-leader', leaseNamespace: 'ops', identity: 'a' },
      client,
      { clock, exit: () => undefined },
    );
    electors.push(elector);
    elector.run({
      onStartLeading: () => {
        throw new Error('boom');
      },
      onStopLeading: () => undefined,
    });
    await clock.advance(4_000);
    expect(elector.isLeader()).toBe(true);
    expect(() => elector.run({ onStartLeading: () => undefined, onStopLeading: () => undefined })).toThrow(
      LeaderElectionStateError,
    );
  });

  it('[OP-02] checkPermissions names the missing verbs, the resource, the namespace and the rule', async () => {
    const store = new LeaseStore();
    const client = new LeaseClientDouble(store, 'a');
    client.allowedVerbs = new Set(['get']);
    const elector = new LeaderElector({ leaseName: 'my-operator-leader', leaseNamespace: 'ops' }, client);
    const error = await elector.checkPermissions().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LeaderElectionPermissionError);
    const e = error as LeaderElectionPermissionError;
    expect(e.code).toBe('LeaderElectionPermission');
    expect(e.missingVerbs).toEqual(['create', 'update']);
    expect(e.message).toContain('create, update leases.coordination.k8s.io in namespace "ops"');
    expect(e.message).toContain('verbs: ["get", "create", "update"]');
    expect(client.reviews.map((r) => [r.verb, r.group, r.resource, r.namespace])).toEqual([
      ['get', 'coordination.k8s.io', 'leases', 'ops'],
      ['create', 'coordination.k8s.io', 'leases', 'ops'],
      ['update', 'coordination.k8s.io', 'leases', 'ops'],
    ]);
    client.allowedVerbs = new Set(['get', 'create', 'update']);
    await expect(elector.checkPermissions()).resolves.toBeUndefined();
  });
  it('[OP-02] a review the server refuses is a LeaderElectionPermissionCheckError that says how to restore it', async () => {
    const client = new LeaseClientDouble(new LeaseStore(), 'a');
    client.selfSubjectAccessReview = () =>
      Promise.reject(
        new KubernetesApiError(403, {
          reason: 'Forbidden',
          message: 'cannot create selfsubjectaccessreviews',
        }),
      );
    const elector = new LeaderElector({ leaseName: 'my-operator-leader', leaseNamespace: 'ops' }, client);
    const error = await elector.checkPermissions().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LeaderElectionPermissionCheckError);
    expect((error as LeaderElectionPermissionCheckError).code).toBe('LeaderElectionPermissionCheck');
    expect((error as Error).message).toContain('system:basic-user');
    expect((error as LeaderElectionPermissionCheckError).cause).toBeInstanceOf(KubernetesApiError);
  });
});
