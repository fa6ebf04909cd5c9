import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { MAX_TRACKED_KEYS, OwnWriteTracker } from '../own-write-tracker.js';

const at = (resourceVersion: string, value = resourceVersion): V1ConfigMap => ({
  metadata: { name: 'c', namespace: 'ns', resourceVersion },
  data: { value },
});
const K = 'ns/c';
/** A write taken as explaining any transition (these tests are about versions, holding and re-lists). */
const EXPLAINED = { explains: () => true };

describe('OwnWriteTracker', () => {
  it('[ES-10] suppresses the event of our own version and keeps every other version', () => {
    const t = new OwnWriteTracker<V1ConfigMap>();
    t.begin(K);
    expect(t.end(K, at('11'), at('10'), EXPLAINED)).toEqual([]);
    expect(t.get(K)?.metadata?.resourceVersion).toBe('11');
    expect(t.onEvent(K, { kind: 'update', oldObj: at('9'), obj: at('10') })).toBe('foreign'); // landed before ours
    expect(t.onEvent(K, { kind: 'update', oldObj: at('10'), obj: at('11') })).toBe('own');
    expect(t.get(K)).toBeUndefined(); // the informer caught up
    expect(t.onEvent(K, { kind: 'update', oldObj: at('11'), obj: at('12') })).toBe('foreign');
    expect(t.isIdle(K)).toBe(true);
  });

  it('[ES-12] holds events during a write and judges them when it returns; a failed write suppresses nothing', () => {
    const t = new OwnWriteTracker<V1ConfigMap>();
    t.begin(K);
    expect(t.onEvent(K, { kind: 'update', oldObj: at('9'), obj: at('10') })).toBe('held');
    expect(t.onEvent(K, { kind: 'update', oldObj: at('10'), obj: at('11') })).toBe('held');
    const foreign = t.end(K, at('11'), at('11'), EXPLAINED);
    expect(foreign.map((e) => e.obj.metadata?.resourceVersion)).toEqual(['10']);
    expect(t.get(K)).toBeUndefined();
    t.begin(K);
    expect(t.onEvent(K, { kind: 'update', oldObj: at('11'), obj: at('12') })).toBe('held');
    expect(t.end(K, undefined, at('12'), EXPLAINED).map((e) => e.obj.metadata?.resourceVersion)).toEqual([
      '12',
    ]);
  });

  it('[ES-12] events of a re-list always count as foreign, even at our version', () => {
    const t = new OwnWriteTracker<V1ConfigMap>();
    t.begin(K);
    t.end(K, at('11'), at('9'), EXPLAINED);
    expect(t.onEvent(K, { kind: 'update', oldObj: at('9'), obj: at('11'), relisted: true })).toBe('foreign');
    expect(t.isIdle(K)).toBe(true);
  });

  it('[ES-11] a write that changed nothing (same version as cached) leaves nothing pending', () => {
    const t = new OwnWriteTracker<V1ConfigMap>();
    t.begin(K);
    t.end(K, at('10'), at('10'), EXPLAINED);
    expect(t.isIdle(K)).toBe(true);
  });

  it('[ES-10] opaque resourceVersions: attribution by equality, the own copy is served until the next event', () => {
    const t = new OwnWriteTracker<V1ConfigMap>();
    t.begin(K);
    t.end(K, at('b7', 'ours'), at('a3'), EXPLAINED);
    expect(t.get(K)?.data?.value).toBe('ours');
    expect(t.onEvent(K, { kind: 'update', oldObj: at('a3'), obj: at('zz') })).toBe('foreign');
    expect(t.get(K)).toBeUndefined();
    expect(t.onEvent(K, { kind: 'update', oldObj: at('zz'), obj: at('b7') })).toBe('own');
  });

  it('[ES-10] deletes are always foreign and drop the own copy', () => {
    const t = new OwnWriteTracker<V1ConfigMap>();
    t.begin(K);
    t.end(K, at('11'), at('10'), EXPLAINED);
    expect(t.onEvent(K, { kind: 'delete', obj: at('11'), finalStateUnknown: false })).toBe('foreign');
    expect(t.get(K)).toBeUndefined();
    expect(t.isIdle(K)).toBe(true);
  });

  it('[ES-10] a tracker costs nothing until it tracks (every event source has one) and stays bounded', () => {
    const before = process.memoryUsage().arrayBuffers;
    const trackers = Array.from({ length: 20 }, () => new OwnWriteTracker<V1ConfigMap>());
    // preallocated LRU slots were typed arrays of 50,000 entries (400 kB each tracker)
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1_000_000);
    const t = trackers[0];
    // written and answered, their events not come yet: beyond the bound the least recently written
    // are forgotten (their event then counts as someone else's: one extra reconciliation at most)
    const written = (key: string): void => {
      t.begin(key);
      t.end(key, at('2'), at('1'), EXPLAINED);
    };
    const eventOf = (key: string) => t.onEvent(key, { kind: 'update', oldObj: at('1'), obj: at('2') });
    for (let i = 0; i < MAX_TRACKED_KEYS + 10; i++) written(`ns/c${i}`);
    expect(eventOf('ns/c0')).toBe('foreign');
    expect(eventOf('ns/c9')).toBe('foreign');
    expect(eventOf('ns/c10')).toBe('own');
    expect(eventOf(`ns/c${MAX_TRACKED_KEYS + 9}`)).toBe('own');
    // a state with a write in flight is never evicted (it holds the events arriving meanwhile)
    t.begin('ns/in-flight');
    expect(t.onEvent('ns/in-flight', { kind: 'update', oldObj: at('1'), obj: at('2', 'theirs') })).toBe(
      'held',
    );
    for (let i = 0; i < MAX_TRACKED_KEYS + 10; i++) written(`ns/d${i}`);
    const held = t.end('ns/in-flight', at('3'), at('2', 'theirs'), EXPLAINED);
    expect(held.map((e) => e.obj.data?.value)).toEqual(['theirs']);
  });
});
