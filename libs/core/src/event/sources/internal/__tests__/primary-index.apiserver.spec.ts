import { describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { UpdateControl } from '../../../../api/controls.js';
import { ResourceTypes } from '../../../../api/builtin-types.js';
import type { EventSourceContext, EventSources } from '../../../../api/reconciler.js';
import { ResourceID } from '../../../../api/resource-id.js';
import {
  apiServerSuite,
  newNamespace,
  waitFor,
  Widget,
  widget,
} from '../../../../operator/__tests__/support.js';
import { InformerEventSource, PRIMARY_INDEX } from '../../informer-event-source.js';
import { ownedConfigMap } from '../../__tests__/helpers.js';
import { PrimaryIndex, sameOwners } from '../primary-index.js';

// The event source's index of secondaries by primary (issue 15 §3: one string per primary instead
// of a Set and a reverse map per secondary). It has no reverse map, so these tests move, delete and
// drop secondaries in every way the cache can change and check what getSecondaryResources answers.

const CM = ResourceTypes.ConfigMap;
const bed = apiServerSuite();

const names = (objects: V1ConfigMap[]) => objects.map((o) => o.metadata!.name!).sort();

/** An operator with a Widget controller whose InformerEventSource on ConfigMaps maps by owner references. */
async function started(namespaces: string[]): Promise<InformerEventSource<V1ConfigMap, Widget>> {
  let source: InformerEventSource<V1ConfigMap, Widget> | undefined;
  bed.operator().register<Widget>(
    {
      reconcile: () => UpdateControl.noUpdate<Widget>(),
      prepareEventSources: (context: EventSourceContext<Widget>): EventSources => {
        source = new InformerEventSource<V1ConfigMap, Widget>({ type: CM }, context);
        return { configmaps: source };
      },
    },
    { resourceType: Widget, name: 'primary-index', namespaces },
  );
  await bed.operators[0].start();
  return source!;
}

describe('InformerEventSource primary index against @tosdk/apiserver', () => {
  it('[ES-08] secondaries move between primaries, are deleted and re-created: each primary gets exactly its own', async () => {
    const ns = await newNamespace(bed.admin);
    const a = await bed.admin.create(Widget, widget('a', ns));
    const b = await bed.admin.create(Widget, widget('b', ns));
    // one named like its primary (the index shares the key string), two more of `a`, one of `b`
    for (const [name, owner] of [
      ['a', a],
      ['a-1', a],
      ['a-2', a],
      ['b-1', b],
    ] as const) {
      await bed.admin.create(CM, ownedConfigMap(name, ns, owner));
    }
    const source = await started([ns]);
    await waitFor(() => source.getSecondaryResources(a).length === 3, 'a has its three ConfigMaps');
    expect(names(source.getSecondaryResources(a))).toEqual(['a', 'a-1', 'a-2']);
    expect(names(source.getSecondaryResources(b))).toEqual(['b-1']);
    expect(names(source.byIndex(PRIMARY_INDEX, ResourceID.fromResource(b).key))).toEqual(['b-1']);

    // a-2 changes owner: from a to b
    const a2 = (await bed.admin.get(CM, new ResourceID('a-2', ns)))!;
    const ownedByB = ownedConfigMap('a-2', ns, b).metadata!.ownerReferences;
    await bed.admin.update(CM, { ...a2, metadata: { ...a2.metadata, ownerReferences: ownedByB } });
    await waitFor(() => source.getSecondaryResources(b).length === 2, 'a-2 under b');
    expect(names(source.getSecondaryResources(a))).toEqual(['a', 'a-1']);
    expect(names(source.getSecondaryResources(b))).toEqual(['a-2', 'b-1']);

    // a-1 loses its owner reference altogether, then `a` itself (the shared key string) is deleted
    const a1 = (await bed.admin.get(CM, new ResourceID('a-1', ns)))!;
    await bed.admin.update(CM, { ...a1, metadata: { ...a1.metadata, ownerReferences: [] } });
    await bed.admin.delete(CM, new ResourceID('a', ns));
    await waitFor(() => source.getSecondaryResources(a).length === 0, 'a has none');
    expect(source.get(new ResourceID('a-1', ns))).toBeDefined(); // still cached, just not a's

    // re-created under the same name, now owned by b
    await bed.admin.create(CM, ownedConfigMap('a', ns, b));
    await waitFor(() => source.getSecondaryResources(b).length === 3, 'the new `a` under b');
    expect(names(source.getSecondaryResources(b))).toEqual(['a', 'a-2', 'b-1']);
    expect(source.getSecondaryResources(a)).toEqual([]);
  }, 30_000);

  it('[ES-08] a namespace dropped from the source takes its secondaries out of the index (no delete events come for them)', async () => {
    const ns1 = await newNamespace(bed.admin);
    const ns2 = await newNamespace(bed.admin);
    const w1 = await bed.admin.create(Widget, widget('w', ns1));
    const w2 = await bed.admin.create(Widget, widget('w', ns2));
    await bed.admin.create(CM, ownedConfigMap('w', ns1, w1));
    await bed.admin.create(CM, ownedConfigMap('w', ns2, w2));
    const source = await started([ns1, ns2]);
    await waitFor(
      () => source.getSecondaryResources(w1).length === 1 && source.getSecondaryResources(w2).length === 1,
      'both cached',
    );
    await source.changeNamespaces([ns1]);
    expect(source.getSecondaryResources(w2)).toEqual([]);
    expect(names(source.getSecondaryResources(w1))).toEqual(['w']);
    await source.changeNamespaces([ns1, ns2]);
    await waitFor(() => source.getSecondaryResources(w2).length === 1, 'ns2 back');
  }, 30_000);
});

describe('PrimaryIndex', () => {
  it('holds one key per primary as a string, several in a set, none for a secondary keyed like its primary, and forgets emptied primaries', () => {
    const index = new PrimaryIndex();
    index.add('ns/a', ['ns/a']); // named like its primary: not held (the reader looks it up)
    expect(index.size).toBe(0);
    index.add('ns/x', ['ns/a', 'ns/b']);
    index.add('ns/x', ['ns/a']); // again: no duplicate
    index.add('ns/y', ['ns/a']);
    expect(index.keysOf('ns/a')).toEqual(['ns/x', 'ns/y']);
    index.remove('ns/y', ['ns/a']);
    expect(index.keysOf('ns/a')).toEqual(['ns/x']);
    expect(index.keysOf('ns/b')).toEqual(['ns/x']);
    index.update('ns/x', ['ns/a', 'ns/b'], ['ns/c']);
    expect(index.keysOf('ns/a')).toEqual([]);
    expect(index.keysOf('ns/b')).toEqual([]);
    expect(index.keysOf('ns/c')).toEqual(['ns/x']);
    index.update('ns/x', ['ns/c'], ['ns/c']); // unchanged primaries
    expect(index.keysOf('ns/c')).toEqual(['ns/x']);
    index.remove('ns/a', ['ns/a']);
    index.drop('ns/c', 'ns/x');
    index.drop('ns/c', 'ns/x'); // twice: no-op
    expect(index.size).toBe(0);
  });

  it('sameOwners: true only when namespace and the owner references the owner mapper reads are equal', () => {
    const ref = (name: string, kind = 'Widget') => ({
      apiVersion: 'test.tosdk.io/v1',
      kind,
      name,
      uid: name,
    });
    const obj = (namespace: string, ownerReferences?: ReturnType<typeof ref>[]) => ({
      metadata: { name: 'x', namespace, ownerReferences },
    });
    expect(sameOwners(obj('a', [ref('p')]), obj('a', [{ ...ref('p'), uid: 'other' }]))).toBe(true);
    expect(sameOwners(obj('a'), obj('a', []))).toBe(true);
    expect(sameOwners(obj('a', [ref('p')]), obj('a', [ref('q')]))).toBe(false);
    expect(sameOwners(obj('a', [ref('p')]), obj('a', [ref('p', 'Gadget')]))).toBe(false);
    expect(sameOwners(obj('a', [ref('p')]), obj('a', [ref('p'), ref('q')]))).toBe(false);
    expect(sameOwners(obj('a', [ref('p')]), obj('b', [ref('p')]))).toBe(false);
    expect(sameOwners(obj('a'), obj('a', [ref('p')]))).toBe(false);
  });
});
