/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call -- these tests read loosely typed JSON answers */
// Review S10 (RBAC): where the server's authentication and authorization differed from kube-apiserver's.
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { waitFor } from '../../__tests__/http-helper.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SSRR = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';

interface Answer {
  status: number;
  text: string;
  json: () => any;
}

/** One request with any headers (the token is `admin`'s unless `token` is given). */
function send(
  server: KubeApiServer,
  method: string,
  path: string,
  opts: { body?: unknown; token?: string; headers?: Record<string, string | string[]> } = {},
): Promise<Answer> {
  const url = new URL(path, server.url);
  const headers: Record<string, string | string[]> = {
    authorization: `Bearer ${opts.token ?? server.tokenOf()}`,
    ...opts.headers,
  };
  const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method, headers, ca: server.caPem, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

async function created(server: KubeApiServer, path: string, body: unknown): Promise<void> {
  const res = await send(server, 'POST', path, { body });
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
}

const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
const user = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });

describe('review S10: RBAC and authentication against kube-apiserver', () => {
  let server: KubeApiServer;
  const EVE = 'eve-token';
  const ALICE = 'alice-token';
  const GINA = 'gina-token';

  beforeAll(async () => {
    server = await KubeApiServer.start({
      rbac: true,
      users: [
        { name: 'eve', token: EVE },
        { name: 'alice', token: ALICE },
        { name: 'gina', token: GINA },
      ],
    });
    // eve may write Roles and RoleBindings in "default", and read configmaps there; nothing else
    await created(server, `${RBAC}/namespaces/default/roles`, {
      metadata: { name: 'rbac-writer' },
      rules: [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['roles', 'rolebindings'],
          verbs: ['create', 'update', 'get'],
        },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      ],
    });
    await created(server, `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'eve-rbac-writer' },
      roleRef: ref('Role', 'rbac-writer'),
      subjects: [user('eve')],
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[FINDING S10-RB1] a user who may create Roles cannot create one granting permissions they do not hold (403 with kube message)', async () => {
    const res = await send(server, 'POST', `${RBAC}/namespaces/default/roles`, {
      token: EVE,
      body: {
        metadata: { name: 'steal-secrets' },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }],
      },
    });
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      details: { name: 'steal-secrets', group: 'rbac.authorization.k8s.io', kind: 'roles' },
      message:
        'roles.rbac.authorization.k8s.io "steal-secrets" is forbidden: user "eve" (groups=["system:authenticated"]) ' +
        'is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    });
    expect((await send(server, 'GET', `${RBAC}/namespaces/default/roles/steal-secrets`)).status).toBe(404);

    // a Role within what eve holds is fine
    const ok = await send(server, 'POST', `${RBAC}/namespaces/default/roles`, {
      token: EVE,
      body: {
        metadata: { name: 'read-configmaps' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
      },
    });
    expect(ok.status).toBe(201);
  });

  it('[FINDING S10-RB1] an update adding permissions the writer does not hold is refused unless they may escalate that role', async () => {
    await created(server, `${RBAC}/namespaces/default/roles`, {
      metadata: { name: 'grows' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    });
    const current = (await send(server, 'GET', `${RBAC}/namespaces/default/roles/grows`)).json();
    const grown = {
      ...current,
      rules: [...current.rules, { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['update'] }],
    };
    const put = () =>
      send(server, 'PUT', `${RBAC}/namespaces/default/roles/grows`, { token: EVE, body: grown });
    const refused = await put();
    expect(refused.status).toBe(403);
    expect(refused.json().message).toBe(
      'roles.rbac.authorization.k8s.io "grows" is forbidden: user "eve" (groups=["system:authenticated"]) ' +
        'is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:["apps"], Resources:["deployments/scale"], Verbs:["update"]}',
    );
    // a dry run is checked as well
    const dry = await send(server, 'PUT', `${RBAC}/namespaces/default/roles/grows?dryRun=All`, {
      token: EVE,
      body: grown,
    });
    expect(dry.status).toBe(403);

    // `escalate` on that Role (by name: the URL of an update names it) lets eve grow it
    await created(server, `${RBAC}/namespaces/default/roles`, {
      metadata: { name: 'escalate-grows' },
      rules: [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['roles'],
          resourceNames: ['grows'],
          verbs: ['escalate'],
        },
      ],
    });
    await created(server, `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'eve-escalate-grows' },
      roleRef: ref('Role', 'escalate-grows'),
      subjects: [user('eve')],
    });
    const allowed = await put();
    expect(allowed.status).toBe(200);
    expect(allowed.json().rules).toHaveLength(2);
  });

  it('[FINDING S10-RB1] a user who may create RoleBindings cannot bind a role with permissions they do not hold unless they may bind it', async () => {
    const body = {
      metadata: { name: 'eve-is-admin' },
      roleRef: ref('ClusterRole', 'admin'),
      subjects: [user('eve')],
    };
    const res = await send(server, 'POST', `${RBAC}/namespaces/default/rolebindings`, { token: EVE, body });
    expect(res.status).toBe(403);
    const status = res.json();
    expect(status.reason).toBe('Forbidden');
    expect(status.message).toMatch(
      /^rolebindings\.rbac\.authorization\.k8s\.io "eve-is-admin" is forbidden: user "eve" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/,
    );
    expect((await send(server, 'GET', `${RBAC}/namespaces/default/rolebindings/eve-is-admin`)).status).toBe(
      404,
    );

    // with `bind` on that ClusterRole (in this namespace) the binding is accepted
    await created(server, `${RBAC}/namespaces/default/roles`, {
      metadata: { name: 'bind-admin' },
      rules: [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['clusterroles'],
          resourceNames: ['admin'],
          verbs: ['bind'],
        },
      ],
    });
    await created(server, `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'eve-bind-admin' },
      roleRef: ref('Role', 'bind-admin'),
      subjects: [user('eve')],
    });
    const again = await send(server, 'POST', `${RBAC}/namespaces/default/rolebindings`, { token: EVE, body });
    expect(again.status).toBe(201);
  });

  it("[FINDING S10-RB3] a 403 names the role a binding of the user refers to that does not exist, as kube-apiserver appends RBAC's reason", async () => {
    await created(server, `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'alice-dangling' },
      roleRef: ref('ClusterRole', 'no-such-role'),
      subjects: [user('alice')],
    });
    const res = await send(server, 'GET', '/api/v1/namespaces/default/secrets/s1', { token: ALICE });
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({
      reason: 'Forbidden',
      details: { name: 's1', group: '', kind: 'secrets' },
      message:
        'secrets "s1" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "default": ' +
        'RBAC: clusterrole.rbac.authorization.k8s.io "no-such-role" not found',
    });
    // elsewhere the binding does not apply: no reason
    const other = await send(server, 'GET', '/api/v1/namespaces/kube-system/secrets/s1', { token: ALICE });
    expect(other.json().message).toBe(
      'secrets "s1" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "kube-system"',
    );
    expect(
      (await send(server, 'DELETE', `${RBAC}/namespaces/default/rolebindings/alice-dangling`)).status,
    ).toBe(200);
  });

  it('[FINDING S10-RB4] a list or watch of one object by fieldSelector=metadata.name is allowed by a rule naming it (resourceNames), as in kube', async () => {
    await created(server, `${RBAC}/namespaces/default/roles`, {
      metadata: { name: 'one-configmap' },
      rules: [
        {
          apiGroups: [''],
          resources: ['configmaps'],
          resourceNames: ['cfg'],
          verbs: ['get', 'list', 'watch'],
        },
      ],
    });
    await created(server, `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'gina-one-configmap' },
      roleRef: ref('Role', 'one-configmap'),
      subjects: [user('gina')],
    });
    await created(server, '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'cfg' },
      data: { a: '1' },
    });
    const base = '/api/v1/namespaces/default/configmaps';

    const list = await send(
      server,
      'GET',
      `${base}?fieldSelector=${encodeURIComponent('metadata.name=cfg')}`,
      {
        token: GINA,
      },
    );
    expect(list.status).toBe(200);
    expect(list.json().items.map((i: any) => i.metadata.name)).toEqual(['cfg']);
    // what client-go's informer for one object sends: a watch with the same selector
    const rv = list.json().metadata.resourceVersion as string;
    const watch = await send(
      server,
      'GET',
      `${base}?watch=true&timeoutSeconds=1&resourceVersion=${rv}&fieldSelector=${encodeURIComponent('metadata.name==cfg')}`,
      { token: GINA },
    );
    expect(watch.status).toBe(200);
    expect(
      (
        await send(server, 'POST', SSAR, {
          token: GINA,
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: {
              resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'default', name: 'cfg' },
            },
          },
        })
      ).json().status.allowed,
    ).toBe(true);

    // another name, or no name, is still refused; kube names the selected object in the message
    const other = await send(
      server,
      'GET',
      `${base}?fieldSelector=${encodeURIComponent('metadata.name=other')}`,
      {
        token: GINA,
      },
    );
    expect(other.status).toBe(403);
    expect(other.json().message).toBe(
      'configmaps "other" is forbidden: User "gina" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    expect((await send(server, 'GET', base, { token: GINA })).status).toBe(403);
    expect(
      (
        await send(server, 'GET', `${base}?fieldSelector=${encodeURIComponent('metadata.name!=other')}`, {
          token: GINA,
        })
      ).status,
    ).toBe(403);
  });

  it('[FINDING S10-RB5] a SelfSubjectRulesReview needs spec.namespace (400 as in kube), and a missing role is an evaluationError, not incomplete', async () => {
    const review = (namespace: string | undefined, token?: string) =>
      send(server, 'POST', SSRR, {
        token,
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectRulesReview',
          spec: namespace === undefined ? {} : { namespace },
        },
      });
    for (const token of [EVE, undefined]) {
      const res = await review(undefined, token);
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({
        kind: 'Status',
        reason: 'BadRequest',
        code: 400,
        message: 'no namespace on request',
      });
    }

    await created(server, `${RBAC}/namespaces/kube-public/rolebindings`, {
      metadata: { name: 'eve-dangling' },
      roleRef: ref('Role', 'no-such-role'),
      subjects: [user('eve')],
    });
    const status = (await review('kube-public', EVE)).json().status;
    // kube's RBAC rule resolver reports what it could not resolve as an error, with incomplete false
    expect(status.incomplete).toBe(false);
    expect(status.evaluationError).toBe('role.rbac.authorization.k8s.io "no-such-role" not found');
    expect(status.resourceRules).toContainEqual({
      verbs: ['create'],
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    });
  });

  it("[FINDING S10-RB6] an aggregated ClusterRole's stored rules follow the ClusterRoles its aggregationRule selects (kubectl get clusterrole view shows a CRD's rules)", async () => {
    const crRule = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] };
    const rulesOf = async (name: string) =>
      (await send(server, 'GET', `${RBAC}/clusterroles/${name}`)).json().rules as unknown[];
    await created(server, `${RBAC}/clusterroles`, {
      metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
      rules: [crRule],
    });
    // view aggregates it, edit aggregates view, admin aggregates edit (as the controller of kube does, in turn)
    for (const name of ['view', 'edit', 'admin'])
      await waitFor(
        async () => (await rulesOf(name)).some((r) => JSON.stringify(r) === JSON.stringify(crRule)),
        5000,
      );

    // an aggregated role of one's own, its rules per selector in the order of the selected roles' names
    await created(server, `${RBAC}/clusterroles`, {
      metadata: { name: 'b-part', labels: { team: 'x' } },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    });
    await created(server, `${RBAC}/clusterroles`, {
      metadata: { name: 'a-part', labels: { team: 'x' } },
      rules: [
        { apiGroups: [''], resources: ['services'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      ],
    });
    await created(server, `${RBAC}/clusterroles`, {
      metadata: { name: 'team-x' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: 'x' } }] },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }],
    });
    await waitFor(
      async () =>
        JSON.stringify(await rulesOf('team-x')) ===
        JSON.stringify([
          { apiGroups: [''], resources: ['services'], verbs: ['get'] },
          { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        ]),
      5000,
    );
    // a selected role going away leaves the aggregate
    expect((await send(server, 'DELETE', `${RBAC}/clusterroles/a-part`)).status).toBe(200);
    await waitFor(
      async () =>
        JSON.stringify(await rulesOf('team-x')) ===
        JSON.stringify([{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]),
      5000,
    );
    const view = (await send(server, 'GET', `${RBAC}/clusterroles/view`)).json();
    expect(view.metadata.managedFields.map((f: any) => f.manager)).toContain(
      'clusterrole-aggregation-controller',
    );
  });

  it('[FINDING S10-RB7] for system:masters the access review has no reason and the rules review lists the rules of its bindings, as kube answers (kubectl auth can-i --list)', async () => {
    const access = await send(server, 'POST', SSAR, {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { verb: 'delete', resource: 'nodes' } },
      },
    });
    // kube's privileged-group authorizer allows with an empty reason
    expect(access.json().status).toEqual({ allowed: true });

    const rules = (
      await send(server, 'POST', SSRR, {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectRulesReview',
          spec: { namespace: 'default' },
        },
      })
    ).json().status;
    // cluster-admin's rules come from its binding to system:masters, once; the bindings of
    // system:authenticated (system:basic-user, system:discovery, ...) apply too
    expect(
      rules.resourceRules.filter(
        (r: any) =>
          JSON.stringify(r) === JSON.stringify({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }),
      ),
    ).toHaveLength(1);
    expect(
      rules.nonResourceRules.filter(
        (r: any) => JSON.stringify(r) === JSON.stringify({ verbs: ['*'], nonResourceURLs: ['*'] }),
      ),
    ).toHaveLength(1);
    expect(rules.resourceRules).toContainEqual({
      verbs: ['create'],
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    });
    expect(rules.incomplete).toBe(false);
  });

  it('[FINDING S10-RB8] a SelfSubjectAccessReview with both resourceAttributes and nonResourceAttributes is invalid (422), not answered', async () => {
    const review = (spec: unknown) =>
      send(server, 'POST', SSAR, {
        token: EVE,
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec },
      });
    const both = await review({
      resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' },
      nonResourceAttributes: { verb: 'get', path: '/healthz' },
    });
    expect(both.status).toBe(422);
    expect(both.json()).toMatchObject({
      reason: 'Invalid',
      message:
        'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: ' +
        'authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: cannot be specified in combination with resourceAttributes',
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'spec.nonResourceAttributes' }] },
    });
    const neither = await review({});
    expect(neither.status).toBe(422);
    expect(neither.json().message).toBe(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": ' +
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  });

  describe('impersonation (kubectl --as, --as-group, --as-uid)', () => {
    const canI = async (
      attrs: Record<string, string>,
      headers: Record<string, string | string[]>,
      token?: string,
    ) => {
      const res = await send(server, 'POST', SSAR, {
        token,
        headers,
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: attrs },
        },
      });
      expect(res.status).toBe(201);
      return res.json().status.allowed as boolean;
    };

    beforeAll(async () => {
      // the service accounts of "default" may list pods there; alice may impersonate the service account "op" only
      await created(server, `${RBAC}/namespaces/default/roles`, {
        metadata: { name: 'pod-reader' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
      });
      await created(server, `${RBAC}/namespaces/default/rolebindings`, {
        metadata: { name: 'sas-read-pods' },
        roleRef: ref('Role', 'pod-reader'),
        subjects: [
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:serviceaccounts:default' },
        ],
      });
      await created(server, `${RBAC}/namespaces/default/roles`, {
        metadata: { name: 'impersonate-op' },
        rules: [
          { apiGroups: [''], resources: ['serviceaccounts'], resourceNames: ['op'], verbs: ['impersonate'] },
        ],
      });
      await created(server, `${RBAC}/namespaces/default/rolebindings`, {
        metadata: { name: 'alice-impersonates-op' },
        roleRef: ref('Role', 'impersonate-op'),
        subjects: [user('alice')],
      });
    });

    it('[FINDING S10-RB2] a request of system:masters impersonating a user runs as that user (403 with that user in the message)', async () => {
      const res = await send(server, 'GET', '/api/v1/namespaces/default/secrets', {
        headers: { 'Impersonate-User': 'carol' },
      });
      expect(res.status).toBe(403);
      expect(res.json()).toMatchObject({
        kind: 'Status',
        reason: 'Forbidden',
        code: 403,
        message:
          'secrets is forbidden: User "carol" cannot list resource "secrets" in API group "" in the namespace "default"',
      });
      // kubectl auth can-i --as=carol
      expect(
        await canI(
          { verb: 'list', resource: 'secrets', namespace: 'default' },
          { 'Impersonate-User': 'carol' },
        ),
      ).toBe(false);
      expect(server.requests.log.at(-1)?.user).toBe('carol');
    });

    it('[FINDING S10-RB2] impersonating a service account gives its groups and needs impersonate on that service account', async () => {
      const asOp = { 'Impersonate-User': 'system:serviceaccount:default:op' };
      const list = await send(server, 'GET', '/api/v1/namespaces/default/pods', {
        token: ALICE,
        headers: asOp,
      });
      expect(list.status).toBe(200);
      expect(await canI({ verb: 'list', resource: 'pods', namespace: 'default' }, asOp, ALICE)).toBe(true);
      expect(await canI({ verb: 'list', resource: 'pods', namespace: 'kube-system' }, asOp, ALICE)).toBe(
        false,
      );
      const rules = await send(server, 'POST', SSRR, {
        token: ALICE,
        headers: asOp,
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectRulesReview',
          spec: { namespace: 'default' },
        },
      });
      expect(rules.json().status.resourceRules).toContainEqual({
        verbs: ['list'],
        apiGroups: [''],
        resources: ['pods'],
      });

      const other = await send(server, 'GET', '/api/v1/namespaces/default/pods', {
        token: ALICE,
        headers: { 'Impersonate-User': 'system:serviceaccount:default:other' },
      });
      expect(other.status).toBe(403);
      expect(other.json()).toMatchObject({
        reason: 'Forbidden',
        details: { name: 'other', group: '', kind: 'serviceaccounts' },
        message:
          'serviceaccounts "other" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "default"',
      });
    });

    it("[FINDING S10-RB2] impersonating a user or a group one may not impersonate is refused with kube's message", async () => {
      const asBob = await send(server, 'GET', '/api/v1/namespaces/default/configmaps', {
        token: ALICE,
        headers: { 'Impersonate-User': 'bob' },
      });
      expect(asBob.status).toBe(403);
      expect(asBob.json().message).toBe(
        'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
      );
      const withGroup = await send(server, 'GET', '/api/v1/namespaces/default/pods', {
        token: ALICE,
        headers: {
          'Impersonate-User': 'system:serviceaccount:default:op',
          'Impersonate-Group': 'system:masters',
        },
      });
      expect(withGroup.status).toBe(403);
      expect(withGroup.json().message).toBe(
        'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
      );
      const withUid = await send(server, 'GET', '/api/v1/namespaces/default/pods', {
        token: ALICE,
        headers: { 'Impersonate-User': 'system:serviceaccount:default:op', 'Impersonate-Uid': 'u-1' },
      });
      expect(withUid.status).toBe(403);
      expect(withUid.json().message).toBe(
        'uids.authentication.k8s.io "u-1" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
      );
    });

    it("[FINDING S10-RB2] impersonated groups replace the requester's: system:masters may act as a member of a group", async () => {
      const headers = {
        'Impersonate-User': 'dan',
        'Impersonate-Group': ['system:serviceaccounts:default', 'team'],
      };
      expect(await canI({ verb: 'list', resource: 'pods', namespace: 'default' }, headers)).toBe(true);
      expect(await canI({ verb: 'list', resource: 'secrets', namespace: 'default' }, headers)).toBe(false);
    });

    it('[FINDING S10-RB2] Impersonate-Group without Impersonate-User is an error, not ignored', async () => {
      const res = await send(server, 'GET', '/api/v1/namespaces/default/pods', {
        headers: { 'Impersonate-Group': 'team' },
      });
      expect(res.status).toBe(500);
      expect(res.text).toContain('without impersonating a user');
    });
  });
});
