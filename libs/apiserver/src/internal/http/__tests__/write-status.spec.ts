import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../../server.js';
import { call } from '../../../__tests__/http-helper.js';

// The status of a patch's answer: 201 when a server-side apply created the object (dry run
// included), 200 otherwise, as kube-apiserver answers. The handler learns it from the write itself
// (issue 17: no second lookup of the object per patch).

describe('patch answer status', () => {
  let server: KubeApiServer;
  const base = '/api/v1/namespaces/default/configmaps';
  const apply = (name: string, value: string): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    data: { k: value },
  });
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('an apply that creates answers 201, the next apply and a merge patch 200', async () => {
    const opts = { contentType: 'application/apply-patch+yaml' };
    const first = await call(server, 'PATCH', `${base}/made?fieldManager=m`, apply('made', '1'), opts);
    expect(first.status).toBe(201);
    const second = await call(server, 'PATCH', `${base}/made?fieldManager=m`, apply('made', '2'), opts);
    expect(second.status).toBe(200);
    const merge = await call(
      server,
      'PATCH',
      `${base}/made`,
      { data: { k: '3' } },
      {
        contentType: 'application/merge-patch+json',
      },
    );
    expect(merge.status).toBe(200);
    expect(merge.json<{ data: { k: string } }>().data.k).toBe('3');
  });

  it('a dry-run apply that would create answers 201 and stores nothing', async () => {
    const r = await call(server, 'PATCH', `${base}/dry?fieldManager=m&dryRun=All`, apply('dry', '1'), {
      contentType: 'application/apply-patch+yaml',
    });
    expect(r.status).toBe(201);
    expect((await call(server, 'GET', `${base}/dry`)).status).toBe(404);
  });

  it('a merge patch or an apply to the status of a missing object answers 404', async () => {
    const merge = await call(
      server,
      'PATCH',
      `${base}/missing`,
      { data: { k: '1' } },
      {
        contentType: 'application/merge-patch+json',
      },
    );
    expect(merge.status).toBe(404);
    const status = await call(
      server,
      'PATCH',
      '/api/v1/namespaces/default/pods/missing/status?fieldManager=m',
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'missing' },
        status: { phase: 'Running' },
      },
      { contentType: 'application/apply-patch+yaml' },
    );
    expect(status.status).toBe(404);
  });
});
