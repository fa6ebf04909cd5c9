import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import { KubernetesApiError } from '../../client/errors.js';
import { KubernetesClient } from '../../client/kubernetes-client.js';
import { json, status, waitFor } from '../../client/__tests__/scripted-server.js';
import { InformerStartError, InformerUsageError } from '../errors.js';
import { Informer } from '../informer.js';
import type { InformerOptions } from '../informer.js';
import { captureLogger } from './capture-logger.js';
import { FakeClock } from './fake-clock.js';
import { FakeKube } from './fake-kube.js';

type Call = [string, string, ...unknown[]];

/** Records handler calls as [event, key, extra...]. */
function recorder(informer: Informer<V1ConfigMap>): Call[] {
  const calls: Call[] = [];
  const k = (o: V1ConfigMap) => `${o.metadata?.namespace}/${o.metadata?.name}@${o.metadata?.uid}`;
  informer.addEventHandler({
    onAdd: (o) => calls.push(['add', k(o)]),
    onUpdate: (a, b) =>
      calls.push(['update', k(b), a.metadata?.resourceVersion, b.metadata?.resourceVersion]),
    onDelete: (o, unknown) => calls.push(['delete', k(o), unknown]),
  });
  return calls;
}

describe('Informer', () => {
  let kube: FakeKube;
  let client: KubernetesClient;
  let clock: FakeClock;
  let informer: Informer<V1ConfigMap> | undefined;
  const logs = captureLogger();

  const make = (options: Partial<InformerOptions<V1ConfigMap>> = {}) => {
    informer = new Informer<V1ConfigMap>({
      client,
      type: ResourceTypes.ConfigMap,
      clock,
      logger: logs,
      random: () => 0.5,
      ...options,
    });
    return informer;
  };

  /** Runs the pending backoff timer once one is scheduled. */
  const runBackoff = async (expectedDelay?: number) => {
    await waitFor(() => clock.pendingDelays().some((d) => d < 60_000), 5_000, 'a backoff timer');
    const delay = Math.min(...clock.pendingDelays());
    if (expectedDelay !== undefined) expect(delay).toBe(expectedDelay);
    clock.advance(delay);
    return delay;
  };

  beforeEach(async () => {
    kube = await FakeKube.start();
    client = KubernetesClient.fromKubeConfig(kube.server.kubeConfig());
    clock = new FakeClock();
    logs.lines.length = 0;
  });

  afterEach(async () => {
    await informer?.stop();
    informer = undefined;
    client.close();
    await kube.stop();
  });

  it('[ES-02] lists every page before start() resolves, then watches from the list resourceVersion with bookmarks', async () => {
    for (let i = 0; i < 1234; i++) kube.put('ns1', `cm-${String(i).padStart(4, '0')}`, { i: String(i) });
    const inf = make({ pageSize: 500 });
    const calls = recorder(inf);
    expect(inf.health()).toMatchObject({ healthy: false, status: 'stopped' });
    await inf.start();
    expect(inf.hasSynced()).toBe(true);
    expect(inf.list()).toHaveLength(1234);
    expect(calls.filter((c) => c[0] === 'add')).toHaveLength(1234);
    expect(inf.health()).toMatchObject({ healthy: true, status: 'synced' });
    expect(inf.get(new ResourceID('cm-0007', 'ns1'))?.data).toEqual({ i: '7' });
    expect(inf.get(new ResourceID('cm-0007', 'ns1'))?.kind).toBe('ConfigMap');
    const lists = kube.listRequests();
    expect(lists.map((r) => [r.query.get('limit'), r.query.get('continue')])).toEqual([
      ['500', null],
      ['500', `${kube.resourceVersion}:500`],
      ['500', `${kube.resourceVersion}:1000`],
    ]);
    await waitFor(() => kube.openWatches === 1, 5_000, 'the watch');
    const watch = kube.watchRequests()[0];
    expect(watch.query.get('resourceVersion')).toBe(kube.resourceVersion);
    expect(watch.query.get('allowWatchBookmarks')).toBe('true');
    const timeout = Number(watch.query.get('timeoutSeconds'));
    expect(timeout >= 300 && timeout < 600).toBe(true);
    expect(inf.lastSyncResourceVersion()).toBe(kube.resourceVersion);
  });

  it('applies watch events to the cache, the indexes and the handlers (with the old object on update)', async () => {
    kube.put('a', 'one', { v: '1' }, { labels: { team: 'x' } });
    const inf = make();
    inf.addIndexer('team', (o) => (o.metadata?.labels?.team ? [o.metadata.labels.team] : []));
    await inf.start();
    const calls = recorder(inf); // added after sync: replays the cache as adds
    inf.addIndexer('value', (o) => Object.values(o.data ?? {}));
    await waitFor(() => kube.openWatches === 1);
    const one = kube.put('a', 'one', { v: '2' }, { labels: { team: 'y' } });
    kube.put('b', 'two', { v: '2' }, { labels: { team: 'x' } });
    kube.remove('a', 'one');
    await waitFor(() => calls.length === 4, 5_000, 'four calls');
    expect(calls).toEqual([
      ['add', 'a/one@uid-1'],
      ['update', 'a/one@uid-1', '101', one.metadata?.resourceVersion],
      ['add', 'b/two@uid-2'],
      ['delete', 'a/one@uid-1', false],
    ]);
    expect(inf.keys()).toEqual(['b/two']);
    expect(inf.list('b').map((o) => o.metadata?.name)).toEqual(['two']);
    expect(inf.list('a')).toEqual([]);
    expect(inf.byIndex('team', 'x').map((o) => o.metadata?.name)).toEqual(['two']);
    expect(inf.byIndex('team', 'y')).toEqual([]);
    expect(inf.byIndex('value', '2').map((o) => o.metadata?.name)).toEqual(['two']);
    expect(() => inf.byIndex('nope', 'x')).toThrow(InformerUsageError);
    expect(() => inf.addIndexer('team', () => [])).toThrow(InformerUsageError);
  });

  it('resumes a dropped or ended stream from the last resourceVersion (bookmarks included), without a list', async () => {
    kube.put('a', 'one');
    const inf = make();
    const calls = recorder(inf);
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    kube.put('a', 'two');
    await waitFor(() => calls.length === 2);
    const bookmark = kube.bookmark();
    await waitFor(() => inf.lastSyncResourceVersion() === bookmark, 5_000, 'the bookmark');
    kube.endWatches(); // clean end after progress: reconnect at once
    await waitFor(
      () => kube.watchRequests().length === 2 && kube.openWatches === 1,
      5_000,
      'the second watch',
    );
    expect(kube.watchRequests()[1].query.get('resourceVersion')).toBe(bookmark);
    kube.put('a', 'three');
    await waitFor(() => calls.length === 3);
    const last = inf.lastSyncResourceVersion();
    kube.dropWatches(); // a cut connection of an established stream ends it too: resume at once
    await waitFor(
      () => kube.watchRequests().length === 3 && kube.openWatches === 1,
      5_000,
      'the third watch',
    );
    expect(kube.watchRequests()[2].query.get('resourceVersion')).toBe(last);
    expect(kube.listRequests()).toHaveLength(1);
    await waitFor(() => inf.health().status === 'synced', 5_000, 'synced again');
    expect(calls.map((c) => c[0])).toEqual(['add', 'add', 'add']);
  });

  it('resumes at once, without a backoff, when streams end or are cut with nothing in them, however often; only the third such end in a row waits (briefly, 100 ms doubling), and real errors keep the backoff from its start', async () => {
    kube.put('a', 'one');
    const inf = make();
    const calls = recorder(inf);
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    const rv = inf.lastSyncResourceVersion();
    // two quick empty ends (one clean, one cut): each re-watched at once, no timer advanced
    kube.endWatches();
    await waitFor(() => kube.watchRequests().length === 2 && kube.openWatches === 1, 5_000, 'watch 2');
    kube.dropWatches();
    await waitFor(() => kube.watchRequests().length === 3 && kube.openWatches === 1, 5_000, 'watch 3');
    expect(inf.health().status).toBe('synced');
    // the third empty end in a row waits a short delay, not the 0.8 s failure backoff
    kube.endWatches();
    await runBackoff(100);
    await waitFor(() => kube.watchRequests().length === 4 && kube.openWatches === 1, 5_000, 'watch 4');
    kube.endWatches();
    await runBackoff(200);
    await waitFor(() => kube.watchRequests().length === 5 && kube.openWatches === 1, 5_000, 'watch 5');
    // an event resets the count: the next end resumes at once again
    kube.put('a', 'two');
    await waitFor(() => calls.length === 2, 5_000, 'the add');
    kube.endWatches();
    await waitFor(() => kube.watchRequests().length === 6 && kube.openWatches === 1, 5_000, 'watch 6');
    for (const w of kube.watchRequests().slice(1, 5)) expect(w.query.get('resourceVersion')).toBe(rv);
    expect(kube.listRequests()).toHaveLength(1);
    expect(logs.lines.filter((l) => l.level === 'warn')).toEqual([]);
    // none of that grew the failure backoff: a real error waits its first delay
    kube.sendError(500, 'InternalError');
    await runBackoff(800);
    await waitFor(() => kube.openWatches === 1 && inf.health().status === 'synced', 5_000, 'watch 7');
  });

  it('stops, failed, when its client is closed under it, sending nothing more', async () => {
    const inf = make();
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    client.close();
    await waitFor(() => inf.health().status === 'failed', 5_000, 'failed');
    expect(inf.health().reason).toContain('client is closed');
    const seen = kube.requests.length;
    expect(clock.pendingDelays().filter((d) => d < 60_000)).toEqual([]);
    clock.advance(60_000);
    expect(kube.requests.length).toBe(seen);
  });

  it('re-lists on a 410 ERROR event and emits the difference, a delete-and-recreate as delete then add', async () => {
    kube.put('n', 'gone');
    kube.put('n', 'recreated');
    kube.put('n', 'changed', { v: '1' });
    kube.put('n', 'same');
    const inf = make();
    const calls = recorder(inf);
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    calls.length = 0;
    // changes the informer does not see, then the history is compacted away
    kube.remove('n', 'gone', { silent: true });
    kube.remove('n', 'recreated', { silent: true });
    kube.put('n', 'recreated', {}, { silent: true });
    kube.put('n', 'changed', { v: '2' }, { silent: true });
    kube.put('n', 'new', {}, { silent: true });
    kube.compact();
    clock.advance(5_000);
    kube.sendError(410, 'Expired');
    await waitFor(() => calls.length === 5, 5_000, 'the re-list diff');
    expect(calls).toEqual([
      ['delete', 'n/gone@uid-1', true],
      ['delete', 'n/recreated@uid-2', true],
      ['update', 'n/changed@uid-3', '103', '108'],
      ['add', 'n/new@uid-6'],
      ['add', 'n/recreated@uid-5'],
    ]);
    expect(kube.listRequests()).toHaveLength(2);
    expect(inf.keys().sort()).toEqual(['n/changed', 'n/new', 'n/recreated', 'n/same']);
    expect(logs.lines.some((l) => l.message.includes('410') && l.fields.informer === 'configmaps')).toBe(
      true,
    );
    await waitFor(() => kube.openWatches === 1 && inf.health().status === 'synced', 5_000, 'watching again');
  });

  it('re-lists when a watch from the last resourceVersion is answered 410 after a reconnect', async () => {
    kube.put('n', 'a');
    const inf = make();
    const calls = recorder(inf);
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    kube.dropWatches();
    kube.remove('n', 'a', { silent: true });
    kube.compact();
    await waitFor(() => calls.length === 2, 5_000, 'the delete');
    expect(calls[1]).toEqual(['delete', 'n/a@uid-1', true]);
    expect(kube.listRequests()).toHaveLength(2);
  });

  it('backs off instead of re-listing in a tight loop when a watch fails with 410 right after a list', async () => {
    kube.put('n', 'a');
    let answered = 0;
    kube.overrides.push((req, res) => {
      if (req.query.get('watch') !== 'true' || answered++ > 0) return false;
      res.writeHead(200);
      res.end(`${JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', 'too old') })}\n`);
      return true;
    });
    const inf = make();
    await inf.start();
    await waitFor(() => inf.health().status === 'reconnecting', 5_000, 'the 410');
    expect(kube.listRequests()).toHaveLength(1);
    await runBackoff(800);
    await waitFor(
      () => kube.listRequests().length === 2 && kube.openWatches === 1,
      5_000,
      're-list and watch',
    );
    expect(inf.health().status).toBe('synced');
  });

  it('restarts a paginated list whose continue token expired (410)', async () => {
    for (let i = 0; i < 5; i++) kube.put('n', `o${i}`);
    let expired = false;
    kube.overrides.push((req, res) => {
      if (req.query.get('continue') && !expired) {
        expired = true;
        json(res, 410, status(410, 'Expired', 'The provided continue parameter is too old'));
        return true;
      }
      return false;
    });
    const inf = make({ pageSize: 2 });
    await inf.start();
    expect(inf.list()).toHaveLength(5);
    expect(kube.listRequests().map((r) => r.query.get('continue') === null)).toEqual([
      true,
      false,
      true,
      false,
      false,
    ]);
  });

  it('backs off 0.8 s doubling with jitter while the first list fails (failFast off), reporting why, until it succeeds', async () => {
    kube.put('n', 'a');
    let failures = 4;
    kube.overrides.push((_req, res) => {
      if (failures-- <= 0) return false;
      json(res, 500, status(500, 'InternalError', 'etcd is down'));
      return true;
    });
    // the informer's own backoff, not the client's retries (they would absorb the first failures)
    client.close();
    client = KubernetesClient.fromKubeConfig(kube.server.kubeConfig(), { retry: false });
    const inf = make({ failFast: false });
    await inf.start(); // resolves after the first attempt
    expect(inf.hasSynced()).toBe(false);
    expect(inf.health()).toMatchObject({ healthy: false, status: 'failed' });
    expect(inf.health().reason).toContain('etcd is down');
    for (const expected of [800, 1600, 3200, 6400]) await runBackoff(expected);
    await waitFor(() => inf.hasSynced(), 5_000, 'the sync');
    expect(inf.health()).toMatchObject({ healthy: true, status: 'synced' });
    expect(logs.lines.filter((l) => l.level === 'warn' && l.message.includes('list failed'))).toHaveLength(4);
  });

  it('applies jitter and caps the delay, and resets the backoff after a healthy period', async () => {
    const inf = make({ random: () => 0.99, backoff: { initialMs: 1000, maxMs: 3000 } });
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      kube.sendError(500, 'InternalError');
      delays.push(await runBackoff());
      // synced is set when the client sees the response head: the healthy period starts there
      await waitFor(() => kube.openWatches === 1 && inf.health().status === 'synced', 5_000, 'reconnect');
      // a bookmark through the new stream: it is connected (healthy from now) and made progress (no
      // re-list after the third refusal in a row)
      const bookmark = kube.bookmark();
      await waitFor(() => inf.lastSyncResourceVersion() === bookmark, 5_000, 'the bookmark');
    }
    // 1000*(1+0.2*0.98), 2000*(1.196), min(3000, 4000*1.196)
    expect(delays).toEqual([1196, 2392, 3000]);
    clock.advance(120_000); // healthy for resetAfterMs
    kube.sendError(500, 'InternalError');
    expect(await runBackoff()).toBe(1196);
  });

  it('fails start with a typed InformerStartError carrying the 403 when failFast is on, leaving nothing open', async () => {
    kube.overrides.push((_req, res) => {
      json(res, 403, status(403, 'Forbidden', 'configmaps is forbidden: User "x" cannot list'));
      return true;
    });
    const inf = make();
    const error = await inf.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InformerStartError);
    expect((error as InformerStartError).code).toBe('InformerStart');
    const cause = (error as InformerStartError).cause as KubernetesApiError;
    expect(cause).toBeInstanceOf(KubernetesApiError);
    expect(cause.isForbidden()).toBe(true);
    expect(inf.health()).toMatchObject({ healthy: false, status: 'failed' });
    expect(inf.health().reason).toContain('forbidden');
    expect(clock.pendingDelays()).toEqual([]);
    expect(kube.watchRequests()).toHaveLength(0);
  });

  it('detects a dead stream (no event or bookmark in time) and reconnects from the last resourceVersion', async () => {
    kube.put('n', 'a');
    const inf = make({ deadStreamTimeoutMs: 10_000 });
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    clock.advance(6_000);
    kube.bookmark(); // activity postpones the verdict
    await waitFor(() => inf.lastSyncResourceVersion() === kube.resourceVersion);
    clock.advance(6_000);
    expect(inf.health().status).toBe('synced');
    clock.advance(4_000);
    await waitFor(() => inf.health().status === 'reconnecting', 5_000, 'the dead-stream verdict');
    expect(inf.health().reason).toContain('dead stream');
    await waitFor(() => kube.openWatches === 0, 5_000, 'the stream to be closed');
    await runBackoff(800);
    await waitFor(() => kube.openWatches === 1 && inf.health().status === 'synced', 5_000, 'reconnect');
    expect(kube.watchRequests()[1].query.get('resourceVersion')).toBe(inf.lastSyncResourceVersion());
    expect(kube.listRequests()).toHaveLength(1);
  });

  it('reconnects (logged, in health) after an ERROR event or an unparsable line, without re-listing', async () => {
    const inf = make();
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    kube.sendError(500, 'InternalError');
    await waitFor(() => inf.health().status === 'reconnecting');
    expect(inf.health().reason).toContain('ERROR event');
    await runBackoff(800);
    await waitFor(() => kube.openWatches === 1 && inf.health().status === 'synced');
    kube.sendRaw('{"type":"ADDED","object":\n');
    await waitFor(() => inf.health().status === 'reconnecting');
    expect(inf.health().reason).toContain('not JSON');
    await runBackoff(1600);
    await waitFor(() => kube.openWatches === 1 && inf.health().status === 'synced');
    expect(kube.listRequests()).toHaveLength(1);
    const warnings = logs.lines.filter((l) => l.level === 'warn');
    expect(warnings.map((l) => l.fields.informer)).toEqual(['configmaps', 'configmaps']);
  });

  it('re-lists after the server refused the watch three times in a row without progress (as client-go does)', async () => {
    kube.put('n', 'a');
    let refusals = 0;
    kube.overrides.push((req, res) => {
      if (req.query.get('watch') !== 'true' || refusals >= 3) return false;
      refusals++;
      json(res, 504, status(504, 'Timeout', 'Too large resource version'));
      return true;
    });
    const inf = make();
    await inf.start();
    for (const expected of [800, 1600, 3200]) await runBackoff(expected);
    await waitFor(
      () => kube.listRequests().length === 2 && kube.openWatches === 1,
      5_000,
      're-list and watch',
    );
    expect(kube.watchRequests()).toHaveLength(4);
    expect(logs.lines.some((l) => l.message.includes('3 times without progress; re-listing'))).toBe(true);
  });

  it('keeps resuming (no re-list) while the watch fails below the HTTP level', async () => {
    kube.put('n', 'a');
    // Four watch failures. A watch sent on a kept-alive socket (the list's) that is reset before any
    // answer is sent once more on a fresh socket by the client (a stale socket, not a failure), so
    // only cuts on fresh sockets count.
    let cuts = 0;
    const sockets = new Set<number>();
    kube.overrides.push((req, res) => {
      const fresh = !sockets.has(req.remotePort);
      sockets.add(req.remotePort);
      if (req.query.get('watch') !== 'true' || cuts >= 4) return false;
      if (fresh) cuts++;
      res.destroy();
      return true;
    });
    const inf = make();
    await inf.start();
    for (const expected of [800, 1600, 3200, 6400]) await runBackoff(expected);
    await waitFor(() => kube.openWatches === 1, 5_000, 'the watch');
    expect(kube.listRequests()).toHaveLength(1);
  });

  it('keeps going when a handler throws, and calls the next handlers', async () => {
    const inf = make();
    inf.addEventHandler({
      onAdd: () => {
        throw new Error('handler bug');
      },
    });
    const calls = recorder(inf);
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    kube.put('n', 'a');
    kube.put('n', 'b');
    await waitFor(() => calls.length === 2);
    expect(logs.lines.filter((l) => l.level === 'error' && l.fields.error === 'handler bug')).toHaveLength(2);
    expect(inf.health().status).toBe('synced');
  });

  it('[ES-12] caches own writes only when newer and fires no events for them; older stream events are emitted while reads keep the own write', async () => {
    const a = kube.put('n', 'a', { v: '1' });
    const inf = make();
    const calls = recorder(inf);
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    const id = new ResourceID('a', 'n');
    const write = (rv: string, uid = 'uid-1', v = 'own') => ({
      ...a,
      metadata: { ...a.metadata, resourceVersion: rv, uid },
      data: { v },
    });
    expect(inf.cacheIfNewer(write('100'))).toBe(false); // older
    expect(inf.cacheIfNewer(write(a.metadata!.resourceVersion!))).toBe(false); // same
    expect(inf.cacheIfNewer(write('500', 'other-uid'))).toBe(false); // another incarnation
    expect(inf.cacheIfNewer(write('500'))).toBe(true);
    expect(inf.get(id)?.data).toEqual({ v: 'own' });
    expect(calls).toHaveLength(1); // only the initial add
    const older = kube.put('n', 'a', { v: 'stream-older' }); // rv 102 < 500: emitted, reads keep the own write
    kube.put('n', 'b');
    await waitFor(() => calls.length === 3);
    expect(calls[1]).toEqual([
      'update',
      'n/a@uid-1',
      a.metadata!.resourceVersion,
      older.metadata!.resourceVersion,
    ]);
    expect(inf.get(id)?.data).toEqual({ v: 'own' });
    // opaque resourceVersions: accepted only on top of the version the write started from
    expect(inf.cacheIfNewer(write('x1'))).toBe(false);
    expect(inf.cacheIfNewer(write('x1'), '499')).toBe(false);
    expect(inf.cacheIfNewer(write('x1', 'uid-1', 'opaque'), '500')).toBe(true);
    expect(inf.get(id)?.data).toEqual({ v: 'opaque' });
    // a deleted object is not resurrected by a late write
    kube.remove('n', 'b');
    await waitFor(() => calls.length === 4);
    const b = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'n', uid: 'uid-2', resourceVersion: '999' },
    };
    expect(inf.cacheIfNewer(b)).toBe(false);
    expect(inf.cacheIfNewer({ ...b, metadata: { ...b.metadata, name: 'c', uid: 'uid-new' } })).toBe(true);
  });

  it('[ES-12] emits a watch event older than a cached own write (no lost spec edit), computed from the watched objects', async () => {
    const a = kube.put('n', 'a', { spec: 'v1' });
    const inf = make();
    const calls = recorder(inf);
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    const id = new ResourceID('a', 'n');
    // a user's spec edit (rv 102) and then our status patch (rv 103, which contains the edit) are made
    // while the stream is behind; the patch response is cached before either event arrives
    const edit = kube.put('n', 'a', { spec: 'v2' }, { silent: true });
    const patched = kube.put('n', 'a', { spec: 'v2', status: 'done' }, { silent: true });
    expect(inf.cacheIfNewer(patched, a.metadata!.resourceVersion)).toBe(true);
    expect(inf.get(id)?.data).toEqual({ spec: 'v2', status: 'done' });
    kube.sendEvent('MODIFIED', edit);
    await waitFor(() => calls.length === 2, 5_000, 'the event of the spec edit');
    expect(calls[1]).toEqual([
      'update',
      'n/a@uid-1',
      a.metadata!.resourceVersion,
      edit.metadata!.resourceVersion,
    ]);
    // reads keep the own write while it is newer than the watched object
    expect(inf.get(id)?.data).toEqual({ spec: 'v2', status: 'done' });
    expect(inf.list().map((o) => o.metadata?.resourceVersion)).toEqual([patched.metadata!.resourceVersion]);
    // the event of the own write itself is reported against the write (nothing new to its writer)
    kube.sendEvent('MODIFIED', patched);
    await waitFor(() => calls.length === 3, 5_000, 'the event of the status patch');
    expect(calls[2]).toEqual([
      'update',
      'n/a@uid-1',
      patched.metadata!.resourceVersion,
      patched.metadata!.resourceVersion,
    ]);
    expect(inf.get(id)).toEqual(patched);
  });

  it('[EP-17] refuses an own write that does not match the label selector and drops an older overlay of it', async () => {
    const a = kube.put('n', 'a', { v: '1' }, { labels: { app: 'x' } });
    const inf = make({ labelSelector: 'app=x,tier notin (db)' });
    const calls = recorder(inf);
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    const id = new ResourceID('a', 'n');
    const write = (rv: string, labels: Record<string, string>, v: string) => ({
      ...a,
      metadata: { ...a.metadata, resourceVersion: rv, labels },
      data: { v },
    });
    expect(inf.cacheIfNewer(write('500', { app: 'x', tier: 'web' }, 'mine'))).toBe(true);
    expect(inf.get(id)?.data).toEqual({ v: 'mine' });
    // the next write moves it out of the selection: not cached, and the older overlay is gone too
    expect(inf.cacheIfNewer(write('501', { app: 'x', tier: 'db' }, 'moved'))).toBe(false);
    expect(inf.get(id)?.data).toEqual({ v: '1' });
    expect(inf.cacheIfNewer(write('502', { app: 'y' }, 'other'))).toBe(false);
    const stranger = { ...a, metadata: { ...a.metadata, name: 'b', uid: 'uid-b', labels: {} } };
    expect(inf.cacheIfNewer(stranger)).toBe(false);
    expect(inf.keys()).toEqual(['n/a']);
    expect(calls).toHaveLength(1);
  });

  it('[EP-17] refuses an own write outside the field selector', async () => {
    kube.put('n', 'a');
    const inf = make({ fieldSelector: 'metadata.name=a' });
    await inf.start();
    const b = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: 'n', uid: 'uid-b', resourceVersion: '900' },
    };
    expect(inf.cacheIfNewer(b)).toBe(false);
    expect(inf.cacheIfNewer({ ...b, metadata: { ...b.metadata, name: 'c2' } })).toBe(false);
    expect(inf.keys()).toEqual(['n/a']);
  });

  it('[ES-12] keeps an own write that overlaps a re-list (no stale cache) and still delivers its event (none lost)', async () => {
    kube.put('n', 'a', { v: '1' });
    const inf = make();
    const calls = recorder(inf);
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    const hold = kube.holdNextList();
    kube.compact();
    clock.advance(5_000);
    kube.sendError(410, 'Expired'); // the informer re-lists; the answer carries the state before the write
    await waitFor(hold.arrived, 5_000, 'the re-list request');
    const written = kube.put('n', 'a', { v: 'own write' }, { silent: true });
    expect(inf.cacheIfNewer(written)).toBe(true);
    hold.release();
    await waitFor(
      () => kube.openWatches === 1 && kube.listRequests().length === 2,
      5_000,
      'the watch after the re-list',
    );
    expect(inf.get(new ResourceID('a', 'n'))?.data).toEqual({ v: 'own write' });
    // the watch from the re-list's resourceVersion replays the write: its event is delivered
    await waitFor(() => calls.length === 2, 5_000, 'the event of the own write');
    expect(calls[1]).toEqual([
      'update',
      'n/a@uid-1',
      written.metadata!.resourceVersion,
      written.metadata!.resourceVersion,
    ]);
    expect(inf.get(new ResourceID('a', 'n'))?.data).toEqual({ v: 'own write' });
  });

  it('transforms objects before caching them (a frozen result too)', async () => {
    kube.put('n', 'a', { big: 'x'.repeat(100) });
    const inf = make({
      transform: (o) => Object.freeze({ ...o, data: { size: String(o.data?.big?.length ?? 0) } }),
    });
    await inf.start();
    expect(inf.get(new ResourceID('a', 'n'))?.data).toEqual({ size: '100' });
    expect(inf.health().healthy).toBe(true);
  });

  it('caches one namespace only when given one', async () => {
    kube.put('a', 'one');
    kube.put('b', 'two');
    const inf = make({ namespace: 'b' });
    await inf.start();
    expect(inf.keys()).toEqual(['b/two']);
    expect(inf.name).toBe('configmaps/b');
    await waitFor(() => kube.openWatches === 1);
    expect(kube.watchRequests()[0].path).toBe('/api/v1/namespaces/b/configmaps');
  });

  it('stops: aborts the stream, leaves no timer, and cannot be restarted', async () => {
    const inf = make();
    await inf.start();
    await waitFor(() => kube.openWatches === 1);
    await inf.stop();
    expect(inf.health().status).toBe('stopped');
    await waitFor(() => kube.server.openResponses === 0, 5_000, 'the server to see the close');
    expect(clock.pendingDelays()).toEqual([]);
    await expect(inf.start()).rejects.toBeInstanceOf(InformerUsageError);
  });

  it('stops during a backoff without waiting for it', async () => {
    kube.overrides.push((_req, res) => {
      json(res, 503, status(503, 'ServiceUnavailable'));
      return true;
    });
    const inf = make({ failFast: false });
    await inf.start();
    await waitFor(() => clock.pendingDelays().length === 1);
    await inf.stop();
    expect(clock.pendingDelays()).toEqual([]);
    expect(inf.health().status).toBe('stopped');
  });

  it('rejects bad options with InformerUsageError', () => {
    expect(() => make({ pageSize: 0 })).toThrow(InformerUsageError);
    expect(() => make({ deadStreamTimeoutMs: -1 })).toThrow(InformerUsageError);
    expect(() => make({ watchTimeoutSeconds: 0 })).toThrow(InformerUsageError);
    informer = undefined;
  });
});
