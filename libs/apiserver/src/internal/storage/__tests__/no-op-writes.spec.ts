import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../../server.js';
import { call } from '../../../__tests__/http-helper.js';

// A write that changes nothing but managedFields timestamps creates no version (kube-apiserver's
// no-op update); anything else, managedFields ownership included, does. The no-op check compares
// the stored and the written object in place (issue 17), so these pin down what it must tell apart.

type Obj = { metadata: { resourceVersion: string; managedFields?: { manager: string }[] } };

describe('no-op writes', () => {
  let server: KubeApiServer;
  const base = '/api/v1/namespaces/default/configmaps';
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function create(name: string): Promise<Obj> {
    const r = await call(server, 'POST', `${base}?fieldManager=first`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, labels: { a: '1' } },
      data: { x: '1', y: '2' },
    });
    expect(r.status).toBe(201);
    return r.json<Obj>();
  }

  it('a merge patch, update or apply that changes nothing keeps the resourceVersion', async () => {
    const made = await create('same');
    const rv = made.metadata.resourceVersion;
    const patched = await call(
      server,
      'PATCH',
      `${base}/same?fieldManager=first`,
      { data: { y: '2', x: '1' } },
      {
        contentType: 'application/merge-patch+json',
      },
    );
    expect(patched.json<Obj>().metadata.resourceVersion).toBe(rv);
    const put = await call(server, 'PUT', `${base}/same?fieldManager=first`, {
      data: { y: '2', x: '1' },
      metadata: { labels: { a: '1' }, name: 'same' },
    });
    expect(put.json<Obj>().metadata.resourceVersion).toBe(rv);
    const apply = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'same' }, data: { z: '3' } };
    const applied = await call(server, 'PATCH', `${base}/same?fieldManager=ssa`, apply, {
      contentType: 'application/apply-patch+yaml',
    });
    const rv2 = applied.json<Obj>().metadata.resourceVersion;
    expect(Number(rv2)).toBeGreaterThan(Number(rv));
    const again = await call(server, 'PATCH', `${base}/same?fieldManager=ssa`, apply, {
      contentType: 'application/apply-patch+yaml',
    });
    expect(again.json<Obj>().metadata.resourceVersion).toBe(rv2);
  });

  it('a change in data, in a label, or in a label only by key removal makes a new version', async () => {
    let rv = (await create('changes')).metadata.resourceVersion;
    for (const patch of [
      { data: { x: '9' } },
      { metadata: { labels: { a: '2' } } },
      { metadata: { labels: { a: null } } },
      { data: { y: null } },
    ]) {
      const r = await call(server, 'PATCH', `${base}/changes?fieldManager=first`, patch, {
        contentType: 'application/merge-patch+json',
      });
      expect(r.status).toBe(200);
      const next = r.json<Obj>().metadata.resourceVersion;
      expect(Number(next)).toBeGreaterThan(Number(rv));
      rv = next;
    }
  });

  it('a write that only moves field ownership to another manager makes a new version', async () => {
    const made = await create('owners');
    const r = await call(
      server,
      'PATCH',
      `${base}/owners?fieldManager=second`,
      { data: { x: '1' } },
      {
        contentType: 'application/merge-patch+json',
      },
    );
    // the value is the same: the merge patch changes nothing, so ownership does not move either
    expect(r.json<Obj>().metadata.resourceVersion).toBe(made.metadata.resourceVersion);
    const apply = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owners' }, data: { x: '1' } };
    const applied = await call(server, 'PATCH', `${base}/owners?fieldManager=applier`, apply, {
      contentType: 'application/apply-patch+yaml',
    });
    const body = applied.json<Obj>();
    // apply takes shared ownership of x with the same value: only managedFields change, still a version
    expect(body.metadata.managedFields?.map((m) => m.manager)).toContain('applier');
    expect(Number(body.metadata.resourceVersion)).toBeGreaterThan(Number(made.metadata.resourceVersion));
  });
});
