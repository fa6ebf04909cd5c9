import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call, waitFor } from '../../__tests__/http-helper.js';
import { patchResponse, TestWebhookServer } from './webhook-test-server.js';

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const CM = '/api/v1/namespaces/default/configmaps';

function hook(
  name: string,
  cc: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    clientConfig: cc,
    rules: [
      { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
    ],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

function config(kind: 'Validating' | 'Mutating', name: string, webhooks: unknown[]): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks,
  };
}

function cm(
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

describe('admission webhooks called by the API server', () => {
  let server: KubeApiServer;
  let hooks: TestWebhookServer;

  beforeAll(async () => {
    [server, hooks] = await Promise.all([KubeApiServer.start(), TestWebhookServer.start()]);
    hooks
      .on('/deny-blank', (r) =>
        (r.request.object?.data?.html ?? 'x').trim() === ''
          ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'spec.html is blank' } }
          : { allowed: true },
      )
      .on('/allow', () => ({ allowed: true }))
      .on('/hang', () => 'hang')
      .on('/fill-html', (r) =>
        r.request.object?.data?.html === undefined
          ? patchResponse([{ op: 'add', path: '/data/html', value: '<p>default</p>' }])
          : { allowed: true },
      );
  });

  afterAll(async () => {
    await Promise.all([server.stop(), hooks.stop()]);
  });

  beforeEach(async () => {
    for (const path of [VWC, MWC]) await call(server, 'DELETE', path);
    hooks.reviews.length = 0;
  });

  it("a validating webhook denial refuses the write with kube-apiserver's text and stores nothing", async () => {
    expect(
      (
        await call(
          server,
          'POST',
          VWC,
          config('Validating', 'pages', [hook('deny-blank.example.com', hooks.clientConfig('/deny-blank'))]),
        )
      ).status,
    ).toBe(201);
    const r = await call(server, 'POST', CM, cm('blank', { html: '   ' }));
    expect(r.status).toBe(403);
    expect(r.json().message).toBe(
      'admission webhook "deny-blank.example.com" denied the request: spec.html is blank',
    );
    expect((await call(server, 'GET', `${CM}/blank`)).status).toBe(404);
    const ok = await call(server, 'POST', CM, cm('fine', { html: '<p>hi</p>' }));
    expect(ok.status).toBe(201);
    const review = hooks.at('/deny-blank').at(-1)!;
    expect(review).toMatchObject({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        operation: 'CREATE',
        kind: { group: '', version: 'v1', kind: 'ConfigMap' },
        resource: { group: '', version: 'v1', resource: 'configmaps' },
        namespace: 'default',
        name: 'fine',
        dryRun: false,
        options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
      },
    });
    // updates are checked too, with the stored object as oldObject
    const upd = await call(
      server,
      'PATCH',
      `${CM}/fine`,
      { data: { html: '' } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(upd.status).toBe(403);
    expect(hooks.at('/deny-blank').at(-1)!.request.oldObject?.data?.html).toBe('<p>hi</p>');
  });

  it('a mutating webhook fills a field that a later validating webhook checks', async () => {
    await call(
      server,
      'POST',
      MWC,
      config('Mutating', 'defaults', [hook('fill-html.example.com', hooks.clientConfig('/fill-html'))]),
    );
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'pages', [hook('deny-blank.example.com', hooks.clientConfig('/deny-blank'))]),
    );
    // data holds a key: kube-apiserver sends a ConfigMap created with `data: {}` to webhooks without
    // `data` (Go's omitempty), where the webhook's `add /data/html` would fail
    const r = await call(server, 'POST', CM, cm('filled', { title: 'x' }));
    expect(r.status).toBe(201);
    expect(r.json<{ data: Record<string, string> }>().data.html).toBe('<p>default</p>');
    expect(
      (await call(server, 'GET', `${CM}/filled`)).json<{ data: Record<string, string> }>().data.html,
    ).toBe('<p>default</p>');
    expect(hooks.at('/deny-blank').at(-1)!.request.object?.data?.html).toBe('<p>default</p>');
  });

  it('failurePolicy Fail refuses the write when the webhook is down; Ignore admits it', async () => {
    const down = { url: 'https://127.0.0.1:1/validate', caBundle: hooks.caBundle };
    await call(server, 'POST', VWC, config('Validating', 'down', [hook('down.example.com', down)]));
    const r = await call(server, 'POST', CM, cm('refused', {}));
    expect(r.status).toBe(500);
    expect(r.json().message).toBe(
      'Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:1/validate?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused',
    );
    await call(
      server,
      'PUT',
      `${VWC}/down`,
      config('Validating', 'down', [hook('down.example.com', down, { failurePolicy: 'Ignore' })]),
    );
    expect((await call(server, 'POST', CM, cm('admitted', {}))).status).toBe(201);
  });

  it('a webhook slower than its timeoutSeconds fails the call with kube-apiserver deadline text', async () => {
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'slow', [
        hook('slow.example.com', hooks.clientConfig('/hang'), { timeoutSeconds: 1 }),
      ]),
    );
    const r = await call(server, 'POST', CM, cm('slow', {}));
    expect(r.status).toBe(500);
    expect(r.json().message).toMatch(
      /failed calling webhook "slow.example.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/hang\?timeout=1s": context deadline exceeded$/,
    );
  });

  it('dry run: webhooks get dryRun true, nothing is stored; a webhook with side effects cannot be configured', async () => {
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'pages', [
        hook('allow.example.com', hooks.clientConfig('/allow'), { sideEffects: 'NoneOnDryRun' }),
      ]),
    );
    const r = await call(server, 'POST', `${CM}?dryRun=All`, cm('dry', {}));
    expect(r.status).toBe(201);
    expect(hooks.at('/allow').at(-1)!.request.dryRun).toBe(true);
    expect((await call(server, 'GET', `${CM}/dry`)).status).toBe(404);
    const bad = await call(
      server,
      'POST',
      VWC,
      config('Validating', 'effects', [
        hook('effects.example.com', hooks.clientConfig('/allow'), { sideEffects: 'Some' }),
      ]),
    );
    expect(bad.status).toBe(422);
    expect(bad.json().message).toBe(
      'ValidatingWebhookConfiguration.admissionregistration.k8s.io "effects" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    );
  });

  it('rules, namespace and object selectors decide which writes a webhook sees', async () => {
    await call(server, 'POST', '/api/v1/namespaces', {
      metadata: { name: 'guarded', labels: { guard: 'on' } },
    });
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'sel', [
        hook('ns.example.com', hooks.clientConfig('/deny-blank'), {
          namespaceSelector: { matchLabels: { guard: 'on' } },
        }),
        hook('obj.example.com', hooks.clientConfig('/allow'), {
          objectSelector: { matchLabels: { check: 'yes' } },
        }),
        hook('upd.example.com', hooks.clientConfig('/allow'), {
          rules: [
            { operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
          ],
        }),
        hook('cluster.example.com', hooks.clientConfig('/allow'), {
          rules: [
            { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Cluster' },
          ],
        }),
      ]),
    );
    expect((await call(server, 'POST', CM, cm('blank-default', { html: '' }))).status).toBe(201);
    const g = await call(server, 'POST', '/api/v1/namespaces/guarded/configmaps', cm('blank', { html: '' }));
    expect(g.status).toBe(403);
    expect(hooks.at('/allow')).toHaveLength(0);
    expect((await call(server, 'POST', CM, cm('labelled', {}, { check: 'yes' }))).status).toBe(201);
    expect(hooks.at('/allow').map((r) => r.request.name)).toEqual(['labelled']);
    await call(
      server,
      'PATCH',
      `${CM}/labelled`,
      { data: { a: 'b' } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(hooks.at('/allow').filter((r) => r.request.operation === 'UPDATE')).toHaveLength(2);
    await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'another' } });
    expect(hooks.at('/allow').at(-1)!.request.resource.resource).toBe('namespaces');
  });

  it('reinvocationPolicy IfNeeded calls a mutating webhook again after a later one changed the object', async () => {
    let calls = 0;
    hooks.on('/first', () => {
      calls++;
      return { allowed: true };
    });
    hooks.on('/second', (r) =>
      r.request.object?.data?.second
        ? { allowed: true }
        : patchResponse([{ op: 'add', path: '/data/second', value: 'x' }]),
    );
    await call(
      server,
      'POST',
      MWC,
      config('Mutating', 'a-first', [
        hook('first.example.com', hooks.clientConfig('/first'), { reinvocationPolicy: 'IfNeeded' }),
      ]),
    );
    await call(
      server,
      'POST',
      MWC,
      config('Mutating', 'b-second', [hook('second.example.com', hooks.clientConfig('/second'))]),
    );
    // a key in data, so the webhook's `add /data/second` has a map to add to (see 'filled' above)
    expect((await call(server, 'POST', CM, cm('reinvoked', { title: 'x' }))).status).toBe(201);
    expect(calls).toBe(2);
    expect(hooks.at('/first').at(-1)!.request.object?.data?.second).toBe('x');
  });

  it('a webhook that answers nonsense fails the call with the reason', async () => {
    hooks.on('/nonsense', () => ({ allowed: true, uid: 'wrong' }));
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'bad', [hook('bad.example.com', hooks.clientConfig('/nonsense'))]),
    );
    const r = await call(server, 'POST', CM, cm('nonsense', {}));
    expect(r.status).toBe(500);
    expect(r.json().message).toMatch(
      /failed calling webhook "bad.example.com": received invalid webhook response: expected response.uid=".+", got "wrong"/,
    );
  });

  it('deletes are admitted with the stored object as oldObject', async () => {
    await call(server, 'POST', CM, cm('keep', {}, { protected: 'true' }));
    hooks.on('/no-delete', (r) => ({
      allowed: r.request.oldObject?.metadata?.labels?.protected !== 'true',
      status: { message: 'protected' },
    }));
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'del', [
        hook('del.example.com', hooks.clientConfig('/no-delete'), {
          rules: [
            { operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
          ],
        }),
      ]),
    );
    const r = await call(server, 'DELETE', `${CM}/keep`);
    expect(r.status).toBe(400);
    expect(r.json().message).toBe('admission webhook "del.example.com" denied the request: protected');
    expect((await call(server, 'GET', `${CM}/keep`)).status).toBe(200);
  });
  it('a PUT that creates (a Lease: kube creates it on update) is admitted as a CREATE by a webhook for CREATE only', async () => {
    hooks.on('/no-lease-create', (r) => ({
      allowed: r.request.operation !== 'CREATE',
      status: { message: `no ${r.request.operation} of leases` },
    }));
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'lease-create', [
        hook('lease-create.example.com', hooks.clientConfig('/no-lease-create'), {
          rules: [
            {
              operations: ['CREATE'],
              apiGroups: ['coordination.k8s.io'],
              apiVersions: ['v1'],
              resources: ['leases'],
            },
          ],
        }),
      ]),
    );
    const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const put = await call(server, 'PUT', `${leases}/by-put`, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'by-put', namespace: 'default' },
      spec: { holderIdentity: 'me' },
    });
    expect(put.status).toBe(400);
    expect(put.json().message).toBe(
      'admission webhook "lease-create.example.com" denied the request: no CREATE of leases',
    );
    expect((await call(server, 'GET', `${leases}/by-put`)).status).toBe(404);
    await call(server, 'DELETE', `${VWC}/lease-create`);
  });

  it('matchPolicy Equivalent calls a webhook named for v1 on a v2 write, with the object at v1; Exact does not', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'notes.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Note', plural: 'notes', singular: 'note', listKind: 'NoteList' },
        versions: ['v1', 'v2'].map((name) => ({
          name,
          served: true,
          storage: name === 'v1',
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        })),
      },
    };
    expect(
      (await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
    ).toBe(201);
    const rules = [
      { operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['notes'] },
    ];
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'notes', [
        hook('equivalent.example.com', hooks.clientConfig('/allow'), { rules }),
      ]),
    );
    const notes = '/apis/example.com/v2/namespaces/default/notes';
    // the CRD is served once established
    const created = await waitFor(async () => {
      const r = await call(server, 'POST', notes, {
        apiVersion: 'example.com/v2',
        kind: 'Note',
        metadata: { name: 'n1' },
      });
      return r.status === 404 ? undefined : r;
    });
    expect(created.status).toBe(201);
    const seen = hooks.at('/allow').at(-1) as unknown as {
      request: {
        kind: { version: string };
        requestKind: { version: string };
        object: { apiVersion: string };
      };
    };
    expect(seen.request.kind.version).toBe('v1');
    expect(seen.request.requestKind.version).toBe('v2');
    expect(seen.request.object.apiVersion).toBe('example.com/v1');
    await call(
      server,
      'PUT',
      `${VWC}/notes`,
      config('Validating', 'notes', [
        hook('equivalent.example.com', hooks.clientConfig('/allow'), { rules, matchPolicy: 'Exact' }),
      ]),
    );
    const before = hooks.at('/allow').length;
    expect(
      (
        await call(server, 'POST', notes, {
          apiVersion: 'example.com/v2',
          kind: 'Note',
          metadata: { name: 'n2' },
        })
      ).status,
    ).toBe(201);
    expect(hooks.at('/allow')).toHaveLength(before);
  });

  it("a webhook's warnings reach the client as Warning headers", async () => {
    hooks.on('/warn', () => ({ allowed: true, warnings: ['this key is deprecated'] }));
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'warn', [hook('warn.example.com', hooks.clientConfig('/warn'))]),
    );
    const r = await call(server, 'POST', CM, cm('warned', {}));
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBe('299 - "this key is deprecated"');
  });
  it('generateName: mutating webhooks see no name, the validating ones the name that is stored', async () => {
    hooks.on('/mutate-noop', () => ({ allowed: true }));
    await call(
      server,
      'POST',
      MWC,
      config('Mutating', 'noop', [hook('noop.example.com', hooks.clientConfig('/mutate-noop'))]),
    );
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'names', [hook('names.example.com', hooks.clientConfig('/allow'))]),
    );
    const r = await call(server, 'POST', CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'gen-' },
    });
    expect(r.status).toBe(201);
    const stored = r.json<{ metadata: { name: string } }>().metadata.name;
    expect(stored).toMatch(/^gen-[a-z0-9]{5}$/);
    const mutating = hooks.at('/mutate-noop').at(-1)!;
    expect(mutating.request.name).toBe('');
    expect(mutating.request.object?.metadata?.name).toBeUndefined();
    const validating = hooks.at('/allow').at(-1)!;
    expect(validating.request.name).toBe(stored);
    expect(validating.request.object?.metadata?.name).toBe(stored);
  });
  it('a custom resource reaches the mutating webhooks decoded: defaults applied, unknown fields pruned and reported once', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
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
                    properties: { size: { type: 'integer', default: 3 }, color: { type: 'string' } },
                  },
                },
              },
            },
          },
        ],
      },
    };
    expect(
      (await call(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
    ).toBe(201);
    hooks.on('/record', () => ({ allowed: true }));
    const rules = [
      { operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] },
    ];
    await call(
      server,
      'POST',
      MWC,
      config('Mutating', 'record', [hook('record.example.com', hooks.clientConfig('/record'), { rules })]),
    );
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    const widget = (name: string): Record<string, unknown> => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name },
      spec: { color: 'red', bogus: true },
    });
    const created = await waitFor(async () => {
      const r = await call(server, 'POST', widgets, widget('w1'));
      return r.status === 404 ? undefined : r;
    });
    expect(created.status).toBe(201);
    expect(created.headers.warning).toBe('299 - "unknown field \\"spec.bogus\\""');
    const seen = hooks.at('/record').at(-1) as unknown as {
      request: { object: { spec: Record<string, unknown> } };
    };
    expect(seen.request.object.spec).toEqual({ color: 'red', size: 3 });
    const strict = await call(server, 'POST', `${widgets}?fieldValidation=Strict`, widget('w2'));
    expect(strict.status).toBe(400);
    expect(strict.json().message).toBe(
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.bogus"',
    );
  });
  it('deletecollection admits and deletes the selected objects one by one, in list order, and stops at the first denial (kube-apiserver with its default single worker)', async () => {
    await call(server, 'POST', CM, cm('col-a', {}, { batch: 'one' }));
    await call(server, 'POST', CM, cm('col-b', {}, { batch: 'one', protected: 'true' }));
    await call(server, 'POST', CM, cm('col-c', {}, { batch: 'one' }));
    hooks.on('/no-delete-protected', (r) => ({
      allowed: r.request.oldObject?.metadata?.labels?.protected !== 'true',
      status: { message: 'protected' },
    }));
    const rules = [
      { operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
    ];
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'col', [
        hook('col.example.com', hooks.clientConfig('/no-delete-protected'), { rules }),
      ]),
    );
    const r = await call(server, 'DELETE', `${CM}?labelSelector=batch%3Done`);
    expect(r.status).toBe(400);
    expect(r.json().message).toBe('admission webhook "col.example.com" denied the request: protected');
    // deleted before the denial; the denied one and those after it stay
    expect((await call(server, 'GET', `${CM}/col-a`)).status).toBe(404);
    expect((await call(server, 'GET', `${CM}/col-b`)).status).toBe(200);
    expect((await call(server, 'GET', `${CM}/col-c`)).status).toBe(200);
    expect(hooks.at('/no-delete-protected').map((x) => x.request.name)).toEqual(['col-a', 'col-b']);
    // without the protected one the rest goes, and the answer lists what was deleted
    await call(server, 'DELETE', `${CM}/col-b`).catch(() => undefined);
    hooks.on('/no-delete-protected', () => ({ allowed: true }));
    await call(server, 'DELETE', `${VWC}/col`);
    const rest = await call(server, 'DELETE', `${CM}?labelSelector=batch%3Done`);
    expect(rest.status).toBe(200);
    expect(rest.json().kind).toBe('ConfigMapList');
  });

  it('a deletecollection whose selection is refused answers that refusal under admission too, deleting nothing', async () => {
    await call(server, 'POST', CM, cm('sel-a', {}, { batch: 'sel' }));
    hooks.on('/allow-deletes', () => ({ allowed: true }));
    const rules = [
      { operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
    ];
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'sel', [hook('sel.example.com', hooks.clientConfig('/allow-deletes'), { rules })]),
    );
    const bad = await call(server, 'DELETE', `${CM}?labelSelector=batch%3D%3D%3Dsel`);
    await call(server, 'DELETE', `${VWC}/sel`);
    const without = await call(server, 'DELETE', `${CM}?labelSelector=batch%3D%3D%3Dsel`);
    expect(without.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBe(without.status);
    expect(bad.json()).toEqual(without.json());
    expect((await call(server, 'GET', `${CM}/sel-a`)).status).toBe(200);
  });

  it('webhooks are not called for webhook configurations, so a webhook that denies everything cannot lock them', async () => {
    hooks.on('/deny-all', () => ({ allowed: false, status: { message: 'no' } }));
    const everything = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }];
    await call(
      server,
      'POST',
      VWC,
      config('Validating', 'deny-all', [
        hook('deny-all.example.com', hooks.clientConfig('/deny-all'), { rules: everything }),
      ]),
    );
    expect((await call(server, 'POST', CM, cm('locked', {}))).status).toBe(400);
    expect((await call(server, 'DELETE', `${VWC}/deny-all`)).status).toBe(200);
    expect((await call(server, 'POST', CM, cm('unlocked', {}))).status).toBe(201);
    expect(
      hooks.at('/deny-all').every((x) => x.request.resource.group !== 'admissionregistration.k8s.io'),
    ).toBe(true);
  });
});
