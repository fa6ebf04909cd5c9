import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call } from '../../__tests__/http-helper.js';
import { TestWebhookServer } from './webhook-test-server.js';

const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPB = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const CM = '/api/v1/namespaces/default/configmaps';

const CONFIGMAPS = [
  { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] },
];

function policy(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: CONFIGMAPS }, ...spec },
  };
}

function binding(
  name: string,
  policyName: string,
  actions: string[] = ['Deny'],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: actions, ...extra },
  };
}

function cm(name: string, data: Record<string, string>, ns = 'default'): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data };
}

describe('ValidatingAdmissionPolicy with CEL', () => {
  let server: KubeApiServer;

  beforeAll(async () => {
    server = await KubeApiServer.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(async () => {
    for (const path of [VAP, VAPB, VWC]) await call(server, 'DELETE', path);
  });

  it("a bound policy denies with its message and kube-apiserver's text; unbound it does nothing", async () => {
    expect(
      (
        await call(
          server,
          'POST',
          VAP,
          policy('no-forbidden.example.com', {
            validations: [
              {
                expression: "!has(object.data) || !('forbidden' in object.data)",
                message: 'the key forbidden is not allowed',
              },
            ],
          }),
        )
      ).status,
    ).toBe(201);
    expect((await call(server, 'POST', CM, cm('unbound', { forbidden: 'x' }))).status).toBe(201);
    expect(
      (await call(server, 'POST', VAPB, binding('no-forbidden-binding', 'no-forbidden.example.com'))).status,
    ).toBe(201);
    const r = await call(server, 'POST', CM, cm('bound', { forbidden: 'x' }));
    expect(r.status).toBe(422);
    expect(r.json()).toMatchObject({
      reason: 'Invalid',
      message:
        "configmaps \"bound\" is forbidden: ValidatingAdmissionPolicy 'no-forbidden.example.com' with binding 'no-forbidden-binding' denied request: the key forbidden is not allowed",
    });
    expect((await call(server, 'GET', `${CM}/bound`)).status).toBe(404);
    expect((await call(server, 'POST', CM, cm('allowed', { fine: 'x' }))).status).toBe(201);
  });

  it('without a message the failed expression is named; reason Forbidden answers 403; messageExpression builds the text', async () => {
    await call(
      server,
      'POST',
      VAP,
      policy('small.example.com', {
        validations: [
          { expression: 'size(object.data) <= 2' },
          {
            expression: "object.metadata.name != 'root'",
            reason: 'Forbidden',
            messageExpression: "'the name ' + object.metadata.name + ' is reserved'",
          },
        ],
      }),
    );
    await call(server, 'POST', VAPB, binding('small-binding', 'small.example.com'));
    const big = await call(server, 'POST', CM, cm('big', { a: '1', b: '2', c: '3' }));
    expect(big.status).toBe(422);
    expect(big.json().message).toBe(
      "configmaps \"big\" is forbidden: ValidatingAdmissionPolicy 'small.example.com' with binding 'small-binding' denied request: failed expression: size(object.data) <= 2",
    );
    const root = await call(server, 'POST', CM, cm('root', { a: '1' }));
    expect(root.status).toBe(403);
    expect(root.json()).toMatchObject({
      reason: 'Forbidden',
      message:
        "configmaps \"root\" is forbidden: ValidatingAdmissionPolicy 'small.example.com' with binding 'small-binding' denied request: the name root is reserved",
    });
  });

  it('Warn answers a Warning header and admits', async () => {
    await call(
      server,
      'POST',
      VAP,
      policy('warn.example.com', {
        validations: [
          { expression: "!has(object.data) || !('old' in object.data)", message: 'old is deprecated' },
        ],
      }),
    );
    await call(server, 'POST', VAPB, binding('warn-binding', 'warn.example.com', ['Warn']));
    const r = await call(server, 'POST', CM, cm('warned', { old: 'x' }));
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBe(
      "299 - \"Validation failed for ValidatingAdmissionPolicy 'warn.example.com' with binding 'warn-binding': old is deprecated\"",
    );
  });

  it('oldObject, request and variables: a key that may not change on update', async () => {
    await call(
      server,
      'POST',
      VAP,
      policy('owner.example.com', {
        variables: [
          {
            name: 'oldOwner',
            expression:
              "oldObject == null || !has(oldObject.data) || !('owner' in oldObject.data) ? '' : oldObject.data.owner",
          },
        ],
        validations: [
          {
            expression:
              "request.operation != 'UPDATE' || variables.oldOwner == '' || (has(object.data) && 'owner' in object.data && object.data.owner == variables.oldOwner)",
            messageExpression: "'data.owner is immutable (was ' + variables.oldOwner + ')'",
          },
        ],
      }),
    );
    await call(server, 'POST', VAPB, binding('owner-binding', 'owner.example.com'));
    expect((await call(server, 'POST', CM, cm('owned', { owner: 'alice' }))).status).toBe(201);
    const r = await call(
      server,
      'PATCH',
      `${CM}/owned`,
      { data: { owner: 'bob' } },
      { contentType: 'application/merge-patch+json' },
    );
    expect(r.status).toBe(422);
    expect(r.json().message).toBe(
      "configmaps \"owned\" is forbidden: ValidatingAdmissionPolicy 'owner.example.com' with binding 'owner-binding' denied request: data.owner is immutable (was alice)",
    );
    expect(
      (
        await call(
          server,
          'PATCH',
          `${CM}/owned`,
          { data: { other: 'x' } },
          { contentType: 'application/merge-patch+json' },
        )
      ).status,
    ).toBe(200);
  });

  it('an expression error fails the request under failurePolicy Fail and is ignored under Ignore', async () => {
    await call(
      server,
      'POST',
      VAP,
      policy('broken.example.com', { validations: [{ expression: 'object.data.missing == "x"' }] }),
    );
    await call(server, 'POST', VAPB, binding('broken-binding', 'broken.example.com'));
    const r = await call(server, 'POST', CM, cm('err', { a: '1' }));
    expect(r.status).toBe(422);
    expect(r.json().message).toMatch(
      /^configmaps "err" is forbidden: ValidatingAdmissionPolicy 'broken\.example\.com' with binding 'broken-binding' denied request: expression 'object\.data\.missing == "x"' resulted in error: .*missing/,
    );
    const current = (await call(server, 'GET', `${VAP}/broken.example.com`)).json<{
      metadata: { resourceVersion: string };
    }>();
    const ignoring = policy('broken.example.com', {
      failurePolicy: 'Ignore',
      validations: [{ expression: 'object.data.missing == "x"' }],
    });
    (ignoring.metadata as Record<string, unknown>).resourceVersion = current.metadata.resourceVersion;
    expect((await call(server, 'PUT', `${VAP}/broken.example.com`, ignoring)).status).toBe(200);
    expect((await call(server, 'POST', CM, cm('err', { a: '1' }))).status).toBe(201);
  });

  it('policies that do not compile, and bindings without actions, are refused with the field', async () => {
    const bad = await call(
      server,
      'POST',
      VAP,
      policy('bad.example.com', { validations: [{ expression: 'object.data ==' }] }),
    );
    expect(bad.status).toBe(422);
    expect(bad.json().message).toMatch(
      /^ValidatingAdmissionPolicy\.admissionregistration\.k8s\.io "bad\.example\.com" is invalid: spec\.validations\[0\]\.expression: Invalid value: "object\.data ==": compilation failed: ERROR: /,
    );
    const noActions = await call(server, 'POST', VAPB, binding('empty', 'x', []));
    expect(noActions.status).toBe(422);
    expect(noActions.json().message).toBe(
      'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "empty" is invalid: spec.validationActions: Required value: at least one validation action is required',
    );
  });

  it('a namespace selector narrows the policy; a policy denial comes before the validating webhooks', async () => {
    const hooks = await TestWebhookServer.start();
    try {
      hooks.on('/allow', () => ({ allowed: true }));
      await call(server, 'POST', '/api/v1/namespaces', {
        metadata: { name: 'strict', labels: { policy: 'strict' } },
      });
      await call(
        server,
        'POST',
        VAP,
        policy('strict.example.com', {
          matchConstraints: {
            resourceRules: CONFIGMAPS,
            namespaceSelector: { matchLabels: { policy: 'strict' } },
          },
          validations: [{ expression: 'false', message: 'nothing goes in a strict namespace' }],
        }),
      );
      await call(server, 'POST', VAPB, binding('strict-binding', 'strict.example.com'));
      await call(server, 'POST', VWC, {
        metadata: { name: 'after' },
        webhooks: [
          {
            name: 'after.example.com',
            clientConfig: hooks.clientConfig('/allow'),
            rules: CONFIGMAPS,
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      });
      expect((await call(server, 'POST', CM, cm('lax', {}))).status).toBe(201);
      expect(hooks.at('/allow')).toHaveLength(1);
      const r = await call(server, 'POST', '/api/v1/namespaces/strict/configmaps', cm('nope', {}, 'strict'));
      expect(r.status).toBe(422);
      expect(r.json().message).toContain('nothing goes in a strict namespace');
      expect(hooks.at('/allow')).toHaveLength(1);
    } finally {
      await hooks.stop();
    }
  });
});
