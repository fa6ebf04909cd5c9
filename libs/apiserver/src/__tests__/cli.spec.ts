/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../cli.js';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';

describe('tosdk-apiserver command line', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tosdk-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('--kubeconfig dir/file creates the directory; with --no-tls client-node reads and writes through it', async () => {
    const kc = join(dir, 'nested', 'deeper', 'kubeconfig');
    const server = await main(['--port', '0', '--no-tls', '--kubeconfig', kc], () => undefined);
    try {
      expect((await stat(kc)).isFile()).toBe(true);
      const config = new KubeConfig();
      config.loadFromFile(kc);
      expect(config.getCurrentCluster()?.server).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const core = config.makeApiClient(CoreV1Api);
      const ns = await core.listNamespace();
      expect(ns.items.map((n) => n.metadata?.name)).toContain('default');
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'via-cli' } } });
      expect(
        (await core.readNamespacedConfigMap({ namespace: 'default', name: 'via-cli' })).metadata?.name,
      ).toBe('via-cli');
    } finally {
      await server.stop();
    }
  });

  it('--state keeps objects (uids, CRDs and custom resources included) across a restart', async () => {
    const kc = join(dir, 'kc-state');
    const state = join(dir, 'state', 'objects.json');
    const first = await main(
      ['--port', '0', '--no-tls', '--kubeconfig', kc, '--state', state],
      () => undefined,
    );
    let uid: string;
    try {
      const cm = await call(first, 'POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: 'kept' },
        data: { a: '1' },
      });
      uid = cm.json<any>().metadata.uid;
      await call(first, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        metadata: { name: 'notes.example.com' },
        spec: {
          group: 'example.com',
          names: { plural: 'notes', singular: 'note', kind: 'Note' },
          scope: 'Namespaced',
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { spec: { type: 'object', properties: { text: { type: 'string' } } } },
                },
              },
            },
          ],
        },
      });
      await waitFor(
        async () =>
          (await call(first, 'GET', '/apis/example.com/v1/namespaces/default/notes')).status === 200,
        10_000,
      );
      expect(
        (
          await call(first, 'POST', '/apis/example.com/v1/namespaces/default/notes', {
            apiVersion: 'example.com/v1',
            kind: 'Note',
            metadata: { name: 'n' },
            spec: { text: 'hi' },
          })
        ).status,
      ).toBe(201);
    } finally {
      await first.stop();
    }
    const saved = JSON.parse(await readFile(state, 'utf8')) as { objects: unknown[] };
    expect(saved.objects.length).toBeGreaterThan(3);
    const second = await main(
      ['--port', '0', '--no-tls', '--kubeconfig', kc, '--state', state],
      () => undefined,
    );
    try {
      const back = await call(second, 'GET', '/api/v1/namespaces/default/configmaps/kept');
      expect(back.status).toBe(200);
      expect(back.json<any>().metadata.uid).toBe(uid);
      expect(back.json<any>().data).toEqual({ a: '1' });
      await waitFor(
        async () =>
          (await call(second, 'GET', '/apis/example.com/v1/namespaces/default/notes/n')).status === 200,
        10_000,
      );
      const note = (await call(second, 'GET', '/apis/example.com/v1/namespaces/default/notes/n')).json<any>();
      expect(note.spec).toEqual({ text: 'hi' });
      // a change after the restart is kept too
      await call(second, 'DELETE', '/api/v1/namespaces/default/configmaps/kept');
    } finally {
      await second.stop();
    }
    const third = await main(
      ['--port', '0', '--no-tls', '--kubeconfig', kc, '--state', state],
      () => undefined,
    );
    try {
      expect((await call(third, 'GET', '/api/v1/namespaces/default/configmaps/kept')).status).toBe(404);
    } finally {
      await third.stop();
    }
  });

  it('--state keeps resourceVersions, uids and creationTimestamps across a restart; the next version is above them, an older watch gets 410 and one at the saved version goes on', async () => {
    const kc = join(dir, 'kc-rv');
    const state = join(dir, 'state-rv', 'objects.json');
    const args = ['--port', '0', '--no-tls', '--kubeconfig', kc, '--state', state];
    const CMS = '/api/v1/namespaces/default/configmaps';
    const first = await main(args, () => undefined);
    let before: any;
    let early: string;
    let listRv: string;
    try {
      early = (await call(first, 'POST', CMS, { metadata: { name: 'early' } })).json<any>().metadata
        .resourceVersion;
      await call(first, 'POST', CMS, { metadata: { name: 'kept-rv' }, data: { a: '1' } });
      before = (
        await call(first, 'PUT', `${CMS}/kept-rv`, { metadata: { name: 'kept-rv' }, data: { a: '2' } })
      ).json<any>();
      // a delete moves the current version past every object's
      await call(first, 'DELETE', `${CMS}/early`);
      listRv = (await call(first, 'GET', CMS)).json<any>().metadata.resourceVersion;
    } finally {
      await first.stop();
    }
    expect(Number(listRv)).toBeGreaterThan(Number(before.metadata.resourceVersion));
    const second = await main(args, () => undefined);
    try {
      const back = (await call(second, 'GET', `${CMS}/kept-rv`)).json<any>();
      expect(back.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      expect(back.metadata.uid).toBe(before.metadata.uid);
      expect(back.metadata.creationTimestamp).toBe(before.metadata.creationTimestamp);
      expect(back.data).toEqual({ a: '2' });
      // a write of the object as read before the restart still matches its resourceVersion
      const updated = await call(second, 'PUT', `${CMS}/kept-rv`, { ...before, data: { a: '3' } });
      expect(updated.status).toBe(200);
      expect(Number(updated.json<any>().metadata.resourceVersion)).toBeGreaterThan(Number(listRv));
      // a watch from before the last saved version: history is gone, so 410 Expired (relist)
      const old = rawWatch(second, `${CMS}?watch=true&resourceVersion=${early}`);
      await waitFor(() => old.events.length > 0, 10_000);
      old.close();
      expect(old.events[0]).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
      // a watch from the version the last list saw gets the changes made since
      const resumed = rawWatch(second, `${CMS}?watch=true&resourceVersion=${listRv}`);
      try {
        await waitFor(
          () => resumed.events.some((e) => e.type === 'MODIFIED' && (e.object as any).data?.a === '3'),
          10_000,
        );
        expect(resumed.events.some((e) => e.type === 'ERROR')).toBe(false);
      } finally {
        resumed.close();
      }
      // and the list's resourceVersion does not go back below what clients saw
      expect(Number((await call(second, 'GET', CMS)).json<any>().metadata.resourceVersion)).toBeGreaterThan(
        Number(listRv),
      );
    } finally {
      await second.stop();
    }
  });

  it('a state file that is not one fails the start with an error naming the file', async () => {
    const bad = join(dir, 'bad.json');
    await import('node:fs/promises').then((fs) => fs.writeFile(bad, '{"not":"state"}'));
    await expect(
      main(['--port', '0', '--no-tls', '--kubeconfig', join(dir, 'kc-bad'), '--state', bad], () => undefined),
    ).rejects.toMatchObject({ code: 'STATE_FILE_INVALID', message: expect.stringContaining(bad) });
  });

  it('request accounting is readable from outside at /debug/tosdk/requests, by system:masters only', async () => {
    const server = await KubeApiServer.start({ tls: false, users: [{ name: 'dev', token: 'dev-token' }] });
    try {
      await call(server, 'GET', '/api/v1/namespaces/default/configmaps');
      await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } });
      const r = await call(server, 'GET', '/debug/tosdk/requests');
      expect(r.status).toBe(200);
      const body = r.json<any>();
      expect(body.kind).toBe('RequestAccounting');
      expect(body.summary['admin|list|configmaps']).toBe(1);
      expect(body.summary['admin|create|configmaps']).toBe(1);
      expect(body.writes).toBe(1);
      expect(body.recent.some((e: any) => e.verb === 'create' && e.resource === 'configmaps')).toBe(true);
      const denied = await call(server, 'GET', '/debug/tosdk/requests', undefined, { token: 'dev-token' });
      expect(denied.status).toBe(403);
      expect(denied.json<any>().message).toContain('system:masters');
      expect((await call(server, 'GET', '/debug/tosdk/requests', undefined, { token: null })).status).toBe(
        401,
      );
    } finally {
      await server.stop();
    }
  });
});
