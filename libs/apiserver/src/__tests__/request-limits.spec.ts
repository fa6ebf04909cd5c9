import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, waitFor } from './http-helper.js';
import type { RawResponse } from './http-helper.js';

const DEEPS = '/apis/example.com/v1/namespaces/default/deeps';
const CMS = '/api/v1/namespaces/default/configmaps';
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'deeps.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { kind: 'Deep', plural: 'deeps', singular: 'deep', listKind: 'DeepList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
};

/** JSON text of `levels` nested objects (`{"a":{"a":...1}}`) or arrays (`[[...1]]`). */
function nested(levels: number, arrays = false): string {
  return (arrays ? '[' : '{"a":').repeat(levels) + '1' + (arrays ? ']' : '}').repeat(levels);
}

function deepObject(name: string, levels: number, arrays = false): string {
  return `{"apiVersion":"example.com/v1","kind":"Deep","metadata":{"name":"${name}"},"spec":{"x":${nested(levels, arrays)}}}`;
}

function expectTooDeep(res: RawResponse): void {
  expect(res.status).toBe(400);
  expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', code: 400, reason: 'BadRequest' });
  expect(res.json<{ message: string }>().message).toMatch(/more than 1000 levels deep/);
}

describe('KubeApiServer request limits (as kube-apiserver answers)', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start();
    expect(
      (await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD)).status,
    ).toBe(201);
    await waitFor(async () => (await call(server, 'GET', DEEPS)).status === 200, 20_000);
    expect((await call(server, 'POST', DEEPS, deepObject('target', 3))).status).toBe(201);
    expect((await call(server, 'POST', CMS, { metadata: { name: 'target' } })).status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
  });

  describe('deeply nested bodies answer 400, never 500', () => {
    for (const arrays of [false, true]) {
      const shape = arrays ? 'arrays' : 'objects';
      it(`create, update and apply (JSON and YAML) with 5,000 nested ${shape}`, async () => {
        expectTooDeep(await call(server, 'POST', DEEPS, deepObject(`c-${shape}`, 5000, arrays)));
        expectTooDeep(
          await call(server, 'POST', DEEPS, deepObject(`y-${shape}`, 5000, arrays), {
            contentType: 'application/yaml',
          }),
        );
        expectTooDeep(await call(server, 'PUT', `${DEEPS}/target`, deepObject('target', 5000, arrays)));
        expectTooDeep(
          await call(
            server,
            'PATCH',
            `${DEEPS}/a-${shape}?fieldManager=t`,
            deepObject(`a-${shape}`, 5000, arrays),
            {
              contentType: 'application/apply-patch+yaml',
            },
          ),
        );
        // YAML flow syntax (not JSON): the YAML parser's own recursion is bounded the same way
        const yaml = `apiVersion: example.com/v1\nkind: Deep\nmetadata:\n  name: f-${shape}\nspec:\n  x: ${nested(5000, arrays).replaceAll('"', '')}\n`;
        expectTooDeep(
          await call(server, 'PATCH', `${DEEPS}/f-${shape}?fieldManager=t`, yaml, {
            contentType: 'application/apply-patch+yaml',
          }),
        );
        for (const name of [`c-${shape}`, `y-${shape}`, `a-${shape}`, `f-${shape}`])
          expect((await call(server, 'GET', `${DEEPS}/${name}`)).status).toBe(404);
      });

      it(`merge, JSON and strategic merge patches with 5,000 nested ${shape}`, async () => {
        expectTooDeep(
          await call(server, 'PATCH', `${DEEPS}/target`, `{"spec":{"y":${nested(5000, arrays)}}}`, {
            contentType: 'application/merge-patch+json',
          }),
        );
        expectTooDeep(
          await call(
            server,
            'PATCH',
            `${DEEPS}/target`,
            `[{"op":"add","path":"/spec/z","value":${nested(5000, arrays)}}]`,
            {
              contentType: 'application/json-patch+json',
            },
          ),
        );
        expectTooDeep(
          await call(
            server,
            'PATCH',
            `${CMS}/target`,
            `{"metadata":{"labels":{"a":"b"}},"x":${nested(5000, arrays)}}`,
            {
              contentType: 'application/strategic-merge-patch+json',
            },
          ),
        );
        const stored = (await call(server, 'GET', `${DEEPS}/target`)).json<{
          spec: Record<string, unknown>;
        }>();
        expect(Object.keys(stored.spec)).toEqual(['x']);
      });
    }

    it('an object within the limit is stored and served', async () => {
      expect((await call(server, 'POST', DEEPS, deepObject('ok', 990))).status).toBe(201);
      const got = await call(server, 'GET', `${DEEPS}/ok`);
      expect(got.status).toBe(200);
      expect(got.text).toContain(nested(990).slice(0, 5000));
      expect(
        (
          await call(server, 'PATCH', `${DEEPS}/ok`, `{"spec":{"w":${nested(990)}}}`, {
            contentType: 'application/merge-patch+json',
          })
        ).status,
      ).toBe(200);
    });

    it('a JSON patch cannot build an object past the limit from pieces within it', async () => {
      expect((await call(server, 'POST', DEEPS, deepObject('grow', 600))).status).toBe(201);
      // copy the 600-level value under its own innermost object: 1,200 levels
      const deepPath = '/spec/x' + '/a'.repeat(599);
      const res = await call(
        server,
        'PATCH',
        `${DEEPS}/grow`,
        [{ op: 'copy', from: '/spec/x', path: `${deepPath}/b` }],
        {
          contentType: 'application/json-patch+json',
        },
      );
      expect(res.status).toBe(400);
      expect(res.json<{ message: string }>().message).toMatch(
        /JSON patch produces .* more than 1000 levels deep/,
      );
      // copies in one patch, each under the innermost object of the last: the depth doubles with
      // every operation (600, 1,200, 2,400, ... 19,200 levels); still a 4xx answer
      const doubling = Array.from({ length: 5 }, (_, k) => ({
        op: 'copy',
        from: '/spec/x',
        path: '/spec/x' + ('/a'.repeat(599) + '/b').repeat(k) + '/a'.repeat(599) + '/b',
      }));
      const many = await call(server, 'PATCH', `${DEEPS}/grow`, doubling, {
        contentType: 'application/json-patch+json',
      });
      expect(many.status).toBeGreaterThanOrEqual(400);
      expect(many.status).toBeLessThan(500);
    });
  });

  it('a bad percent-escape in the path answers 400 (a good one is decoded)', async () => {
    for (const path of [
      '/api/v1/namespaces/x%zz',
      '/api/v1/namespaces/default/configmaps/a%2',
      '/api/v1/namespaces/default/configmaps/%',
      '/apis/example.com/v1/namespaces/default/deeps/t%g1?limit=1',
      '/healthz%',
    ]) {
      const res = await call(server, 'GET', path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
      expect(res.json<{ message: string }>().message).toContain('invalid URL escape');
    }
    expect((await call(server, 'GET', '/api/v1/namespaces/def%61ult')).status).toBe(200);
    // a percent sign in the query string is the query parser's business, as in kube
    expect((await call(server, 'GET', `${CMS}?labelSelector=%zz`)).status).not.toBe(500);
  });

  it('limit=-1 and limit=0 are ignored (everything is listed), a positive limit pages', async () => {
    for (let i = 0; i < 3; i++) await call(server, 'POST', CMS, { metadata: { name: `lim-${i}` } });
    const all = (await call(server, 'GET', CMS)).json<{ items: unknown[] }>().items.length;
    for (const limit of ['-1', '0', '-100']) {
      const res = await call(server, 'GET', `${CMS}?limit=${limit}`);
      expect(res.status).toBe(200);
      const list = res.json<{ items: unknown[]; metadata: { continue?: string } }>();
      expect(list.items).toHaveLength(all);
      expect(list.metadata.continue).toBeUndefined();
    }
    const paged = (await call(server, 'GET', `${CMS}?limit=1`)).json<{
      items: unknown[];
      metadata: { continue?: string };
    }>();
    expect(paged.items).toHaveLength(1);
    expect(paged.metadata.continue).toBeTruthy();
    expect((await call(server, 'GET', `${CMS}?limit=abc`)).status).toBe(400);
  });

  it('a strategic merge patch on a custom resource answers 415 with kube-apiserver message, present or missing', async () => {
    for (const name of ['target', 'missing']) {
      const res = await call(
        server,
        'PATCH',
        `${DEEPS}/${name}`,
        { spec: { x: 2 } },
        {
          contentType: 'application/strategic-merge-patch+json',
        },
      );
      expect(res.status).toBe(415);
      expect(res.json()).toMatchObject({
        kind: 'Status',
        code: 415,
        reason: 'UnsupportedMediaType',
        message:
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      });
    }
    expect((await call(server, 'GET', `${DEEPS}/missing`)).status).toBe(404);
    // built-in kinds still take strategic merge patches
    const cm = await call(
      server,
      'PATCH',
      `${CMS}/target`,
      { data: { k: 'v' } },
      {
        contentType: 'application/strategic-merge-patch+json',
      },
    );
    expect(cm.status).toBe(200);
  });
});
