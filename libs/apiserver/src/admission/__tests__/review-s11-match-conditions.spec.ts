// Review S11: `matchConditions` of admission webhooks and ValidatingAdmissionPolicies (GA in
// Kubernetes 1.30). kube-apiserver evaluates them after the rules and selectors matched
// (k8s.io/apiserver admission/plugin/webhook/generic/webhook.go ShouldCallHook, matchconditions/
// matcher.go): every condition true calls the webhook (or runs the policy), any false skips it, an
// evaluation error follows the failure policy; k8s.io/kubernetes pkg/apis/admissionregistration/
// validation validateMatchConditions refuses invalid ones.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call, waitFor } from '../../__tests__/http-helper.js';
import { patchResponse, TestWebhookServer } from './webhook-test-server.js';

const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPB = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const CM = '/api/v1/namespaces/default/configmaps';

const CONFIGMAPS = [
  { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
];

function hook(name: string, cc: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: cc,
    rules: CONFIGMAPS,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

function config(kind: 'Validating' | 'Mutating', name: string, webhooks: unknown[]) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks,
  };
}

function cm(name: string, data: Record<string, string> = {}, labels?: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

function policy(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: CONFIGMAPS }, ...spec },
  };
}

function binding(name: string, policyName: string) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'] },
  };
}

describe('review S11: admission matchConditions', () => {
  let server: KubeApiServer;
  let hooks: TestWebhookServer;

  beforeAll(async () => {
    [server, hooks] = await Promise.all([KubeApiServer.start(), TestWebhookServer.start()]);
    hooks
      .on('/deny', () => ({ allowed: false, status: { code: 403, message: 'no configmaps today' } }))
      .on('/allow', () => ({ allowed: true }))
      .on('/label-team', () => patchResponse([{ op: 'add', path: '/metadata/labels', value: { team: 'a' } }]))
      .on('/mark', () => patchResponse([{ op: 'add', path: '/data/marked', value: 'yes' }]));
  });
  afterAll(async () => {
    await Promise.all([server.stop(), hooks.stop()]);
  });
  beforeEach(async () => {
    for (const path of [VWC, MWC, VAP, VAPB]) await call(server, 'DELETE', path);
    hooks.reviews.length = 0;
  });

  const create = async (path: string, body: unknown): Promise<void> => {
    const r = await call(server, 'POST', path, body);
    expect({ status: r.status, body: r.status === 201 ? '' : r.text }).toEqual({ status: 201, body: '' });
  };

  it('[FINDING S11-MC1] a validating webhook is called only when every matchCondition is true', async () => {
    await create(
      VWC,
      config('Validating', 'conditions', [
        hook('never.example.com', hooks.clientConfig('/deny'), {
          matchConditions: [{ name: 'never', expression: 'false' }],
        }),
        hook('not-skipped.example.com', hooks.clientConfig('/deny'), {
          matchConditions: [
            { name: 'always', expression: 'true' },
            { name: 'not-skip-me', expression: "object.metadata.name != 'skip-me'" },
            { name: 'not-carol', expression: "request.userInfo.username != 'carol'" },
          ],
        }),
      ]),
    );
    // a false condition: the webhook is not called, the write is admitted as far as it goes
    const skipped = await call(server, 'POST', CM, cm('skip-me'));
    expect(skipped.status).toBe(201);
    const byCarol = await call(server, 'POST', CM, cm('by-carol'), {
      headers: { 'Impersonate-User': 'carol', 'Impersonate-Group': 'system:masters' },
    });
    expect(byCarol.status).toBe(201);
    expect(hooks.reviews).toEqual([]);
    // every condition true: the webhook is called (and denies)
    const denied = await call(server, 'POST', CM, cm('other'));
    expect(denied.status).toBe(403);
    expect(denied.json().message).toBe(
      'admission webhook "not-skipped.example.com" denied the request: no configmaps today',
    );
    expect(hooks.reviews.map((r) => r.review.request.name)).toEqual(['other']);
  });

  it('[FINDING S11-MC2] a mutating webhook whose condition is false is not called; conditions see the object as earlier webhooks left it', async () => {
    await create(
      MWC,
      config('Mutating', 'a-label', [
        hook('label.example.com', hooks.clientConfig('/label-team'), {
          matchConditions: [{ name: 'wants-team', expression: "object.metadata.name.startsWith('team-')" }],
        }),
      ]),
    );
    await create(
      MWC,
      config('Mutating', 'b-mark', [
        hook('mark.example.com', hooks.clientConfig('/mark'), {
          matchConditions: [
            {
              name: 'team-a',
              expression: "has(object.metadata.labels) && object.metadata.labels['team'] == 'a'",
            },
          ],
        }),
      ]),
    );
    const plain = await call(server, 'POST', CM, cm('plain', { k: 'v' }));
    expect({ status: plain.status, text: plain.status === 201 ? '' : plain.text }).toEqual({
      status: 201,
      text: '',
    });
    expect(plain.json()).toMatchObject({ data: { k: 'v' } });
    expect(plain.json<{ metadata: Record<string, unknown> }>().metadata.labels).toBeUndefined();
    expect(hooks.reviews).toEqual([]);
    const team = await call(server, 'POST', CM, cm('team-x', { k: 'v' }));
    expect(team.status).toBe(201);
    expect(team.json()).toMatchObject({ metadata: { labels: { team: 'a' } }, data: { marked: 'yes' } });
    expect(hooks.reviews.map((r) => r.path)).toEqual(['/label-team', '/mark']);
  });

  it('[FINDING S11-MC3] a condition that fails to evaluate refuses the write under failurePolicy Fail (webhook not called) and skips the webhook under Ignore', async () => {
    const failing = { name: 'has-owner', expression: "object.data.owner == 'me'" };
    await create(
      VWC,
      config('Validating', 'errors', [
        hook('fail.example.com', hooks.clientConfig('/deny'), {
          matchConditions: [failing],
          failurePolicy: 'Fail',
        }),
      ]),
    );
    const refused = await call(server, 'POST', CM, cm('no-owner', { other: 'x' }));
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: `configmaps "no-owner" is forbidden: expression 'object.data.owner == 'me'' resulted in error: no such key: owner`,
      details: { name: 'no-owner', kind: 'configmaps' },
    });
    expect(hooks.reviews).toEqual([]);
    expect((await call(server, 'GET', `${CM}/no-owner`)).status).toBe(404);

    await call(server, 'DELETE', VWC);
    await create(
      VWC,
      config('Validating', 'errors', [
        hook('ignore.example.com', hooks.clientConfig('/deny'), {
          matchConditions: [failing],
          failurePolicy: 'Ignore',
        }),
      ]),
    );
    expect((await call(server, 'POST', CM, cm('no-owner', { other: 'x' }))).status).toBe(201);
    expect(hooks.reviews).toEqual([]);
    // evaluating cleanly to true still calls it
    expect((await call(server, 'POST', CM, cm('mine', { owner: 'me' }))).status).toBe(403);
    expect(hooks.reviews).toHaveLength(1);
  });

  it('[FINDING S11-MC4] invalid matchConditions of a webhook configuration are refused with kube-apiserver causes', async () => {
    const conditions = [
      { name: 'Bad Name', expression: 'true' },
      { name: 'dup', expression: 'true' },
      { name: 'dup', expression: '  ' },
      { expression: 'object.metadata.name' },
      { name: 'example.com/undeclared', expression: 'self.x == 1' },
      { name: 'syntax', expression: 'object.metadata.name ==' },
      { name: 'request-field', expression: "request.nope == 'x'" },
      { name: 'params', expression: 'params == null' },
    ];
    const r = await call(
      server,
      'POST',
      VWC,
      config('Validating', 'invalid', [
        hook('invalid.example.com', hooks.clientConfig('/deny'), { matchConditions: conditions }),
      ]),
    );
    expect(r.status).toBe(422);
    const causes = r.json<{ details: { causes: { reason: string; field: string; message: string }[] } }>()
      .details.causes;
    const at = 'webhooks[0].matchConditions';
    expect(causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: `${at}[0].name`,
        message: expect.stringMatching(/^Invalid value: "Bad Name": name part must consist of alphanumeric/),
      },
      { reason: 'FieldValueRequired', field: `${at}[2].expression`, message: 'Required value' },
      { reason: 'FieldValueDuplicate', field: `${at}[2].name`, message: 'Duplicate value: "dup"' },
      {
        reason: 'FieldValueInvalid',
        field: `${at}[3].expression`,
        message: 'Invalid value: "object.metadata.name": must evaluate to bool but got dyn',
      },
      { reason: 'FieldValueRequired', field: `${at}[3].name`, message: 'Required value' },
      {
        reason: 'FieldValueInvalid',
        field: `${at}[4].expression`,
        message:
          "Invalid value: \"self.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'self' (in container '')\n | self.x == 1\n | ^",
      },
      {
        reason: 'FieldValueInvalid',
        field: `${at}[5].expression`,
        message: expect.stringMatching(
          /^Invalid value: "object.metadata.name ==": compilation failed: ERROR: /,
        ),
      },
      {
        reason: 'FieldValueInvalid',
        field: `${at}[6].expression`,
        message:
          "Invalid value: \"request.nope == 'x'\": compilation failed: ERROR: <input>:1:8: undefined field 'nope'\n | request.nope == 'x'\n | .......^",
      },
      {
        reason: 'FieldValueInvalid',
        field: `${at}[7].expression`,
        message:
          "Invalid value: \"params == null\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params == null\n | ^",
      },
    ]);
    // more than 64
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    const tooMany = await call(
      server,
      'POST',
      MWC,
      config('Mutating', 'many', [
        hook('many.example.com', hooks.clientConfig('/deny'), { matchConditions: many }),
      ]),
    );
    expect(tooMany.status).toBe(422);
    expect(tooMany.json()).toMatchObject({
      details: {
        causes: [
          {
            reason: 'FieldValueTooMany',
            field: 'webhooks[0].matchConditions',
            message: 'Too many: 65: must have at most 64 items',
          },
        ],
      },
    });
    expect((await call(server, 'GET', `${VWC}/invalid`)).status).toBe(404);
    expect((await call(server, 'GET', `${MWC}/many`)).status).toBe(404);
  });

  it('[FINDING S11-MC5] a ValidatingAdmissionPolicy runs only when its matchConditions are true; an evaluation error follows its failurePolicy', async () => {
    await create(
      VAP,
      policy('guarded.example.com', {
        failurePolicy: 'Fail',
        matchConditions: [
          {
            name: 'not-exempt',
            expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)",
          },
          { name: 'has-size', expression: 'int(object.data.size) >= 0' },
        ],
        validations: [{ expression: 'int(object.data.size) <= 3', message: 'size too big' }],
      }),
    );
    await create(VAPB, binding('guarded-binding', 'guarded.example.com'));
    // every condition true: the policy applies
    const big = await call(server, 'POST', CM, cm('big', { size: '5' }));
    expect(big.status).toBe(422);
    expect(big.json().message).toContain('size too big');
    // a false condition: the policy does not apply, even though evaluating the others would fail
    expect((await call(server, 'POST', CM, cm('exempt', {}, { exempt: 'yes' }))).status).toBe(201);
    // an evaluation error under Fail refuses the write with the condition's error
    const broken = await call(server, 'POST', CM, cm('no-size', { other: 'x' }));
    expect(broken.status).toBe(422);
    expect(broken.json().message).toContain(
      "ValidatingAdmissionPolicy 'guarded.example.com' with binding 'guarded-binding' denied request: expression 'int(object.data.size) >= 0' resulted in error: no such key: size",
    );
    // under Ignore the policy is skipped
    const stored = await call(server, 'GET', `${VAP}/guarded.example.com`);
    const updated = stored.json<{ spec: Record<string, unknown> }>();
    updated.spec.failurePolicy = 'Ignore';
    expect((await call(server, 'PUT', `${VAP}/guarded.example.com`, updated)).status).toBe(200);
    expect((await call(server, 'POST', CM, cm('no-size', { other: 'x' }))).status).toBe(201);
  });

  it('[FINDING S11-MC6] invalid matchConditions of a ValidatingAdmissionPolicy are refused with kube-apiserver causes', async () => {
    const r = await call(
      server,
      'POST',
      VAP,
      policy('invalid.example.com', {
        failurePolicy: 'Fail',
        variables: [{ name: 'n', expression: 'object.metadata.name' }],
        matchConditions: [
          { name: 'uses-variables', expression: "variables.n == 'x'" },
          { name: 'not-bool', expression: 'request.name' },
          { name: 'ok', expression: "namespaceObject.metadata.name != 'kube-system'" },
        ],
        validations: [{ expression: 'true' }],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.json()).toMatchObject({
      details: {
        causes: [
          {
            reason: 'FieldValueInvalid',
            field: 'spec.matchConditions[0].expression',
            message:
              "Invalid value: \"variables.n == 'x'\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.n == 'x'\n | ^",
          },
          {
            reason: 'FieldValueInvalid',
            field: 'spec.matchConditions[1].expression',
            message: 'Invalid value: "request.name": must evaluate to bool but got string',
          },
        ],
      },
    });
  });
  it("[FINDING S11-MC12] the authorizer variable checks the request's user against RBAC in webhook conditions and policy validations", async () => {
    const rbacServer = await KubeApiServer.start({ rbac: true });
    try {
      const RBAC = '/apis/rbac.authorization.k8s.io/v1';
      const post = async (path: string, body: unknown): Promise<void> => {
        const r = await call(rbacServer, 'POST', path, body);
        expect({ status: r.status, body: r.status === 201 ? '' : r.text }).toEqual({ status: 201, body: '' });
      };
      const role = (name: string, resource: string, verbs: string[]) => ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name },
        rules: [{ apiGroups: [''], resources: [resource], verbs }],
      });
      const bind = (name: string, roleName: string, user: string) => ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name, namespace: 'default' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      });
      await post(`${RBAC}/clusterroles`, role('cm-writer', 'configmaps', ['create', 'get']));
      await post(`${RBAC}/clusterroles`, role('secret-reader', 'secrets', ['get']));
      await post(`${RBAC}/namespaces/default/rolebindings`, bind('dave-cm', 'cm-writer', 'dave'));
      await post(`${RBAC}/namespaces/default/rolebindings`, bind('erin-cm', 'cm-writer', 'erin'));
      await post(`${RBAC}/namespaces/default/rolebindings`, bind('erin-secrets', 'secret-reader', 'erin'));
      // the webhook is called only for users who may not read secrets
      await post(
        VWC,
        config('Validating', 'authz', [
          hook('authz.example.com', hooks.clientConfig('/deny'), {
            matchConditions: [
              {
                name: 'cannot-read-secrets',
                expression:
                  "!authorizer.group('').resource('secrets').namespace(request.namespace).check('get').allowed()",
              },
            ],
          }),
        ]),
      );
      const as = (user: string) => ({ headers: { 'Impersonate-User': user } });
      const byDave = await call(rbacServer, 'POST', CM, cm('by-dave', { a: '1' }), as('dave'));
      expect(byDave.status).toBe(403);
      expect(byDave.json().message).toBe(
        'admission webhook "authz.example.com" denied the request: no configmaps today',
      );
      expect((await call(rbacServer, 'POST', CM, cm('by-erin', { a: '1' }), as('erin'))).status).toBe(201);
      expect(hooks.reviews.map((r) => r.review.request.name)).toEqual(['by-dave']);
      // a policy: only who may delete the object may create it (authorizer.requestResource)
      await post(
        VAP,
        policy('deleters.example.com', {
          failurePolicy: 'Fail',
          validations: [
            {
              expression: "authorizer.requestResource.name(object.metadata.name).check('delete').allowed()",
              // a messageExpression has no authorizer (kube compiles it without)
              messageExpression: "'may not delete ' + object.metadata.name",
            },
          ],
        }),
      );
      await post(VAPB, binding('deleters-binding', 'deleters.example.com'));
      const byErin = await call(rbacServer, 'POST', CM, cm('by-erin-2', { a: '1' }), as('erin'));
      expect(byErin.status).toBe(422);
      expect(byErin.json().message).toBe(
        `configmaps "by-erin-2" is forbidden: ValidatingAdmissionPolicy 'deleters.example.com' with binding 'deleters-binding' denied request: may not delete by-erin-2`,
      );
      // the admin (system:masters) may
      expect((await call(rbacServer, 'POST', CM, cm('by-admin', { a: '1' }))).status).toBe(201);
    } finally {
      await rbacServer.stop();
    }
  });

  it('[FINDING S11-MC7] a ValidatingAdmissionPolicy denial reads as kube-apiserver words it: `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy ...` with the text as a cause', async () => {
    await create(
      VAP,
      policy('small.example.com', {
        failurePolicy: 'Fail',
        validations: [
          { expression: 'size(object.data) <= 1', message: 'at most one key' },
          { expression: "object.metadata.name != 'root'", reason: 'Forbidden', message: 'root is reserved' },
        ],
      }),
    );
    await create(VAPB, binding('small-binding', 'small.example.com'));
    const text =
      "ValidatingAdmissionPolicy 'small.example.com' with binding 'small-binding' denied request: at most one key";
    const big = await call(server, 'POST', CM, cm('big', { a: '1', b: '2' }));
    expect(big.status).toBe(422);
    expect(big.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `configmaps "big" is forbidden: ${text}`,
      reason: 'Invalid',
      details: { name: 'big', kind: 'configmaps', causes: [{ message: text }] },
      code: 422,
    });
    const root = await call(server, 'POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'root' },
      data: { a: '1' },
    });
    expect(root.status).toBe(403);
    expect(root.json()).toMatchObject({
      reason: 'Forbidden',
      message:
        "configmaps \"root\" is forbidden: ValidatingAdmissionPolicy 'small.example.com' with binding 'small-binding' denied request: root is reserved",
    });
  });
  it("[FINDING S11-MC8] a policy validation that reads a missing key fails with cel-go's 'no such key: <key>'", async () => {
    await create(
      VAP,
      policy('broken.example.com', {
        failurePolicy: 'Fail',
        validations: [{ expression: "object.data.missing == 'x'" }],
      }),
    );
    await create(VAPB, binding('broken-binding', 'broken.example.com'));
    const r = await call(server, 'POST', CM, cm('err', { a: '1' }));
    expect(r.status).toBe(422);
    expect(r.json().message).toBe(
      `configmaps "err" is forbidden: ValidatingAdmissionPolicy 'broken.example.com' with binding 'broken-binding' denied request: expression 'object.data.missing == 'x'' resulted in error: no such key: missing`,
    );
  });
  it('[FINDING S11-MC9] a policy variable that fails to evaluate fails only the validations that use it, with kube\'s "composited variable" text', async () => {
    await create(
      VAP,
      policy('owner.example.com', {
        failurePolicy: 'Fail',
        variables: [{ name: 'owner', expression: 'object.data.owner' }],
        validations: [{ expression: "object.metadata.name != 'reserved'" }],
      }),
    );
    await create(VAPB, binding('owner-binding', 'owner.example.com'));
    // the variable is never read: no error
    expect((await call(server, 'POST', CM, cm('unread-owner', { a: '1' }))).status).toBe(201);
    const stored = await call(server, 'GET', `${VAP}/owner.example.com`);
    const updated = stored.json<{ spec: Record<string, unknown> }>();
    updated.spec.validations = [{ expression: "variables.owner == 'me'" }];
    expect((await call(server, 'PUT', `${VAP}/owner.example.com`, updated)).status).toBe(200);
    const r = await call(server, 'POST', CM, cm('still-no-owner', { a: '1' }));
    expect(r.status).toBe(422);
    expect(r.json().message).toBe(
      `configmaps "still-no-owner" is forbidden: ValidatingAdmissionPolicy 'owner.example.com' with binding 'owner-binding' denied request: expression 'variables.owner == 'me'' resulted in error: composited variable "owner" fails to evaluate: no such key: owner`,
    );
  });
  it('[FINDING S11-MC10] policy expressions are type-checked as kube-apiserver checks them: undeclared names, unknown fields of request, non-bool validations and non-string messages are refused', async () => {
    const r = await call(
      server,
      'POST',
      VAP,
      policy('typed.example.com', {
        failurePolicy: 'Fail',
        variables: [
          { name: 'team', expression: "object.metadata.?labels.team.orValue('none')" },
          { name: 'bad', expression: 'request.nope' },
        ],
        validations: [
          { expression: 'object.spec.paused' },
          { expression: 'self.x == 1' },
          {
            expression: "variables.team != 'x' && request.requestKind.kind == 'ConfigMap'",
            messageExpression: '1',
          },
          { expression: 'variables.other == 1' },
        ],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.variables[1].expression',
        message:
          'Invalid value: "request.nope": compilation failed: ERROR: <input>:1:8: undefined field \'nope\'\n | request.nope\n | .......^',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.validations[0].expression',
        message: 'Invalid value: "object.spec.paused": must evaluate to bool but got dyn',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.validations[1].expression',
        message:
          "Invalid value: \"self.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'self' (in container '')\n | self.x == 1\n | ^",
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.validations[2].messageExpression',
        message: 'Invalid value: "1": must evaluate to string but got int',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.validations[3].expression',
        message:
          'Invalid value: "variables.other == 1": compilation failed: ERROR: <input>:1:10: undefined field \'other\'\n | variables.other == 1\n | .........^',
      },
    ]);
  });
  it("[S11-MC2] in the reinvocation round a webhook's conditions are evaluated again, on the object the later webhooks left", async () => {
    hooks.on('/second', (r) =>
      r.request.object?.data?.second
        ? { allowed: true }
        : patchResponse([{ op: 'add', path: '/data/second', value: 'x' }]),
    );
    await create(
      MWC,
      config('Mutating', 'a-first', [
        hook('first.example.com', hooks.clientConfig('/allow'), {
          reinvocationPolicy: 'IfNeeded',
          matchConditions: [{ name: 'no-second-yet', expression: "!('second' in object.data)" }],
        }),
      ]),
    );
    await create(
      MWC,
      config('Mutating', 'b-second', [hook('second.example.com', hooks.clientConfig('/second'))]),
    );
    const r = await call(server, 'POST', CM, cm('reinvoke', { title: 'x' }));
    expect(r.status).toBe(201);
    expect(r.json()).toMatchObject({ data: { title: 'x', second: 'x' } });
    // called in the first round only: the second round's object has data.second
    expect(hooks.reviews.map((x) => x.path)).toEqual(['/allow', '/second']);
  });

  it("[S11-MC1] under matchPolicy Equivalent the conditions see the object and request.kind at the webhook's version", async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
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
    await create(
      VWC,
      config('Validating', 'gadgets', [
        hook('gadgets.example.com', hooks.clientConfig('/deny'), {
          rules: [
            {
              operations: ['CREATE'],
              apiGroups: ['example.com'],
              apiVersions: ['v1'],
              resources: ['gadgets'],
            },
          ],
          matchConditions: [
            {
              name: 'at-v1',
              expression:
                "object.apiVersion == 'example.com/v1' && request.kind.version == 'v1' && request.requestKind.version == 'v2' && request.resource.resource == 'gadgets'",
            },
          ],
        }),
      ]),
    );
    const gadgets = '/apis/example.com/v2/namespaces/default/gadgets';
    const r = await waitFor(async () => {
      const res = await call(server, 'POST', gadgets, {
        apiVersion: 'example.com/v2',
        kind: 'Gadget',
        metadata: { name: 'g1' },
      });
      return res.status === 404 ? undefined : res;
    });
    // every condition true: the webhook is called (and denies)
    expect(r.status).toBe(403);
    expect(hooks.at('/deny')).toHaveLength(1);
  });
  it('[S11-MC4] conditions and validations calling library functions (isURL, quantity comparisons, sets.contains, list macros) are accepted', async () => {
    const expressions = [
      "!has(object.data) || !('url' in object.data) || isURL(object.data.url)",
      "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
      "sets.contains(request.userInfo.groups, ['system:authenticated'])",
      "request.userInfo.groups.exists(g, g.startsWith('system:'))",
      "object.metadata.?labels['tier'].orValue('') != 'frozen'",
    ];
    await create(
      VWC,
      config('Validating', 'library', [
        hook('library.example.com', hooks.clientConfig('/allow'), {
          matchConditions: expressions.map((expression, i) => ({ name: `c${i}`, expression })),
        }),
      ]),
    );
    await create(
      VAP,
      policy('library.example.com', {
        failurePolicy: 'Fail',
        validations: expressions.map((expression) => ({ expression })),
      }),
    );
    await create(VAPB, binding('library-binding', 'library.example.com'));
    expect((await call(server, 'POST', CM, cm('library', { url: 'https://example.com' }))).status).toBe(201);
    expect(hooks.at('/allow')).toHaveLength(1);
  });
  it('[FINDING S11-MC11] webhook and policy rules without operations, apiGroups or apiVersions (which would match nothing) or with a wildcard among other values are refused as kube-apiserver refuses them', async () => {
    const r = await call(
      server,
      'POST',
      VWC,
      config('Validating', 'rules', [
        hook('rules.example.com', hooks.clientConfig('/deny'), {
          rules: [
            { resources: ['configmaps'] },
            {
              operations: ['CREATE', '*'],
              apiGroups: ['', '*'],
              apiVersions: ['v1', ''],
              resources: ['*', 'configmaps'],
              scope: 'Everywhere',
            },
            { operations: ['PATCH'], apiGroups: [''], apiVersions: ['v1'], resources: ['*/*', 'pods'] },
          ],
        }),
      ]),
    );
    expect(r.status).toBe(422);
    const at = 'webhooks[0].rules';
    expect(r.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      { reason: 'FieldValueRequired', field: `${at}[0].operations`, message: 'Required value' },
      { reason: 'FieldValueRequired', field: `${at}[0].apiGroups`, message: 'Required value' },
      { reason: 'FieldValueRequired', field: `${at}[0].apiVersions`, message: 'Required value' },
      {
        reason: 'FieldValueInvalid',
        field: `${at}[1].operations`,
        message: expect.stringMatching(
          /^Invalid value: .*: if '\*' is present, must not specify other operations$/,
        ),
      },
      {
        reason: 'FieldValueInvalid',
        field: `${at}[1].apiGroups`,
        message: expect.stringMatching(
          /^Invalid value: .*: if '\*' is present, must not specify other API groups$/,
        ),
      },
      { reason: 'FieldValueRequired', field: `${at}[1].apiVersions[1]`, message: 'Required value' },
      {
        reason: 'FieldValueInvalid',
        field: `${at}[1].resources`,
        message: expect.stringMatching(
          /^Invalid value: .*: if '\*' is present, must not specify other resources without subresources$/,
        ),
      },
      {
        reason: 'FieldValueNotSupported',
        field: `${at}[1].scope`,
        message: 'Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
      },
      {
        reason: 'FieldValueNotSupported',
        field: `${at}[2].operations[0]`,
        message: 'Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      },
      {
        reason: 'FieldValueInvalid',
        field: `${at}[2].resources`,
        message: expect.stringMatching(
          /^Invalid value: .*: if '\*\/\*' is present, must not specify other resources$/,
        ),
      },
    ]);
    const p = await call(
      server,
      'POST',
      VAP,
      policy('rules.example.com', {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: 'true' }],
      }),
    );
    expect(p.status).toBe(422);
    expect(p.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        field: 'spec.matchConstraints.resourceRules[0].apiGroups',
        message: 'Required value',
      },
      {
        reason: 'FieldValueRequired',
        field: 'spec.matchConstraints.resourceRules[0].apiVersions',
        message: 'Required value',
      },
    ]);
  });
  it('[FINDING S11-MC13] a policy with an unknown failurePolicy, matchPolicy or reason, or a message with a line break, and a binding with a repeated or unknown action are refused as kube-apiserver refuses them', async () => {
    const r = await call(
      server,
      'POST',
      VAP,
      policy('fields.example.com', {
        failurePolicy: 'Sometimes',
        matchConstraints: { resourceRules: CONFIGMAPS, matchPolicy: 'Loose' },
        validations: [
          { expression: 'true', message: 'first line\nsecond line', reason: 'Conflict' },
          { expression: 'true', message: '   ' },
        ],
      }),
    );
    expect(r.status).toBe(422);
    expect(r.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.failurePolicy',
        message: 'Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
      },
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.matchConstraints.matchPolicy',
        message: 'Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.validations[0].message',
        message: 'Invalid value: "first line\\nsecond line": message must not contain line breaks',
      },
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.validations[0].reason',
        message:
          'Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.validations[1].message',
        message: 'Invalid value: "   ": message must be non-empty if specified',
      },
    ]);
    const b = await call(server, 'POST', VAPB, {
      ...binding('actions', 'x'),
      spec: { policyName: 'x', validationActions: ['Warn', 'Warn', 'Block'] },
    });
    expect(b.status).toBe(422);
    expect(b.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      {
        reason: 'FieldValueDuplicate',
        field: 'spec.validationActions[1]',
        message: 'Duplicate value: "Warn"',
      },
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.validationActions[2]',
        message: 'Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"',
      },
    ]);
  });
  it('[FINDING S11-MC14] a policy with auditAnnotations and no validations is accepted; an annotation that fails to evaluate denies under failurePolicy Fail; invalid ones are refused', async () => {
    await create(
      VAP,
      policy('audit.example.com', {
        failurePolicy: 'Fail',
        auditAnnotations: [{ key: 'owner', valueExpression: "'owner-' + object.data.owner" }],
      }),
    );
    await create(VAPB, binding('audit-binding', 'audit.example.com'));
    expect((await call(server, 'POST', CM, cm('audited', { owner: 'me' }))).status).toBe(201);
    const r = await call(server, 'POST', CM, cm('unaudited', { other: 'x' }));
    expect(r.status).toBe(422);
    expect(r.json().message).toBe(
      `configmaps "unaudited" is forbidden: ValidatingAdmissionPolicy 'audit.example.com' with binding 'audit-binding' denied request: expression ''owner-' + object.data.owner' resulted in error: no such key: owner`,
    );
    const bad = await call(
      server,
      'POST',
      VAP,
      policy('bad-audit.example.com', {
        failurePolicy: 'Fail',
        auditAnnotations: [
          { key: 'Bad Key', valueExpression: "'x'" },
          { key: 'n', valueExpression: '1' },
          { key: 'n', valueExpression: ' ' },
        ],
      }),
    );
    expect(bad.status).toBe(422);
    expect(bad.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.auditAnnotations[0].key',
        message: expect.stringMatching(
          /^Invalid value: "bad-audit.example.com\/Bad Key": name part must consist of/,
        ),
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.auditAnnotations[1].valueExpression',
        message: 'Invalid value: "1": must evaluate to one of [string null_type] but got int',
      },
      {
        reason: 'FieldValueRequired',
        field: 'spec.auditAnnotations[2].valueExpression',
        message: 'Required value: valueExpression is not specified',
      },
      {
        reason: 'FieldValueDuplicate',
        field: 'spec.auditAnnotations[2].key',
        message: 'Duplicate value: "n"',
      },
    ]);
    const none = await call(server, 'POST', VAP, policy('empty.example.com', { failurePolicy: 'Fail' }));
    expect(none.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        field: 'spec.validations',
        message: 'Required value: validations or auditAnnotations must contain at least one item',
      },
      {
        reason: 'FieldValueRequired',
        field: 'spec.auditAnnotations',
        message: 'Required value: validations or auditAnnotations must contain at least one item',
      },
    ]);
  });
  it('[FINDING S11-MC15] a webhook clientConfig with a non-https URL, user info, query or fragment, or a service without name, namespace, valid port or path, is refused with kube-apiserver causes', async () => {
    const r = await call(
      server,
      'POST',
      VWC,
      config('Validating', 'client-configs', [
        hook('http.example.com', { url: 'http://127.0.0.1/x' }),
        hook('parts.example.com', { url: 'https://user:pw@127.0.0.1/x?y=1#frag' }),
        hook('service.example.com', { service: { namespace: '', name: '', path: 'no-slash', port: 0 } }),
        hook('segments.example.com', { service: { namespace: 'ns', name: 'svc', path: '/a//B_c/' } }),
      ]),
    );
    expect(r.status).toBe(422);
    const desired = '; desired format: https://host[/path]';
    expect(r.json<{ details: { causes: unknown[] } }>().details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'webhooks[0].clientConfig.url',
        message: `Invalid value: "http": 'https' is the only allowed URL scheme${desired}`,
      },
      {
        reason: 'FieldValueInvalid',
        field: 'webhooks[1].clientConfig.url',
        message: 'Invalid value: "user:pw": user information is not permitted in the URL',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'webhooks[1].clientConfig.url',
        message: 'Invalid value: "frag": fragments are not permitted in the URL',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'webhooks[1].clientConfig.url',
        message: 'Invalid value: "y=1": query parameters are not permitted in the URL',
      },
      {
        reason: 'FieldValueRequired',
        field: 'webhooks[2].clientConfig.service.name',
        message: 'Required value',
      },
      {
        reason: 'FieldValueRequired',
        field: 'webhooks[2].clientConfig.service.namespace',
        message: 'Required value',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'webhooks[2].clientConfig.service.port',
        message: 'Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'webhooks[2].clientConfig.service.path',
        message: `Invalid value: "no-slash": must start with a '/'`,
      },
      {
        reason: 'FieldValueInvalid',
        field: 'webhooks[3].clientConfig.service.path',
        message: 'Invalid value: "/a//B_c/": segment[1] may not be empty',
      },
      {
        reason: 'FieldValueInvalid',
        field: 'webhooks[3].clientConfig.service.path',
        message: expect.stringMatching(
          /^Invalid value: "\/a\/\/B_c\/": segment\[2\]: a lowercase RFC 1123 subdomain must consist of/,
        ),
      },
    ]);
  });
  it("[FINDING S11-MC16] CEL's request has no namespace for a cluster-scoped object and no subResource for the main resource, as kube-apiserver leaves empty fields out", async () => {
    const namespaces = [
      { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'] },
    ];
    await create(
      VWC,
      config('Validating', 'cluster-scoped', [
        hook('cluster-scoped.example.com', hooks.clientConfig('/deny'), {
          rules: namespaces,
          failurePolicy: 'Fail',
          matchConditions: [{ name: 'not-kube-system', expression: "request.namespace != 'kube-system'" }],
        }),
      ]),
    );
    const ns = await call(server, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'mc16' },
    });
    expect(ns.status).toBe(403);
    expect(ns.json().message).toBe(
      `namespaces "mc16" is forbidden: expression 'request.namespace != 'kube-system'' resulted in error: no such key: namespace`,
    );
    expect(hooks.reviews).toEqual([]);
    await call(server, 'DELETE', VWC);
    await create(
      VAP,
      policy('fields.example.com', {
        failurePolicy: 'Fail',
        validations: [
          {
            expression: '!has(request.subResource) && !has(request.requestSubResource)',
            message: 'a subresource',
          },
        ],
      }),
    );
    await create(VAPB, binding('fields-binding', 'fields.example.com'));
    expect((await call(server, 'POST', CM, cm('named', { a: '1' }))).status).toBe(201);
  });
});
