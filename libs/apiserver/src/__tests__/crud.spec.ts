import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

describe('KubeApiServer CRUD semantics', () => {
  let server: KubeApiServer;
  let core: CoreV1Api;
  beforeAll(async () => {
    server = await KubeApiServer.start();
    core = server.kubeConfig().makeApiClient(CoreV1Api);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[AS-START] serves HTTPS with a CA in the kubeconfig and answers /healthz, /version', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const h = await call(server, 'GET', '/healthz', undefined, { token: null });
    expect(h.status).toBe(200);
    const v = await call(server, 'GET', '/version');
    expect(v.json().major).toBe('1');
  });

  it('[AS-AUTH] answers 401 with a Status for a missing or unknown token', async () => {
    const r = await call(server, 'GET', '/api/v1/namespaces', undefined, { token: null });
    expect(r.status).toBe(401);
    expect(r.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    const r2 = await call(server, 'GET', '/api/v1/namespaces', undefined, { token: 'nope' });
    expect(r2.status).toBe(401);
  });

  it('[AS-META] create sets uid, creationTimestamp and a resourceVersion (generation only on kinds kube tracks it for); default namespaces exist', async () => {
    const ns = await core.listNamespace();
    expect(ns.items.map((n) => n.metadata?.name)).toEqual(
      expect.arrayContaining(['default', 'kube-system', 'kube-public']),
    );
    const cm = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'a' }, data: { k: 'v' } },
    });
    expect(cm.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(cm.metadata?.creationTimestamp).toBeInstanceOf(Date);
    // kube-apiserver keeps no generation on ConfigMaps, Secrets, Services, ...
    expect(cm.metadata?.generation).toBeUndefined();
    expect(Number(cm.metadata?.resourceVersion)).toBeGreaterThan(0);
    const dep = await call(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'gen', generation: 7 },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    });
    expect(dep.json<{ metadata: { generation: number } }>().metadata.generation).toBe(1);
    const raw = await call(server, 'GET', '/api/v1/namespaces/default/configmaps/a');
    expect(raw.json<{ metadata: { creationTimestamp: string } }>().metadata.creationTimestamp).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
  });

  it('[AS-NAME] generateName adds a 5-character suffix; invalid names give 422 with causes', async () => {
    const cm = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { generateName: 'gen-' } },
    });
    expect(cm.metadata?.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const bad = await call(server, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'Bad_Name' },
    });
    expect(bad.status).toBe(422);
    expect(bad.json()).toMatchObject({
      reason: 'Invalid',
      details: {
        name: 'Bad_Name',
        kind: 'ConfigMap',
        causes: [{ field: 'metadata.name', reason: 'FieldValueInvalid' }],
      },
    });
    const badNs = await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'a.b' } });
    expect(badNs.status).toBe(422);
    const none = await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: {} });
    expect(none.status).toBe(422);
  });

  it('[AS-RV] one increasing resourceVersion per write; a write that changes nothing creates no version', async () => {
    const a = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'rv1' }, data: { x: '1' } },
    });
    const b = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'rv2' } },
    });
    expect(Number(b.metadata!.resourceVersion)).toBeGreaterThan(Number(a.metadata!.resourceVersion));
    const same = await core.replaceNamespacedConfigMap({
      name: 'rv1',
      namespace: 'default',
      body: { metadata: { name: 'rv1' }, data: { x: '1' } },
    });
    expect(same.metadata!.resourceVersion).toBe(a.metadata!.resourceVersion);
    const changed = await core.replaceNamespacedConfigMap({
      name: 'rv1',
      namespace: 'default',
      body: { metadata: { name: 'rv1' }, data: { x: '2' } },
    });
    expect(Number(changed.metadata!.resourceVersion)).toBeGreaterThan(Number(b.metadata!.resourceVersion));
    expect(changed.metadata!.generation).toBeUndefined();
  });

  it('[AS-OCC] a stale resourceVersion on update gives 409 with the Kubernetes message', async () => {
    const a = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'occ' }, data: { x: '1' } },
    });
    await core.replaceNamespacedConfigMap({
      name: 'occ',
      namespace: 'default',
      body: { metadata: { name: 'occ', resourceVersion: a.metadata!.resourceVersion }, data: { x: '2' } },
    });
    const r = await call(server, 'PUT', '/api/v1/namespaces/default/configmaps/occ', {
      metadata: { name: 'occ', resourceVersion: a.metadata!.resourceVersion },
      data: { x: '3' },
    });
    expect(r.status).toBe(409);
    expect(r.json().message).toBe(
      'Operation cannot be fulfilled on configmaps "occ": the object has been modified; please apply your changes to the latest version and try again',
    );
    const unconditional = await call(server, 'PUT', '/api/v1/namespaces/default/configmaps/occ', {
      metadata: { name: 'occ' },
      data: { x: '4' },
    });
    expect(unconditional.status).toBe(200);
  });

  it('[AS-NS] namespaced objects need an existing namespace; 404 names it', async () => {
    const r = await call(server, 'POST', '/api/v1/namespaces/missing/configmaps', {
      metadata: { name: 'x' },
    });
    expect(r.status).toBe(404);
    expect(r.json().message).toBe('namespaces "missing" not found');
  });

  it('[AS-EXISTS] creating twice gives 409 AlreadyExists; unknown objects 404', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'dup' } } });
    const r = await call(server, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'dup' },
    });
    expect(r.status).toBe(409);
    expect(r.json()).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "dup" already exists' });
    const g = await call(server, 'GET', '/api/v1/namespaces/default/configmaps/nothere');
    expect(g.status).toBe(404);
    expect(g.json()).toMatchObject({
      reason: 'NotFound',
      message: 'configmaps "nothere" not found',
      details: { name: 'nothere', kind: 'configmaps' },
    });
  });

  it('[AS-OBJAPI] KubernetesObjectApi creates, reads, patches and deletes a Deployment', async () => {
    const api = KubernetesObjectApi.makeApiClient(server.kubeConfig());
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    };
    const created = await api.create(dep);
    expect((created.metadata as { uid?: string } | undefined)?.uid).toBeDefined();
    const read = await api.read({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
    });
    expect(read.metadata?.name).toBe('web');
    await api.delete({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
    });
    const gone = await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/web');
    expect(gone.status).toBe(404);
  });
});
