/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, configMapBody, fieldsOf, rawWatch, waitFor } from './http-helper.js';

const NS = 'en';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const DEP = `/apis/apps/v1/namespaces/${NS}/deployments`;
const APPLY = 'application/apply-patch+yaml';
const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';

const configMap = configMapBody;

function deployment(
  name: string,
  spec: Record<string, unknown> = {},
  container: Record<string, unknown> = {},
): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx:1', ...container }] },
      },
      ...spec,
    },
  };
}

/**
 * kube-apiserver computes an apply's field set with structured-merge-diff from the configuration as
 * sent (typed/tofieldset.go: an empty map or a null is a leaf of the set, an atomic list too, an empty
 * granular list adds nothing), and stores what decoding into Go types leaves (a null is nil or a zero
 * value, empties of `omitempty` fields are gone).
 */
describe('KubeApiServer treats empties and nulls of built-in kinds as kube-apiserver does', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    expect((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
  });

  const apply = (url: string, body: unknown, manager: string, force = false): ReturnType<typeof call> =>
    call(
      server,
      'PATCH',
      `${url}?fieldManager=${manager}${force ? '&force=true' : ''}`,
      JSON.stringify(body),
      {
        contentType: APPLY,
      },
    );

  it('an applied data: {} and labels: {} are owned (f:data: {}, f:labels: {}) but not stored; a re-apply writes nothing; dropping them disowns them', async () => {
    const first = await apply(`${CM}/a1`, configMap('a1', { data: {} }, { labels: {} }), 'm');
    expect(first.status).toBe(201);
    const o = first.json<any>();
    expect(Object.keys(o)).not.toContain('data');
    expect(Object.keys(o.metadata)).not.toContain('labels');
    expect(fieldsOf(o, 'm')).toEqual({ 'f:data': {}, 'f:metadata': { 'f:labels': {} } });
    const got = (await call(server, 'GET', `${CM}/a1`)).json<any>();
    expect(fieldsOf(got, 'm')).toEqual({ 'f:data': {}, 'f:metadata': { 'f:labels': {} } });
    expect(Object.keys(got)).not.toContain('data');

    const again = await apply(`${CM}/a1`, configMap('a1', { data: {} }, { labels: {} }), 'm');
    expect(again.status).toBe(200);
    expect(again.json<any>().metadata.resourceVersion).toBe(o.metadata.resourceVersion);

    const without = await apply(`${CM}/a1`, configMap('a1', {}, { labels: {} }), 'm');
    expect(without.status).toBe(200);
    expect(Object.keys(without.json<any>())).not.toContain('data');
    expect(fieldsOf(without.json(), 'm')).toEqual({ 'f:metadata': { 'f:labels': {} } });
  });

  it('data: {} after owning data.k removes k and keeps owning f:data; data: {a} and back to {} round-trip', async () => {
    const url = `${CM}/a2`;
    const withKey = await apply(url, configMap('a2', { data: { k: 'v' } }), 'm');
    expect(withKey.status).toBe(201);
    expect(fieldsOf(withKey.json(), 'm')).toEqual({ 'f:data': { 'f:k': {} } });
    const emptied = await apply(url, configMap('a2', { data: {} }), 'm');
    expect(emptied.status).toBe(200);
    expect(Object.keys(emptied.json<any>())).not.toContain('data');
    expect(fieldsOf(emptied.json(), 'm')).toEqual({ 'f:data': {} });
    const refilled = await apply(url, configMap('a2', { data: { a: '1' } }), 'm');
    expect(refilled.json<any>().data).toEqual({ a: '1' });
    expect(fieldsOf(refilled.json(), 'm')).toEqual({ 'f:data': { 'f:a': {} } });
  });

  it("an applied data: {} keeps another manager's keys, without a conflict", async () => {
    const url = `${CM}/a3`;
    expect((await call(server, 'POST', CM, configMap('a3', { data: { b: 'x' } }))).status).toBe(201);
    const applied = await apply(url, configMap('a3', { data: {} }), 'm');
    expect(applied.status).toBe(200);
    expect(applied.json<any>().data).toEqual({ b: 'x' });
    expect(fieldsOf(applied.json(), 'm')).toEqual({ 'f:data': {} });
  });

  it('another manager that adds the first key to an applied empty map takes the map over (structured-merge-diff adds the map path)', async () => {
    const url = `${CM}/a4`;
    expect((await apply(url, configMap('a4', { data: {} }), 'm')).status).toBe(201);
    const patched = await call(
      server,
      'PATCH',
      `${url}?fieldManager=other`,
      { data: { b: 'x' } },
      { contentType: MERGE },
    );
    expect(patched.status).toBe(200);
    expect(patched.json<any>().data).toEqual({ b: 'x' });
    expect(fieldsOf(patched.json(), 'm')).toBeUndefined();
    expect(fieldsOf(patched.json(), 'other')).toEqual({ 'f:data': { '.': {}, 'f:b': {} } });
  });

  it('an atomic empty list (args: []) is owned, an empty keyed list (env: [], ports: []) is not; none is stored', async () => {
    const res = await apply(`${DEP}/d1`, deployment('d1', {}, { args: [], env: [], ports: [] }), 'm');
    expect(res.status).toBe(201);
    const c = res.json<any>().spec.template.spec.containers[0];
    for (const k of ['args', 'env', 'ports']) expect(Object.keys(c)).not.toContain(k);
    const f = fieldsOf(res.json(), 'm')['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"c"}'];
    expect(f['f:args']).toEqual({});
    expect(f['f:env']).toBeUndefined();
    expect(f['f:ports']).toBeUndefined();
  });

  it('nulls in a create body come back absent or defaulted (write, get, list, watch), never null', async () => {
    const listed = await call(server, 'GET', DEP);
    const watch = rawWatch(
      server,
      `${DEP}?watch=true&resourceVersion=${listed.json<any>().metadata.resourceVersion}`,
    );
    try {
      const body = deployment(
        'n1',
        { replicas: null, revisionHistoryLimit: null, strategy: null, paused: null },
        { env: null, args: null, resources: null, imagePullPolicy: null, ports: null },
      );
      body.metadata.labels = null;
      body.metadata.annotations = null;
      body.metadata.finalizers = null;
      // what `kubectl create deployment --dry-run -o yaml` writes (kube omits it since 1.33)
      body.spec.template.metadata.creationTimestamp = null;
      const created = await call(server, 'POST', DEP, body);
      expect(created.status).toBe(201);
      const check = (o: any): void => {
        expect(o.metadata.name).toBe('n1');
        for (const k of ['labels', 'annotations', 'finalizers'])
          expect(Object.keys(o.metadata)).not.toContain(k);
        expect(o.spec.replicas).toBe(1);
        expect(o.spec.revisionHistoryLimit).toBe(10);
        expect(o.spec.strategy).toEqual({
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
        });
        expect(Object.keys(o.spec)).not.toContain('paused');
        const c = o.spec.template.spec.containers[0];
        for (const k of ['env', 'args', 'ports']) expect(Object.keys(c)).not.toContain(k);
        expect(c.resources).toEqual({});
        expect(c.imagePullPolicy).toBe('IfNotPresent');
        expect(JSON.stringify(o)).not.toContain('null');
      };
      check(created.json());
      check((await call(server, 'GET', `${DEP}/n1`)).json());
      check((await call(server, 'GET', DEP)).json<any>().items.find((i: any) => i.metadata.name === 'n1'));
      const added = await waitFor(
        () => watch.events.find((e) => e.type === 'ADDED' && (e.object as any).metadata.name === 'n1'),
        20_000,
      );
      check(added.object);
    } finally {
      watch.close();
    }
  });

  it('a null map value or string list item decodes to "" (Go leaves a string zero)', async () => {
    const created = await call(server, 'POST', CM, {
      metadata: { name: 'z1', labels: { a: null } },
      data: { k: null, j: 'v' },
    });
    expect(created.status).toBe(201);
    expect(created.json<any>().metadata.labels).toEqual({ a: '' });
    expect(created.json<any>().data).toEqual({ k: '', j: 'v' });
    const dep = await call(server, 'POST', DEP, deployment('z2', {}, { args: ['x', null] }));
    expect(dep.status).toBe(201);
    expect(dep.json<any>().spec.template.spec.containers[0].args).toEqual(['x', '']);
  });

  it('a Secret\'s stringData value null is data "" (a Go string zero); a null slice of a field without omitempty stays null (Role rules; a rule\'s null verbs are refused as kube refuses them)', async () => {
    const secret = await call(server, 'POST', `/api/v1/namespaces/${NS}/secrets`, {
      metadata: { name: 's1' },
      stringData: { k: null },
      data: null,
    });
    expect(secret.status).toBe(201);
    expect(secret.json<any>().data).toEqual({ k: '' });
    expect(Object.keys(secret.json<any>())).not.toContain('stringData');
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`;
    const nullRules = await call(server, 'POST', rbac, { metadata: { name: 'r1' }, rules: null });
    expect(nullRules.status).toBe(201);
    expect(nullRules.json<any>().rules).toBeNull();
    const nullVerbs = await call(server, 'POST', rbac, {
      metadata: { name: 'r2' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: null, resourceNames: null }],
    });
    // a null verbs slice decodes as nil (no omitempty), which kube's validatePolicyRule then refuses (S13-BV7)
    expect(nullVerbs.status).toBe(422);
    expect(nullVerbs.json<any>().message).toContain(
      'rules[0].verbs: Required value: verbs must contain at least one value',
    );
  });

  it('a status write with nulls stores them absent', async () => {
    expect((await call(server, 'POST', DEP, deployment('st1'))).status).toBe(201);
    const got = (await call(server, 'GET', `${DEP}/st1`)).json<any>();
    got.status = { replicas: 1, conditions: null, observedGeneration: null };
    const put = await call(server, 'PUT', `${DEP}/st1/status`, got);
    expect(put.status).toBe(200);
    expect(put.json<any>().status).toEqual({ replicas: 1 });
  });

  it('a PUT and a JSON patch with a null label value store "" (decoded before validation, as a create does)', async () => {
    expect((await call(server, 'POST', CM, { metadata: { name: 'lv' } })).status).toBe(201);
    const put = await call(server, 'PUT', `${CM}/lv`, { metadata: { name: 'lv', labels: { a: null } } });
    expect(put.status).toBe(200);
    expect(put.json<any>().metadata.labels).toEqual({ a: '' });
    const patched = await call(
      server,
      'PATCH',
      `${CM}/lv`,
      [{ op: 'add', path: '/metadata/annotations', value: { n: null } }],
      { contentType: JSON_PATCH },
    );
    expect(patched.status).toBe(200);
    expect(patched.json<any>().metadata.annotations).toEqual({ n: '' });
  });

  it('a PUT and a JSON patch that write null fields store them absent or defaulted', async () => {
    expect((await call(server, 'POST', DEP, deployment('u1', { replicas: 3 }))).status).toBe(201);
    const got = (await call(server, 'GET', `${DEP}/u1`)).json<any>();
    got.spec.replicas = null;
    got.metadata.labels = null;
    got.spec.template.spec.containers[0].env = null;
    const put = await call(server, 'PUT', `${DEP}/u1`, got);
    expect(put.status).toBe(200);
    expect(put.json<any>().spec.replicas).toBe(1);
    expect(Object.keys(put.json<any>().metadata)).not.toContain('labels');
    expect(JSON.stringify(put.json())).not.toContain('null');

    const patched = await call(
      server,
      'PATCH',
      `${DEP}/u1`,
      [
        { op: 'replace', path: '/spec/replicas', value: null },
        { op: 'add', path: '/metadata/annotations', value: null },
        { op: 'add', path: '/spec/template/spec/containers/0/command', value: null },
      ],
      { contentType: JSON_PATCH },
    );
    expect(patched.status).toBe(200);
    expect(patched.json<any>().spec.replicas).toBe(1);
    expect(Object.keys(patched.json<any>().metadata)).not.toContain('annotations');
    expect(JSON.stringify(patched.json())).not.toContain('null');
  });

  it('an applied null scalar removes the field and owns it: replicas: null comes back defaulted', async () => {
    const url = `${DEP}/s1`;
    expect((await apply(url, deployment('s1', { replicas: 3 }), 'm')).status).toBe(201);
    const res = await apply(url, deployment('s1', { replicas: null }), 'm');
    expect(res.status).toBe(200);
    expect(res.json<any>().spec.replicas).toBe(1);
    expect(fieldsOf(res.json(), 'm')['f:spec']['f:replicas']).toEqual({});
    expect(JSON.stringify(res.json())).not.toContain('null');
  });

  it("an applied null map keeps another manager's keys (no conflict) and owns the map; keys only it owned go", async () => {
    const url = `${CM}/s2`;
    expect(
      (await call(server, 'POST', `${CM}?fieldManager=other`, configMap('s2', { data: { b: 'x' } }))).status,
    ).toBe(201);
    expect((await apply(url, configMap('s2', { data: { b: 'x', mine: '1' } }), 'm')).status).toBe(200);
    const res = await apply(url, configMap('s2', { data: null }, { labels: null }), 'm');
    expect(res.status).toBe(200);
    expect(res.json<any>().data).toEqual({ b: 'x' });
    expect(Object.keys(res.json<any>().metadata)).not.toContain('labels');
    expect(fieldsOf(res.json(), 'm')).toEqual({ 'f:data': {}, 'f:metadata': { 'f:labels': {} } });
    expect(fieldsOf(res.json(), 'other')).toEqual({ 'f:data': { '.': {}, 'f:b': {} } });
  });

  it("an applied null over another manager's null (a Role's rules, nil without omitempty) is no conflict and stays null", async () => {
    const roles = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`;
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'rn' },
      rules: null,
    };
    expect((await call(server, 'POST', `${roles}?fieldManager=other`, role)).status).toBe(201);
    const res = await apply(`${roles}/rn`, role, 'm');
    expect(res.status).toBe(200);
    expect(res.json<any>().rules).toBeNull();
    expect(fieldsOf(res.json(), 'm')).toEqual({ 'f:rules': {} });
  });

  it("an applied null over another manager's scalar is a conflict (force takes it and the field goes)", async () => {
    const url = `${DEP}/s3`;
    expect((await apply(url, deployment('s3', { replicas: 3 }), 'other')).status).toBe(201);
    const conflict = await apply(url, deployment('s3', { replicas: null }), 'm');
    expect(conflict.status).toBe(409);
    expect(conflict.json<any>().message).toContain('.spec.replicas');
    const forced = await apply(url, deployment('s3', { replicas: null }), 'm', true);
    expect(forced.status).toBe(200);
    expect(forced.json<any>().spec.replicas).toBe(1);
  });

  it("a custom resource's metadata is decoded as ObjectMeta (empties and nulls gone, apply owns f:labels: {}); its spec keeps {}, [] and a nullable null", async () => {
    const crd = await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.en.example.com' },
      spec: {
        group: 'en.example.com',
        names: { kind: 'Gizmo', plural: 'gizmos', singular: 'gizmo', listKind: 'GizmoList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      config: { type: 'object', additionalProperties: { type: 'string' } },
                      items: { type: 'array', items: { type: 'string' } },
                      note: { type: 'string', nullable: true },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    });
    expect(crd.status).toBe(201);
    const url = `/apis/en.example.com/v1/namespaces/${NS}/gizmos`;
    const created = await waitFor(async () => {
      const r = await call(server, 'POST', url, {
        apiVersion: 'en.example.com/v1',
        kind: 'Gizmo',
        metadata: { name: 'g1', labels: {}, annotations: null, finalizers: [], ownerReferences: null },
        spec: { config: {}, items: [], note: null },
      });
      return r.status === 201 ? r : undefined;
    }, 20_000);
    const check = (o: any): void => {
      for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences'])
        expect(Object.keys(o.metadata)).not.toContain(k);
      expect(o.spec).toEqual({ config: {}, items: [], note: null });
      for (const e of o.metadata.managedFields ?? []) expect(e.fieldsV1['f:metadata']).toBeUndefined();
    };
    check(created.json());
    check((await call(server, 'GET', `${url}/g1`)).json());
    const applied = await apply(
      `${url}/g2`,
      {
        apiVersion: 'en.example.com/v1',
        kind: 'Gizmo',
        metadata: { name: 'g2', labels: {} },
        spec: { config: {} },
      },
      'm',
    );
    expect(applied.status).toBe(201);
    expect(Object.keys(applied.json<any>().metadata)).not.toContain('labels');
    expect(applied.json<any>().spec).toEqual({ config: {} });
    expect(fieldsOf(applied.json(), 'm')).toEqual({
      'f:metadata': { 'f:labels': {} },
      'f:spec': { 'f:config': {} },
    });
  });

  it("nulls deeper in a custom resource's metadata are decoded too: a label value, an owner reference's field", async () => {
    const url = `/apis/en.example.com/v1/namespaces/${NS}/gizmos`;
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' };
    const created = await waitFor(async () => {
      const r = await call(server, 'POST', url, {
        apiVersion: 'en.example.com/v1',
        kind: 'Gizmo',
        metadata: { name: 'g3', labels: { a: null }, ownerReferences: [{ ...owner, controller: null }] },
        spec: {},
      });
      return r.status === 404 ? undefined : r;
    }, 20_000);
    expect(created.status).toBe(201);
    expect(created.json<any>().metadata.labels).toEqual({ a: '' });
    expect(created.json<any>().metadata.ownerReferences).toEqual([owner]);
  });

  it("an unknown field in a custom resource's metadata is dropped with a warning, and a 400 under fieldValidation=Strict", async () => {
    const url = `/apis/en.example.com/v1/namespaces/${NS}/gizmos`;
    const body = (name: string): unknown => ({
      apiVersion: 'en.example.com/v1',
      kind: 'Gizmo',
      metadata: {
        name,
        foo: 'x',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u', bar: 1 }],
      },
      spec: {},
    });
    const strict = await waitFor(async () => {
      const r = await call(server, 'POST', `${url}?fieldValidation=Strict`, body('u1'));
      return r.status === 404 ? undefined : r;
    }, 20_000);
    expect(strict.status).toBe(400);
    expect(strict.json<any>().message).toContain('unknown field "metadata.foo"');
    expect(strict.json<any>().message).toContain('unknown field "metadata.ownerReferences[0].bar"');
    const warned = await call(server, 'POST', url, body('u2'));
    expect(warned.status).toBe(201);
    expect(String(warned.headers.warning)).toContain('unknown field \\"metadata.foo\\"');
    expect(Object.keys(warned.json<any>().metadata)).not.toContain('foo');
    expect(warned.json<any>().metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' },
    ]);
    for (const e of warned.json<any>().metadata.managedFields)
      expect(e.fieldsV1['f:metadata']['f:foo']).toBeUndefined();
  });
});
