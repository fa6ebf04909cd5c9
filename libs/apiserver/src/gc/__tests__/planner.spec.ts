import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from '../../types.js';
import type { GcWrite } from '../index.js';
import { deletionFinalizers, GarbageCollectionError, planGarbageCollection } from '../index.js';

interface Spec {
  kind?: string;
  apiVersion?: string;
  namespace?: string;
  finalizers?: string[];
  deleting?: boolean;
  owners?: Array<{ uid: string; block?: boolean; kind?: string; name?: string; apiVersion?: string }>;
}

/** An object named after its uid (`uid` → name `uid`), ConfigMap in `ns` unless told. */
function obj(uid: string, spec: Spec = {}): JsonObject {
  const metadata: JsonObject = { name: uid, uid };
  if (spec.namespace !== '') metadata.namespace = spec.namespace ?? 'ns';
  if (spec.finalizers) metadata.finalizers = spec.finalizers;
  if (spec.deleting) metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  if (spec.owners) {
    metadata.ownerReferences = spec.owners.map((o) => {
      const ref: JsonObject = {
        apiVersion: o.apiVersion ?? 'v1',
        kind: o.kind ?? 'ConfigMap',
        name: o.name ?? o.uid,
        uid: o.uid,
      };
      if (o.block !== undefined) ref.blockOwnerDeletion = o.block;
      return ref;
    });
  }
  return { apiVersion: spec.apiVersion ?? 'v1', kind: spec.kind ?? 'ConfigMap', metadata };
}

/** Applies a plan's writes the way the engine would; returns the objects left, by uid. */
function apply(objects: JsonObject[], writes: GcWrite[]): Map<string, JsonObject> {
  const byUid = new Map(objects.map((o) => [(o.metadata as JsonObject).uid as string, structuredClone(o)]));
  for (const w of writes) {
    const o = byUid.get(w.uid);
    if (!o) throw new Error(`write on a missing object: ${JSON.stringify(w)}`);
    const meta = o.metadata as JsonObject;
    switch (w.op) {
      case 'remove':
        byUid.delete(w.uid);
        break;
      case 'markDeleting':
        meta.deletionTimestamp ??= 'now';
        meta.finalizers = w.finalizers;
        break;
      case 'setFinalizers':
        meta.finalizers = w.finalizers;
        break;
      case 'setOwnerReferences':
        meta.ownerReferences = w.ownerReferences;
        break;
    }
  }
  return byUid;
}

function ownerUids(o: JsonObject | undefined): string[] {
  const refs = ((o?.metadata as JsonObject | undefined)?.ownerReferences ?? []) as JsonObject[];
  return refs.map((r) => r.uid as string);
}

describe('deletionFinalizers (what a DELETE request sets)', () => {
  const cases: Array<
    [current: string[], options: Parameters<typeof deletionFinalizers>[1], expected: string[]]
  > = [
    [[], {}, []],
    [[], { propagationPolicy: 'Background' }, []],
    [[], { propagationPolicy: 'Foreground' }, ['foregroundDeletion']],
    [[], { propagationPolicy: 'Orphan' }, ['orphan']],
    [['x'], { propagationPolicy: 'Orphan' }, ['x', 'orphan']],
    [['orphan'], {}, ['orphan']],
    [['foregroundDeletion'], {}, ['foregroundDeletion']],
    [['orphan'], { propagationPolicy: 'Foreground' }, ['foregroundDeletion']],
    [['foregroundDeletion', 'x'], { propagationPolicy: 'Background' }, ['x']],
    [[], { orphanDependents: true, propagationPolicy: 'Foreground' }, ['orphan']],
    [['orphan'], { orphanDependents: false }, []],
  ];
  it.each(cases)('%j with %j → %j', (current, options, expected) => {
    expect(deletionFinalizers(current, options)).toEqual(expected);
  });
});

describe('planGarbageCollection: Background', () => {
  it('removes the owner, then its dependents, then theirs', () => {
    const objects = [
      obj('owner'),
      obj('child', { owners: [{ uid: 'owner' }] }),
      obj('grandchild', { owners: [{ uid: 'child' }] }),
      obj('bystander'),
    ];
    const plan = planGarbageCollection(objects, { uid: 'owner' });
    expect(plan.writes).toEqual([
      { op: 'remove', uid: 'owner' },
      { op: 'remove', uid: 'child' },
      { op: 'remove', uid: 'grandchild' },
    ]);
    expect([...apply(objects, plan.writes).keys()]).toEqual(['bystander']);
    expect(plan.waiting).toEqual([]);
  });

  it('a dependent with another live owner only loses the reference to the deleted one', () => {
    const objects = [obj('a'), obj('b'), obj('shared', { owners: [{ uid: 'a' }, { uid: 'b' }] })];
    const plan = planGarbageCollection(objects, { uid: 'a', propagationPolicy: 'Background' });
    const after = apply(objects, plan.writes);
    expect([...after.keys()]).toEqual(['b', 'shared']);
    expect(ownerUids(after.get('shared'))).toEqual(['b']);
    expect(plan.writes[1]).toMatchObject({ op: 'setOwnerReferences', uid: 'shared', why: 'dangling' });
  });

  it('an owner with another finalizer is only marked deleting; its dependents stay until it is gone', () => {
    const objects = [
      obj('owner', { finalizers: ['example.com/cleanup'] }),
      obj('child', { owners: [{ uid: 'owner' }] }),
    ];
    const plan = planGarbageCollection(objects, { uid: 'owner' });
    expect(plan.writes).toEqual([{ op: 'markDeleting', uid: 'owner', finalizers: ['example.com/cleanup'] }]);
    expect(plan.waiting).toEqual(['owner']);
    // The operator removes its finalizer: the owner is removed; the collector then takes the child.
    const rest = [...apply(objects, plan.writes).values()].filter(
      (o) => (o.metadata as JsonObject).uid !== 'owner',
    );
    expect(planGarbageCollection(rest).writes).toEqual([{ op: 'remove', uid: 'child' }]);
  });

  it('a dependent with a finalizer of its own is marked deleting and waits', () => {
    const objects = [obj('owner'), obj('child', { finalizers: ['x'], owners: [{ uid: 'owner' }] })];
    const plan = planGarbageCollection(objects, { uid: 'owner' });
    expect(plan.writes).toEqual([
      { op: 'remove', uid: 'owner' },
      { op: 'markDeleting', uid: 'child', finalizers: ['x'] },
    ]);
    expect(plan.waiting).toEqual(['child']);
  });

  it('a dependent carrying an orphan finalizer is collected with Orphan: its own dependents survive', () => {
    const objects = [
      obj('owner'),
      obj('child', { finalizers: ['orphan'], owners: [{ uid: 'owner' }] }),
      obj('gc', { owners: [{ uid: 'child' }] }),
    ];
    const after = apply(objects, planGarbageCollection(objects, { uid: 'owner' }).writes);
    expect([...after.keys()]).toEqual(['gc']);
    expect(ownerUids(after.get('gc'))).toEqual([]);
  });
});

describe('planGarbageCollection: ownership validity', () => {
  const cases: Array<[title: string, owner: JsonObject, dependent: JsonObject, collected: boolean]> = [
    ['owner in the same namespace', obj('o'), obj('d', { owners: [{ uid: 'o' }] }), false],
    [
      'namespaced owner in another namespace dangles',
      obj('o', { namespace: 'other' }),
      obj('d', { owners: [{ uid: 'o' }] }),
      true,
    ],
    [
      'cluster-scoped owner of a namespaced object',
      obj('o', { namespace: '', kind: 'Namespace' }),
      obj('d', { owners: [{ uid: 'o', kind: 'Namespace' }] }),
      false,
    ],
    // garbagecollector.go isDangling: namespacedOwnerOfClusterScopedObjectErr, the item is never collected
    [
      'a cluster-scoped object with a namespaced owner is left alone (S11-GC1)',
      obj('o'),
      obj('d', { namespace: '', owners: [{ uid: 'o' }] }),
      false,
    ],
    [
      'a cluster-scoped object with a namespaced owner that never existed is left alone (S11-GC1)',
      obj('x'),
      obj('d', { namespace: '', owners: [{ uid: 'missing' }] }),
      false,
    ],
    [
      'a reference whose name differs dangles',
      obj('o'),
      obj('d', { owners: [{ uid: 'o', name: 'other' }] }),
      true,
    ],
    [
      'a reference whose kind differs dangles',
      obj('o'),
      obj('d', { owners: [{ uid: 'o', kind: 'Secret' }] }),
      true,
    ],
    [
      'a reference whose group differs dangles',
      obj('o'),
      obj('d', { owners: [{ uid: 'o', apiVersion: 'apps/v1' }] }),
      true,
    ],
    [
      'another version of the same group resolves',
      obj('o', { apiVersion: 'example.com/v2', kind: 'W' }),
      obj('d', { owners: [{ uid: 'o', apiVersion: 'example.com/v1', kind: 'W' }] }),
      false,
    ],
    ['an owner that never existed dangles', obj('x'), obj('d', { owners: [{ uid: 'missing' }] }), true],
  ];
  it.each(cases)('%s', (_title, owner, dependent, collected) => {
    // every kind of these cases but Namespace is namespaced
    const writes = planGarbageCollection([owner, dependent], undefined, {
      namespaced: (_av, kind) => kind !== 'Namespace',
    }).writes;
    expect(writes.some((w) => w.op === 'remove' && w.uid === 'd')).toBe(collected);
  });
});

describe('planGarbageCollection: Foreground', () => {
  it('marks the owner, deletes dependents, then releases and removes the owner', () => {
    const objects = [obj('owner'), obj('child', { owners: [{ uid: 'owner', block: true }] })];
    const plan = planGarbageCollection(objects, { uid: 'owner', propagationPolicy: 'Foreground' });
    expect(plan.writes).toEqual([
      { op: 'markDeleting', uid: 'owner', finalizers: ['foregroundDeletion'] },
      { op: 'remove', uid: 'child' },
      { op: 'setFinalizers', uid: 'owner', finalizers: [] },
      { op: 'remove', uid: 'owner' },
    ]);
  });

  it('a blocking dependent held by a finalizer keeps the owner; once it is gone the owner goes', () => {
    const objects = [
      obj('owner'),
      obj('child', { finalizers: ['x'], owners: [{ uid: 'owner', block: true }] }),
    ];
    const plan = planGarbageCollection(objects, { uid: 'owner', propagationPolicy: 'Foreground' });
    expect(plan.writes).toEqual([
      { op: 'markDeleting', uid: 'owner', finalizers: ['foregroundDeletion'] },
      { op: 'markDeleting', uid: 'child', finalizers: ['x'] },
    ]);
    expect(plan.waiting).toEqual(['owner', 'child']);
    const ownerLeft = apply(objects, plan.writes).get('owner')!;
    expect(planGarbageCollection([ownerLeft]).writes).toEqual([
      { op: 'setFinalizers', uid: 'owner', finalizers: [] },
      { op: 'remove', uid: 'owner' },
    ]);
  });

  it('a non-blocking dependent held by a finalizer does not keep the owner', () => {
    const objects = [
      obj('owner'),
      obj('child', { finalizers: ['x'], owners: [{ uid: 'owner', block: false }] }),
    ];
    const after = apply(
      objects,
      planGarbageCollection(objects, { uid: 'owner', propagationPolicy: 'Foreground' }).writes,
    );
    expect([...after.keys()]).toEqual(['child']);
  });

  it('dependents with dependents of their own are deleted in the foreground too, bottom-up', () => {
    const objects = [
      obj('owner'),
      obj('child', { owners: [{ uid: 'owner', block: true }] }),
      obj('grandchild', { owners: [{ uid: 'child', block: true }] }),
    ];
    const plan = planGarbageCollection(objects, { uid: 'owner', propagationPolicy: 'Foreground' });
    expect(plan.writes).toEqual([
      { op: 'markDeleting', uid: 'owner', finalizers: ['foregroundDeletion'] },
      { op: 'markDeleting', uid: 'child', finalizers: ['foregroundDeletion'] },
      { op: 'remove', uid: 'grandchild' },
      { op: 'setFinalizers', uid: 'child', finalizers: [] },
      { op: 'remove', uid: 'child' },
      { op: 'setFinalizers', uid: 'owner', finalizers: [] },
      { op: 'remove', uid: 'owner' },
    ]);
  });

  it('a dependent with another live owner is not deleted; it drops the waiting owner', () => {
    const objects = [
      obj('owner'),
      obj('other'),
      obj('child', { owners: [{ uid: 'owner', block: true }, { uid: 'other' }] }),
    ];
    const plan = planGarbageCollection(objects, { uid: 'owner', propagationPolicy: 'Foreground' });
    const after = apply(objects, plan.writes);
    expect([...after.keys()]).toEqual(['other', 'child']);
    expect(ownerUids(after.get('child'))).toEqual(['other']);
  });

  // graph_builder.go addDependentToOwners attaches a dependent to its owner by uid alone, so the owner's
  // blockingDependents include it; processDeletingDependentsItem sends it to attemptToDeleteItem, which
  // finds its reference dangling (no such owner in its namespace) and deletes it.
  it('a blocking reference that does not resolve (other namespace) holds the owner until the dependent is gone', () => {
    const objects = [
      obj('owner'),
      obj('stranger', { namespace: 'elsewhere', finalizers: ['x'], owners: [{ uid: 'owner', block: true }] }),
    ];
    const plan = planGarbageCollection(objects, { uid: 'owner', propagationPolicy: 'Foreground' });
    const after = apply(objects, plan.writes);
    // The stranger's reference dangles, so it is collected (held by its own finalizer), and the owner waits.
    expect((after.get('stranger')!.metadata as JsonObject).deletionTimestamp).toBeDefined();
    expect((after.get('owner')!.metadata as JsonObject).finalizers).toEqual(['foregroundDeletion']);
    expect(plan.waiting).toEqual(['owner', 'stranger']);
    const stranger = after.get('stranger')!;
    (stranger.metadata as JsonObject).finalizers = [];
    const next = planGarbageCollection([after.get('owner')!]);
    expect(apply([after.get('owner')!], next.writes).size).toBe(0);
  });

  it('a cluster-scoped dependent blocking a namespaced owner is never collected, so the owner keeps waiting (S11-GC1)', () => {
    const objects = [
      obj('owner'),
      obj('role', { namespace: '', kind: 'ClusterRole', owners: [{ uid: 'owner', block: true }] }),
    ];
    const plan = planGarbageCollection(
      objects,
      { uid: 'owner', propagationPolicy: 'Foreground' },
      { namespaced: (_av, kind) => kind === 'ConfigMap' },
    );
    const after = apply(objects, plan.writes);
    expect(after.has('role')).toBe(true);
    expect((after.get('role')!.metadata as JsonObject).deletionTimestamp).toBeUndefined();
    expect(plan.waiting).toEqual(['owner']);
  });

  it('breaks a blocking ownership cycle by unblocking', () => {
    const objects = [
      obj('a', { owners: [{ uid: 'b', block: true }] }),
      obj('b', { owners: [{ uid: 'a', block: true }] }),
    ];
    const plan = planGarbageCollection(objects, { uid: 'a', propagationPolicy: 'Foreground' });
    expect(plan.writes.some((w) => w.op === 'setOwnerReferences' && w.why === 'unblock')).toBe(true);
    expect(apply(objects, plan.writes).size).toBe(0);
  });
});

describe('planGarbageCollection: Orphan', () => {
  it('strips the owner from its dependents, then removes the finalizer and the owner', () => {
    const objects = [
      obj('owner'),
      obj('child', { owners: [{ uid: 'owner', block: true }, { uid: 'keep' }] }),
      obj('keep'),
      obj('solo', { owners: [{ uid: 'owner' }] }),
    ];
    const plan = planGarbageCollection(objects, { uid: 'owner', propagationPolicy: 'Orphan' });
    expect(plan.writes[0]).toEqual({ op: 'markDeleting', uid: 'owner', finalizers: ['orphan'] });
    expect(plan.writes.slice(-2)).toEqual([
      { op: 'setFinalizers', uid: 'owner', finalizers: [] },
      { op: 'remove', uid: 'owner' },
    ]);
    const after = apply(objects, plan.writes);
    expect([...after.keys()]).toEqual(['child', 'keep', 'solo']);
    expect(ownerUids(after.get('child'))).toEqual(['keep']);
    expect(ownerUids(after.get('solo'))).toEqual([]);
    expect(
      plan.writes
        .filter((w) => w.op === 'setOwnerReferences')
        .every((w) => w.op === 'setOwnerReferences' && w.why === 'orphan'),
    ).toBe(true);
  });

  it('orphanDependents: true acts as Orphan', () => {
    const objects = [obj('owner'), obj('child', { owners: [{ uid: 'owner' }] })];
    const after = apply(
      objects,
      planGarbageCollection(objects, { uid: 'owner', orphanDependents: true }).writes,
    );
    expect([...after.keys()]).toEqual(['child']);
  });

  it('an owner with another finalizer stays (deleting) after orphaning', () => {
    const objects = [obj('owner', { finalizers: ['x'] }), obj('child', { owners: [{ uid: 'owner' }] })];
    const plan = planGarbageCollection(objects, { uid: 'owner', propagationPolicy: 'Orphan' });
    const after = apply(objects, plan.writes);
    expect((after.get('owner')!.metadata as JsonObject).finalizers).toEqual(['x']);
    expect(ownerUids(after.get('child'))).toEqual([]);
    expect(plan.waiting).toEqual(['owner']);
  });
});

describe('planGarbageCollection: steady state and errors', () => {
  it('nothing to do when every owner is alive', () => {
    expect(planGarbageCollection([obj('o'), obj('d', { owners: [{ uid: 'o' }] })])).toEqual({
      writes: [],
      waiting: [],
    });
  });

  it('a second DELETE of an object already deleting with the same policy changes nothing', () => {
    const objects = [obj('o', { deleting: true, finalizers: ['x'] })];
    expect(planGarbageCollection(objects, { uid: 'o' }).writes).toEqual([]);
  });

  it('unknown uid and objects without uid are typed errors', () => {
    expect(() => planGarbageCollection([obj('o')], { uid: 'nope' })).toThrow(GarbageCollectionError);
    try {
      planGarbageCollection([obj('o')], { uid: 'nope' });
    } catch (err) {
      expect((err as GarbageCollectionError).code).toBe('UnknownObject');
      expect((err as GarbageCollectionError).status).toBe(404);
    }
    let caught: unknown;
    try {
      planGarbageCollection([{ kind: 'ConfigMap', metadata: { name: 'x' } }]);
    } catch (err) {
      caught = err;
    }
    expect((caught as GarbageCollectionError).code).toBe('InvalidObject');
  });

  it('does not change its input', () => {
    const objects = [obj('owner'), obj('child', { owners: [{ uid: 'owner' }, { uid: 'x' }] }), obj('x')];
    const copy = structuredClone(objects);
    planGarbageCollection(objects, { uid: 'owner', propagationPolicy: 'Foreground' });
    expect(objects).toEqual(copy);
  });
});
