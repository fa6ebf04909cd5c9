import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiException, CoreV1Api } from '@kubernetes/client-node';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

const CM = '/api/v1/namespaces/default/configmaps';
const APPLY = 'application/apply-patch+yaml';

describe('KubeApiServer server-side apply, discovery, tables and RBAC', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({
      rbac: true,
      users: [
        { name: 'bob', token: 'bob-token' },
        { name: 'carol', token: 'carol-token' },
      ],
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[AS-SSA] apply creates a missing object, requires a fieldManager and records managedFields', async () => {
    const noManager = await call(
      server,
      'PATCH',
      `${CM}/ssa`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: "1"}\n',
      { contentType: APPLY },
    );
    // kube's ValidatePatchOptions: 422 Invalid PatchOptions (fieldManager: Required value)
    expect(noManager.status).toBe(422);
    const created = await call(
      server,
      'PATCH',
      `${CM}/ssa?fieldManager=alice`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: "1", b: "2"}\n',
      { contentType: APPLY },
    );
    expect(created.status).toBe(201);
    const obj = created.json<{
      data: Record<string, string>;
      metadata: { managedFields: { manager: string; operation: string }[] };
    }>();
    expect(obj.data).toEqual({ a: '1', b: '2' });
    expect(obj.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'alice', operation: 'Apply' }),
    ]);
  });

  it('[AS-SSA-CONFLICT] another manager changing an owned field gets 409 naming it; force takes it over', async () => {
    const r = await call(
      server,
      'PATCH',
      `${CM}/ssa?fieldManager=carol`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: "9"}\n',
      { contentType: APPLY },
    );
    expect(r.status).toBe(409);
    expect(r.json().message).toContain('conflict with "alice"');
    expect(r.json().message).toContain('.data.a');
    const forced = await call(
      server,
      'PATCH',
      `${CM}/ssa?fieldManager=carol&force=true`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {a: "9"}\n',
      { contentType: APPLY },
    );
    expect(forced.status).toBe(200);
    expect(forced.json<{ data: Record<string, string> }>().data).toEqual({ a: '9', b: '2' });
  });

  it('[AS-SSA-REMOVE] fields a manager stops applying are removed', async () => {
    const r = await call(
      server,
      'PATCH',
      `${CM}/ssa?fieldManager=alice`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {}\n',
      { contentType: APPLY },
    );
    expect(r.status).toBe(200);
    expect(r.json<{ data?: Record<string, string> }>().data).toEqual({ a: '9' });
  });

  it('[AS-MANAGED] updates record an Update entry for the user-agent or fieldManager', async () => {
    const r = await call(
      server,
      'PATCH',
      `${CM}/ssa?fieldManager=editor`,
      { data: { c: '3' } },
      { contentType: 'application/merge-patch+json' },
    );
    const mf = r.json<{ metadata: { managedFields: { manager: string; operation: string }[] } }>().metadata
      .managedFields;
    expect(mf).toContainEqual(expect.objectContaining({ manager: 'editor', operation: 'Update' }));
  });

  it('[AS-DISCOVERY] /api, /apis, resource lists with verbs, short names, categories and status subresources', async () => {
    expect((await call(server, 'GET', '/api')).json()).toMatchObject({
      kind: 'APIVersions',
      versions: ['v1'],
    });
    const groups = (await call(server, 'GET', '/apis')).json<{
      groups: { name: string; preferredVersion: { groupVersion: string } }[];
    }>();
    expect(groups.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining([
        'apps',
        'batch',
        'networking.k8s.io',
        'coordination.k8s.io',
        'events.k8s.io',
        'rbac.authorization.k8s.io',
        'authorization.k8s.io',
        'apiextensions.k8s.io',
      ]),
    );
    const v1 = (await call(server, 'GET', '/api/v1')).json<{
      resources: {
        name: string;
        verbs: string[];
        shortNames?: string[];
        categories?: string[];
        namespaced: boolean;
        singularName: string;
      }[];
    }>();
    const pods = v1.resources.find((r) => r.name === 'pods')!;
    expect(pods).toMatchObject({
      namespaced: true,
      singularName: 'pod',
      shortNames: ['po'],
      categories: ['all'],
    });
    expect(pods.verbs).toEqual(
      expect.arrayContaining([
        'create',
        'delete',
        'deletecollection',
        'get',
        'list',
        'patch',
        'update',
        'watch',
      ]),
    );
    expect(v1.resources.find((r) => r.name === 'pods/status')!.verbs).toEqual(['get', 'patch', 'update']);
    expect(v1.resources.find((r) => r.name === 'configmaps/status')).toBeUndefined();
    const apps = (await call(server, 'GET', '/apis/apps')).json();
    expect(apps).toMatchObject({
      kind: 'APIGroup',
      name: 'apps',
      preferredVersion: { groupVersion: 'apps/v1' },
    });
    const agg = await call(server, 'GET', '/apis', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    });
    expect(agg.headers['content-type']).toBe(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    expect(agg.json()).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
    for (const p of ['/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1', '/livez', '/readyz'])
      expect((await call(server, 'GET', p)).status).toBe(200);
  });

  it('[AS-TABLE] Accept as=Table gives Name, kind columns and Age, with includeObject', async () => {
    const t = await call(server, 'GET', CM, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    const table = t.json<{
      kind: string;
      columnDefinitions: { name: string }[];
      rows: { cells: unknown[]; object?: { kind: string } }[];
    }>();
    expect(table.kind).toBe('Table');
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(table.rows[0].cells[0]).toBe('ssa');
    expect(table.rows[0].object!.kind).toBe('PartialObjectMetadata');
    const full = (
      await call(server, 'GET', `${CM}?includeObject=Object`, undefined, {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      })
    ).json<{ rows: { object: { kind: string } }[] }>();
    expect(full.rows[0].object.kind).toBe('ConfigMap');
  });

  it('[AS-RBAC] RBAC denies with the Kubernetes message until a Role is bound; SelfSubjectAccessReview agrees', async () => {
    const denied = await call(server, 'GET', CM, undefined, { token: 'bob-token' });
    expect(denied.status).toBe(403);
    expect(denied.json().message).toBe(
      'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    const review = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
    const ask = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'default' } },
    };
    server.faults.clear();
    await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'reviewer' },
      rules: [
        { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'], verbs: ['create'] },
      ],
    });
    await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'bob-reviewer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reviewer' },
      subjects: [{ kind: 'User', name: 'bob' }],
    });
    const before = await call(server, 'POST', review, ask, { token: 'bob-token' });
    expect(before.status).toBe(201);
    expect(before.json<{ status: { allowed: boolean } }>().status.allowed).toBe(false);
    await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      metadata: { name: 'cm-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    });
    await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'bob-cm' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'User', name: 'bob' }],
    });
    expect((await call(server, 'GET', CM, undefined, { token: 'bob-token' })).status).toBe(200);
    expect(
      (await call(server, 'POST', CM, { metadata: { name: 'bobs' } }, { token: 'bob-token' })).status,
    ).toBe(403);
    const after = await call(server, 'POST', review, ask, { token: 'bob-token' });
    expect(after.json<{ status: { allowed: boolean } }>().status.allowed).toBe(true);
    expect(server.requests.count({ user: 'bob', verb: 'list', resource: 'configmaps' })).toBe(2);
  });

  it('[AS-RBAC-NS] a namespace and its status and finalize subresources are authorized in that namespace', async () => {
    const carol = { token: 'carol-token' };
    const get = await call(server, 'GET', '/api/v1/namespaces/default', undefined, carol);
    expect(get.status).toBe(403);
    expect(get.json().message).toBe(
      'namespaces "default" is forbidden: User "carol" cannot get resource "namespaces" in API group "" in the namespace "default"',
    );
    const status = await call(server, 'GET', '/api/v1/namespaces/default/status', undefined, carol);
    expect(status.json().message).toBe(
      'namespaces "default" is forbidden: User "carol" cannot get resource "namespaces/status" in API group "" in the namespace "default"',
    );
    // the same through @kubernetes/client-node
    const core = server.kubeConfig('carol').makeApiClient(CoreV1Api);
    const err = await core.readNamespaceStatus({ name: 'default' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<string>).code).toBe(403);
    expect((JSON.parse((err as ApiException<string>).body) as { message: string }).message).toContain(
      'cannot get resource "namespaces/status" in API group "" in the namespace "default"',
    );
    const body = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } };
    const fin = await call(server, 'PUT', '/api/v1/namespaces/default/finalize', body, carol);
    expect(fin.status).toBe(403);
    expect(fin.json().message).toBe(
      'namespaces "default" is forbidden: User "carol" cannot update resource "namespaces/finalize" in API group "" in the namespace "default"',
    );
    await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      metadata: { name: 'ns-reader' },
      rules: [{ apiGroups: [''], resources: ['namespaces', 'namespaces/status'], verbs: ['get'] }],
    });
    await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'carol-ns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ns-reader' },
      subjects: [{ kind: 'User', name: 'carol' }],
    });
    // a RoleBinding in the namespace grants access to the namespace object itself, and only to it
    expect((await call(server, 'GET', '/api/v1/namespaces/default', undefined, carol)).status).toBe(200);
    expect((await call(server, 'GET', '/api/v1/namespaces/default/status', undefined, carol)).status).toBe(
      200,
    );
    expect((await core.readNamespaceStatus({ name: 'default' })).metadata?.name).toBe('default');
    const other = await call(server, 'GET', '/api/v1/namespaces/kube-public', undefined, carol);
    expect(other.status).toBe(403);
    expect(other.json().message).toContain('in the namespace "kube-public"');
    const list = await call(server, 'GET', '/api/v1/namespaces', undefined, carol);
    expect(list.json().message).toBe(
      'namespaces is forbidden: User "carol" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
  });
});
