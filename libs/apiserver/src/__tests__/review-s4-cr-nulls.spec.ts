/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';

/**
 * Adversarial review (session 4, issue 17 fidelity): nulls and empties of custom resources. A custom
 * resource keeps its JSON as sent (`{}`, `[]`, and `null` where the schema says `nullable`), but
 * kube-apiserver decodes its `metadata` as a Go ObjectMeta on every request:
 * apiextensions-apiserver pkg/apiserver/customresource_handler.go, unstructuredSchemaCoercer.apply,
 * reads it with schemaobjectmeta.GetObjectMetaWithOptions and writes it back "starting clean" with
 * SetObjectMeta (runtime.DefaultUnstructuredConverter.ToUnstructured of a metav1.ObjectMeta, whose
 * optional maps and slices carry omitempty; unknown metadata fields are not carried over).
 */
const NS = 'crn';
const G = `/apis/review.s4.io/v1/namespaces/${NS}/gizmos`;
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.review.s4.io' },
  spec: {
    group: 'review.s4.io',
    scope: 'Namespaced',
    names: { kind: 'Gizmo', plural: 'gizmos', singular: 'gizmo', listKind: 'GizmoList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  m: { type: 'object', additionalProperties: { type: 'string' } },
                  l: { type: 'array', items: { type: 'string' } },
                  n: { type: 'string', nullable: true },
                  s: { type: 'string' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

function gizmo(name: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}): any {
  return { apiVersion: 'review.s4.io/v1', kind: 'Gizmo', metadata: { name, ...meta }, spec };
}

describe('review s4: nulls and empties of custom resources', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ tls: false });
    expect((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
    expect(
      (await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
    ).toBe(201);
    await waitFor(async () => (await call(server, 'GET', G)).status === 200, 20_000);
  });
  afterAll(async () => {
    await server.stop();
  });

  const apply = (name: string, body: unknown, manager: string): ReturnType<typeof call> =>
    call(server, 'PATCH', `${G}/${name}?fieldManager=${manager}`, JSON.stringify(body), {
      contentType: APPLY,
    });

  it('a custom resource keeps {} and [] in its spec and a nullable null (create and apply); a merge patch null deletes a key and a nullable field', async () => {
    const created = await call(server, 'POST', G, gizmo('c1', { m: {}, l: [], n: null, s: 'x' }));
    expect(created.status).toBe(201);
    expect(created.json<any>().spec).toEqual({ m: {}, l: [], n: null, s: 'x' });
    const applied = await apply('c2', gizmo('c2', { m: {}, l: [], n: null }), 'm');
    expect(applied.status).toBe(201);
    expect(applied.json<any>().spec).toEqual({ m: {}, l: [], n: null });
    const patched = await call(
      server,
      'PATCH',
      `${G}/c1`,
      { spec: { m: { a: '1' } } },
      { contentType: MERGE },
    );
    expect(patched.json<any>().spec.m).toEqual({ a: '1' });
    const deleted = await call(
      server,
      'PATCH',
      `${G}/c1`,
      { spec: { m: { a: null }, n: null, s: null } },
      { contentType: MERGE },
    );
    expect(deleted.status).toBe(200);
    expect(deleted.json<any>().spec).toEqual({ m: {}, l: [] });
  });

  // F2 (older than this session): a custom resource's metadata is kept as sent, not decoded as an
  // ObjectMeta: `labels: null`, `annotations: {}`, `finalizers: []`, `ownerReferences: null` and an
  // unknown `metadata.foo` are stored and served (answer, get, watch); kube-apiserver serves none.
  // Fixed by H19 (ac01bd0: nulls and empties; the unknown field in the commit that flipped this).
  it("F2: a custom resource's metadata comes back as kube's ObjectMeta decoding leaves it: no null, empty or unknown metadata field (write, get, watch)", async () => {
    const listed = await call(server, 'GET', G);
    const watch = rawWatch(
      server,
      `${G}?watch=true&resourceVersion=${listed.json<any>().metadata.resourceVersion}`,
    );
    try {
      const created = await call(
        server,
        'POST',
        G,
        gizmo(
          'meta1',
          { s: 'x' },
          { labels: null, annotations: {}, finalizers: [], ownerReferences: null, foo: 'x' },
        ),
      );
      expect(created.status).toBe(201);
      const check = (o: any): void => {
        for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences', 'foo'])
          expect(Object.keys(o.metadata)).not.toContain(k);
      };
      check(created.json());
      check((await call(server, 'GET', `${G}/meta1`)).json());
      const added = await waitFor(
        () => watch.events.find((e) => e.type === 'ADDED' && (e.object as any).metadata.name === 'meta1'),
        20_000,
      );
      check(added.object);
      const appliedEmpty = await apply(
        'meta2',
        gizmo('meta2', { s: 'x' }, { labels: {}, annotations: {} }),
        'm',
      );
      expect(appliedEmpty.status).toBe(201);
      check(appliedEmpty.json());
    } finally {
      watch.close();
    }
  });

  // F3 (older than this session): an applied null of a nullable field that another manager set to
  // null is a conflict here (the server takes the applied null for a removal); structured-merge-diff
  // compares the merged object with the live one, where null equals null: no change, no conflict,
  // and the value stays null.
  // Fixed by H19 (the commit that flipped this: a null over a live null is kept, no conflict).
  it('F3: applying null to a nullable field that another manager set to null is no conflict and keeps it null', async () => {
    expect(
      (await call(server, 'POST', `${G}?fieldManager=other`, gizmo('nul1', { n: null, s: 'x' }))).status,
    ).toBe(201);
    const res = await apply('nul1', gizmo('nul1', { n: null }), 'm');
    expect(res.status).toBe(200);
    expect(res.json<any>().spec).toEqual({ n: null, s: 'x' });
  });
});
