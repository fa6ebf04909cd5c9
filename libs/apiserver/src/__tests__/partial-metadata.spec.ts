/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';

const META = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const META_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/** What client-go's metadata client sends: protobuf first, then JSON, then plain JSON. */
const CLIENT_GO_LIST = `application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,${META_LIST},application/json`;

describe('KubeApiServer PartialObjectMetadata answers', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'pm' } });
    for (const name of ['a', 'b', 'c'])
      await call(server, 'POST', '/api/v1/namespaces/pm/configmaps', {
        metadata: { name, labels: { app: 'x' }, annotations: { note: name } },
        data: { secret: `payload-${name}` },
      });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('get answers PartialObjectMetadata with the whole metadata and no data', async () => {
    const r = await call(server, 'GET', '/api/v1/namespaces/pm/configmaps/a', undefined, { accept: META });
    expect(r.status).toBe(200);
    const o = r.json<any>();
    expect(o.kind).toBe('PartialObjectMetadata');
    expect(o.apiVersion).toBe('meta.k8s.io/v1');
    expect(o.data).toBeUndefined();
    expect(Object.keys(o).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    const full = (await call(server, 'GET', '/api/v1/namespaces/pm/configmaps/a')).json<any>();
    expect(o.metadata).toEqual(full.metadata);
    expect(o.metadata.managedFields.length).toBeGreaterThan(0);
    expect(r.text).not.toContain('payload-a');
  });

  it('get of a built-in kind in another group and of v1beta1 answers with that apiVersion', async () => {
    const r = await call(server, 'GET', '/api/v1/namespaces/pm', undefined, {
      accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1',
    });
    expect(r.json<any>()).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1beta1',
      metadata: { name: 'pm' },
    });
  });

  it('list answers PartialObjectMetadataList with items of PartialObjectMetadata, selectors and paging kept', async () => {
    const r = await call(server, 'GET', '/api/v1/namespaces/pm/configmaps?limit=2', undefined, {
      accept: CLIENT_GO_LIST,
    });
    expect(r.status).toBe(200);
    const l = r.json<any>();
    expect(l.kind).toBe('PartialObjectMetadataList');
    expect(l.apiVersion).toBe('meta.k8s.io/v1');
    expect(l.items.map((i: any) => [i.kind, i.apiVersion, i.metadata.name])).toEqual([
      ['PartialObjectMetadata', 'meta.k8s.io/v1', 'a'],
      ['PartialObjectMetadata', 'meta.k8s.io/v1', 'b'],
    ]);
    expect(l.metadata.continue).toEqual(expect.any(String));
    expect(l.metadata.remainingItemCount).toBe(1);
    expect(r.text).not.toContain('payload-');
    const next = (
      await call(
        server,
        'GET',
        `/api/v1/namespaces/pm/configmaps?limit=2&continue=${l.metadata.continue}`,
        undefined,
        {
          accept: META_LIST,
        },
      )
    ).json<any>();
    expect(next.items.map((i: any) => i.metadata.name)).toEqual(['c']);
    const sel = (
      await call(server, 'GET', '/api/v1/configmaps?fieldSelector=metadata.name%3Db', undefined, {
        accept: META_LIST,
      })
    ).json<any>();
    expect(sel.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(['pm/b']);
  });

  it('a list asked as PartialObjectMetadata and an object asked as a list get 406 NotAcceptable, as kube-apiserver answers', async () => {
    const l = await call(server, 'GET', '/api/v1/namespaces/pm/configmaps', undefined, { accept: META });
    expect(l.status).toBe(406);
    expect(l.json<any>()).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    expect(l.json<any>().message).toContain(
      'you requested PartialObjectMetadata, but the requested object is a list',
    );
    const o = await call(server, 'GET', '/api/v1/namespaces/pm/configmaps/a', undefined, {
      accept: META_LIST,
    });
    expect(o.status).toBe(406);
  });

  it('plain, Table and unknown conversions are unchanged', async () => {
    const plain = (
      await call(server, 'GET', '/api/v1/namespaces/pm/configmaps/a', undefined, {
        accept: 'application/json',
      })
    ).json<any>();
    expect(plain.kind).toBe('ConfigMap');
    const table = (
      await call(server, 'GET', '/api/v1/namespaces/pm/configmaps', undefined, {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
      })
    ).json<any>();
    expect(table.kind).toBe('Table');
    // a conversion this server does not offer is skipped; the next clause decides
    const other = (
      await call(server, 'GET', '/api/v1/namespaces/pm/configmaps/a', undefined, {
        accept: 'application/json;as=Other;g=example.com;v=v1,application/json',
      })
    ).json<any>();
    expect(other.kind).toBe('ConfigMap');
  });

  it('watch sends PartialObjectMetadata for the initial state, live changes, deletes and bookmarks', async () => {
    const w = rawWatch(
      server,
      '/api/v1/namespaces/pm/configmaps?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan',
      {
        accept: META,
      },
    );
    try {
      await waitFor(() => w.events.some((e) => e.type === 'BOOKMARK'), 10_000);
      await call(
        server,
        'PATCH',
        '/api/v1/namespaces/pm/configmaps/a',
        { data: { secret: 'payload-changed' } },
        {
          contentType: 'application/merge-patch+json',
        },
      );
      await call(server, 'DELETE', '/api/v1/namespaces/pm/configmaps/b');
      await waitFor(() => w.events.some((e) => e.type === 'DELETED'), 10_000);
      const seen = w.events.map((e) => [e.type, (e.object as any).kind, (e.object as any).metadata?.name]);
      expect(seen.slice(0, 3)).toEqual([
        ['ADDED', 'PartialObjectMetadata', 'a'],
        ['ADDED', 'PartialObjectMetadata', 'b'],
        ['ADDED', 'PartialObjectMetadata', 'c'],
      ]);
      expect(seen).toContainEqual(['BOOKMARK', 'PartialObjectMetadata', undefined]);
      expect(seen).toContainEqual(['MODIFIED', 'PartialObjectMetadata', 'a']);
      expect(seen).toContainEqual(['DELETED', 'PartialObjectMetadata', 'b']);
      for (const e of w.events) {
        expect((e.object as any).apiVersion).toBe('meta.k8s.io/v1');
        expect((e.object as any).data).toBeUndefined();
      }
      const bm = w.events.find((e) => e.type === 'BOOKMARK')!;
      expect((bm.object as any).metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    } finally {
      w.close();
    }
  });

  it('a whole-object watch next to a metadata-only one still gets whole objects for the same event', async () => {
    const meta = rawWatch(
      server,
      '/api/v1/namespaces/pm/configmaps?watch=true&resourceVersion=' + (await currentRv()),
      {
        accept: META,
      },
    );
    const full = rawWatch(
      server,
      '/api/v1/namespaces/pm/configmaps?watch=true&resourceVersion=' + (await currentRv()),
    );
    try {
      await call(server, 'POST', '/api/v1/namespaces/pm/configmaps', {
        metadata: { name: 'd' },
        data: { k: 'v' },
      });
      await waitFor(() => meta.events.length > 0 && full.events.length > 0, 10_000);
      expect((meta.events[0].object as any).kind).toBe('PartialObjectMetadata');
      expect((full.events[0].object as any).kind).toBe('ConfigMap');
      expect((full.events[0].object as any).data).toEqual({ k: 'v' });
    } finally {
      meta.close();
      full.close();
    }
  });

  async function currentRv(): Promise<string> {
    return (await call(server, 'GET', '/api/v1/namespaces/pm/configmaps')).json<any>().metadata
      .resourceVersion;
  }
});
