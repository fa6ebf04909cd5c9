import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { InformerCache } from '../internal/informer-cache.js';
import { parseFieldSelector, parseLabelSelector, selectorMatcher } from '../internal/selector-match.js';
import { captureLogger } from './capture-logger.js';

const cm = (
  name: string,
  rv: string,
  data: Record<string, string> = {},
  uid = `uid-${name}`,
): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'n', uid, resourceVersion: rv },
  data,
});

/** A cache with a recorder of [event, name, old rv, new rv]. */
function cacheWithCalls() {
  const cache = new InformerCache<V1ConfigMap>(captureLogger(), undefined);
  const calls: string[][] = [];
  cache.addHandler({
    onAdd: (o) => calls.push(['add', o.metadata!.name!, o.metadata!.resourceVersion!]),
    onUpdate: (a, b) =>
      calls.push(['update', b.metadata!.name!, a.metadata!.resourceVersion!, b.metadata!.resourceVersion!]),
    onDelete: (o, unknown) =>
      calls.push(['delete', o.metadata!.name!, o.metadata!.resourceVersion!, String(unknown)]),
  });
  return { cache, calls };
}

describe('InformerCache own-write overlay', () => {
  it('[ES-12] opaque resourceVersions: the overlay is read until the next event of the object, which is emitted from the watched state', () => {
    const { cache, calls } = cacheWithCalls();
    cache.replace([cm('a', 'x1', { v: '1' })], 'l1');
    expect(cache.cacheIfNewer(cm('a', 'x3', { v: 'own' }), 'x1')).toBe(true);
    expect(cache.store.get('n/a')?.data).toEqual({ v: 'own' });
    cache.apply('MODIFIED', cm('a', 'x2', { v: 'foreign' }));
    expect(calls.at(-1)).toEqual(['update', 'a', 'x1', 'x2']);
    expect(cache.hasOverlay('n/a')).toBe(false);
    expect(cache.store.get('n/a')?.data).toEqual({ v: 'foreign' });
  });

  it('[ES-12] decimal versions: the overlay stays through older events and goes when the stream reaches it; indexes follow reads', () => {
    const { cache, calls } = cacheWithCalls();
    cache.addIndex('v', (o) => [o.data?.v ?? '']);
    cache.replace([cm('a', '10', { v: '1' })], '10');
    expect(cache.cacheIfNewer(cm('a', '12', { v: 'own' }))).toBe(true);
    expect(cache.store.byIndex('v', 'own').map((o) => o.metadata?.name)).toEqual(['a']);
    cache.apply('MODIFIED', cm('a', '11', { v: 'edit' }));
    expect(cache.hasOverlay('n/a')).toBe(true);
    expect(cache.store.byIndex('v', 'edit')).toEqual([]);
    cache.apply('MODIFIED', cm('a', '12', { v: 'own' }));
    expect(cache.hasOverlay('n/a')).toBe(false);
    expect(calls.slice(1)).toEqual([
      ['update', 'a', '10', '11'],
      ['update', 'a', '12', '12'], // the own write's event, reported against the write
    ]);
    // an own write older than an overlay is refused
    expect(cache.cacheIfNewer(cm('a', '14', { v: 'w14' }))).toBe(true);
    expect(cache.cacheIfNewer(cm('a', '13', { v: 'w13' }))).toBe(false);
    expect(cache.store.get('n/a')?.data).toEqual({ v: 'w14' });
  });

  it('[ES-12] a created object cached before its ADDED event: add is emitted, a re-list older than it keeps it, a delete drops it', () => {
    const { cache, calls } = cacheWithCalls();
    cache.replace([], '5');
    expect(cache.cacheIfNewer(cm('b', '7'))).toBe(true);
    expect(calls).toEqual([]);
    cache.replace([], '6'); // list taken before the create: the overlay stays
    expect(cache.store.get('n/b')?.metadata?.resourceVersion).toBe('7');
    cache.apply('ADDED', cm('b', '7'));
    expect(calls).toEqual([['add', 'b', '7']]);
    expect(cache.cacheIfNewer(cm('b', '9'))).toBe(true);
    cache.apply('DELETED', cm('b', '8'));
    expect(calls.at(-1)).toEqual(['delete', 'b', '8', 'false']);
    expect(cache.store.get('n/b')).toBeUndefined();
    expect(cache.cacheIfNewer(cm('b', '10'))).toBe(false); // its uid was deleted
    // an own create the list does not contain although the list is newer: gone, dropped
    expect(cache.cacheIfNewer(cm('c', '11'))).toBe(true);
    cache.replace([], '12');
    expect(cache.store.get('n/c')).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it("[ES-12] a re-list reaching the overlay drops it; a re-created object (new uid) drops the old incarnation's overlay", () => {
    const { cache, calls } = cacheWithCalls();
    cache.replace([cm('a', '10'), cm('d', '10')], '10');
    expect(cache.cacheIfNewer(cm('a', '12', { v: 'own' }))).toBe(true);
    expect(cache.cacheIfNewer(cm('d', '12', { v: 'own' }))).toBe(true);
    cache.replace([cm('a', '13', { v: 'later' }), cm('d', '14', {}, 'uid-d2')], '14');
    expect(cache.hasOverlay('n/a')).toBe(false);
    expect(cache.hasOverlay('n/d')).toBe(false);
    expect(cache.store.get('n/d')?.metadata?.uid).toBe('uid-d2');
    expect(calls.slice(2)).toEqual([
      ['delete', 'd', '10', 'true'],
      ['update', 'a', '10', '13'],
      ['add', 'd', '14'],
    ]);
  });
});

describe('InformerCache views (shared informers)', () => {
  const recorder = (view: ReturnType<InformerCache<V1ConfigMap>['openView']>) => {
    const calls: string[][] = [];
    view.addHandler({
      onAdd: (o) => calls.push(['add', o.metadata!.name!, o.metadata!.resourceVersion!]),
      onUpdate: (a, b) =>
        calls.push(['update', b.metadata!.name!, a.metadata!.resourceVersion!, b.metadata!.resourceVersion!]),
      onDelete: (o) => calls.push(['delete', o.metadata!.name!, o.metadata!.resourceVersion!]),
    });
    return calls;
  };

  it("one user's own write is read and reported against by that user only; the other sees the watched object and the change", () => {
    const cache = new InformerCache<V1ConfigMap>(captureLogger(), undefined);
    const a = cache.openView();
    const b = cache.openView();
    const callsA = recorder(a);
    const callsB = recorder(b);
    cache.replace([cm('x', '10', { v: '1' })], '10');
    expect(a.cacheIfNewer(cm('x', '12', { v: 'mine' }))).toBe(true);
    expect(a.get('n/x')?.data).toEqual({ v: 'mine' });
    expect(b.get('n/x')?.data).toEqual({ v: '1' });
    expect(b.list().map((o) => o.data?.v)).toEqual(['1']);
    expect(a.list().map((o) => o.data?.v)).toEqual(['mine']);
    cache.apply('MODIFIED', cm('x', '12', { v: 'mine' }));
    // the writer sees no change (old = its write); the other user sees 10 -> 12
    expect(callsA.at(-1)).toEqual(['update', 'x', '12', '12']);
    expect(callsB.at(-1)).toEqual(['update', 'x', '10', '12']);
    expect(a.hasOverlay('n/x')).toBe(false);
  });

  it("one user's index is not visible to the other, same names do not clash, and closing a view removes its index and handlers", () => {
    const cache = new InformerCache<V1ConfigMap>(captureLogger(), undefined);
    const a = cache.openView();
    const b = cache.openView();
    let calledForB = 0;
    a.addIndex('v', (o) => [o.data?.v ?? '']);
    b.addIndex('v', (o) => {
      calledForB++;
      return [`b-${o.data?.v ?? ''}`];
    });
    const callsB = recorder(b);
    cache.replace([cm('x', '1', { v: '1' }), cm('y', '1', { v: '2' })], '1');
    expect(a.byIndex('v', '1').map((o) => o.metadata?.name)).toEqual(['x']);
    expect(b.byIndex('v', '1')).toEqual([]);
    expect(b.byIndex('v', 'b-2').map((o) => o.metadata?.name)).toEqual(['y']);
    expect(() => cache.openView().byIndex('v', '1')).toThrow(/no index named "v"/);
    b.close();
    const before = calledForB;
    cache.apply('MODIFIED', cm('x', '2', { v: '3' }));
    expect(calledForB).toBe(before); // a closed view's index costs nothing any more
    expect(callsB.filter((c) => c[1] === 'x' && c[3] === '2')).toEqual([]);
    expect(a.byIndex('v', '3').map((o) => o.metadata?.name)).toEqual(['x']);
  });

  it('a handler added to a running informer gets the cached objects replayed as list events', () => {
    const cache = new InformerCache<V1ConfigMap>(captureLogger(), undefined);
    cache.replace([cm('x', '1')], '1');
    const listing: boolean[] = [];
    cache.openView().addHandler({ onAdd: () => listing.push(cache.listing) });
    expect(listing).toEqual([true]);
    expect(cache.listing).toBe(false);
  });
});

describe('InformerCache admit/readmit', () => {
  it('readmit keeps what the watch has (newer than the list), never brings back a deleted object, and an admit that throws counts as no', () => {
    const owned = new Set(['1']);
    const logger = captureLogger();
    const cache = new InformerCache<V1ConfigMap>(logger, undefined, undefined, (o) => {
      if (o.data?.boom) throw new Error('boom');
      return owned.has(o.data?.shard ?? '');
    });
    const calls: string[] = [];
    cache.addHandler({
      onAdd: (o) => calls.push(`add ${o.metadata!.name}@${o.metadata!.resourceVersion}`),
      onDelete: (o, unknown) =>
        calls.push(`delete ${o.metadata!.name}@${o.metadata!.resourceVersion} ${unknown}`),
    });
    cache.replace(
      [cm('a', '1', { shard: '1' }), cm('b', '1', { shard: '2' }), cm('c', '1', { shard: '2' })],
      '1',
    );
    expect(cache.store.keys()).toEqual(['n/a']);
    owned.add('2');
    // between the list's snapshot and now: the watch saw b change (admitted now) and c deleted
    cache.apply('MODIFIED', cm('b', '3', { shard: '2' }));
    cache.apply('DELETED', cm('c', '4', { shard: '2' }));
    cache.readmit([
      cm('a', '1', { shard: '1' }),
      cm('b', '2', { shard: '2' }),
      cm('c', '2', { shard: '2' }),
      cm('d', '2', { shard: '2', boom: 'x' }),
    ]);
    expect(cache.store.get('n/b')?.metadata?.resourceVersion).toBe('3');
    expect(cache.store.get('n/c')).toBeUndefined();
    expect(cache.store.get('n/d')).toBeUndefined();
    expect(calls).toEqual(['add a@1', 'add b@3']);
    owned.delete('1');
    cache.readmit([]);
    expect(calls.at(-1)).toEqual('delete a@1 true');
    expect(cache.store.keys()).toEqual(['n/b']);
  });
});

describe('selector matching on the client', () => {
  const obj = (labels: Record<string, string>, extra: Record<string, unknown> = {}) =>
    ({ metadata: { name: 'p', namespace: 'n', labels }, ...extra }) as V1ConfigMap;

  it('[EP-17] label selectors as the API server reads them', () => {
    const m = (s: string) => selectorMatcher(s, undefined).matches;
    expect(m('app=x')(obj({ app: 'x' }))).toBe(true);
    expect(m('app==x')(obj({ app: 'y' }))).toBe(false);
    expect(m('app!=x')(obj({}))).toBe(true);
    expect(m('app, !legacy')(obj({ app: '' }))).toBe(true);
    expect(m('app, !legacy')(obj({ app: 'a', legacy: 'true' }))).toBe(false);
    expect(m('tier in (web, api),env notin (prod)')(obj({ tier: 'api' }))).toBe(true);
    expect(m('tier in (web, api),env notin (prod)')(obj({ tier: 'api', env: 'prod' }))).toBe(false);
    expect(m('shard>2')(obj({ shard: '3' }))).toBe(true);
    expect(m('shard<2')(obj({ shard: 'x' }))).toBe(false);
    expect(m('empty=')(obj({ empty: '' }))).toBe(true);
    expect(
      m('app.kubernetes.io/managed-by=webpage-operator')(
        obj({ 'app.kubernetes.io/managed-by': 'webpage-operator' }),
      ),
    ).toBe(true);
    expect(
      m('app.kubernetes.io/managed-by=webpage-operator')(obj({ 'app.kubernetes.io/managed-by': 'other' })),
    ).toBe(false);
    for (const bad of ['a in (x', '=x', 'a b', 'a in x', 'a>b', '!'])
      expect(parseLabelSelector(bad)).toBeUndefined();
    const broken = selectorMatcher('a in (x', undefined);
    expect(broken.unparsable).toContain('labelSelector');
    expect(broken.matches(obj({ a: 'x' }))).toBe(false);
  });

  it('[EP-17] field selectors on any path, with escapes, missing fields empty', () => {
    const m = (s: string) => selectorMatcher(undefined, s).matches;
    expect(m('metadata.name=p,metadata.namespace!=kube-system')(obj({}))).toBe(true);
    expect(m('metadata.name==q')(obj({}))).toBe(false);
    expect(m('status.phase=Running')(obj({}, { status: { phase: 'Running' } }))).toBe(true);
    expect(m('spec.nodeName=')(obj({}))).toBe(true);
    expect(m('spec.nodeName!=')(obj({}, { spec: { nodeName: 'n1' } }))).toBe(true);
    expect(parseFieldSelector('a=b\\,c,d!=e')).toEqual([
      { path: ['a'], value: 'b,c', equal: true },
      { path: ['d'], value: 'e', equal: false },
    ]);
    expect(parseFieldSelector('novalue')).toBeUndefined();
    expect(selectorMatcher(undefined, '=x').unparsable).toContain('fieldSelector');
  });
});
