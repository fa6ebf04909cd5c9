/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';

const NS = 'oe';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const SECRETS = `/api/v1/namespaces/${NS}/secrets`;
const DEP = `/apis/apps/v1/namespaces/${NS}/deployments`;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = `/apis/oe.example.com/v1/namespaces/${NS}/widgets`;
const APPLY = 'application/apply-patch+yaml';

/**
 * kube-apiserver serialises built-in kinds from Go structs whose optional maps and lists carry
 * `omitempty`: empty ones are in no answer. Custom resources keep their JSON as sent.
 */
describe('KubeApiServer omits empty optional maps and lists of built-in kinds', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    expect((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('a ConfigMap created with data: {} and empty metadata maps/lists comes back without them (create, get, list, watch, update, patch)', async () => {
    const listed = await call(server, 'GET', CM);
    const watch = rawWatch(
      server,
      `${CM}?watch=true&resourceVersion=${listed.json<any>().metadata.resourceVersion}`,
    );
    try {
      const created = await call(server, 'POST', CM, {
        metadata: { name: 'c1', labels: {}, annotations: {}, finalizers: [], ownerReferences: [] },
        data: {},
        binaryData: {},
      });
      expect(created.status).toBe(201);
      const check = (o: any): void => {
        expect(o.metadata.name).toBe('c1');
        for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences'])
          expect(Object.keys(o.metadata)).not.toContain(k);
        expect(Object.keys(o)).not.toContain('data');
        expect(Object.keys(o)).not.toContain('binaryData');
        // managedFields never claim what is not there
        for (const e of o.metadata.managedFields ?? []) {
          expect(e.fieldsV1?.['f:data']).toBeUndefined();
          expect(e.fieldsV1?.['f:metadata']?.['f:labels']).toBeUndefined();
        }
      };
      check(created.json());
      const got = await call(server, 'GET', `${CM}/c1`);
      check(got.json());
      const items = (await call(server, 'GET', CM))
        .json<any>()
        .items.filter((i: any) => i.metadata.name === 'c1');
      expect(items).toHaveLength(1);
      check(items[0]);
      const added = await waitFor(
        () => watch.events.find((e) => e.type === 'ADDED' && (e.object as any).metadata.name === 'c1'),
        20_000,
      );
      check(added.object);

      // an update (PUT) and a merge patch that empty the maps leave them absent too
      const put = await call(server, 'PUT', `${CM}/c1`, {
        ...got.json<any>(),
        metadata: { ...got.json<any>().metadata, labels: { a: 'b' } },
        data: { k: 'v' },
      });
      expect(put.status).toBe(200);
      expect(put.json<any>().data).toEqual({ k: 'v' });
      expect(put.json<any>().metadata.labels).toEqual({ a: 'b' });
      const patched = await call(
        server,
        'PATCH',
        `${CM}/c1`,
        { metadata: { labels: { a: null } }, data: { k: null } },
        { contentType: 'application/merge-patch+json' },
      );
      expect(patched.status).toBe(200);
      check(patched.json());
      const modified = await waitFor(
        () =>
          watch.events.find(
            (e) =>
              e.type === 'MODIFIED' &&
              (e.object as any).metadata.resourceVersion === patched.json<any>().metadata.resourceVersion,
          ),
        20_000,
      );
      check(modified.object);
    } finally {
      watch.close();
    }
  });

  it('a Secret with data: {} and stringData: {} is stored without data', async () => {
    const r = await call(server, 'POST', SECRETS, { metadata: { name: 's1' }, data: {}, stringData: {} });
    expect(r.status).toBe(201);
    expect(r.json<any>().type).toBe('Opaque');
    expect(Object.keys(r.json<any>())).not.toContain('data');
    expect(Object.keys(r.json<any>())).not.toContain('stringData');
  });

  it('a Deployment keeps required and struct fields but drops a container env: [] and ports: [] at depth', async () => {
    const r = await call(server, 'POST', DEP, {
      metadata: { name: 'd1', labels: {} },
      spec: {
        selector: { matchLabels: { app: 'd1' }, matchExpressions: [] },
        template: {
          metadata: { labels: { app: 'd1' }, annotations: {} },
          spec: {
            containers: [
              { name: 'c', image: 'nginx:1', env: [], ports: [], args: [], resources: {}, volumeMounts: [] },
            ],
            volumes: [],
            nodeSelector: {},
            tolerations: [],
          },
        },
      },
    });
    expect(r.status).toBe(201);
    for (const o of [r.json<any>(), (await call(server, 'GET', `${DEP}/d1`)).json<any>()]) {
      expect(Object.keys(o.metadata)).not.toContain('labels');
      expect(o.spec.selector).toEqual({ matchLabels: { app: 'd1' } });
      expect(o.spec.template.metadata).toEqual({ labels: { app: 'd1' } });
      const pod = o.spec.template.spec;
      for (const k of ['volumes', 'nodeSelector', 'tolerations']) expect(Object.keys(pod)).not.toContain(k);
      const c = pod.containers[0];
      for (const k of ['env', 'ports', 'args', 'volumeMounts']) expect(Object.keys(c)).not.toContain(k);
      // a struct is not a map: kube-apiserver answers `resources: {}`
      expect(c.resources).toEqual({});
      expect(c.image).toBe('nginx:1');
      // defaults are still there
      expect(o.spec.replicas).toBe(1);
    }
  });

  it("a required list stays even when empty (an EndpointSlice's endpoints), as does a list Go declares without omitempty (its ports); an optional one next to them goes", async () => {
    // (this used a PolicyRule with verbs: [] before S13-BV7: kube refuses a rule without verbs)
    const path = `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`;
    const r = await call(server, 'POST', path, {
      metadata: { name: 'es1', labels: {} },
      addressType: 'IPv4',
      endpoints: [],
      ports: [],
    });
    expect(r.status).toBe(201);
    for (const o of [r.json<any>(), (await call(server, 'GET', `${path}/es1`)).json<any>()]) {
      expect(o.endpoints).toEqual([]);
      expect(o.ports).toEqual([]);
      expect(o.metadata.labels).toBeUndefined();
    }
  });

  it("a Role's or ClusterRole's rules: [] stays (Go declares it without omitempty), their empty optional fields go", async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const role = await call(server, 'POST', `${rbac}/namespaces/${NS}/roles`, {
      metadata: { name: 'r-empty', labels: {} },
      rules: [],
    });
    expect(role.status).toBe(201);
    const cr = await call(server, 'POST', `${rbac}/clusterroles`, {
      metadata: { name: 'oe-empty', annotations: {} },
      rules: [],
    });
    expect(cr.status).toBe(201);
    for (const o of [
      role.json<any>(),
      cr.json<any>(),
      (await call(server, 'GET', `${rbac}/namespaces/${NS}/roles/r-empty`)).json<any>(),
      (await call(server, 'GET', `${rbac}/clusterroles/oe-empty`)).json<any>(),
    ]) {
      expect(o.rules).toEqual([]);
      expect(Object.keys(o.metadata)).not.toContain('labels');
      expect(Object.keys(o.metadata)).not.toContain('annotations');
    }
    // a RoleBinding's subjects carry omitempty
    const rb = await call(server, 'POST', `${rbac}/namespaces/${NS}/rolebindings`, {
      metadata: { name: 'rb-empty' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r-empty' },
      subjects: [],
    });
    expect(rb.status).toBe(201);
    expect(Object.keys(rb.json<any>())).not.toContain('subjects');
  });

  it('a custom resource keeps its empty maps and lists', async () => {
    const crd = await call(server, 'POST', CRDS, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.oe.example.com' },
      spec: {
        group: 'oe.example.com',
        names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
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
    const created = await waitFor(async () => {
      const r = await call(server, 'POST', WIDGETS, {
        apiVersion: 'oe.example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { config: {}, items: [] },
      });
      return r.status === 201 ? r : undefined;
    }, 20_000);
    expect(created.json<any>().spec).toEqual({ config: {}, items: [] });
    expect((await call(server, 'GET', `${WIDGETS}/w1`)).json<any>().spec).toEqual({ config: {}, items: [] });
  });

  it('an apply of data: {} owns f:data without storing data (kube computes the field set before decoding); a re-apply writes nothing', async () => {
    const body = (data: unknown): string =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a1', labels: {} },
        ...(data === undefined ? {} : { data }),
      });
    const url = `${CM}/a1?fieldManager=m`;
    const first = await call(server, 'PATCH', url, body({}), { contentType: APPLY });
    expect(first.status).toBe(201);
    const rv = first.json<any>().metadata.resourceVersion;
    const fields = (o: any): unknown =>
      o.metadata.managedFields?.find((e: any) => e.manager === 'm')?.fieldsV1;
    expect(Object.keys(first.json<any>())).not.toContain('data');
    expect(fields(first.json<any>())).toEqual({ 'f:data': {}, 'f:metadata': { 'f:labels': {} } });
    const second = await call(server, 'PATCH', url, body({}), { contentType: APPLY });
    expect(second.status).toBe(200);
    expect(second.json<any>().metadata.resourceVersion).toBe(rv);
    const third = await call(server, 'PATCH', url, body(undefined), { contentType: APPLY });
    expect(Object.keys(third.json<any>())).not.toContain('data');
    expect(fields(third.json<any>())).toEqual({ 'f:metadata': { 'f:labels': {} } });
    // an apply that owned a key and now sends data: {} removes the key; the emptied map is gone
    const withKey = await call(server, 'PATCH', url, body({ k: 'v' }), { contentType: APPLY });
    expect(withKey.json<any>().data).toEqual({ k: 'v' });
    expect((fields(withKey.json<any>()) as any)['f:data']).toEqual({ 'f:k': {} });
    const emptied = await call(server, 'PATCH', url, body({}), { contentType: APPLY });
    expect(emptied.status).toBe(200);
    expect(Object.keys(emptied.json<any>())).not.toContain('data');
    expect((fields(emptied.json<any>()) as any)?.['f:data']).toEqual({});
  });
});
