import { describe, expect, it } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { InformerStore } from '../internal/informer-store.js';
import { compareResourceVersions } from '../internal/resource-version.js';

const pod = (ns: string, name: string, secrets: string[]): V1Pod => ({
  metadata: { name, namespace: ns },
  spec: { containers: [], volumes: secrets.map((s) => ({ name: s, secret: { secretName: s } })) },
});
const secretsOf = (p: V1Pod) =>
  (p.spec?.volumes ?? []).map((v) => v.secret?.secretName ?? '').filter(Boolean);

describe('InformerStore', () => {
  it('keeps indexes and the namespace index current through puts, replacements and removals', () => {
    const errors: string[] = [];
    const store = new InformerStore<V1Pod>((index, key) => errors.push(`${index}:${key}`));
    store.put('a/p1', pod('a', 'p1', ['s1', 's2', 's1']));
    store.addIndex('secret', secretsOf); // filled from what is cached
    store.put('b/p2', pod('b', 'p2', ['s2']));
    expect(
      store
        .byIndex('secret', 's2')
        .map((p) => p.metadata?.name)
        .sort(),
    ).toEqual(['p1', 'p2']);
    expect(store.byIndex('secret', 's1')).toHaveLength(1);
    store.put('a/p1', pod('a', 'p1', ['s3'])); // re-indexed on replacement
    expect(store.byIndex('secret', 's1')).toEqual([]);
    expect(store.byIndex('secret', 's3')).toHaveLength(1);
    store.remove('b/p2');
    expect(store.byIndex('secret', 's2')).toEqual([]);
    expect(store.list('b')).toEqual([]);
    expect(store.list('a')).toHaveLength(1);
    expect(store.remove('missing')).toBeUndefined();

    store.addIndex('broken', (p) => {
      if (p.metadata?.name === 'p1') throw new Error('bad index');
      return ['x'];
    });
    expect(errors).toEqual(['broken:a/p1']);
    store.put('c/p3', pod('c', 'p3', []));
    expect(store.byIndex('broken', 'x').map((p) => p.metadata?.name)).toEqual(['p3']);
  });
});

describe('InformerStore index updates', () => {
  it('serves the replacement object under unchanged index values, and drops an object whose index function starts to throw', () => {
    const errors: string[] = [];
    let throwFor = '';
    const store = new InformerStore<V1Pod>((index, key) => errors.push(`${index}:${key}`));
    store.addIndex('secret', (p) => {
      if (p.metadata?.name === throwFor) throw new Error('bad index');
      return secretsOf(p);
    });
    const first = pod('a', 'p1', ['s1']);
    const second = pod('a', 'p1', ['s1']);
    store.put('a/p1', first);
    store.put('a/p1', second); // same values: the index answers the new object
    expect(store.byIndex('secret', 's1')).toEqual([second]);
    store.put('a/p1', pod('a', 'p1', ['s1', 's1'])); // duplicates count once
    expect(store.byIndex('secret', 's1')).toHaveLength(1);
    throwFor = 'p1';
    store.put('a/p1', pod('a', 'p1', ['s1']));
    expect(store.byIndex('secret', 's1')).toEqual([]);
    expect(errors).toEqual(['secret:a/p1']);
    throwFor = '';
    store.put('a/p1', pod('a', 'p1', ['s2']));
    expect(store.byIndex('secret', 's2')).toHaveLength(1);
    expect(store.byIndex('secret', 's1')).toEqual([]);
  });
});

describe('compareResourceVersions', () => {
  it('compares decimal versions as integers of any length and gives up on opaque ones', () => {
    expect(compareResourceVersions('9', '10')).toBeLessThan(0);
    expect(compareResourceVersions('123456789012345678901', '123456789012345678900')).toBeGreaterThan(0);
    expect(compareResourceVersions('007', '7')).toBe(0);
    expect(compareResourceVersions('abc', '7')).toBeUndefined();
    expect(compareResourceVersions(undefined, '7')).toBeUndefined();
  });
});
