import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, makeInformer, Watch } from '@kubernetes/client-node';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';

interface List {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: { metadata: { name: string; labels?: Record<string, string>; resourceVersion: string } }[];
}

describe('KubeApiServer list and watch', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ bookmarkIntervalMs: 200, historySize: 200 });
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'lw' } });
    for (let i = 0; i < 10; i++) {
      await call(server, 'POST', '/api/v1/namespaces/lw/configmaps', {
        metadata: { name: `c${i}`, labels: { idx: String(i), parity: i % 2 ? 'odd' : 'even' } },
      });
    }
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[AS-LIST-PAGE] limit and continue page through a consistent snapshot', async () => {
    const p1 = (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps?limit=4')).json<List>();
    expect(p1.items.map((i) => i.metadata.name)).toEqual(['c0', 'c1', 'c2', 'c3']);
    expect(p1.metadata.remainingItemCount).toBe(6);
    await call(server, 'DELETE', '/api/v1/namespaces/lw/configmaps/c5');
    await call(server, 'POST', '/api/v1/namespaces/lw/configmaps', { metadata: { name: 'c55' } });
    const p2 = (
      await call(server, 'GET', `/api/v1/namespaces/lw/configmaps?limit=4&continue=${p1.metadata.continue!}`)
    ).json<List>();
    expect(p2.items.map((i) => i.metadata.name)).toEqual(['c4', 'c5', 'c6', 'c7']);
    expect(p2.metadata.resourceVersion).toBe(p1.metadata.resourceVersion);
    const p3 = (
      await call(server, 'GET', `/api/v1/namespaces/lw/configmaps?limit=4&continue=${p2.metadata.continue!}`)
    ).json<List>();
    expect(p3.items.map((i) => i.metadata.name)).toEqual(['c8', 'c9']);
    expect(p3.metadata.continue).toBeUndefined();
    // restore
    await call(server, 'DELETE', '/api/v1/namespaces/lw/configmaps/c55');
    await call(server, 'POST', '/api/v1/namespaces/lw/configmaps', {
      metadata: { name: 'c5', labels: { idx: '5', parity: 'odd' } },
    });
  });

  it('[AS-LIST-410] a continue token older than history gives 410 Expired', async () => {
    const p1 = (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps?limit=2')).json<List>();
    await call(
      server,
      'PATCH',
      '/api/v1/namespaces/lw/configmaps/c0',
      { data: { z: '1' } },
      { contentType: 'application/merge-patch+json' },
    );
    server.faults.compact();
    const r = await call(
      server,
      'GET',
      `/api/v1/namespaces/lw/configmaps?limit=2&continue=${p1.metadata.continue!}`,
    );
    expect(r.status).toBe(410);
    expect(r.json()).toMatchObject({ reason: 'Expired', code: 410 });
  });

  it('[AS-LIST-RV] resourceVersion "" , "0" and Exact', async () => {
    const now = (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps')).json<List>();
    const any = (
      await call(server, 'GET', '/api/v1/namespaces/lw/configmaps?resourceVersion=0')
    ).json<List>();
    expect(any.items).toHaveLength(now.items.length);
    const rv = now.metadata.resourceVersion;
    await call(server, 'POST', '/api/v1/namespaces/lw/configmaps', { metadata: { name: 'late' } });
    const exact = (
      await call(
        server,
        'GET',
        `/api/v1/namespaces/lw/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`,
      )
    ).json<List>();
    expect(exact.items.map((i) => i.metadata.name)).not.toContain('late');
    expect(exact.metadata.resourceVersion).toBe(rv);
    server.faults.compact();
    const old = await call(
      server,
      'GET',
      `/api/v1/namespaces/lw/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`,
    );
    expect(old.status).toBe(410);
    await call(server, 'DELETE', '/api/v1/namespaces/lw/configmaps/late');
  });

  it('[AS-LIST-RV] a list at resourceVersion "0" ignores limit, as the watch cache does; other lists page', async () => {
    const all = (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps')).json<List>();
    expect(all.items.length).toBeGreaterThan(3);
    for (const query of [
      'resourceVersion=0&limit=3',
      'resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=3',
    ]) {
      const whole = (await call(server, 'GET', `/api/v1/namespaces/lw/configmaps?${query}`)).json<List>();
      expect(whole.items.map((i) => i.metadata.name)).toEqual(all.items.map((i) => i.metadata.name));
      expect(whole.metadata.continue).toBeUndefined();
      expect(whole.metadata.remainingItemCount).toBeUndefined();
    }
    for (const query of ['limit=3', `resourceVersion=${all.metadata.resourceVersion}&limit=3`]) {
      const page = (await call(server, 'GET', `/api/v1/namespaces/lw/configmaps?${query}`)).json<List>();
      expect(page.items).toHaveLength(3);
      expect(page.metadata.continue).toBeTruthy();
    }
  });

  it('[AS-SELECT] label and field selectors filter lists; unknown field labels give 400', async () => {
    const odd = (
      await call(
        server,
        'GET',
        '/api/v1/namespaces/lw/configmaps?labelSelector=parity%3Dodd,idx%20notin%20(1,3)',
      )
    ).json<List>();
    expect(odd.items.map((i) => i.metadata.name).sort()).toEqual(['c5', 'c7', 'c9']);
    const byName = (
      await call(server, 'GET', '/api/v1/configmaps?fieldSelector=metadata.name%3Dc2')
    ).json<List>();
    expect(byName.items.map((i) => i.metadata.name)).toEqual(['c2']);
    const notNs = (
      await call(server, 'GET', '/api/v1/configmaps?fieldSelector=metadata.namespace!%3Dlw')
    ).json<List>();
    expect(notNs.items.every((i) => i.metadata.name !== 'c2')).toBe(true);
    const bad = await call(server, 'GET', '/api/v1/configmaps?fieldSelector=data.x%3D1');
    expect(bad.status).toBe(400);
    // kube's DefaultMetaV1FieldSelectorConversion wording for a kind without field labels of its own (S11-SEL8)
    expect(bad.json().message).toBe(
      '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    const badSel = await call(server, 'GET', '/api/v1/configmaps?labelSelector=a%20in%20b');
    expect(badSel.status).toBe(400);
    await call(server, 'POST', '/api/v1/namespaces/lw/pods', {
      metadata: { name: 'pod1' },
      spec: { containers: [{ name: 'c', image: 'i' }], nodeName: 'n1' },
    });
    const pods = (
      await call(server, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1,status.phase%3DPending')
    ).json<List>();
    expect(pods.items.map((i) => i.metadata.name)).toEqual(['pod1']);
  });

  it('[AS-DELCOL] deletecollection deletes what the selector matches', async () => {
    for (let i = 0; i < 3; i++)
      await call(server, 'POST', '/api/v1/namespaces/lw/configmaps', {
        metadata: { name: `dc${i}`, labels: { group: 'dc' } },
      });
    const r = await call(server, 'DELETE', '/api/v1/namespaces/lw/configmaps?labelSelector=group%3Ddc');
    expect(r.status).toBe(200);
    const left = (
      await call(server, 'GET', '/api/v1/namespaces/lw/configmaps?labelSelector=group%3Ddc')
    ).json<List>();
    expect(left.items).toHaveLength(0);
  });

  it('[AS-WATCH] ADDED, MODIFIED, DELETED with last state; resume from a resourceVersion', async () => {
    const start = (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps')).json<List>().metadata
      .resourceVersion;
    const w = rawWatch(server, `/api/v1/namespaces/lw/configmaps?watch=true&resourceVersion=${start}`);
    await call(server, 'POST', '/api/v1/namespaces/lw/configmaps', { metadata: { name: 'w1' } });
    await call(
      server,
      'PATCH',
      '/api/v1/namespaces/lw/configmaps/w1',
      { data: { a: 'b' } },
      { contentType: 'application/merge-patch+json' },
    );
    await call(server, 'DELETE', '/api/v1/namespaces/lw/configmaps/w1');
    await waitFor(() => w.events.length >= 3);
    w.close();
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect((w.events[2].object as { data: Record<string, string> }).data).toEqual({ a: 'b' });
    const rvs = w.events.map((e) =>
      Number((e.object.metadata as { resourceVersion: string }).resourceVersion),
    );
    expect(rvs[0] < rvs[1] && rvs[1] < rvs[2]).toBe(true);
    const resumed = rawWatch(server, `/api/v1/namespaces/lw/configmaps?watch=true&resourceVersion=${rvs[0]}`);
    await waitFor(() => resumed.events.length >= 2);
    resumed.close();
    expect(resumed.events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
  });

  it('[AS-WATCH-410] a watch from a compacted resourceVersion gets an ERROR 410 Expired event', async () => {
    const rv = (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps')).json<List>().metadata
      .resourceVersion;
    await call(server, 'POST', '/api/v1/namespaces/lw/configmaps', { metadata: { name: 'w410' } });
    server.faults.compact();
    const w = rawWatch(
      server,
      `/api/v1/namespaces/lw/configmaps?watch=true&resourceVersion=${Number(rv) - 1}`,
    );
    await w.ended;
    expect(w.events).toHaveLength(1);
    expect(w.events[0]).toMatchObject({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Expired' },
    });
  });

  it('[AS-WATCH-INIT] rv 0 replays current state; sendInitialEvents ends with the initial-events-end bookmark', async () => {
    const w = rawWatch(
      server,
      '/api/v1/namespaces/lw/configmaps?watch=1&resourceVersion=0&labelSelector=parity%3Deven',
    );
    await waitFor(() => w.events.length >= 5);
    w.close();
    expect(w.events.every((e) => e.type === 'ADDED')).toBe(true);
    const s = rawWatch(
      server,
      '/api/v1/namespaces/lw/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=parity%3Deven',
    );
    await waitFor(() => s.events.find((e) => e.type === 'BOOKMARK'));
    s.close();
    expect(s.events.slice(0, 5).every((e) => e.type === 'ADDED')).toBe(true);
    const bm = s.events[5];
    expect(bm.type).toBe('BOOKMARK');
    expect(bm.object).toMatchObject({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } },
    });
    const bad = await call(server, 'GET', '/api/v1/namespaces/lw/configmaps?watch=1&sendInitialEvents=true');
    expect(bad.status).toBe(422);
  });

  it('[AS-WATCH-BOOKMARK] periodic bookmarks carry only apiVersion, kind and resourceVersion; timeoutSeconds ends the stream', async () => {
    const w = rawWatch(
      server,
      '/api/v1/namespaces/lw/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=' +
        (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps')).json<List>().metadata
          .resourceVersion +
        '&timeoutSeconds=1',
    );
    await waitFor(() => w.events.find((e) => e.type === 'BOOKMARK'));
    const bm = w.events.find((e) => e.type === 'BOOKMARK')!;
    expect(Object.keys(bm.object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(Object.keys(bm.object.metadata as object)).toEqual(['resourceVersion']);
    await w.ended;
  });

  it('[AS-WATCH-SEL] selector transitions: leaving the selector is DELETED, entering is ADDED', async () => {
    const rv = (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps')).json<List>().metadata
      .resourceVersion;
    const w = rawWatch(
      server,
      `/api/v1/namespaces/lw/configmaps?watch=1&resourceVersion=${rv}&labelSelector=parity%3Deven`,
    );
    await call(
      server,
      'PATCH',
      '/api/v1/namespaces/lw/configmaps/c2',
      { metadata: { labels: { parity: 'odd' } } },
      { contentType: 'application/merge-patch+json' },
    );
    await call(
      server,
      'PATCH',
      '/api/v1/namespaces/lw/configmaps/c3',
      { metadata: { labels: { parity: 'even' } } },
      { contentType: 'application/merge-patch+json' },
    );
    await call(
      server,
      'PATCH',
      '/api/v1/namespaces/lw/configmaps/c2',
      { metadata: { labels: { parity: 'even' } } },
      { contentType: 'application/merge-patch+json' },
    );
    await call(
      server,
      'PATCH',
      '/api/v1/namespaces/lw/configmaps/c3',
      { metadata: { labels: { parity: 'odd' } } },
      { contentType: 'application/merge-patch+json' },
    );
    await waitFor(() => w.events.length >= 4);
    w.close();
    expect(w.events.map((e) => `${e.type}:${(e.object.metadata as { name: string }).name}`)).toEqual([
      'DELETED:c2',
      'ADDED:c3',
      'ADDED:c2',
      'DELETED:c3',
    ]);
  });

  it('[AS-WATCH-NAME] a per-name watch via fieldSelector and the legacy /watch/ path', async () => {
    const rv = (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps')).json<List>().metadata
      .resourceVersion;
    const w = rawWatch(
      server,
      `/api/v1/watch/namespaces/lw/configmaps?resourceVersion=${rv}&fieldSelector=metadata.name%3Dc4`,
    );
    await call(
      server,
      'PATCH',
      '/api/v1/namespaces/lw/configmaps/c6',
      { data: { a: '1' } },
      { contentType: 'application/merge-patch+json' },
    );
    await call(
      server,
      'PATCH',
      '/api/v1/namespaces/lw/configmaps/c4',
      { data: { a: '1' } },
      { contentType: 'application/merge-patch+json' },
    );
    await waitFor(() => w.events.length >= 1);
    w.close();
    expect(w.events.map((e) => (e.object.metadata as { name: string }).name)).toEqual(['c4']);
  });

  it('[AS-WATCH-BOOL] boolean query parameters are parsed as Go does (watch=True, allowWatchBookmarks=T)', async () => {
    const rv = (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps')).json<List>().metadata
      .resourceVersion;
    const w = rawWatch(
      server,
      `/api/v1/namespaces/lw/configmaps?watch=True&allowWatchBookmarks=T&resourceVersion=${rv}`,
    );
    await call(
      server,
      'PATCH',
      '/api/v1/namespaces/lw/configmaps/c8',
      { data: { b: '1' } },
      { contentType: 'application/merge-patch+json' },
    );
    await waitFor(() => w.events.length >= 1);
    w.close();
    expect(w.events[0]).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'c8' } } });
    expect((await call(server, 'GET', '/api/v1/namespaces/lw/configmaps?watch=maybe')).status).toBe(200);
    expect(
      (await call(server, 'GET', '/api/v1/namespaces/lw/configmaps?watch=1&allowWatchBookmarks=maybe'))
        .status,
    ).toBe(400);
  });

  it('[AS-CLIENT-WATCH] client-node Watch and an informer see changes and survive closeAllWatches', async () => {
    const kc = server.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const seen: string[] = [];
    const watch = new Watch(kc);
    const req = await watch.watch(
      '/api/v1/namespaces/lw/configmaps',
      {
        resourceVersion: (await core.listNamespacedConfigMap({ namespace: 'lw' })).metadata!.resourceVersion!,
      },
      (type, obj: V1ConfigMap) => seen.push(`${type}:${obj.metadata!.name!}`),
      () => undefined,
    );
    await core.createNamespacedConfigMap({ namespace: 'lw', body: { metadata: { name: 'cw' } } });
    await waitFor(() => seen.includes('ADDED:cw'));
    req.abort();
    const informer = makeInformer(kc, '/api/v1/namespaces/lw/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'lw' }),
    );
    const names = new Set<string>();
    informer.on('add', (o) => names.add(o.metadata!.name!));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: 'lw', body: { metadata: { name: 'inf1' } } });
    await waitFor(() => names.has('inf1'));
    server.faults.closeAllWatches();
    await core.createNamespacedConfigMap({ namespace: 'lw', body: { metadata: { name: 'inf2' } } });
    await waitFor(() => names.has('inf2'), 10_000);
    await informer.stop();
  });
});
