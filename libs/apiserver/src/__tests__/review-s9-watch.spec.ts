/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';

/**
 * Adversarial review (session 9) of watches: selector transitions, Table watches (kubectl get -w) and
 * bookmarks while a watch catches up, as kube-apiserver's watch cache serves them (sources per test).
 */
const NS = 's9w';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const MERGE = 'application/merge-patch+json';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

describe('review s9: watches', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({
      tls: false,
      bookmarkIntervalMs: 15,
      maxWatchBufferBytes: 256 * 1024,
    });
    expect((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
  });

  const rvNow = async (): Promise<string> =>
    (await call(server, 'GET', `${CM}?limit=1`)).json<any>().metadata.resourceVersion as string;

  // kube-apiserver: storage/cacher/cache_watcher.go convertToWatchEvent: when the new state leaves the
  // selection it sends DELETED "with the previous object content, but with the event's resource version".
  it("[FINDING S9-AS2] an object leaving a watch's selection is sent as DELETED with its new (unselected) state instead of its last selected state", async () => {
    expect(
      (
        await call(server, 'POST', CM, {
          metadata: { name: 'as2', labels: { tier: 'web' } },
          data: { v: '1' },
        })
      ).status,
    ).toBe(201);
    const w = rawWatch(server, `${CM}?watch=true&labelSelector=tier%3Dweb&resourceVersion=${await rvNow()}`);
    try {
      const moved = await call(
        server,
        'PATCH',
        `${CM}/as2`,
        { metadata: { labels: { tier: 'db' } }, data: { v: '2' } },
        { contentType: MERGE },
      );
      expect(moved.status).toBe(200);
      const rv = moved.json<any>().metadata.resourceVersion;
      await waitFor(() => w.events.length >= 1);
      expect(w.events[0].type).toBe('DELETED');
      const obj = w.events[0].object as any;
      expect(obj.metadata.labels).toEqual({ tier: 'web' });
      expect(obj.data).toEqual({ v: '1' });
      expect(obj.metadata.resourceVersion).toBe(rv);
    } finally {
      w.close();
    }
  });

  // kube-apiserver: endpoints/handlers/watch.go (watchEmbeddedEncoder.doEncode / serveWatch's Fixup):
  // a watch asked for as=Table sends every object as a meta.k8s.io/v1 Table, with the column
  // definitions on the first event only (kubectl get -w prints the rows with the list's columns).
  it('[FINDING S9-AS4] a watch asked for as=Table (kubectl get -w) sends whole objects, not Tables', async () => {
    expect((await call(server, 'POST', CM, { metadata: { name: 'as4-a' }, data: { x: '1' } })).status).toBe(
      201,
    );
    const w = rawWatch(server, `${CM}?watch=true&fieldSelector=metadata.name%3Das4-a`, { accept: TABLE });
    try {
      await waitFor(() => w.events.length >= 1);
      await call(server, 'PATCH', `${CM}/as4-a`, { data: { x: '1', y: '2' } }, { contentType: MERGE });
      await waitFor(() => w.events.length >= 2);
      const [first, second] = w.events as any[];
      expect(first.type).toBe('ADDED');
      expect(first.object.kind).toBe('Table');
      expect(first.object.apiVersion).toBe('meta.k8s.io/v1');
      expect(first.object.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Data', 'Age']);
      expect(first.object.rows).toHaveLength(1);
      expect(first.object.rows[0].cells.slice(0, 2)).toEqual(['as4-a', 1]);
      expect(first.object.rows[0].object.kind).toBe('PartialObjectMetadata');
      expect(second.type).toBe('MODIFIED');
      expect(second.object.kind).toBe('Table');
      expect(second.object.columnDefinitions ?? []).toEqual([]);
      expect(second.object.rows[0].cells.slice(0, 2)).toEqual(['as4-a', 2]);
      expect(second.object.metadata.resourceVersion).toBe(
        second.object.rows[0].object.metadata.resourceVersion,
      );
    } finally {
      w.close();
    }
  });

  // kube-apiserver: storage/cacher/cache_watcher.go processInterval sends the initial (catch-up) events
  // first and only then what comes through its input channel, bookmarks included; a bookmark never
  // overtakes an event of a lower resourceVersion (client-go's reflector resumes from a bookmark's
  // resourceVersion, so an overtaking bookmark loses the events behind it).
  it('[FINDING S9-AS7] a bookmark sent while a watch catches up carries a resourceVersion ahead of events not yet sent', async () => {
    const start = await rvNow();
    const big = 'x'.repeat(128 * 1024);
    for (let i = 0; i < 150; i++) {
      const r = await call(server, 'POST', CM, { metadata: { name: `as7-${i}` }, data: { big } });
      expect(r.status).toBe(201);
    }
    const last = Number(await rvNow());
    const url = new URL(`${CM}?watch=true&allowWatchBookmarks=true&resourceVersion=${start}`, server.url);
    const lines: { type: string; rv: number }[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = request(url, { headers: { authorization: `Bearer ${server.tokenOf()}` } }, (res) => {
        // read nothing for a while: the catch-up (19 MB) waits on the transport meanwhile
        res.pause();
        let buf = '';
        const timer = setTimeout(() => {
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buf += c;
            let i: number;
            while ((i = buf.indexOf('\n')) >= 0) {
              const e = JSON.parse(buf.slice(0, i));
              buf = buf.slice(i + 1);
              lines.push({ type: e.type, rv: Number(e.object.metadata.resourceVersion) });
              if (e.type !== 'BOOKMARK' && Number(e.object.metadata.resourceVersion) >= last) {
                req.destroy();
                resolve();
              }
            }
          });
          res.resume();
        }, 300);
        res.on('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });
    expect(lines.filter((l) => l.type !== 'BOOKMARK').length).toBe(150);
    let seen = Number(start);
    const behind: string[] = [];
    for (const l of lines) {
      if (l.rv < seen) behind.push(`${l.type} ${l.rv} after ${seen}`);
      seen = Math.max(seen, l.rv);
    }
    expect(behind).toEqual([]);
  });
});
