/**
 * Review S8: admission and conversion webhooks as the in-memory API server calls them, compared
 * with kube-apiserver (k8s.io/apiserver plugin/pkg/admission/webhook, apiextensions-apiserver
 * conversion/webhook_converter.go). `[FINDING S8-WH<n>]` tests pass while the defect exists.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call, rawWatch, waitFor } from './http-helper.js';
import type { RawResponse } from './http-helper.js';
import { patchResponse, TestWebhookServer } from '../admission/__tests__/webhook-test-server.js';

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CM = '/api/v1/namespaces/default/configmaps';

type Json = Record<string, unknown>;

function rule(ops: string[], group: string, versions: string[], resources: string[]): Json {
  return { operations: ops, apiGroups: [group], apiVersions: versions, resources };
}

function hook(name: string, cc: Json, extra: Json = {}): Json {
  return {
    name,
    clientConfig: cc,
    rules: [rule(['CREATE', 'UPDATE'], '', ['v1'], ['configmaps'])],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

function config(kind: 'Validating' | 'Mutating', name: string, webhooks: unknown[]): Json {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks,
  };
}

function cm(name: string, data: Record<string, string>, meta: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, data };
}

function warningsOf(r: RawResponse): string {
  const w = r.headers.warning;
  return Array.isArray(w) ? w.join('\n') : (w ?? '');
}

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

/** A Gadget CRD of `group` (v1 and v2 served), converted by the webhook at `cc`. */
function gadgetCrd(group: string, cc: Json, storage: 'v1' | 'v2' = 'v1'): Json {
  const schema = (props: Json): Json => ({
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: storage === 'v1',
          schema: schema({ color: { type: 'string' } }),
        },
        {
          name: 'v2',
          served: true,
          storage: storage === 'v2',
          schema: schema({ paint: { type: 'object', properties: { color: { type: 'string' } } } }),
        },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: cc } },
    },
  };
}

function gadgets(group: string, version: string): string {
  return `/apis/${group}/${version}/namespaces/default/gadgets`;
}

describe('review S8: webhooks called by the in-memory API server', () => {
  let server: KubeApiServer;
  let hooks: TestWebhookServer;

  /** Creates a webhook configuration made by {@link config}, at the endpoint of its kind. */
  function configure(body: Json): Promise<RawResponse> {
    return call(server, 'POST', body.kind === 'MutatingWebhookConfiguration' ? MWC : VWC, body);
  }

  async function createCrd(group: string, path: string): Promise<void> {
    expect((await call(server, 'POST', CRDS, gadgetCrd(group, hooks.clientConfig(path)))).status).toBe(201);
    await waitFor(async () => (await call(server, 'GET', gadgets(group, 'v2'))).status === 200, 10_000);
  }

  /** Creates Gadget `name` of `gadgets.<group>` at v1 and checks the API server took it. */
  async function createV1(group: string, name: string, spec: Json): Promise<RawResponse> {
    const r = await call(server, 'POST', gadgets(group, 'v1'), {
      apiVersion: `${group}/v1`,
      kind: 'Gadget',
      metadata: { name },
      spec,
    });
    expect(r.status).toBe(201);
    return r;
  }

  /** Replaces the CRD `gadgets.<group>` with `crd` (at the stored CRD's resourceVersion). */
  async function replaceCrd(group: string, crd: Json): Promise<void> {
    const current = (await call(server, 'GET', `${CRDS}/gadgets.${group}`)).json<{
      metadata: { resourceVersion: string };
    }>();
    (crd.metadata as Json).resourceVersion = current.metadata.resourceVersion;
    expect((await call(server, 'PUT', `${CRDS}/gadgets.${group}`, crd)).status).toBe(200);
  }

  /** Moves the storage version of `gadgets.<group>` to v2 (`crd` is the new CRD, at v2) and waits for it. */
  async function moveStorage(group: string, crd: Json): Promise<void> {
    await replaceCrd(group, crd);
    await waitFor(async () => {
      const c = (await call(server, 'GET', `${CRDS}/gadgets.${group}`)).json<{
        status?: { storedVersions?: string[] };
      }>();
      return c.status?.storedVersions?.includes('v2') === true;
    }, 10_000);
  }

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
    hooks.on('/allow', () => ({ allowed: true }));
    hooks.on('/deny', () => ({ allowed: false, status: { code: 403, message: 'denied by review' } }));
  });

  afterAll(async () => {
    await Promise.all([server.stop(), hooks.stop()]);
  });

  beforeEach(async () => {
    for (const path of [VWC, MWC]) await call(server, 'DELETE', path);
    hooks.reviews.length = 0;
  });

  // ---- findings ----

  it('[FINDING S8-WH1] warnings a validating webhook returns with its denial reach the client as Warning headers', async () => {
    hooks.on('/deny-warn', () => ({
      allowed: false,
      status: { code: 403, message: 'html is blank' },
      warnings: ['spec.title is deprecated'],
    }));
    await configure(
      config('Validating', 'wh1', [hook('deny-warn.example.com', hooks.clientConfig('/deny-warn'))]),
    );
    const r = await call(server, 'POST', CM, cm('wh1', { html: '' }));
    expect(r.status).toBe(403);
    expect(r.json().message).toBe(
      'admission webhook "deny-warn.example.com" denied the request: html is blank',
    );
    // kube-apiserver adds webhook warnings to the response as they arrive (allowed or not)
    expect(warningsOf(r)).toContain('spec.title is deprecated');
  });

  it('[FINDING S8-WH2] a mutating patch that cannot be applied fails the write even under failurePolicy Ignore', async () => {
    // add on a missing parent: /data/settings does not exist
    hooks.on('/bad-patch', () => patchResponse([{ op: 'add', path: '/data/settings/mode', value: 'x' }]));
    await configure(
      config('Mutating', 'wh2', [
        hook('bad-patch.example.com', hooks.clientConfig('/bad-patch'), { failurePolicy: 'Ignore' }),
      ]),
    );
    const r = await call(server, 'POST', CM, cm('wh2', { a: 'b' }));
    // kube-apiserver: patchObj.Apply failing is apierrors.NewInternalError, returned whatever the
    // failure policy (only ErrCallingWebhook is failed open)
    expect(r.status).toBe(500);
    expect((await call(server, 'GET', `${CM}/wh2`)).status).toBe(404);
  });

  it('[S8-WH1] warnings of earlier webhooks and of the denying one reach the client on a write, a DELETE and a write at a converted version', async () => {
    hooks.on('/allow-warn', () => ({ allowed: true, warnings: ['mutating says hello'] }));
    hooks.on('/deny-warn-all', () => ({
      allowed: false,
      status: { code: 403, message: 'no' },
      warnings: ['validating says no'],
    }));
    const group = 'wh1.example.com';
    await createCrd(group, '/convert');
    const ops = ['CREATE', 'UPDATE', 'DELETE'];
    await configure(
      config('Mutating', 'wh1-all', [
        hook('allow-warn.example.com', hooks.clientConfig('/allow-warn'), {
          rules: [rule(ops, '', ['v1'], ['configmaps']), rule(ops, group, ['v2'], ['gadgets'])],
        }),
      ]),
    );
    await configure(
      config('Validating', 'wh1-all', [
        hook('deny-warn-all.example.com', hooks.clientConfig('/deny-warn-all'), {
          rules: [rule(ops, '', ['v1'], ['configmaps']), rule(ops, group, ['v2'], ['gadgets'])],
          objectSelector: { matchLabels: { guarded: 'yes' } },
        }),
      ]),
    );
    const both = (r: RawResponse): void => {
      expect(r.status).toBe(403);
      expect(warningsOf(r)).toContain('299 - "mutating says hello"');
      expect(warningsOf(r)).toContain('299 - "validating says no"');
    };
    both(await call(server, 'POST', CM, cm('wh1-write', {}, { labels: { guarded: 'yes' } })));
    // the object is created without the guarding label, which an update then adds
    expect((await call(server, 'POST', CM, cm('wh1-delete', {}))).status).toBe(201);
    expect(
      (
        await call(
          server,
          'PATCH',
          `${CM}/wh1-delete`,
          [{ op: 'add', path: '/metadata/labels', value: { guarded: 'yes' } }],
          {
            contentType: 'application/json-patch+json',
          },
        )
      ).status,
    ).toBe(403);
    await call(server, 'DELETE', VWC);
    expect(
      (
        await call(
          server,
          'PATCH',
          `${CM}/wh1-delete`,
          [{ op: 'add', path: '/metadata/labels', value: { guarded: 'yes' } }],
          {
            contentType: 'application/json-patch+json',
          },
        )
      ).status,
    ).toBe(200);
    await configure(
      config('Validating', 'wh1-all', [
        hook('deny-warn-all.example.com', hooks.clientConfig('/deny-warn-all'), {
          rules: [rule(ops, '', ['v1'], ['configmaps']), rule(ops, group, ['v2'], ['gadgets'])],
          objectSelector: { matchLabels: { guarded: 'yes' } },
        }),
      ]),
    );
    both(await call(server, 'DELETE', `${CM}/wh1-delete`));
    expect((await call(server, 'GET', `${CM}/wh1-delete`)).status).toBe(200);
    both(
      await call(server, 'POST', gadgets(group, 'v2'), {
        apiVersion: `${group}/v2`,
        kind: 'Gadget',
        metadata: { name: 'warned', labels: { guarded: 'yes' } },
        spec: { paint: { color: 'red' } },
      }),
    );
    // clean up: the guarded config map goes once the validating webhook is gone
    await call(server, 'DELETE', VWC);
    expect((await call(server, 'DELETE', `${CM}/wh1-delete`)).status).toBe(200);
  });

  it('[S8-WH2] a patch of another patchType or that is not JSON is an error calling the webhook: failed open under Ignore, a 500 naming the webhook under Fail', async () => {
    hooks.on('/merge-type', () => ({
      allowed: true,
      patchType: 'MergePatch',
      patch: Buffer.from('{"data":{"x":"y"}}').toString('base64'),
    }));
    hooks.on('/not-json', () => ({
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from('not json').toString('base64'),
    }));
    for (const [path, text] of [
      ['/merge-type', 'received invalid webhook response: expected patchType "JSONPatch"'],
      ['/not-json', 'received undecodable patch in webhook response'],
    ] as const) {
      const name = `wh2${path.replace(/\W/g, '')}`;
      await call(server, 'DELETE', MWC);
      await configure(
        config('Mutating', 'wh2-call', [
          hook('odd-patch.example.com', hooks.clientConfig(path), { failurePolicy: 'Ignore' }),
        ]),
      );
      expect((await call(server, 'POST', CM, cm(name, { a: 'b' }))).status).toBe(201);
      await call(server, 'DELETE', MWC);
      await configure(
        config('Mutating', 'wh2-call', [hook('odd-patch.example.com', hooks.clientConfig(path))]),
      );
      const r = await call(server, 'POST', CM, cm(`${name}-fail`, { a: 'b' }));
      expect(r.status).toBe(500);
      expect(String(r.json().message)).toContain(`failed calling webhook "odd-patch.example.com": ${text}`);
    }
  });

  it('[FINDING S8-WH3] a mutating webhook called for DELETE gets request.object null, as kube-apiserver sends it', async () => {
    expect((await call(server, 'POST', CM, cm('wh3', { a: 'b' }))).status).toBe(201);
    await configure(
      config('Mutating', 'wh3', [
        hook('on-delete.example.com', hooks.clientConfig('/allow'), {
          rules: [rule(['DELETE'], '', ['v1'], ['configmaps'])],
        }),
      ]),
    );
    expect((await call(server, 'DELETE', `${CM}/wh3`)).status).toBe(200);
    const review = hooks.at('/allow').at(-1)!;
    expect(review.request.operation).toBe('DELETE');
    expect(review.request.object).toBeNull();
    expect(review.request.oldObject).toMatchObject({ metadata: { name: 'wh3' }, data: { a: 'b' } });
  });

  it('[FINDING S8-WH4] a mutating webhook that patches a DELETE is refused with kube-apiserver text, the object kept', async () => {
    expect((await call(server, 'POST', CM, cm('wh4', { a: 'b' }))).status).toBe(201);
    hooks.on('/patch-delete', () =>
      patchResponse([{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }]),
    );
    await configure(
      config('Mutating', 'wh4', [
        hook('patch-delete.example.com', hooks.clientConfig('/patch-delete'), {
          rules: [rule(['DELETE'], '', ['v1'], ['configmaps'])],
        }),
      ]),
    );
    const r = await call(server, 'DELETE', `${CM}/wh4`);
    expect(r.status).toBe(500);
    expect(String(r.json().message)).toContain(
      'admission webhook "patch-delete.example.com" attempted to modify the object, which is not supported for this operation',
    );
    expect((await call(server, 'GET', `${CM}/wh4`)).status).toBe(200);
  });

  describe('a CRD converted by a webhook, written at its non-storage version', () => {
    const group = 'wh5.example.com';

    beforeAll(async () => {
      await createCrd(group, '/convert');
    });

    it('[FINDING S8-WH5] a validating webhook with matchPolicy Exact for the non-storage version is called for writes at that version', async () => {
      await configure(
        config('Validating', 'wh5', [
          hook('deny-v2.example.com', hooks.clientConfig('/deny'), {
            matchPolicy: 'Exact',
            rules: [rule(['CREATE', 'UPDATE'], group, ['v2'], ['gadgets'])],
          }),
        ]),
      );
      const r = await call(server, 'POST', gadgets(group, 'v2'), {
        apiVersion: `${group}/v2`,
        kind: 'Gadget',
        metadata: { name: 'exact' },
        spec: { paint: { color: 'red' } },
      });
      expect(r.status).toBe(403);
      expect((await call(server, 'GET', `${gadgets(group, 'v2')}/exact`)).status).toBe(404);
    });

    it('[FINDING S8-WH6] the review of a write at the non-storage version names that version in requestKind and requestResource', async () => {
      await configure(
        config('Validating', 'wh6', [
          hook('see-v2.example.com', hooks.clientConfig('/allow'), {
            rules: [rule(['CREATE', 'UPDATE'], group, ['v2'], ['gadgets'])],
          }),
        ]),
      );
      const r = await call(server, 'POST', gadgets(group, 'v2'), {
        apiVersion: `${group}/v2`,
        kind: 'Gadget',
        metadata: { name: 'requestkind' },
        spec: { paint: { color: 'red' } },
      });
      expect(r.status).toBe(201);
      const review = hooks.at('/allow').at(-1)! as unknown as { request: Json };
      expect(review.request.kind).toEqual({ group, version: 'v2', kind: 'Gadget' });
      expect(review.request.requestKind).toEqual({ group, version: 'v2', kind: 'Gadget' });
      expect(review.request.requestResource).toEqual({ group, version: 'v2', resource: 'gadgets' });
    });

    it('[S8-WH5] a write at v2 calls a v1 webhook only under matchPolicy Equivalent, with the object converted to v1', async () => {
      await configure(
        config('Validating', 'wh5-equivalent', [
          hook('exact-v1.example.com', hooks.clientConfig('/deny'), {
            matchPolicy: 'Exact',
            rules: [rule(['CREATE', 'UPDATE'], group, ['v1'], ['gadgets'])],
          }),
          hook('equivalent-v1.example.com', hooks.clientConfig('/allow'), {
            matchPolicy: 'Equivalent',
            rules: [rule(['CREATE', 'UPDATE'], group, ['v1'], ['gadgets'])],
          }),
        ]),
      );
      const r = await call(server, 'POST', gadgets(group, 'v2'), {
        apiVersion: `${group}/v2`,
        kind: 'Gadget',
        metadata: { name: 'equivalent' },
        spec: { paint: { color: 'green' } },
      });
      expect(r.status).toBe(201);
      expect(hooks.at('/deny')).toHaveLength(0);
      const review = hooks.at('/allow').at(-1)! as unknown as { request: Json };
      expect(review.request.kind).toEqual({ group, version: 'v1', kind: 'Gadget' });
      expect(review.request.requestKind).toEqual({ group, version: 'v2', kind: 'Gadget' });
      expect(review.request.object).toMatchObject({ apiVersion: `${group}/v1`, spec: { color: 'green' } });
    });

    it('[S8-WH5] a mutating webhook at v2 patches the object at v2, and the object is stored converted', async () => {
      hooks.on('/paint-blue', () =>
        patchResponse([{ op: 'replace', path: '/spec/paint/color', value: 'blue' }]),
      );
      await configure(
        config('Mutating', 'wh5-mutating', [
          hook('paint-v2.example.com', hooks.clientConfig('/paint-blue'), {
            matchPolicy: 'Exact',
            rules: [rule(['CREATE', 'UPDATE'], group, ['v2'], ['gadgets'])],
          }),
        ]),
      );
      const r = await call(server, 'POST', gadgets(group, 'v2'), {
        apiVersion: `${group}/v2`,
        kind: 'Gadget',
        metadata: { name: 'mutated' },
        spec: { paint: { color: 'red' } },
      });
      expect(r.status).toBe(201);
      const review = hooks.at('/paint-blue').at(-1)! as unknown as { request: Json };
      expect(review.request.object).toMatchObject({
        apiVersion: `${group}/v2`,
        spec: { paint: { color: 'red' } },
      });
      expect(r.json<Gadget>().spec).toEqual({ paint: { color: 'blue' } });
      expect((await call(server, 'GET', `${gadgets(group, 'v1')}/mutated`)).json<Gadget>().spec).toEqual({
        color: 'blue',
      });
    });
    it('a write at v2 is decoded at v2 (as kube-apiserver decodes a request at its version): a field v2 does not know is an unknown field under Strict (what kubectl sends) and a warning under Warn', async () => {
      const body = (name: string): Json => ({
        apiVersion: `${group}/v2`,
        kind: 'Gadget',
        metadata: { name },
        spec: { paint: { color: 'red' }, bogus: 1 },
      });
      const strict = await call(
        server,
        'POST',
        `${gadgets(group, 'v2')}?fieldValidation=Strict`,
        body('strict'),
      );
      expect(strict.status).toBe(400);
      expect(strict.json<{ message: string }>().message).toBe(
        'Gadget in version "v2" cannot be handled as a Gadget: strict decoding error: unknown field "spec.bogus"',
      );
      expect((await call(server, 'GET', `${gadgets(group, 'v2')}/strict`)).status).toBe(404);
      const warned = await call(server, 'POST', gadgets(group, 'v2'), body('warned'));
      expect(warned.status).toBe(201);
      expect(warningsOf(warned)).toContain('unknown field \\"spec.bogus\\"');
      expect(warned.json<Gadget>().spec).toEqual({ paint: { color: 'red' } });
    });
  });

  it('[FINDING S8-WH7] objects stored before the storage version moved to v2 are converted when read at v2', async () => {
    const group = 'wh7.example.com';
    await createCrd(group, '/convert');
    await createV1(group, 'old', { color: 'red' });
    // move the storage version to v2 (v1 stays served, and stays in status.storedVersions)
    await moveStorage(group, gadgetCrd(group, hooks.clientConfig('/convert'), 'v2'));
    const r = await call(server, 'GET', `${gadgets(group, 'v2')}/old`);
    expect(r.status).toBe(200);
    expect(r.json<Gadget>()).toMatchObject({
      apiVersion: `${group}/v2`,
      spec: { paint: { color: 'red' } },
    });
  });

  it('[S8-WH7] after the storage version moved, lists, watches and merge patches at v2 see objects stored at v1 converted; v1 reads them as stored', async () => {
    const group = 'wh7-reads.example.com';
    await createCrd(group, '/convert');
    for (const name of ['a', 'b']) {
      await createV1(group, name, { color: name === 'a' ? 'red' : 'green' });
    }
    await moveStorage(group, gadgetCrd(group, hooks.clientConfig('/convert'), 'v2'));
    const list = await call(server, 'GET', gadgets(group, 'v2'));
    expect(list.status).toBe(200);
    expect(list.json<{ items: Gadget[] }>().items).toMatchObject([
      { apiVersion: `${group}/v2`, spec: { paint: { color: 'red' } } },
      { apiVersion: `${group}/v2`, spec: { paint: { color: 'green' } } },
    ]);
    const watch = rawWatch(server, `${gadgets(group, 'v2')}?watch=true`);
    try {
      const added = await waitFor(() => (watch.events.length >= 2 ? watch.events : undefined));
      expect(added.map((e) => e.object)).toMatchObject([
        { apiVersion: `${group}/v2`, spec: { paint: { color: 'red' } } },
        { apiVersion: `${group}/v2`, spec: { paint: { color: 'green' } } },
      ]);
    } finally {
      watch.close();
    }
    const patched = await call(
      server,
      'PATCH',
      `${gadgets(group, 'v2')}/a`,
      { spec: { paint: { color: 'blue' } } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(patched.status).toBe(200);
    expect(patched.json<Gadget>()).toMatchObject({
      apiVersion: `${group}/v2`,
      spec: { paint: { color: 'blue' } },
    });
    // v1 is now converted from the storage version: b is still stored at v1 and read as it is
    expect((await call(server, 'GET', `${gadgets(group, 'v1')}/b`)).json<Gadget>()).toMatchObject({
      apiVersion: `${group}/v1`,
      spec: { color: 'green' },
    });
    expect((await call(server, 'GET', `${gadgets(group, 'v1')}/a`)).json<Gadget>()).toMatchObject({
      apiVersion: `${group}/v1`,
      spec: { color: 'blue' },
    });
  });

  it('[S8-WH7] with conversion strategy None, objects stored at v1 are read at v2 with apiVersion v2 (get, list, watch)', async () => {
    const group = 'wh7-none.example.com';
    const noneCrd = (storage: 'v1' | 'v2'): Json => {
      const crd = gadgetCrd(group, hooks.clientConfig('/convert'), storage);
      const spec = crd.spec as { versions: Json[]; conversion: Json };
      spec.versions[1].schema = spec.versions[0].schema;
      spec.conversion = { strategy: 'None' };
      return crd;
    };
    expect((await call(server, 'POST', CRDS, noneCrd('v1'))).status).toBe(201);
    await waitFor(async () => (await call(server, 'GET', gadgets(group, 'v2'))).status === 200, 10_000);
    await createV1(group, 'old', { color: 'red' });
    await moveStorage(group, noneCrd('v2'));
    const want = { apiVersion: `${group}/v2`, spec: { color: 'red' } };
    expect((await call(server, 'GET', `${gadgets(group, 'v2')}/old`)).json<Gadget>()).toMatchObject(want);
    expect((await call(server, 'GET', gadgets(group, 'v2'))).json<{ items: Gadget[] }>().items).toMatchObject(
      [want],
    );
    const watch = rawWatch(server, `${gadgets(group, 'v2')}?watch=true`);
    try {
      const added = await waitFor(() => watch.events[0]);
      expect(added.object).toMatchObject(want);
    } finally {
      watch.close();
    }
    expect(
      (
        await call(
          server,
          'PATCH',
          `${gadgets(group, 'v2')}/old`,
          { spec: { color: 'blue' } },
          {
            contentType: 'application/merge-patch+json',
          },
        )
      ).status,
    ).toBe(200);
  });

  it('[FINDING S8-WH8] a conversion webhook that drops metadata from converted objects fails the read, as kube-apiserver refuses it', async () => {
    const group = 'wh8.example.com';
    hooks.on('/convert-nometa', (review) => {
      const request = (review as unknown as { request: { desiredAPIVersion: string; objects: Gadget[] } })
        .request;
      return {
        convertedObjects: request.objects.map((o) => {
          const { metadata: _dropped, ...rest } = convert(o, request.desiredAPIVersion);
          return rest;
        }),
        result: { status: 'Success' },
      };
    });
    await createCrd(group, '/convert-nometa');
    await createV1(group, 'nometa', { color: 'blue' });
    // kube-apiserver: validateConvertedObject ("must have the same name") and restoreObjectMeta
    // ("missing metadata in converted object") refuse the answer: the read is a 500
    const r = await call(server, 'GET', `${gadgets(group, 'v2')}/nometa`);
    expect(r.status).toBe(500);
  });

  it('[S8-WH8] a converted object with another name, namespace or uid, or labels that are not a map of strings, fails the read with kube text', async () => {
    const group = 'wh8-meta.example.com';
    let mode: 'name' | 'namespace' | 'uid' | 'labels' | 'nometa' = 'name';
    hooks.on('/convert-meta', (review) => {
      const request = (review as unknown as { request: { desiredAPIVersion: string; objects: Gadget[] } })
        .request;
      return {
        convertedObjects: request.objects.map((o) => {
          const c = convert(o, request.desiredAPIVersion) as unknown as Json;
          const meta = { ...(c.metadata as Json) };
          if (mode === 'name') meta.name = 'other';
          if (mode === 'namespace') meta.namespace = 'elsewhere';
          if (mode === 'uid') meta.uid = 'not-the-uid';
          if (mode === 'labels') meta.labels = { team: 7 };
          if (mode === 'nometa') return { ...c, metadata: undefined };
          return { ...c, metadata: meta };
        }),
        result: { status: 'Success' },
      };
    });
    await createCrd(group, '/convert-meta');
    const created = await createV1(group, 'm', { color: 'blue' });
    const uid = created.json<{ metadata: { uid: string } }>().metadata.uid;
    for (const [m, text] of [
      ['name', 'must have the same name: m != other'],
      ['namespace', 'must have the same namespace: default != elsewhere'],
      ['uid', `must have the same UID: ${uid} != not-the-uid`],
      ['labels', 'metadata.labels[team] must be a string, but is int64 in converted object'],
      ['nometa', 'must have the same name: m != '],
    ] as const) {
      mode = m;
      const r = await call(server, 'GET', `${gadgets(group, 'v2')}/m`);
      expect(r.status).toBe(500);
      expect(String(r.json().message)).toContain(`conversion webhook for ${group}/v1, Kind=Gadget failed`);
      expect(String(r.json().message)).toContain(text);
    }
  });

  // ---- guards: behaviours checked and found right ----

  it('a JSON patch with a ~1 escape, an array append and an add of a missing map is applied as RFC 6902 says', async () => {
    hooks.on('/escapes', () =>
      patchResponse([
        { op: 'add', path: '/metadata/annotations', value: {} },
        { op: 'add', path: '/metadata/annotations/example.com~1owner', value: 'team~a' },
        { op: 'add', path: '/metadata/finalizers/-', value: 'example.com/last' },
        { op: 'remove', path: '/metadata/finalizers/0' },
      ]),
    );
    await configure(config('Mutating', 'esc', [hook('escapes.example.com', hooks.clientConfig('/escapes'))]));
    const r = await call(
      server,
      'POST',
      CM,
      cm('escapes', { a: 'b' }, { finalizers: ['example.com/first'] }),
    );
    expect(r.status).toBe(201);
    const stored = (await call(server, 'GET', `${CM}/escapes`)).json<{
      metadata: { annotations: Record<string, string>; finalizers: string[] };
    }>();
    expect(stored.metadata.annotations).toEqual({ 'example.com/owner': 'team~a' });
    expect(stored.metadata.finalizers).toEqual(['example.com/last']);
    // clean up the finalizer so the object can go
    await call(server, 'PATCH', `${CM}/escapes`, [{ op: 'remove', path: '/metadata/finalizers' }], {
      contentType: 'application/json-patch+json',
    });
  });

  it('a mutating patch that cannot be applied under failurePolicy Fail is a 500 internal error, nothing stored', async () => {
    hooks.on('/bad-patch-fail', () => patchResponse([{ op: 'replace', path: '/data/missing', value: 'x' }]));
    await configure(
      config('Mutating', 'badfail', [hook('bad-fail.example.com', hooks.clientConfig('/bad-patch-fail'))]),
    );
    const r = await call(server, 'POST', CM, cm('badfail', { a: 'b' }));
    expect(r.status).toBe(500);
    // kube-apiserver: apierrors.NewInternalError(err) with the JSON patch library's text; the
    // webhook is not named (the text is not an ErrCallingWebhook's)
    expect(r.json()).toMatchObject({ reason: 'InternalError', code: 500 });
    expect(String(r.json().message)).toMatch(/^Internal error occurred: .*doc is missing path/);
    expect((await call(server, 'GET', `${CM}/badfail`)).status).toBe(404);
  });

  it('an admission answer with a wrong uid, or a validating answer with a patch, fails the call under Fail and is ignored under Ignore', async () => {
    hooks.on('/wrong-uid', () => ({ allowed: true, uid: 'not-the-request' }));
    hooks.on('/validating-patch', () => patchResponse([{ op: 'add', path: '/data/x', value: 'y' }]));
    for (const [path, text] of [
      ['/wrong-uid', 'expected response.uid='],
      ['/validating-patch', 'validating webhook may not return'],
    ] as const) {
      await call(server, 'DELETE', VWC);
      await configure(config('Validating', 'resp', [hook('resp.example.com', hooks.clientConfig(path))]));
      const name = `resp${path.replace(/\W/g, '')}`;
      const r = await call(server, 'POST', CM, cm(name, { a: 'b' }));
      expect(r.status).toBe(500);
      expect(String(r.json().message)).toContain('failed calling webhook "resp.example.com"');
      expect(String(r.json().message)).toContain(text);
      await call(server, 'DELETE', VWC);
      await configure(
        config('Validating', 'resp', [
          hook('resp.example.com', hooks.clientConfig(path), { failurePolicy: 'Ignore' }),
        ]),
      );
      expect((await call(server, 'POST', CM, cm(name, { a: 'b' }))).status).toBe(201);
    }
  });

  it('a denial without a message says "without explanation"; a code below 400 becomes 400', async () => {
    hooks.on('/deny-bare', () => ({ allowed: false, status: { code: 200 } }));
    await configure(
      config('Validating', 'bare', [hook('bare.example.com', hooks.clientConfig('/deny-bare'))]),
    );
    const r = await call(server, 'POST', CM, cm('bare', {}));
    expect(r.status).toBe(400);
    expect(r.json().message).toBe(
      'admission webhook "bare.example.com" denied the request without explanation',
    );
  });

  it('a list at the non-storage version converts every item in one review; wrong count, uid or apiVersion fail the list', async () => {
    const group = 'guard-list.example.com';
    let mode: 'ok' | 'count' | 'uid' | 'apiVersion' = 'ok';
    hooks.on('/convert-modes', (review) => {
      const request = (
        review as unknown as { request: { uid: string; desiredAPIVersion: string; objects: Gadget[] } }
      ).request;
      const converted = request.objects.map((o) => convert(o, request.desiredAPIVersion));
      if (mode === 'count') converted.pop();
      if (mode === 'apiVersion') converted[0] = { ...converted[0], apiVersion: `${group}/v9` };
      return {
        ...(mode === 'uid' ? { uid: 'other' } : {}),
        convertedObjects: converted,
        result: { status: 'Success' },
      };
    });
    await createCrd(group, '/convert-modes');
    for (const name of ['a', 'b', 'c']) {
      await createV1(group, name, { color: name });
    }
    const before = hooks.at('/convert-modes').length;
    const list = await call(server, 'GET', gadgets(group, 'v2'));
    expect(list.status).toBe(200);
    expect(list.json<{ apiVersion: string; items: Gadget[] }>()).toMatchObject({
      apiVersion: `${group}/v2`,
      items: [
        { apiVersion: `${group}/v2`, spec: { paint: { color: 'a' } } },
        { apiVersion: `${group}/v2`, spec: { paint: { color: 'b' } } },
        { apiVersion: `${group}/v2`, spec: { paint: { color: 'c' } } },
      ],
    });
    expect(hooks.at('/convert-modes').length - before).toBe(1);
    for (const [m, text] of [
      ['count', 'expected 3 converted objects, got 2'],
      ['uid', 'expected response.uid='],
      ['apiVersion', 'invalid apiVersion'],
    ] as const) {
      mode = m;
      const r = await call(server, 'GET', gadgets(group, 'v2'));
      expect(r.status).toBe(500);
      expect(String(r.json().message)).toContain(`conversion webhook for ${group}/v1, Kind=Gadget failed`);
      expect(String(r.json().message)).toContain(text);
    }
    mode = 'ok';
  });

  it('a conversion webhook that is down fails reads and writes at the non-storage version, storage-version reads still work', async () => {
    const group = 'guard-down.example.com';
    await createCrd(group, '/convert');
    await createV1(group, 'x', { color: 'green' });
    // point the CRD at a port nobody listens on
    const next = gadgetCrd(group, { url: 'https://127.0.0.1:1/convert', caBundle: hooks.caBundle });
    await replaceCrd(group, next);
    const r = await waitFor(async () => {
      const x = await call(server, 'GET', `${gadgets(group, 'v2')}/x`);
      return x.status === 500 ? x : undefined;
    }, 10_000);
    expect(String(r.json().message)).toContain('connection refused');
    const w = await call(server, 'POST', gadgets(group, 'v2'), {
      apiVersion: `${group}/v2`,
      kind: 'Gadget',
      metadata: { name: 'y' },
      spec: { paint: { color: 'red' } },
    });
    expect(w.status).toBe(500);
    expect((await call(server, 'GET', `${gadgets(group, 'v1')}/y`)).status).toBe(404);
    expect((await call(server, 'GET', `${gadgets(group, 'v1')}/x`)).status).toBe(200);
  });

  it('[FINDING S8-WH9] a caBundle that does not sign the webhook certificate fails with kube x509 text, not "certificate signature failure"', async () => {
    // another CA of the same name: what a restarted Nest app (new development CA, same CN) meets
    // while the applied configuration still carries the old caBundle
    const other = await TestWebhookServer.start();
    try {
      await configure(
        config('Validating', 'tls', [
          hook('tls.example.com', { url: hooks.clientConfig('/allow').url, caBundle: other.caBundle }),
        ]),
      );
      const r = await call(server, 'POST', CM, cm('tls', {}));
      expect(r.status).toBe(500);
      expect(r.json().message).toContain('x509: certificate signed by unknown authority');
    } finally {
      await other.stop();
    }
  });

  it('a webhook called without a caBundle (system CAs) fails with x509 text', async () => {
    await configure(
      config('Validating', 'tls', [hook('tls.example.com', { url: hooks.clientConfig('/allow').url })]),
    );
    const r = await call(server, 'POST', CM, cm('tls2', {}));
    expect(r.status).toBe(500);
    expect(r.json().message).toContain(
      'tls: failed to verify certificate: x509: certificate signed by unknown authority',
    );
  });

  it('fields a mutating webhook adds outside the CRD schema are pruned before the object is stored', async () => {
    const group = 'probe-prune.example.com';
    await createCrd(group, '/convert');
    hooks.on('/add-unknown', () => patchResponse([{ op: 'add', path: '/spec/unknownField', value: 'u' }]));
    await configure(
      config('Mutating', 'prune', [
        hook('prune.example.com', hooks.clientConfig('/add-unknown'), {
          rules: [rule(['CREATE'], group, ['v1'], ['gadgets'])],
        }),
      ]),
    );
    const r = await createV1(group, 'p', { color: 'red' });
    expect(r.json<Gadget>().spec).toEqual({ color: 'red' });
    expect((await call(server, 'GET', `${gadgets(group, 'v1')}/p`)).json<Gadget>().spec).toEqual({
      color: 'red',
    });
  });

  it('a webhook slower than its timeoutSeconds is ignored under failurePolicy Ignore, and the write is stored', async () => {
    hooks.on('/hang', () => 'hang');
    await configure(
      config('Validating', 'hang', [
        hook('hang.example.com', hooks.clientConfig('/hang'), { failurePolicy: 'Ignore', timeoutSeconds: 1 }),
      ]),
    );
    const r = await call(server, 'POST', CM, cm('hang-ignored', { a: 'b' }));
    expect(r.status).toBe(201);
    expect((await call(server, 'GET', `${CM}/hang-ignored`)).status).toBe(200);
    expect(hooks.at('/hang')).toHaveLength(1);
  });
});
