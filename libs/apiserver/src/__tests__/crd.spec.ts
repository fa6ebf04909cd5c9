import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, waitFor } from './http-helper.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function gadgetCrd(opts: { webhook?: boolean; name?: string; group?: string } = {}): Record<string, unknown> {
  const group = opts.group ?? 'example.com';
  const schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            color: { type: 'string' },
            size: { type: 'integer', default: 1 },
            free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
        status: { type: 'object', properties: { ready: { type: 'boolean' } } },
      },
    },
  };
  const crd: Record<string, unknown> = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}` },
    spec: {
      group,
      names: {
        kind: 'Gadget',
        plural: 'gadgets',
        singular: 'gadget',
        listKind: 'GadgetList',
        shortNames: ['gd'],
        categories: ['all'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema,
          subresources: { status: {} },
          selectableFields: [{ jsonPath: '.spec.color' }],
        },
        { name: 'v2', served: true, storage: false, schema, subresources: { status: {} } },
      ],
    },
  };
  if (opts.webhook) {
    (crd.spec as Record<string, unknown>).conversion = {
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:1/convert' } },
    };
  }
  return crd;
}

describe('KubeApiServer custom resources', () => {
  let server: KubeApiServer;
  const G = '/apis/example.com/v1/namespaces/default/gadgets';
  beforeAll(async () => {
    server = await KubeApiServer.start();
    const r = await call(server, 'POST', CRDS, gadgetCrd());
    expect(r.status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[AS-CRD-SERVE] a created CRD is served at once and reports NamesAccepted and Established', async () => {
    const list = await call(server, 'GET', G);
    expect(list.status).toBe(200);
    expect(list.json()).toMatchObject({ kind: 'GadgetList', apiVersion: 'example.com/v1', items: [] });
    const disco = (await call(server, 'GET', '/apis/example.com/v1')).json<{
      resources: { name: string; shortNames?: string[]; categories?: string[] }[];
    }>();
    expect(disco.resources.map((r) => r.name).sort()).toEqual(['gadgets', 'gadgets/status']);
    expect(disco.resources.find((r) => r.name === 'gadgets')).toMatchObject({
      shortNames: ['gd'],
      categories: ['all'],
    });
    const crd = await waitFor(async () => {
      const c = (await call(server, 'GET', `${CRDS}/gadgets.example.com`)).json<{
        status?: { conditions?: { type: string; status: string }[] };
      }>();
      return c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')
        ? c
        : undefined;
    });
    expect(crd.status!.conditions!.find((c) => c.type === 'NamesAccepted')).toMatchObject({
      status: 'True',
      reason: 'NoConflicts',
    });
    expect((crd as { status: { acceptedNames: unknown } }).status.acceptedNames).toMatchObject({
      kind: 'Gadget',
      plural: 'gadgets',
    });
  });

  it('[AS-CRD-SCHEMA] defaults, pruning (honouring preserve-unknown-fields) under fieldValidation Warn/Strict/Ignore, 422 on invalid values', async () => {
    const r = await call(server, 'POST', G, {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g1' },
      spec: { color: 'red', junk: 1, free: { any: { thing: 1 } } },
    });
    expect(r.status).toBe(201);
    expect(r.json<{ spec: unknown }>().spec).toEqual({ color: 'red', size: 1, free: { any: { thing: 1 } } });
    expect(r.headers.warning).toBe('299 - "unknown field \\"spec.junk\\""');
    const strict = await call(server, 'POST', `${G}?fieldValidation=Strict`, {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g-strict' },
      spec: { junk: 1 },
    });
    expect(strict.status).toBe(400);
    expect(strict.json().message).toBe(
      'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.junk"',
    );
    const ignored = await call(server, 'POST', `${G}?fieldValidation=Ignore&dryRun=All`, {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g-ignore' },
      spec: { junk: 1 },
    });
    expect(ignored.status).toBe(201);
    expect(ignored.headers.warning).toBeUndefined();
    // kube's ValidateCreateOptions: a 422 CreateOptions Invalid (review-s10-options.spec.ts)
    expect(
      (await call(server, 'POST', `${G}?fieldValidation=Loose`, { metadata: { name: 'x' } })).status,
    ).toBe(422);
    const bad = await call(server, 'POST', G, {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g2' },
      spec: { size: 'big' },
    });
    expect(bad.status).toBe(422);
    expect(bad.json()).toMatchObject({
      reason: 'Invalid',
      details: { kind: 'Gadget', group: 'example.com' },
    });
  });

  it('[AS-CRD-STATUS] the status subresource of a custom resource; strategic merge patch gives 415', async () => {
    const st = await call(
      server,
      'PATCH',
      `${G}/g1/status`,
      { status: { ready: true }, spec: { color: 'blue' } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(st.status).toBe(200);
    expect(st.json<{ spec: { color: string }; status: unknown }>()).toMatchObject({
      spec: { color: 'red' },
      status: { ready: true },
    });
    const smp = await call(
      server,
      'PATCH',
      `${G}/g1`,
      { spec: { color: 'x' } },
      { contentType: 'application/strategic-merge-patch+json' },
    );
    expect(smp.status).toBe(415);
    expect(smp.json().reason).toBe('UnsupportedMediaType');
  });

  it('[AS-CRD-FIELDSEL] selectable fields work as field selectors; others give 400', async () => {
    await call(server, 'POST', G, {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g3' },
      spec: { color: 'blue' },
    });
    const red = (await call(server, 'GET', `${G}?fieldSelector=spec.color%3Dred`)).json<{
      items: { metadata: { name: string } }[];
    }>();
    expect(red.items.map((i) => i.metadata.name)).toEqual(['g1']);
    expect((await call(server, 'GET', `${G}?fieldSelector=spec.size%3D1`)).status).toBe(400);
  });

  it('[AS-CRD-VERSIONS] objects are stored in the storage version and served at every served version', async () => {
    const v2 = await call(server, 'GET', '/apis/example.com/v2/namespaces/default/gadgets/g1');
    expect(v2.status).toBe(200);
    expect(v2.json().apiVersion).toBe('example.com/v2');
    const created = await call(server, 'POST', '/apis/example.com/v2/namespaces/default/gadgets', {
      apiVersion: 'example.com/v2',
      kind: 'Gadget',
      metadata: { name: 'g4' },
      spec: {},
    });
    expect(created.status).toBe(201);
    expect(created.json().apiVersion).toBe('example.com/v2');
    const v1 = await call(server, 'GET', `${G}/g4`);
    expect(v1.json().apiVersion).toBe('example.com/v1');
    const list2 = (await call(server, 'GET', '/apis/example.com/v2/namespaces/default/gadgets')).json<{
      apiVersion: string;
      items: { apiVersion: string }[];
    }>();
    expect(list2.apiVersion).toBe('example.com/v2');
    expect(list2.items.every((i) => i.apiVersion === 'example.com/v2')).toBe(true);
  });

  it('[AS-CRD-WEBHOOK] with a conversion webhook, reading the non-storage version fails with 500', async () => {
    await call(server, 'POST', CRDS, gadgetCrd({ webhook: true, group: 'hooked.io' }));
    await call(server, 'POST', '/apis/hooked.io/v1/namespaces/default/gadgets', {
      apiVersion: 'hooked.io/v1',
      kind: 'Gadget',
      metadata: { name: 'h1' },
      spec: {},
    });
    expect((await call(server, 'GET', '/apis/hooked.io/v1/namespaces/default/gadgets/h1')).status).toBe(200);
    const r = await call(server, 'GET', '/apis/hooked.io/v2/namespaces/default/gadgets/h1');
    expect(r.status).toBe(500);
    expect(r.json().message).toContain('conversion webhook');
    expect((await call(server, 'GET', '/apis/hooked.io/v2/namespaces/default/gadgets')).status).toBe(500);
  });

  it('[AS-CRD-DELETE] deleting the CRD removes its objects and stops serving it', async () => {
    const del = await call(server, 'DELETE', `${CRDS}/gadgets.hooked.io`);
    expect(del.status).toBe(200);
    await waitFor(async () => (await call(server, 'GET', `${CRDS}/gadgets.hooked.io`)).status === 404);
    expect((await call(server, 'GET', '/apis/hooked.io/v1/namespaces/default/gadgets')).status).toBe(404);
    expect((await call(server, 'GET', '/apis/hooked.io/v1')).status).toBe(404);
    // re-creating serves an empty collection
    await call(server, 'POST', CRDS, gadgetCrd({ group: 'hooked.io' }));
    const again = (await call(server, 'GET', '/apis/hooked.io/v1/namespaces/default/gadgets')).json<{
      items: unknown[];
    }>();
    expect(again.items).toEqual([]);
  });

  it('[AS-CRD-INVALID] an invalid CRD gives 422 with causes', async () => {
    const bad = gadgetCrd({ group: 'bad.io' });
    (bad.metadata as Record<string, unknown>).name = 'wrong.name';
    const r = await call(server, 'POST', CRDS, bad);
    expect(r.status).toBe(422);
    expect(r.json<{ details: { causes: unknown[] } }>().details.causes.length).toBeGreaterThan(0);
  });
});
