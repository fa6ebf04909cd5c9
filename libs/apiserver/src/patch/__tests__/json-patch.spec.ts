import { describe, expect, it } from '@jest/globals';
import { applyJsonPatch, PatchError } from '../index.js';
import type { JsonObject } from '../../types.js';

const pod = (): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', finalizers: ['a', 'b'], labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

function failure(run: () => unknown): PatchError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PatchError);
    return error as PatchError;
  }
  throw new Error('expected a PatchError');
}

describe('applyJsonPatch (RFC 6902)', () => {
  it('[EP-22] adds, replaces, removes, moves, copies and tests, without changing the input', () => {
    const target = pod();
    const before = structuredClone(target);
    const out = applyJsonPatch(target, [
      { op: 'test', path: '/metadata/finalizers/0', value: 'a' },
      { op: 'add', path: '/metadata/finalizers/-', value: 'c' },
      { op: 'remove', path: '/metadata/finalizers/0' },
      { op: 'replace', path: '/spec/containers/0/image', value: 'nginx:2' },
      { op: 'add', path: '/metadata/labels/tier', value: 'fe' },
      { op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/application' },
      { op: 'copy', from: '/metadata/labels/tier', path: '/metadata/annotations', value: 'ignored' },
    ]);
    expect(out.metadata).toEqual({
      name: 'p',
      finalizers: ['b', 'c'],
      labels: { tier: 'fe', application: 'web' },
      annotations: 'fe',
    });
    expect((out.spec as JsonObject).containers).toEqual([{ name: 'c', image: 'nginx:2' }]);
    expect(target).toEqual(before);
  });

  it('does not share patch values with the result', () => {
    const value = { team: 'x' };
    const out = applyJsonPatch(pod(), [{ op: 'add', path: '/metadata/annotations', value }]);
    value.team = 'changed';
    expect((out.metadata as JsonObject).annotations).toEqual({ team: 'x' });
  });

  it('unescapes ~1 and ~0 in paths', () => {
    const out = applyJsonPatch(pod(), [
      { op: 'add', path: '/metadata/labels/example.com~1a~0b', value: 'v' },
    ]);
    expect((out.metadata as JsonObject).labels).toEqual({ app: 'web', 'example.com/a~b': 'v' });
  });

  it('a failed test gives PatchError TestOperationFailed (422) and changes nothing', () => {
    const error = failure(() =>
      applyJsonPatch(pod(), [{ op: 'test', path: '/metadata/labels/app', value: 'other' }]),
    );
    expect(error.code).toBe('TestOperationFailed');
    expect(error.status).toBe(422);
  });

  it('a test compares objects structurally, regardless of key order', () => {
    const out = applyJsonPatch(pod(), [
      { op: 'test', path: '/spec/containers/0', value: { image: 'nginx', name: 'c' } },
    ]);
    expect(out.kind).toBe('Pod');
  });

  it('a non-array patch gives PatchError InvalidPatch (400)', () => {
    for (const patch of [{ op: 'add' }, 'x', null, 3]) {
      const error = failure(() => applyJsonPatch(pod(), patch));
      expect(error.code).toBe('InvalidPatch');
      expect(error.status).toBe(400);
    }
  });

  it('an operation that is not an object gives PatchError InvalidPatch (400)', () => {
    const error = failure(() => applyJsonPatch(pod(), [1]));
    expect([error.code, error.status]).toEqual(['InvalidPatch', 400]);
  });

  it('an unknown op gives PatchError InvalidOperation (422, as kube-apiserver "Unexpected kind")', () => {
    const error = failure(() => applyJsonPatch(pod(), [{ op: 'upsert', path: '/a', value: 1 }]));
    expect([error.code, error.status]).toEqual(['InvalidOperation', 422]);
    expect(error.message).toContain('Unexpected kind: upsert');
  });

  it('missing path, from or value gives PatchError InvalidOperation (422)', () => {
    for (const op of [
      { op: 'add', value: 1 },
      { op: 'add', path: '/a' },
      { op: 'move', path: '/a' },
      { op: 'remove', path: 7 },
    ]) {
      const error = failure(() => applyJsonPatch(pod(), [op]));
      expect([error.code, error.status]).toEqual(['InvalidOperation', 422]);
    }
  });

  it('a malformed pointer gives PatchError InvalidPath (422)', () => {
    for (const path of ['metadata/name', '/metadata/finalizers/01', '/metadata/x~2']) {
      const error = failure(() => applyJsonPatch(pod(), [{ op: 'add', path, value: 1 }]));
      expect([error.code, error.status]).toEqual(['InvalidPath', 422]);
    }
  });

  it('a missing path gives PatchError PathNotFound (422)', () => {
    const cases = [
      { op: 'remove', path: '/metadata/annotations' },
      { op: 'replace', path: '/spec/nodeName', value: 'n' },
      { op: 'add', path: '/status/phase', value: 'Running' },
      { op: 'add', path: '/metadata/finalizers/5', value: 'x' },
      { op: 'move', from: '/nope', path: '/x' },
      { op: 'test', path: '/spec/hostname', value: 'h' },
    ];
    for (const op of cases) {
      const error = failure(() => applyJsonPatch(pod(), [op]));
      expect([op, error.code, error.status]).toEqual([op, 'PathNotFound', 422]);
    }
  });

  it('walking into a scalar gives PatchError TypeMismatch (422)', () => {
    const error = failure(() =>
      applyJsonPatch(pod(), [{ op: 'add', path: '/metadata/name/first', value: 'x' }]),
    );
    expect([error.code, error.status]).toEqual(['TypeMismatch', 422]);
  });

  it('replacing the whole document by a scalar gives PatchError NotAnObject (422)', () => {
    const error = failure(() => applyJsonPatch(pod(), [{ op: 'replace', path: '', value: 5 }]));
    expect([error.code, error.status]).toEqual(['NotAnObject', 422]);
  });

  it('moving a value into its own child gives PatchError InvalidPath (422)', () => {
    const error = failure(() =>
      applyJsonPatch(pod(), [{ op: 'move', from: '/metadata', path: '/metadata/labels/m' }]),
    );
    expect([error.code, error.status]).toEqual(['InvalidPath', 422]);
  });

  it('refuses to write through __proto__', () => {
    const error = failure(() =>
      applyJsonPatch(pod(), [{ op: 'add', path: '/__proto__/polluted', value: true }]),
    );
    expect(error.status).toBe(422);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
