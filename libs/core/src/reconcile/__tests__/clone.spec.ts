import { describe, expect, it } from '@jest/globals';
import { cloneResource } from '../internal/clone.js';

// The copy every reconciliation gets of its primary (and a skipped apply returns of the cached
// object): whatever the caller does to it must never reach the cache.
describe('cloneResource', () => {
  const parsed = () =>
    JSON.parse(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'c',
          labels: { a: '1' },
          managedFields: [{ manager: 'm', fieldsV1: { 'f:metadata': { 'k:{"uid":"u-1"}': { '.': {} } } } }],
          ownerReferences: [{ uid: 'u-1', name: 'w' }],
        },
        data: { value: 'x', empty: '' },
        list: [[1, { deep: true }], null, 0, false],
      }),
    ) as Record<string, unknown> & { metadata: Record<string, unknown> };

  it('copies every level: changing the copy anywhere leaves the original as it was', () => {
    const original = parsed();
    const before = JSON.stringify(original);
    const copy = cloneResource(original);
    expect(copy).toEqual(original);
    (copy.metadata.labels as Record<string, string>).a = 'changed';
    (
      (copy.metadata.managedFields as Array<{ fieldsV1: Record<string, unknown> }>)[0].fieldsV1[
        'f:metadata'
      ] as Record<string, unknown>
    )['k:{"uid":"u-1"}'] = 'changed';
    (copy.metadata.ownerReferences as unknown[]).push('more');
    ((copy.list as unknown[])[0] as unknown[])[1] = 'changed';
    copy.data = undefined;
    expect(JSON.stringify(original)).toBe(before);
  });

  it('keeps Dates as Dates (their own copies) and an own "__proto__" member as a member', () => {
    const when = new Date('2026-01-02T03:04:05Z');
    const original = { metadata: { deletionTimestamp: when } };
    const copy = cloneResource(original);
    expect(copy.metadata.deletionTimestamp).toEqual(when);
    expect(copy.metadata.deletionTimestamp).not.toBe(when);
    const withProto = JSON.parse('{"spec":{"__proto__":{"polluted":true}}}') as { spec: object };
    const copied = cloneResource(withProto);
    expect(Object.getPrototypeOf(copied.spec)).toBe(Object.prototype);
    expect(Object.keys(copied.spec)).toEqual(['__proto__']);
    expect(JSON.stringify(copied)).toBe(JSON.stringify(withProto));
  });
});
