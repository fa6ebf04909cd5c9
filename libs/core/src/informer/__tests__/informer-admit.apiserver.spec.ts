import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { apiServerSuite, newNamespace, waitFor } from '../../operator/__tests__/support.js';
import { Informer } from '../informer.js';
import { MultiNamespaceInformer } from '../multi-namespace-informer.js';
import { SharedInformers } from '../shared-informers.js';
import { captureLogger } from './capture-logger.js';

const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();

/** Records events as `add a`, `update a`, `delete a (unknown)`, with whether they came from a list. */
function recorder(
  informer: { addEventHandler: Informer<V1ConfigMap>['addEventHandler'] },
  listing: () => boolean,
) {
  const events: string[] = [];
  informer.addEventHandler({
    onAdd: (o) => events.push(`add ${o.metadata!.name}${listing() ? ' (list)' : ''}`),
    onUpdate: (_, o) => events.push(`update ${o.metadata!.name}`),
    onDelete: (o, unknown) => events.push(`delete ${o.metadata!.name}${unknown ? ' (unknown)' : ''}`),
  });
  return events;
}

const shardOf = (o: V1ConfigMap) => o.metadata?.labels?.shard ?? '';

describe('informer admit/readmit (hooks for sharded secondaries, issue 19)', () => {
  let informer: Informer<V1ConfigMap> | undefined;
  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
  });

  const put = (ns: string, name: string, shard: string, value = 'x') =>
    bed.admin.apply(
      CM,
      { metadata: { name, namespace: ns, labels: { shard } }, data: { value } },
      { fieldManager: 'test' },
    );

  it('admit filters the store and the events; an object leaving the predicate is removed with a delete event; readmit adds the newly admitted and drops the no longer admitted', async () => {
    const ns = await newNamespace(bed.admin);
    for (let i = 0; i < 20; i++) await put(ns, `cm-${i}`, String(i % 4), 'v'.repeat(2_000));
    const owned = new Set(['0']);
    informer = new Informer<V1ConfigMap>({
      client: bed.admin,
      type: CM,
      namespace: ns,
      logger: captureLogger(),
      admit: (o) => owned.has(shardOf(o)),
    });
    const events = recorder(informer, () => informer!.isListing());
    await informer.start();
    // only the admitted quarter is cached: count and bytes
    const all = (await bed.admin.list(CM, { namespace: ns })).items;
    const bytes = (objects: V1ConfigMap[]) => objects.reduce((n, o) => n + JSON.stringify(o).length, 0);
    expect(informer.keys().sort()).toEqual(
      ['cm-0', 'cm-12', 'cm-16', 'cm-4', 'cm-8'].map((n) => `${ns}/${n}`),
    );
    expect(bytes(informer.list())).toBeLessThan(bytes(all) * 0.3);
    expect(events.filter((e) => e.startsWith('add')).length).toBe(5);

    // a change of an object not admitted: no event, not cached
    await put(ns, 'cm-1', '1', 'changed');
    // a cached object leaves the predicate: removed, with a delete (final state unknown)
    await put(ns, 'cm-4', '1');
    await waitFor(() => events.includes('delete cm-4 (unknown)'), 'cm-4 removed');
    expect(informer.get(new ResourceID('cm-4', ns))).toBeUndefined();
    expect(events.some((e) => e.split(' ')[1] === 'cm-1')).toBe(false);

    // the predicate changes: readmit lists and applies it in one step
    events.length = 0;
    owned.clear();
    owned.add('1');
    owned.add('2');
    await informer.readmit();
    const expected = all
      .map((o) => o.metadata!.name!)
      .filter((n) => ['1', '2'].includes(String(Number(n.slice(3)) % 4)) || n === 'cm-4');
    expect(informer.keys().sort()).toEqual(expected.map((n) => `${ns}/${n}`).sort());
    expect(informer.get(new ResourceID('cm-1', ns))?.data?.value).toBe('changed');
    expect(events.filter((e) => e.startsWith('delete')).sort()).toEqual(
      ['cm-0', 'cm-12', 'cm-16', 'cm-8'].map((n) => `delete ${n} (unknown)`).sort(),
    );
    expect(events.filter((e) => e.startsWith('add')).sort()).toEqual(
      expected.map((n) => `add ${n} (list)`).sort(),
    );
    // the watch keeps applying the predicate after readmit
    await put(ns, 'cm-0', '2');
    await waitFor(
      () => informer!.get(new ResourceID('cm-0', ns)) !== undefined,
      'cm-0 admitted by the watch',
    );
  });

  it('readmit never leaves an object missing that stays admitted, even while its list is slow', async () => {
    const ns = await newNamespace(bed.admin);
    for (let i = 0; i < 12; i++) await put(ns, `cm-${i}`, String(i % 3));
    const owned = new Set(['0', '1']);
    informer = new Informer<V1ConfigMap>({
      client: bed.admin,
      type: CM,
      namespace: ns,
      pageSize: 2,
      logger: captureLogger(),
      admit: (o) => owned.has(shardOf(o)),
    });
    await informer.start();
    const staying = informer.list().filter((o) => shardOf(o) === '1');
    expect(staying).toHaveLength(4);
    owned.delete('0');
    owned.add('2');
    bed.server.faults.addLatency({ verb: 'list', resource: 'configmaps', namespace: ns, ms: 30 });
    let done = false;
    let missing = 0;
    let checks = 0;
    const readmit = informer.readmit().finally(() => (done = true));
    // bounded: at most 2,000 checks, each a macrotask apart
    while (!done && checks < 2_000) {
      checks++;
      for (const o of staying) if (!informer.get(ResourceID.fromResource(o))) missing++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await readmit;
    expect(checks).toBeGreaterThan(1);
    expect(missing).toBe(0);
    expect(informer.list().map(shardOf).sort()).toEqual(['1', '1', '1', '1', '2', '2', '2', '2']);
  });

  it('an informer with admit is never shared; a shared one serves the others unfiltered', async () => {
    const ns = await newNamespace(bed.admin);
    await put(ns, 'a', '1');
    await put(ns, 'b', '2');
    const shared = new SharedInformers();
    const options = { client: bed.admin, type: CM, logger: captureLogger() };
    const plain = new MultiNamespaceInformer<V1ConfigMap>({ ...options, namespaces: [ns], shared });
    const other = new MultiNamespaceInformer<V1ConfigMap>({ ...options, namespaces: [ns], shared });
    const restricted = new MultiNamespaceInformer<V1ConfigMap>({ ...options, namespaces: [ns], shared });
    restricted.restrictTo((o) => shardOf(o) === '1');
    try {
      await Promise.all([plain.start(), other.start(), restricted.start()]);
      expect(() => restricted.restrictTo(() => true)).toThrow(/before start/);
      expect(shared.size).toBe(1);
      expect(plain.keys().sort()).toEqual([`${ns}/a`, `${ns}/b`]);
      expect(restricted.keys()).toEqual([`${ns}/a`]);
      expect(bed.server.requests.count({ verb: 'list', resource: 'configmaps', namespace: ns })).toBe(2);
    } finally {
      await Promise.all([plain.stop(), other.stop(), restricted.stop()]);
    }
    expect(shared.size).toBe(0);
  });
});
