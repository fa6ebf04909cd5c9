import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call, rawWatch, waitFor } from '../../__tests__/http-helper.js';
import { TestWebhookServer } from './webhook-test-server.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const V1 = '/apis/paint.example.com/v1/namespaces/default/gadgets';
const V2 = '/apis/paint.example.com/v2/namespaces/default/gadgets';

interface Gadget {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: { color?: string; paint?: { color: string } };
}

/** v1 has spec.color; v2 moved it to spec.paint.color. */
function convert(obj: Gadget, to: string): Gadget {
  if (obj.apiVersion === to) return obj;
  if (to.endsWith('/v2')) return { ...obj, apiVersion: to, spec: { paint: { color: obj.spec.color ?? '' } } };
  return { ...obj, apiVersion: to, spec: { color: obj.spec.paint?.color ?? '' } };
}

function crd(clientConfig: { url: string; caBundle: string }): Record<string, unknown> {
  const schema = (props: Record<string, unknown>): Record<string, unknown> => ({
    openAPIV3Schema: {
      type: 'object',
      properties: { spec: { type: 'object', properties: props } },
    },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.paint.example.com' },
    spec: {
      group: 'paint.example.com',
      scope: 'Namespaced',
      names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema({ color: { type: 'string' } }) },
        {
          name: 'v2',
          served: true,
          storage: false,
          schema: schema({ paint: { type: 'object', properties: { color: { type: 'string' } } } }),
          additionalPrinterColumns: [{ name: 'Paint', type: 'string', jsonPath: '.spec.paint.color' }],
        },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v1'], clientConfig },
      },
    },
  };
}

describe('conversion webhooks called by the API server', () => {
  let server: KubeApiServer;
  let hooks: TestWebhookServer;

  beforeAll(async () => {
    [server, hooks] = await Promise.all([KubeApiServer.start(), TestWebhookServer.start()]);
    hooks.on('/convert', (review) => {
      const request = (review as unknown as { request: { desiredAPIVersion: string; objects: Gadget[] } })
        .request;
      return {
        convertedObjects: request.objects.map((o) => convert(o, request.desiredAPIVersion)),
        result: { status: 'Success' },
      };
    });
    expect((await call(server, 'POST', CRDS, crd(hooks.clientConfig('/convert')))).status).toBe(201);
    await waitFor(async () => (await call(server, 'GET', V2)).status === 200);
  });

  afterAll(async () => {
    await Promise.all([server.stop(), hooks.stop()]);
  });

  it('a write at the non-storage version is converted to the storage version, reads at either version see their own shape', async () => {
    const created = await call(server, 'POST', V2, {
      apiVersion: 'paint.example.com/v2',
      kind: 'Gadget',
      metadata: { name: 'red' },
      spec: { paint: { color: 'red' } },
    });
    expect(created.status).toBe(201);
    expect(created.json<Gadget>()).toMatchObject({
      apiVersion: 'paint.example.com/v2',
      spec: { paint: { color: 'red' } },
    });
    expect((await call(server, 'GET', `${V1}/red`)).json<Gadget>()).toMatchObject({
      apiVersion: 'paint.example.com/v1',
      spec: { color: 'red' },
    });
    expect((await call(server, 'GET', `${V2}/red`)).json<Gadget>().spec).toEqual({ paint: { color: 'red' } });
    const review = hooks.at('/convert')[0] as unknown as Record<string, unknown>;
    expect(review).toMatchObject({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { desiredAPIVersion: 'paint.example.com/v1' },
    });
  });

  it('lists, Tables, merge patches and watches at the non-storage version are converted', async () => {
    await call(server, 'POST', V1, {
      apiVersion: 'paint.example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'blue' },
      spec: { color: 'blue' },
    });
    const list = (await call(server, 'GET', V2)).json<{ apiVersion: string; items: Gadget[] }>();
    expect(list.apiVersion).toBe('paint.example.com/v2');
    expect(list.items.map((i) => [i.metadata.name, i.spec.paint?.color])).toEqual([
      ['blue', 'blue'],
      ['red', 'red'],
    ]);
    const table = (
      await call(server, 'GET', V2, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })
    ).json<{
      rows: { cells: unknown[] }[];
    }>();
    expect(table.rows.map((r) => r.cells[1])).toEqual(['blue', 'red']);
    const patched = await call(
      server,
      'PATCH',
      `${V2}/blue`,
      { spec: { paint: { color: 'green' } } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(patched.status).toBe(200);
    expect((await call(server, 'GET', `${V1}/blue`)).json<Gadget>().spec).toEqual({ color: 'green' });
    const watch = rawWatch(server, `${V2}?watch=true`);
    await waitFor(() => watch.events.length >= 2);
    await call(
      server,
      'PATCH',
      `${V1}/red`,
      { spec: { color: 'pink' } },
      { contentType: 'application/merge-patch+json' },
    );
    const modified = await waitFor(() => watch.events.find((e) => e.type === 'MODIFIED'));
    watch.close();
    expect(modified.object).toMatchObject({
      apiVersion: 'paint.example.com/v2',
      spec: { paint: { color: 'pink' } },
    });
    expect(
      watch.events.every((e) => (e.object as unknown as Gadget).apiVersion === 'paint.example.com/v2'),
    ).toBe(true);
  });

  it('a failing conversion webhook fails the read with kube-apiserver text', async () => {
    hooks.on('/convert-broken', () => ({ result: { status: 'Failure', message: 'cannot convert' } }));
    const broken = crd(hooks.clientConfig('/convert-broken'));
    const current = (await call(server, 'GET', `${CRDS}/gadgets.paint.example.com`)).json<{
      metadata: { resourceVersion: string };
    }>();
    (broken.metadata as Record<string, unknown>).resourceVersion = current.metadata.resourceVersion;
    expect((await call(server, 'PUT', `${CRDS}/gadgets.paint.example.com`, broken)).status).toBe(200);
    const r = await waitFor(async () => {
      const x = await call(server, 'GET', `${V2}/red`);
      return x.status === 500 ? x : undefined;
    });
    expect(r.json().message).toBe(
      'Internal error occurred: conversion webhook for paint.example.com/v1, Kind=Gadget failed: conversion webhook returned failure: cannot convert',
    );
    expect((await call(server, 'GET', `${V1}/red`)).status).toBe(200);
  });
  it('a converted object that changes its name, or a wrong count, is refused as kube-apiserver refuses it', async () => {
    hooks.on('/convert-renames', (review) => {
      const request = (review as unknown as { request: { desiredAPIVersion: string; objects: Gadget[] } })
        .request;
      return {
        convertedObjects: request.objects.map((o) => ({
          ...convert(o, request.desiredAPIVersion),
          metadata: { name: 'other' },
        })),
        result: { status: 'Success' },
      };
    });
    hooks.on('/convert-drops', () => ({ convertedObjects: [], result: { status: 'Success' } }));
    for (const [path, message] of [
      ['/convert-renames', 'invalid converted object at index 0: must have the same name: red != other'],
      ['/convert-drops', 'expected 1 converted objects, got 0'],
    ] as const) {
      const current = (await call(server, 'GET', `${CRDS}/gadgets.paint.example.com`)).json<{
        metadata: { resourceVersion: string };
      }>();
      const next = crd(hooks.clientConfig(path));
      (next.metadata as Record<string, unknown>).resourceVersion = current.metadata.resourceVersion;
      expect((await call(server, 'PUT', `${CRDS}/gadgets.paint.example.com`, next)).status).toBe(200);
      const r = await waitFor(async () => {
        const x = await call(server, 'GET', `${V2}/red`);
        return x.status === 500 && String(x.json().message).endsWith(message) ? x : undefined;
      });
      expect(r.json().message).toBe(
        `Internal error occurred: conversion webhook for paint.example.com/v1, Kind=Gadget failed: ${message}`,
      );
    }
  });
});
