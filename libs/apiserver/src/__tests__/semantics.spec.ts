/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Store } from '../internal/storage/store.js';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';

const CM = '/api/v1/namespaces/default/configmaps';

describe('KubeApiServer write semantics', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[AS-FIN] delete with finalizers marks the object; removing the last finalizer deletes it; no new finalizers', async () => {
    await call(server, 'POST', CM, { metadata: { name: 'fin', finalizers: ['x/y'] } });
    const del = await call(server, 'DELETE', `${CM}/fin`);
    expect(del.status).toBe(200);
    const marked = del.json<{
      metadata: { deletionTimestamp: string; deletionGracePeriodSeconds: number; generation: number };
    }>();
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(0);
    // a ConfigMap has no generation to bump (kube's BeforeDelete bumps only a set one)
    expect(marked.metadata.generation).toBeUndefined();
    const added = await call(
      server,
      'PATCH',
      `${CM}/fin`,
      { metadata: { finalizers: ['x/y', 'a/b'] } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(added.status).toBe(422);
    const cleared = await call(
      server,
      'PATCH',
      `${CM}/fin`,
      { metadata: { deletionTimestamp: null } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(cleared.json<{ metadata: { deletionTimestamp: string } }>().metadata.deletionTimestamp).toBe(
      marked.metadata.deletionTimestamp,
    );
    const removed = await call(
      server,
      'PATCH',
      `${CM}/fin`,
      { metadata: { finalizers: null } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(removed.status).toBe(200);
    expect((await call(server, 'GET', `${CM}/fin`)).status).toBe(404);
  });

  it('[AS-PRECOND] delete preconditions on uid and resourceVersion give 409', async () => {
    const c = (await call(server, 'POST', CM, { metadata: { name: 'pre' } })).json<{
      metadata: { uid: string; resourceVersion: string };
    }>();
    const badUid = await call(server, 'DELETE', `${CM}/pre`, { preconditions: { uid: 'other' } });
    expect(badUid.status).toBe(409);
    const badRv = await call(server, 'DELETE', `${CM}/pre`, { preconditions: { resourceVersion: '1' } });
    expect(badRv.status).toBe(409);
    const ok = await call(server, 'DELETE', `${CM}/pre`, {
      preconditions: { uid: c.metadata.uid, resourceVersion: c.metadata.resourceVersion },
    });
    expect(ok.status).toBe(200);
  });

  it('[AS-STATUS] /status writes change only status; main writes ignore status; generation counts spec changes', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments';
    const dep = {
      metadata: { name: 'd1' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
      status: { replicas: 9 },
    };
    const created = (await call(server, 'POST', path, dep)).json<Record<string, any>>();
    expect(created.status).toBeUndefined();
    const st = await call(server, 'PUT', `${path}/d1/status`, {
      ...created,
      spec: { ...created.spec, replicas: 5 },
      status: { readyReplicas: 1 },
    });
    expect(st.status).toBe(200);
    const afterStatus = st.json<Record<string, any>>();
    expect(afterStatus.spec.replicas).toBe(1);
    expect(afterStatus.status.readyReplicas).toBe(1);
    expect(afterStatus.metadata.generation).toBe(1);
    const main = await call(
      server,
      'PATCH',
      `${path}/d1`,
      { spec: { replicas: 3 }, status: { readyReplicas: 7 } },
      { contentType: 'application/merge-patch+json' },
    );
    const afterMain = main.json<Record<string, any>>();
    expect(afterMain.spec.replicas).toBe(3);
    expect(afterMain.status.readyReplicas).toBe(1);
    expect(afterMain.metadata.generation).toBe(2);
    const labelsOnly = await call(
      server,
      'PATCH',
      `${path}/d1`,
      { metadata: { labels: { x: 'y' } } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(labelsOnly.json<Record<string, any>>().metadata.generation).toBe(2);
    const sp = await call(
      server,
      'PATCH',
      `${path}/d1/status`,
      { status: { availableReplicas: 1 } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(sp.json<Record<string, any>>().status).toEqual({ readyReplicas: 1, availableReplicas: 1 });
  });

  it('[AS-SCALE] the scale subresource reads and writes replicas; 409 on a stale resourceVersion; 422 on negative', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments/d1/scale';
    const scale = (await call(server, 'GET', path)).json<Record<string, any>>();
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'd1' },
      spec: { replicas: 3 },
      status: { selector: 'a=b' },
    });
    const patched = await call(
      server,
      'PATCH',
      path,
      { spec: { replicas: 4 } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(patched.json<Record<string, any>>().spec.replicas).toBe(4);
    expect(
      (await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/d1')).json<
        Record<string, any>
      >().spec.replicas,
    ).toBe(4);
    const stale = await call(server, 'PUT', path, { ...scale, spec: { replicas: 1 } });
    expect(stale.status).toBe(409);
    expect(
      (
        await call(
          server,
          'PATCH',
          path,
          { spec: { replicas: -1 } },
          { contentType: 'application/merge-patch+json' },
        )
      ).status,
    ).toBe(422);
    expect((await call(server, 'GET', '/api/v1/namespaces/default/configmaps/pocc/scale')).status).toBe(404);
  });

  it('[AS-DRYRUN] dryRun=All answers fully and stores nothing', async () => {
    const before = (await call(server, 'GET', CM)).json<{ metadata: { resourceVersion: string } }>().metadata
      .resourceVersion;
    const r = await call(server, 'POST', `${CM}?dryRun=All`, { metadata: { name: 'dry' }, data: { a: 'b' } });
    expect(r.status).toBe(201);
    expect(r.json<Record<string, any>>().data).toEqual({ a: 'b' });
    expect((await call(server, 'GET', `${CM}/dry`)).status).toBe(404);
    const after = (await call(server, 'GET', CM)).json<{ metadata: { resourceVersion: string } }>().metadata
      .resourceVersion;
    expect(after).toBe(before);
    // kube's ValidateCreateOptions: a 422 CreateOptions Invalid (review-s10-options.spec.ts)
    const bad = await call(server, 'POST', `${CM}?dryRun=Some`, { metadata: { name: 'dry' } });
    expect(bad.status).toBe(422);
  });

  it('[AS-PATCH] JSON patch with test, merge patch, strategic merge by name; 415 for unknown types', async () => {
    await call(server, 'POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'p1' },
      spec: {
        containers: [
          { name: 'a', image: 'x' },
          { name: 'b', image: 'y' },
        ],
      },
    });
    const smp = await call(
      server,
      'PATCH',
      '/api/v1/namespaces/default/pods/p1',
      { spec: { containers: [{ name: 'b', image: 'z' }] } },
      { contentType: 'application/strategic-merge-patch+json' },
    );
    expect(smp.status).toBe(200);
    expect(smp.json<Record<string, any>>().spec.containers).toEqual([
      expect.objectContaining({ name: 'a', image: 'x' }),
      expect.objectContaining({ name: 'b', image: 'z' }),
    ]);
    const jp = await call(
      server,
      'PATCH',
      '/api/v1/namespaces/default/pods/p1',
      [{ op: 'test', path: '/spec/containers/0/name', value: 'nope' }],
      { contentType: 'application/json-patch+json' },
    );
    expect([409, 422]).toContain(jp.status);
    const jp2 = await call(
      server,
      'PATCH',
      '/api/v1/namespaces/default/pods/p1',
      [{ op: 'add', path: '/metadata/labels', value: { k: 'v' } }],
      { contentType: 'application/json-patch+json' },
    );
    expect(jp2.json<Record<string, any>>().metadata.labels).toEqual({ k: 'v' });
    const wrong = await call(
      server,
      'PATCH',
      '/api/v1/namespaces/default/pods/p1',
      { a: 1 },
      { contentType: 'text/plain' },
    );
    expect(wrong.status).toBe(415);
    const broken = await call(server, 'PATCH', '/api/v1/namespaces/default/pods/p1', '{not json', {
      contentType: 'application/merge-patch+json',
    });
    expect(broken.status).toBe(400);
    expect(broken.json().kind).toBe('Status');
  });

  it('[AS-DEFAULTS] built-in defaults as kube-apiserver sets them: pod spec, Service cluster IP and ports, Secret stringData', async () => {
    const pod = (await call(server, 'GET', '/api/v1/namespaces/default/pods/p1')).json<Record<string, any>>();
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      terminationGracePeriodSeconds: 30,
    });
    expect(pod.spec.containers[0]).toMatchObject({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
    });
    const svc = (
      await call(server, 'POST', '/api/v1/namespaces/default/services', {
        metadata: { name: 'svc1' },
        spec: { selector: { a: 'b' }, ports: [{ port: 80 }] },
      })
    ).json<Record<string, any>>();
    expect(svc.spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect(svc.spec.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);
    const same = await call(server, 'PUT', '/api/v1/namespaces/default/services/svc1', {
      metadata: { name: 'svc1' },
      spec: { selector: { a: 'b' }, ports: [{ port: 80 }] },
    });
    expect(same.json<Record<string, any>>().spec.clusterIP).toBe(svc.spec.clusterIP);
    expect(same.json<Record<string, any>>().metadata.resourceVersion).toBe(svc.metadata.resourceVersion);
    const secret = (
      await call(server, 'POST', '/api/v1/namespaces/default/secrets', {
        metadata: { name: 's1' },
        stringData: { user: 'bob' },
      })
    ).json<Record<string, any>>();
    expect(secret).toMatchObject({ type: 'Opaque', data: { user: Buffer.from('bob').toString('base64') } });
    expect(secret.stringData).toBeUndefined();
  });

  it('[AS-PATCH-OCC] a merge patch carrying a stale resourceVersion gives 409', async () => {
    const c = (await call(server, 'POST', CM, { metadata: { name: 'pocc' } })).json<{
      metadata: { resourceVersion: string };
    }>();
    await call(
      server,
      'PATCH',
      `${CM}/pocc`,
      { data: { a: '1' } },
      { contentType: 'application/merge-patch+json' },
    );
    const r = await call(
      server,
      'PATCH',
      `${CM}/pocc`,
      { metadata: { resourceVersion: c.metadata.resourceVersion }, data: { a: '2' } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(r.status).toBe(409);
  });

  it('[AS-413] bodies over 3 MiB give 413; malformed JSON, YAML and protobuf give 400; unknown media types 415', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 10, 'a');
    const r = await call(server, 'POST', CM, big);
    expect(r.status).toBe(413);
    expect(r.json().reason).toBe('RequestEntityTooLarge');
    expect((await call(server, 'POST', CM, '{"metadata":')).status).toBe(400);
    expect((await call(server, 'POST', CM, 'a: [b', { contentType: 'application/yaml' })).status).toBe(400);
    const y = await call(server, 'POST', CM, 'metadata:\n  name: fromyaml\ndata:\n  a: b\n', {
      contentType: 'application/yaml',
    });
    expect(y.status).toBe(201);
    expect((await call(server, 'POST', CM, 'x', { contentType: 'application/msgpack' })).status).toBe(415);
    expect(
      (await call(server, 'POST', CM, 'x', { contentType: 'application/vnd.kubernetes.protobuf' })).status,
    ).toBe(400);
    expect((await call(server, 'GET', '/apis/nope.io/v1/things')).status).toBe(404);
    expect(
      (await call(server, 'PUT', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'q' } }))
        .status,
    ).toBe(405);
  });

  it('[AS-PROTOBUF] protobuf bodies: a ConfigMap in the k8s envelope is created; a broken one gives 400', async () => {
    const str = (field: number, value: Buffer | string): Buffer => {
      const b = Buffer.isBuffer(value) ? value : Buffer.from(value);
      return Buffer.concat([Buffer.from([(field << 3) | 2, b.length]), b]);
    };
    const meta = str(1, 'from-proto');
    const entry = Buffer.concat([str(1, 'k'), str(2, 'v')]);
    const raw = Buffer.concat([str(1, meta), str(2, entry)]);
    const typeMeta = Buffer.concat([str(1, 'v1'), str(2, 'ConfigMap')]);
    const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), str(1, typeMeta), str(2, raw)]);
    const r = await call(server, 'POST', CM, body, { contentType: 'application/vnd.kubernetes.protobuf' });
    expect(r.status).toBe(201);
    expect(r.json()).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'from-proto' }, data: { k: 'v' } });
    const broken = await call(server, 'POST', CM, Buffer.from('k8s\0\x0a\x7f', 'latin1'), {
      contentType: 'application/vnd.kubernetes.protobuf',
    });
    expect(broken.status).toBe(400);
    expect(broken.json().kind).toBe('Status');
  });

  it('[AS-NSTERM] a deleted namespace goes Terminating, refuses creates with 403 and is removed with its contents', async () => {
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'term' } });
    await call(server, 'POST', '/api/v1/namespaces/term/configmaps', {
      metadata: { name: 'c1', finalizers: ['hold/on'] },
    });
    const d = await call(server, 'DELETE', '/api/v1/namespaces/term');
    expect(d.json<Record<string, any>>().status.phase).toBe('Terminating');
    const refused = await call(server, 'POST', '/api/v1/namespaces/term/configmaps', {
      metadata: { name: 'c2' },
    });
    expect(refused.status).toBe(403);
    expect(refused.json().message).toBe(
      'configmaps "c2" is forbidden: unable to create new content in namespace term because it is being terminated',
    );
    await waitFor(
      async () =>
        (await call(server, 'GET', '/api/v1/namespaces/term/configmaps/c1')).json<Record<string, any>>()
          .metadata?.deletionTimestamp,
    );
    await call(
      server,
      'PATCH',
      '/api/v1/namespaces/term/configmaps/c1',
      { metadata: { finalizers: null } },
      { contentType: 'application/merge-patch+json' },
    );
    await waitFor(async () => (await call(server, 'GET', '/api/v1/namespaces/term')).status === 404);
  });

  it('[AS-GC] background deletion removes dependents; orphan keeps them without the owner reference', async () => {
    const owner = (await call(server, 'POST', CM, { metadata: { name: 'owner' } })).json<{
      metadata: { uid: string };
    }>();
    const ref = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }];
    await call(server, 'POST', CM, { metadata: { name: 'dep1', ownerReferences: ref } });
    await call(server, 'DELETE', `${CM}/owner`);
    await waitFor(async () => (await call(server, 'GET', `${CM}/dep1`)).status === 404);
    const o2 = (await call(server, 'POST', CM, { metadata: { name: 'owner2' } })).json<{
      metadata: { uid: string };
    }>();
    await call(server, 'POST', CM, {
      metadata: { name: 'dep2', ownerReferences: [{ ...ref[0], name: 'owner2', uid: o2.metadata.uid }] },
    });
    await call(server, 'DELETE', `${CM}/owner2`, { propagationPolicy: 'Orphan' });
    await waitFor(async () => (await call(server, 'GET', `${CM}/owner2`)).status === 404);
    const dep2 = (await call(server, 'GET', `${CM}/dep2`)).json<Record<string, any>>();
    expect(dep2.metadata.ownerReferences).toBeUndefined();
  });

  it('[AS-GC-FG] foreground deletion keeps the owner (foregroundDeletion finalizer) until blocking dependents are gone', async () => {
    const owner = (await call(server, 'POST', CM, { metadata: { name: 'fg-owner' } })).json<{
      metadata: { uid: string };
    }>();
    const ref = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'fg-owner',
      uid: owner.metadata.uid,
      blockOwnerDeletion: true,
    };
    await call(server, 'POST', CM, {
      metadata: { name: 'fg-dep', ownerReferences: [ref], finalizers: ['test/hold'] },
    });
    const del = await call(server, 'DELETE', `${CM}/fg-owner`, { propagationPolicy: 'Foreground' });
    expect(del.json<{ metadata: { finalizers: string[] } }>().metadata.finalizers).toEqual([
      'foregroundDeletion',
    ]);
    await waitFor(
      async () =>
        (await call(server, 'GET', `${CM}/fg-dep`)).json<{ metadata: { deletionTimestamp?: string } }>()
          .metadata.deletionTimestamp,
    );
    expect((await call(server, 'GET', `${CM}/fg-owner`)).status).toBe(200);
    await call(
      server,
      'PATCH',
      `${CM}/fg-dep`,
      { metadata: { finalizers: null } },
      { contentType: 'application/merge-patch+json' },
    );
    await waitFor(async () => (await call(server, 'GET', `${CM}/fg-owner`)).status === 404);
  });

  it('[AS-GC-DANGLING] a dependent created with only a dangling owner reference is collected; one with a live owner stays', async () => {
    const owner = (await call(server, 'POST', CM, { metadata: { name: 'live-owner' } })).json<{
      metadata: { uid: string };
    }>();
    const ref = (name: string, uid: string) => [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid }];
    await call(server, 'POST', CM, {
      metadata: { name: 'kept', ownerReferences: ref('live-owner', owner.metadata.uid) },
    });
    await call(server, 'POST', CM, {
      metadata: { name: 'orphaned', ownerReferences: ref('ghost', '00000000-0000-0000-0000-000000000000') },
    });
    await waitFor(async () => (await call(server, 'GET', `${CM}/orphaned`)).status === 404);
    expect((await call(server, 'GET', `${CM}/kept`)).status).toBe(200);
  });

  it('[AS-GC-DANGLING] dependents of a deleted owner, of a recreated owner name and of a reference changed to a gone uid are collected', async () => {
    const first = (await call(server, 'POST', CM, { metadata: { name: 'reborn' } })).json<any>();
    const goneUid: string = first.metadata.uid;
    await call(server, 'DELETE', `${CM}/reborn`);
    await waitFor(async () => (await call(server, 'GET', `${CM}/reborn`)).status === 404);
    const ref = (uid: string) => [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'reborn', uid }];
    // created after its owner was deleted
    await call(server, 'POST', CM, { metadata: { name: 'late-dep', ownerReferences: ref(goneUid) } });
    await waitFor(async () => (await call(server, 'GET', `${CM}/late-dep`)).status === 404);
    // an object of the same name but another uid is not the owner
    const second = (await call(server, 'POST', CM, { metadata: { name: 'reborn' } })).json<any>();
    expect(second.metadata.uid).not.toBe(goneUid);
    await call(server, 'POST', CM, { metadata: { name: 'stale-dep', ownerReferences: ref(goneUid) } });
    await call(server, 'POST', CM, {
      metadata: { name: 'true-dep', ownerReferences: ref(second.metadata.uid as string) },
    });
    await waitFor(async () => (await call(server, 'GET', `${CM}/stale-dep`)).status === 404);
    expect((await call(server, 'GET', `${CM}/true-dep`)).status).toBe(200);
    // an update that points the reference at a gone uid
    await call(
      server,
      'PATCH',
      `${CM}/true-dep`,
      { metadata: { ownerReferences: ref(goneUid) } },
      { contentType: 'application/merge-patch+json' },
    );
    await waitFor(async () => (await call(server, 'GET', `${CM}/true-dep`)).status === 404);
    expect((await call(server, 'GET', `${CM}/reborn`)).status).toBe(200);
  });

  it('[AS-GC-BOUNDED] collecting the dependents of a deleted owner reads only their ownership component, not the store', async () => {
    const client = server.internalClient();
    for (let i = 0; i < 300; i++)
      client.create('', 'v1', 'configmaps', 'default', { metadata: { name: `bulk-${i}` } });
    const owner = (await call(server, 'POST', CM, { metadata: { name: 'small-owner' } })).json<any>();
    const ref = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'small-owner', uid: owner.metadata.uid as string },
    ];
    await call(server, 'POST', CM, { metadata: { name: 'small-dep', ownerReferences: ref } });
    const lists = jest.spyOn(Store.prototype, 'listJson');
    const reads = jest.spyOn(Store.prototype, 'get');
    try {
      await call(server, 'DELETE', `${CM}/small-owner`);
      await waitFor(async () => (await call(server, 'GET', `${CM}/small-dep`)).status === 404);
      expect(lists).not.toHaveBeenCalled();
      // the delete, the collection and the polling GETs: nowhere near one read per stored object
      expect(reads.mock.calls.length).toBeLessThan(100);
    } finally {
      lists.mockRestore();
      reads.mockRestore();
    }
  });

  it('[AS-SSA-STATUS] server-side apply on the main resource of a kind with a status subresource owns no status fields', async () => {
    const res = await call(
      server,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/ssa-st?fieldManager=me',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'ssa-st' },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
        status: { replicas: 7 },
      },
      { contentType: 'application/apply-patch+yaml' },
    );
    expect(res.status).toBe(201);
    const mine = (res.json<any>().metadata.managedFields as any[]).filter((m) => m.manager === 'me');
    expect(mine).toHaveLength(1);
    expect(mine[0].fieldsV1['f:spec']).toBeDefined();
    expect(mine[0].fieldsV1['f:status']).toBeUndefined();
    expect(res.json<any>().status?.replicas).toBeUndefined();
    const again = await call(
      server,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/ssa-st?fieldManager=me',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'ssa-st', labels: { x: 'y' } },
        // the spec applied again: left out, the apply would drop the selector, which is immutable
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
        status: { replicas: 9 },
      },
      { contentType: 'application/apply-patch+yaml' },
    );
    expect(again.status).toBe(200);
    const entries = (again.json<any>().metadata.managedFields as any[]).filter((m) => m.manager === 'me');
    expect(entries.map((m) => m.fieldsV1['f:status'])).toEqual([undefined]);
    expect(again.json<any>().status?.replicas).toBeUndefined();
  });

  it('[AS-FAULT] injected 429 carries Retry-After; latency and accounting are visible', async () => {
    server.requests.reset();
    server.faults.failNext({ verb: 'list', resource: 'configmaps', code: 429, retryAfterSeconds: 2 });
    const r = await call(server, 'GET', CM);
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('2');
    expect(r.json().reason).toBe('TooManyRequests');
    expect((await call(server, 'GET', CM)).status).toBe(200);
    await call(
      server,
      'PATCH',
      `${CM}/pocc`,
      { data: { b: '1' } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(server.requests.count({ verb: 'patch', resource: 'configmaps' })).toBe(1);
    expect(server.requests.count({ verb: 'list', resource: 'configmaps', user: 'admin' })).toBe(2);
    expect(server.requests.log.at(-1)).toMatchObject({
      verb: 'patch',
      resource: 'configmaps',
      name: 'pocc',
      code: 200,
    });
  });

  it('[AS-RESTART] restart keeps state on the same port and drops open watches', async () => {
    const w = rawWatch(server, `${CM}?watch=1&resourceVersion=0`);
    await waitFor(() => w.events.length > 0);
    const port = server.port;
    await server.faults.restart();
    await w.ended;
    expect(server.port).toBe(port);
    expect((await call(server, 'GET', `${CM}/pocc`)).status).toBe(200);
  });
});
