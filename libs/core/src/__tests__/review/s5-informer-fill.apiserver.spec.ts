import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { Informer } from '../../informer/informer.js';
import { apiServerSuite, newNamespace, waitFor } from '../../operator/__tests__/support.js';

/**
 * Adversarial review (session 5) of the informer's list and cache fill (issue 15 §2, H22: the
 * restart's start phase): whatever the list parse and the fill become, the cache holds exactly what
 * the server serves: awkward JSON (escapes, non-ASCII, an own `__proto__` member, large values),
 * several pages, changes while the list is under way, a stop and a new informer started, and
 * indexes that follow. Compared with the server's own list, object by object.
 */
const bed = apiServerSuite();
const CM = ResourceTypes.ConfigMap;
const WAIT_MS = 20_000;
jest.setTimeout(60_000);

function canonical(o: unknown): unknown {
  if (o === null || typeof o !== 'object') return o;
  if (Array.isArray(o)) return o.map(canonical);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) {
    const v = (o as Record<string, unknown>)[k];
    if (k === '__proto__') Object.defineProperty(out, k, { value: canonical(v), enumerable: true });
    else out[k] = canonical(v);
  }
  return out;
}

const text = (o: KubernetesResource) => JSON.stringify(canonical(o));

async function serverTexts(ns: string): Promise<Map<string, string>> {
  const list = await bed.admin.list(CM, { namespace: ns });
  return new Map(list.items.map((c) => [c.metadata!.name!, text(c)]));
}

function cacheTexts(informer: Informer<V1ConfigMap>): Map<string, string> {
  return new Map(informer.list().map((c) => [c.metadata!.name!, text(c)]));
}

function differences(cache: Map<string, string>, server: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [name, t] of server)
    if (cache.get(name) !== t) out.push(`${name}: cache ${cache.get(name)?.slice(0, 200)}`);
  for (const name of cache.keys()) if (!server.has(name)) out.push(`${name}: in the cache only`);
  return out;
}

const AWKWARD = [
  'plain',
  'quote " and backslash \\ and slash /',
  'line\nbreak\ttab\u0001control',
  'ünïcödé ✓ 𝄞 emoji 🎉',
  '"resourceVersion":"999"',
  '{"type":"MODIFIED","object":{}}',
  '',
];

async function fill(ns: string, n: number): Promise<void> {
  for (let start = 0; start < n; start += 25)
    await Promise.all(
      Array.from({ length: Math.min(25, n - start) }, (_, j) => {
        const i = start + j;
        const data: Record<string, string> = { value: AWKWARD[i % AWKWARD.length], i: String(i) };
        if (i % 50 === 0) data.big = 'x'.repeat(200_000);
        const cm = JSON.parse(
          JSON.stringify({
            metadata: { name: `cm-${i}`, namespace: ns, labels: { group: `g${i % 4}` } },
            data,
          }).replace('"data":{', '"data":{"__proto__":"own member",'),
        ) as V1ConfigMap;
        return bed.admin.create(CM, cm);
      }),
    );
}

describe('review s5: what the informer caches is what the server serves', () => {
  it('several pages of awkward objects, changes while the list is under way, an index, a stop and a start', async () => {
    const ns = await newNamespace(bed.admin);
    await fill(ns, 260);
    const make = () => {
      const made = new Informer<V1ConfigMap>({ client: bed.admin, type: CM, namespace: ns, pageSize: 50 });
      made.addIndexer('group', (c) => [c.metadata?.labels?.group ?? '']);
      return made;
    };
    let informer = make();
    try {
      // the list is slow; changes land while it is under way
      bed.server.faults.addLatency({ verb: 'list', resource: 'configmaps', namespace: ns, ms: 200 });
      const started = informer.start();
      await Promise.all([
        bed.admin.mergePatch(CM, new ResourceID('cm-1', ns), { data: { value: 'changed ✓' } }),
        bed.admin.delete(CM, new ResourceID('cm-2', ns)),
        bed.admin.mergePatch(CM, new ResourceID('cm-3', ns), { metadata: { labels: { group: 'moved' } } }),
        bed.admin.create(CM, { metadata: { name: 'late', namespace: ns, labels: { group: 'g0' } } }),
      ]);
      await started;
      bed.server.faults.clear();
      let diff: string[] = [];
      await waitFor(
        async () => (diff = differences(cacheTexts(informer), await serverTexts(ns))).length === 0,
        'the cache equals the server',
        WAIT_MS,
      ).catch(() => undefined);
      expect(diff).toEqual([]);
      const cm0 = informer.get(new ResourceID('cm-0', ns));
      expect(Object.getOwnPropertyDescriptor(cm0!.data!, '__proto__')?.value).toBe('own member');
      expect(Object.getPrototypeOf(cm0!.data) === Object.prototype).toBe(true);
      const byGroup = (g: string) =>
        informer
          .byIndex('group', g)
          .map((c) => c.metadata!.name!)
          .sort();
      const server = (await bed.admin.list(CM, { namespace: ns })).items;
      for (const g of ['g0', 'g1', 'g2', 'g3', 'moved'])
        expect(byGroup(g)).toEqual(
          server
            .filter((c) => c.metadata?.labels?.group === g)
            .map((c) => c.metadata!.name!)
            .sort(),
        );

      // stopped, changed meanwhile, a new one started (as an operator restarts)
      await informer.stop();
      await Promise.all([
        bed.admin.delete(CM, new ResourceID('cm-4', ns)),
        bed.admin.mergePatch(CM, new ResourceID('cm-5', ns), { data: { value: '🎉 again' } }),
        bed.admin.create(CM, { metadata: { name: 'later', namespace: ns }, data: { value: '"q"' } }),
      ]);
      informer = make();
      await informer.start();
      await waitFor(
        async () => (diff = differences(cacheTexts(informer), await serverTexts(ns))).length === 0,
        'the cache equals the server after a restart',
        WAIT_MS,
      ).catch(() => undefined);
      expect(diff).toEqual([]);
      expect(byGroup('g0')).not.toContain('cm-4');
    } finally {
      bed.server.faults.clear();
      await informer.stop();
    }
  });

  it('a metadata-only informer holds the metadata the server serves, after a list of pages and after a 410 re-list', async () => {
    const ns = await newNamespace(bed.admin);
    await fill(ns, 120);
    const informer = new Informer<V1ConfigMap>({
      client: bed.admin,
      type: CM,
      namespace: ns,
      pageSize: 40,
      metadataOnly: true,
    });
    const metadataOf = async () =>
      new Map(
        (await bed.admin.list(CM, { namespace: ns })).items.map((c) => {
          const { managedFields: _m, ...metadata } = c.metadata!;
          return [c.metadata!.name!, JSON.stringify(canonical(metadata))];
        }),
      );
    const cached = () =>
      new Map(
        informer.list().map((c) => {
          const { managedFields: _m, ...metadata } = c.metadata!;
          return [c.metadata!.name!, JSON.stringify(canonical(metadata))];
        }),
      );
    try {
      await informer.start();
      let diff: string[] = [];
      await waitFor(
        async () => (diff = differences(cached(), await metadataOf())).length === 0,
        'metadata cached',
        WAIT_MS,
      ).catch(() => undefined);
      expect(diff).toEqual([]);
      expect(informer.list().every((c) => c.data === undefined)).toBe(true);
      // the watch is cut and the history gone: the changes meanwhile come with the re-list
      bed.server.faults.compact();
      bed.server.faults.closeAllWatches();
      await bed.admin.delete(CM, new ResourceID('cm-7', ns));
      await bed.admin.mergePatch(CM, new ResourceID('cm-8', ns), { metadata: { annotations: { a: 'ü' } } });
      await waitFor(
        async () => (diff = differences(cached(), await metadataOf())).length === 0,
        'metadata cached after the re-list',
        WAIT_MS,
      ).catch(() => undefined);
      expect(diff).toEqual([]);
    } finally {
      await informer.stop();
    }
  });
});
