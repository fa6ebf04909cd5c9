import { describe, expect, it, jest } from '@jest/globals';
import type { V1ConfigMap, V1OwnerReference } from '@kubernetes/client-node';
import { ResourceTypes } from '../../../api/builtin-types.js';
import type { Context } from '../../../api/context.js';
import { UpdateControl } from '../../../api/controls.js';
import type { EventSourceContext } from '../../../api/reconciler.js';
import { ResourceID } from '../../../api/resource-id.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../operator/__tests__/support.js';
import { InformerEventSource } from '../informer-event-source.js';
import { Mappers } from '../mappers.js';
import type { SecondaryToPrimaryMapper } from '../mappers.js';

/**
 * Review of ec76046 (issue 15 §3, H13): the event source's PRIMARY_INDEX became a PrimaryIndex kept
 * by the source's own event handler, with a single string per primary (a Set from the second
 * secondary on), no reverse map (updates and deletes use the old object's primaries) and stale
 * entries dropped on read. These tests drive it against @tosdk/apiserver with what a real cluster
 * does to secondaries (several owners, owners added, moved and removed, secondaries named like
 * their primary, deleted and re-created, own writes moving a secondary) and compare
 * getSecondaryResources of every primary with the truth computed from the server's objects.
 */
const suite = apiServerSuite();
jest.setTimeout(180_000);
const WAIT_MS = 30_000;
const CM = ResourceTypes.ConfigMap;

/** A small seeded PRNG (mulberry32): the same sequence every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PRIMARIES = ['p0', 'p1', 'p2', 'p3'];
// two secondaries named like a primary (their key equals the primary's), four others
const SECONDARIES = ['p0', 'p1', 's0', 's1', 's2', 's3'];

/** The annotation naming a secondary's primaries (comma-separated) for the custom mapper variant. */
const PRIMARIES_ANNOTATION = 'review.tosdk.io/primaries';
/** The annotation naming the same primaries as `refs` (the custom mapper's input). */
function namesOf(refs: V1OwnerReference[]): Record<string, string> {
  return { [PRIMARIES_ANNOTATION]: refs.map((r) => r.name).join(',') };
}
/** A custom mapper wrapped as indexable: the primaries named by the annotation (several at once). */
const byAnnotation = Mappers.indexable<V1ConfigMap>((cm) =>
  (cm.metadata?.annotations?.[PRIMARIES_ANNOTATION] ?? '')
    .split(',')
    .filter((n) => n !== '')
    .map((n) => new ResourceID(n, cm.metadata?.namespace)),
);

function refTo(w: Widget): V1OwnerReference {
  return { apiVersion: Widget.apiVersion, kind: Widget.kind, name: w.metadata!.name!, uid: w.metadata!.uid! };
}

/** Starts an operator whose Widget controller has a ConfigMap source with the default owner mapper. */
async function startWithSource(
  ns: string,
  name: string,
  reconcile: (w: Widget, c: Context<Widget>) => Promise<UpdateControl<Widget>> = () =>
    Promise.resolve(UpdateControl.noUpdate()),
  secondaryToPrimaryMapper?: SecondaryToPrimaryMapper<V1ConfigMap>,
): Promise<InformerEventSource<V1ConfigMap, Widget>> {
  let source: InformerEventSource<V1ConfigMap, Widget> | undefined;
  suite.operator().register(
    {
      prepareEventSources: (c: EventSourceContext<Widget>) => [
        (source = new InformerEventSource<V1ConfigMap, Widget>(
          { type: CM, name: 'cms', secondaryToPrimaryMapper },
          c,
        )),
      ],
      reconcile,
    },
    { resourceType: Widget, name, namespaces: [ns] },
  );
  await suite.operators[0].start();
  return source!;
}

/** Waits until the source caches exactly the server's ConfigMaps (same keys, same versions). */
async function settled(source: InformerEventSource<V1ConfigMap, Widget>, ns: string): Promise<V1ConfigMap[]> {
  let live: V1ConfigMap[] = [];
  await waitFor(
    async () => {
      live = (await suite.admin.list(CM, { namespace: ns })).items.filter((c) =>
        SECONDARIES.includes(c.metadata!.name!),
      );
      const cached = source.list(ns).filter((c) => SECONDARIES.includes(c.metadata!.name!));
      if (cached.length !== live.length) return false;
      return live.every(
        (l) =>
          source.get(new ResourceID(l.metadata!.name!, ns))?.metadata?.resourceVersion ===
          l.metadata!.resourceVersion,
      );
    },
    'the source caches what the server holds',
    WAIT_MS,
  );
  return live;
}

/** getSecondaryResources of every primary against the owners the server's objects name. */
function expectIndexMatches(
  source: InformerEventSource<V1ConfigMap, Widget>,
  ns: string,
  live: V1ConfigMap[],
  step: string,
  byOwners = true,
): void {
  const primariesOf = (c: V1ConfigMap): string[] =>
    byOwners
      ? (c.metadata!.ownerReferences ?? []).filter((r) => r.kind === Widget.kind).map((r) => r.name)
      : (c.metadata!.annotations?.[PRIMARIES_ANNOTATION] ?? '').split(',');
  for (const p of PRIMARIES) {
    const expected = live
      .filter((c) => primariesOf(c).includes(p))
      .map((c) => c.metadata!.name!)
      .sort();
    const got = source
      .getSecondaryResources(widget(p, ns))
      .map((c) => c.metadata!.name!)
      .sort();
    expect({ step, primary: p, secondaries: got }).toEqual({ step, primary: p, secondaries: expected });
  }
}

describe('review s3: the event source index of primaries (ec76046) against what a cluster does', () => {
  it.each([
    { mapper: 'the default owner-reference mapper', byOwners: true },
    { mapper: 'a custom indexable mapper naming two primaries at once', byOwners: false },
  ])(
    '[ES-08] $mapper: 60 seeded foreign changes (0-2 primaries, moved and removed, secondaries named like their primary, deleted and re-created): every primary gets exactly its secondaries',
    async ({ byOwners }) => {
      const ns = await newNamespace(suite.admin);
      const primaries = new Map<string, Widget>();
      for (const p of PRIMARIES) primaries.set(p, await suite.admin.create(Widget, widget(p, ns)));
      const source = await startWithSource(
        ns,
        'review-s3-index-model',
        undefined,
        byOwners ? undefined : byAnnotation,
      );
      const random = prng(15);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
      const owners = (): V1OwnerReference[] => {
        const n = Math.floor(random() * 3); // 0, 1 or 2 owners
        const chosen = new Set<string>();
        while (chosen.size < n) chosen.add(pick(PRIMARIES));
        return [...chosen].map((p) => refTo(primaries.get(p)!));
      };
      await settled(source, ns);
      const done = { create: 0, owners: 0, delete: 0, data: 0 };
      for (let step = 0; step < 60; step++) {
        const name = pick(SECONDARIES);
        const id = new ResourceID(name, ns);
        const current = await suite.admin.get(CM, id);
        const r = random();
        let what: string;
        if (!current) {
          const ownerReferences = owners();
          done.create++;
          what = `create ${name} owned by [${ownerReferences.map((o) => o.name).join(',')}]`;
          await suite.admin.create(CM, {
            metadata: { name, namespace: ns, ownerReferences, annotations: namesOf(ownerReferences) },
            data: { step: `${step}` },
          });
        } else if (r < 0.5) {
          const ownerReferences = owners();
          done.owners++;
          what = `owners of ${name} -> [${ownerReferences.map((o) => o.name).join(',')}]`;
          await suite.admin.update(CM, {
            ...current,
            metadata: { ...current.metadata, ownerReferences, annotations: namesOf(ownerReferences) },
          });
        } else if (r < 0.7) {
          done.delete++;
          what = `delete ${name}`;
          await suite.admin.delete(CM, id);
        } else {
          done.data++;
          what = `data of ${name}`;
          await suite.admin.update(CM, { ...current, data: { step: `${step}` } });
        }
        expectIndexMatches(source, ns, await settled(source, ns), `${step}: ${what}`, byOwners);
      }
      // the sequence exercised every kind of change
      expect(Math.min(done.create, done.owners, done.delete, done.data)).toBeGreaterThan(3);
    },
  );

  it('[ES-08] a secondary moved between primaries by the reconciler’s own writes (kept in the source’s own-write cache, then its events): each primary gets exactly its own', async () => {
    const ns = await newNamespace(suite.admin);
    const primaries = new Map<string, Widget>();
    for (const p of PRIMARIES) primaries.set(p, await suite.admin.create(Widget, widget(p, ns)));
    // the primary whose spec.value is 'take' applies the shared secondary s0 owned by itself only,
    // and p0's secondary p0 with both p0 and itself as owners
    const source = await startWithSource(ns, 'review-s3-index-own', async (w, c) => {
      if (w.spec?.value !== 'take') return UpdateControl.noUpdate();
      const me = refTo(w);
      await c.resourceOperations().serverSideApply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 's0', namespace: ns, ownerReferences: [me] },
        data: { holder: w.metadata!.name! },
      });
      await c.resourceOperations().serverSideApply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'p0',
          namespace: ns,
          ownerReferences: w.metadata!.name === 'p0' ? [me] : [refTo(primaries.get('p0')!), me],
        },
        data: { holder: w.metadata!.name! },
      });
      return UpdateControl.noUpdate();
    });
    for (const p of ['p1', 'p2', 'p0', 'p3', 'p1']) {
      await suite.admin.mergePatch(Widget, new ResourceID(p, ns), { spec: { value: 'take' } });
      await waitFor(
        async () => (await suite.admin.get(CM, new ResourceID('s0', ns)))?.data?.holder === p,
        `${p} took s0`,
        WAIT_MS,
      );
      await waitFor(
        async () => (await suite.admin.get(CM, new ResourceID('p0', ns)))?.data?.holder === p,
        `${p} took p0`,
        WAIT_MS,
      );
      await suite.admin.mergePatch(Widget, new ResourceID(p, ns), { spec: { value: 'idle' } });
      const live = await settled(source, ns);
      expectIndexMatches(source, ns, live, `${p} took s0 and p0`);
    }
  });
});
