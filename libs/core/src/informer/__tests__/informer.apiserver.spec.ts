import { afterEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { waitFor } from '../../client/__tests__/scripted-server.js';
import { Informer } from '../informer.js';
import { SharedInformers } from '../shared-informers.js';
import type { InformerOptions } from '../informer.js';
import { apiServerSuite } from '../../operator/__tests__/support.js';
import { captureLogger } from './capture-logger.js';

const CM = ResourceTypes.ConfigMap;

const bed = apiServerSuite();

describe('Informer against @tosdk/apiserver', () => {
  let informer: Informer<V1ConfigMap> | undefined;
  let nsCounter = 0;

  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
  });

  /** A fresh namespace per test keeps the tests independent. */
  const namespace = async () => {
    const name = `inf-${++nsCounter}`;
    await bed.admin.create(ResourceTypes.Namespace, { metadata: { name } });
    return name;
  };
  const make = (options: Partial<InformerOptions<V1ConfigMap>>) => {
    informer = new Informer<V1ConfigMap>({
      client: bed.admin,
      type: CM,
      backoff: { initialMs: 20, maxMs: 200 },
      logger: captureLogger(),
      ...options,
    });
    return informer;
  };
  const put = (ns: string, name: string, labels?: Record<string, string>, data?: Record<string, string>) =>
    bed.admin.apply(CM, { metadata: { name, namespace: ns, labels }, data }, { fieldManager: 'test' });
  const lists = (ns: string) =>
    bed.server.requests.count({ verb: 'list', resource: 'configmaps', namespace: ns });

  it('[ES-02] has every object in cache, through several pages, when start() resolves (first list consistent)', async () => {
    const ns = await namespace();
    await Promise.all(Array.from({ length: 1_100 }, (_, i) => put(ns, `cm-${i}`)));
    const inf = make({ namespace: ns, firstListFromCache: false });
    await inf.start();
    expect(inf.hasSynced()).toBe(true);
    expect(inf.list(ns)).toHaveLength(1_100);
    expect(lists(ns)).toBe(3);
    expect(inf.health().healthy).toBe(true);
  });

  it('[ES-02] by default lists first at resourceVersion=0 as client-go does: one answer from the watch cache with every object, then watches from its version', async () => {
    const ns = await namespace();
    await Promise.all(Array.from({ length: 1_100 }, (_, i) => put(ns, `cm-${i}`)));
    const inf = make({ namespace: ns });
    await inf.start();
    expect(inf.list(ns)).toHaveLength(1_100);
    const listed = bed.server.requests.log.filter(
      (r) => r.verb === 'list' && r.resource === 'configmaps' && r.namespace === ns,
    );
    expect(listed).toHaveLength(1);
    const query = new URLSearchParams(listed[0].path.slice(listed[0].path.indexOf('?') + 1));
    expect(query.get('resourceVersion')).toBe('0');
    // a change after the list reaches the cache through the watch
    await put(ns, 'cm-late', undefined, { v: 'after' });
    await waitFor(() => inf.get(new ResourceID('cm-late', ns))?.data?.v === 'after', 10_000, 'watched');
  });

  it('[EP-17] caches only what the label and field selectors match, and follows objects in and out of them', async () => {
    const ns = await namespace();
    await put(ns, 'web-1', { app: 'web' });
    await put(ns, 'web-2', { app: 'web' });
    await put(ns, 'db-1', { app: 'db' });
    const inf = make({ namespace: ns, labelSelector: 'app=web', fieldSelector: 'metadata.name!=web-2' });
    const events: string[] = [];
    inf.addEventHandler({
      onAdd: (o) => events.push(`add ${o.metadata!.name}`),
      onDelete: (o) => events.push(`delete ${o.metadata!.name}`),
    });
    await inf.start();
    expect(inf.keys()).toEqual([`${ns}/web-1`]);
    await waitFor(() => inf.health().status === 'synced');
    await put(ns, 'db-1', { app: 'web' }); // moves into the selector
    await put(ns, 'web-1', { app: 'db' }); // moves out
    await put(ns, 'web-3', { app: 'web' });
    await put(ns, 'other', { app: 'db' });
    await waitFor(() => events.length === 4, 5_000, 'the four events');
    expect(events).toEqual(['add web-1', 'add db-1', 'delete web-1', 'add web-3']);
    expect(inf.keys().sort()).toEqual([`${ns}/db-1`, `${ns}/web-3`]);
  });

  it('resumes after the server closes every watch, without listing again', async () => {
    const ns = await namespace();
    const inf = make({ namespace: ns });
    const names: string[] = [];
    inf.addEventHandler({ onAdd: (o) => names.push(o.metadata!.name!) });
    await inf.start();
    await put(ns, 'before');
    await waitFor(() => names.length === 1);
    bed.server.faults.closeAllWatches();
    await put(ns, 'during');
    await waitFor(() => names.length === 2, 5_000, 'the change made while disconnected');
    await put(ns, 'after');
    await waitFor(() => names.length === 3, 5_000, 'the change after the reconnect');
    expect(names).toEqual(['before', 'during', 'after']);
    expect(lists(ns)).toBe(1);
  });

  it('re-lists after compaction (410) and reports a delete-and-recreate by uid as delete then add', async () => {
    const ns = await namespace();
    await put(ns, 'keep', undefined, { v: '1' });
    await put(ns, 'recreate');
    await put(ns, 'drop');
    const inf = make({ namespace: ns });
    const events: Array<[string, string, boolean?]> = [];
    inf.addEventHandler({
      onAdd: (o) => events.push(['add', o.metadata!.name!]),
      onUpdate: (_a, b) => events.push(['update', b.metadata!.name!]),
      onDelete: (o, unknown) => events.push(['delete', o.metadata!.name!, unknown]),
    });
    await inf.start();
    const oldUid = inf.get(new ResourceID('recreate', ns))!.metadata!.uid;
    events.length = 0;
    // Cut the stream and make the history unavailable; the changes happen while the informer is blind.
    bed.server.faults.failNext({ verb: 'watch', resource: 'configmaps', code: 503, times: 3 });
    bed.server.faults.closeAllWatches();
    await bed.admin.delete(CM, new ResourceID('recreate', ns));
    await put(ns, 'recreate');
    await bed.admin.delete(CM, new ResourceID('drop', ns));
    await put(ns, 'keep', undefined, { v: '2' });
    bed.server.faults.compact();
    await waitFor(() => events.length >= 4, 10_000, 'the re-list diff');
    expect(events.sort()).toEqual(
      [
        ['add', 'recreate'],
        ['delete', 'drop', true],
        ['delete', 'recreate', true],
        ['update', 'keep'],
      ].sort(),
    );
    expect(inf.get(new ResourceID('recreate', ns))!.metadata!.uid).not.toBe(oldUid);
    expect(inf.get(new ResourceID('keep', ns))!.data).toEqual({ v: '2' });
    expect(lists(ns)).toBe(2);
  });

  it('keeps retrying a failing first list with failFast off, unhealthy with the reason, until it succeeds', async () => {
    const ns = await namespace();
    await put(ns, 'a');
    bed.server.faults.failNext({
      verb: 'list',
      resource: 'configmaps',
      namespace: ns,
      code: 500,
      // the first attempt and the client's 3 retries of it: the informer's first list fails
      times: 4,
      message: 'storage down',
    });
    const inf = make({ namespace: ns, failFast: false });
    await inf.start();
    expect(inf.health()).toMatchObject({ healthy: false, status: 'failed' });
    expect(inf.health().reason).toContain('storage down');
    await waitFor(() => inf.hasSynced(), 10_000, 'the sync');
    expect(inf.keys()).toEqual([`${ns}/a`]);
    expect(inf.health().healthy).toBe(true);
  });

  it('sees each change within a short bound while the server keeps dropping its watches (a clean end is no failure: no growing backoff)', async () => {
    const ns = await namespace();
    // the informer's real backoff (0.8 s doubling to 30 s) is what a dropped watch must not cost
    const inf = make({ namespace: ns, backoff: undefined });
    const seen = new Set<string>();
    inf.addEventHandler({
      onAdd: (o) => seen.add(o.data?.v ?? ''),
      onUpdate: (_a, b) => seen.add(b.data?.v ?? ''),
    });
    await inf.start();
    // the API server logs a watch when it opens
    const ended = () => bed.server.requests.count({ verb: 'watch', resource: 'configmaps', namespace: ns });
    /** Drops watches until the informer has opened `n` more (each dropped in turn). */
    const drop = async (n: number) => {
      const target = ended() + n;
      const deadline = Date.now() + 5_000;
      while (ended() < target) {
        if (Date.now() > deadline)
          throw new Error(`the informer did not re-watch within 5 s (${ended()}/${target})`);
        bed.server.faults.closeAllWatches();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    for (let round = 0; round < 8; round++) {
      // two drops in a row, the second of a stream with nothing in it
      await drop(2);
      await put(ns, 'cm', undefined, { v: String(round) });
      await waitFor(() => seen.has(String(round)), 5_000, `change ${round} after dropped watches`);
    }
    expect(lists(ns)).toBe(1);
    expect(inf.health().healthy).toBe(true);
  });

  it('metadata only: caches Secrets without their data (PartialObjectMetadata lists and watches), and follows label changes and deletes', async () => {
    const ns = await namespace();
    const Secret = ResourceTypes.Secret;
    const secret = (name: string, labels: Record<string, string>) =>
      bed.admin.apply(
        Secret,
        { metadata: { name, namespace: ns, labels }, stringData: { password: 'x'.repeat(1000) } },
        { fieldManager: 'test' },
      );
    await secret('s1', { tier: 'a' });
    const inf = new Informer<KubernetesResource>({
      client: bed.admin,
      type: Secret,
      namespace: ns,
      metadataOnly: true,
      logger: captureLogger(),
    });
    informer = inf;
    const events: string[] = [];
    inf.addEventHandler({
      onAdd: (o) => events.push(`add ${o.metadata?.name}`),
      onUpdate: (_a, b) => events.push(`update ${b.metadata?.name} ${b.metadata?.labels?.tier}`),
      onDelete: (o) => events.push(`delete ${o.metadata?.name}`),
    });
    await inf.start();
    const cached = inf.get(new ResourceID('s1', ns)) as Record<string, unknown> | undefined;
    expect(cached).toMatchObject({
      kind: 'PartialObjectMetadata',
      metadata: { name: 's1', labels: { tier: 'a' } },
    });
    expect(cached?.data).toBeUndefined();
    expect(cached?.stringData).toBeUndefined();
    await secret('s2', { tier: 'b' });
    await secret('s1', { tier: 'c' });
    await bed.admin.delete(Secret, new ResourceID('s2', ns));
    await waitFor(() => events.length === 4, 10_000, 'the watch events');
    expect(events).toEqual(['add s1', 'add s2', 'update s1 c', 'delete s2']);
    expect((inf.get(new ResourceID('s1', ns)) as Record<string, unknown>).data).toBeUndefined();
  });

  it('shared informers: three users of Secrets in one namespace share one list, one watch and one cache; it stops with the last release', async () => {
    const ns = await namespace();
    const shared = new SharedInformers();
    const options = { client: bed.admin, type: ResourceTypes.Secret, namespace: ns, logger: captureLogger() };
    // requests of the shared selection (no label selector); the API server logs a watch when it opens
    const sharedRequests = (verb: string) =>
      bed.server.requests.log.filter(
        (r) =>
          r.verb === verb &&
          r.resource === 'secrets' &&
          r.namespace === ns &&
          !r.path.includes('labelSelector'),
      ).length;
    const leases = [shared.acquire(options), shared.acquire(options), shared.acquire(options)];
    // a different selection gets its own informer
    const other = shared.acquire({ ...options, labelSelector: 'app=other' });
    await Promise.all([...leases, other].map((l) => l.start()));
    expect(new Set(leases.map((l) => l.informer)).size).toBe(1);
    expect(other.informer).not.toBe(leases[0].informer);
    expect(shared.size).toBe(2);
    const seen = leases.map(() => [] as string[]);
    leases.forEach((l, i) => l.view.addEventHandler({ onAdd: (o) => seen[i].push(o.metadata!.name!) }));
    await bed.admin.create(ResourceTypes.Secret, { metadata: { name: 'shared', namespace: ns } });
    await waitFor(() => seen.every((s) => s.includes('shared')), 10_000, 'every user sees the secret');
    await other.release();
    await leases[0].release();
    await leases[0].release(); // idempotent
    await leases[1].release();
    expect(leases[2].informer.health().status).toBe('synced');
    // request accounting: three users, one list and one watch
    expect(sharedRequests('list')).toBe(1);
    expect(sharedRequests('watch')).toBe(1);
    await leases[2].release();
    expect(leases[2].informer.health().status).toBe('stopped');
    expect(shared.size).toBe(0);
  });

  it('survives a server restart and sees later changes', async () => {
    const ns = await namespace();
    const inf = make({ namespace: ns });
    const names: string[] = [];
    inf.addEventHandler({ onAdd: (o) => names.push(o.metadata!.name!) });
    await inf.start();
    await bed.server.restart();
    await put(ns, 'after-restart');
    await waitFor(() => names.includes('after-restart'), 10_000, 'the change after the restart');
    await waitFor(() => inf.health().healthy, 10_000, 'health');
  });
});
