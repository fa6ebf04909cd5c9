import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { applyJsonPatch, OwnWrites } from '../own-write.js';

type Obj = V1ConfigMap & { status?: Record<string, unknown>; spec?: Record<string, unknown> };

const obj = (rv: string, more: Partial<Obj> = {}, meta: Partial<NonNullable<Obj['metadata']>> = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'ns', uid: 'u1', resourceVersion: rv, ...meta },
  ...more,
});

describe('OwnWrites: when an own write explains a transition (issue 11 §1)', () => {
  it('[ES-10] server-side apply: only the intent’s fields changed, to its values; a foreign change or a removal is not explained', () => {
    const apply = OwnWrites.apply<Obj>(obj('', { data: { a: '1' } }));
    const before = obj('1', { data: { a: '0', other: 'x' } });
    expect(apply.explains(before, obj('2', { data: { a: '1', other: 'x' } }, { managedFields: [] }))).toBe(
      true,
    );
    // someone else's data change at the version our no-op apply returned
    expect(apply.explains(obj('1', { data: { a: '1' } }), obj('2', { data: { a: '1', b: 'theirs' } }))).toBe(
      false,
    );
    // a deletion mark, a label
    expect(
      apply.explains(
        obj('1', { data: { a: '1' } }),
        obj('2', { data: { a: '1' } }, { deletionTimestamp: new Date(0) }),
      ),
    ).toBe(false);
    expect(
      apply.explains(obj('1', { data: { a: '1' } }), obj('2', { data: { a: '1' } }, { labels: { x: 'y' } })),
    ).toBe(false);
    // a field dropped (even one we owned before) is not explained: at most one extra reconcile
    expect(apply.explains(obj('1', { data: { a: '0', gone: 'x' } }), obj('2', { data: { a: '1' } }))).toBe(
      false,
    );
    // a create by apply: everything the object has is the intent (server fields ignored)
    expect(
      apply.explains(undefined, obj('2', { data: { a: '1' } }, { creationTimestamp: new Date(0) })),
    ).toBe(true);
    // someone else made the same change: the object is what our write alone makes of it
    expect(apply.explains(obj('1', { data: { a: '0' } }), obj('2', { data: { a: '1' } }))).toBe(true);
  });

  it('[ES-10] server-side apply of a list merged by key or value (finalizers): our items added, every other item kept in order', () => {
    const apply = OwnWrites.apply<Obj>(obj('', {}, { finalizers: ['ours'] }));
    const before = obj('1', {}, { finalizers: ['a', 'b'] });
    expect(apply.explains(before, obj('2', {}, { finalizers: ['a', 'b', 'ours'] }))).toBe(true);
    expect(apply.explains(before, obj('2', {}, { finalizers: ['b', 'a', 'ours'] }))).toBe(false);
    expect(apply.explains(before, obj('2', {}, { finalizers: ['a', 'ours'] }))).toBe(false);
    // our item taken away is not what our apply does
    expect(
      apply.explains(obj('1', {}, { finalizers: ['a', 'ours'] }), obj('2', {}, { finalizers: ['a'] })),
    ).toBe(false);
  });

  it('[ES-19] status apply and merge patch: only the status counts; a spec change in the same transition is someone else’s', () => {
    const status = OwnWrites.apply<Obj>(obj('', { status: { ready: true } }), 'status');
    const before = obj('1', { spec: { v: 1 }, status: { ready: false } });
    expect(status.explains(before, obj('2', { spec: { v: 1 }, status: { ready: true } }))).toBe(true);
    expect(status.explains(before, obj('2', { spec: { v: 2 }, status: { ready: true } }))).toBe(false);
    const merge = OwnWrites.mergePatch<Obj>({ status: { ready: true, gone: null } }, 'status');
    expect(merge.explains(obj('1', { status: { gone: 1 } }), obj('2', { status: { ready: true } }))).toBe(
      true,
    );
    expect(
      merge.explains(obj('1', { status: { gone: 1 } }), obj('2', { status: { ready: true, gone: 1 } })),
    ).toBe(false);
    // a merge patch never creates
    expect(merge.explains(undefined, obj('2', { status: { ready: true } }))).toBe(false);
  });

  it('[ES-10] JSON patch: the operations applied to the previous object; a resourceVersion test makes the request its own proof', () => {
    const ops = [
      { op: 'test', path: '/metadata/resourceVersion', value: '1' },
      { op: 'add', path: '/metadata/finalizers', value: ['ours'] },
    ];
    const patch = OwnWrites.jsonPatch<Obj>(ops);
    expect(patch.explains(obj('1'), obj('2', {}, { finalizers: ['ours'] }))).toBe(true);
    expect(patch.explains(obj('1'), obj('2', {}, { finalizers: ['ours'], labels: { x: 'y' } }))).toBe(false);
    expect(patch.certain?.(obj('2'))).toBe(true);
    // a version equal to the tested one means the server changed nothing
    expect(patch.certain?.(obj('1'))).toBe(false);
    const failing = OwnWrites.jsonPatch<Obj>([{ op: 'test', path: '/data/a', value: 'x' }]);
    expect(failing.explains(obj('1', { data: { a: 'y' } }), obj('2', { data: { a: 'y' } }))).toBe(false);
    expect(applyJsonPatch({ a: [1, 2] }, [{ op: 'move', from: '/a/0', path: '/b' }])).toEqual({
      a: [2],
      b: 1,
    });
  });

  it('[ES-10] update: conditional on a resourceVersion it proves itself; a create always does', () => {
    const locked = OwnWrites.update<Obj>(obj('5', { data: { a: '1' } }));
    expect(locked.certain?.(obj('6'))).toBe(true);
    expect(locked.certain?.(obj('5'))).toBe(false);
    const unlocked = OwnWrites.update<Obj>(obj('', { data: { a: '1' } }, { resourceVersion: undefined }));
    expect(unlocked.certain).toBeUndefined();
    expect(unlocked.explains(obj('1', { data: { a: '0' } }), obj('2', { data: { a: '1' } }))).toBe(true);
    expect(unlocked.explains(obj('1', { data: { a: '0' } }), obj('2', { data: { a: '1', b: '2' } }))).toBe(
      false,
    );
    expect(OwnWrites.create<Obj>().certain?.(obj('1'))).toBe(true);
    expect(OwnWrites.unknown<Obj>().explains(obj('1'), obj('2'))).toBe(false);
  });
});
