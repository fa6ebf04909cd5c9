/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
// Review S10 (RBAC): where the server's authentication and authorization differed from kube-apiserver's.
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

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

  beforeAll(async () => {
    server = await KubeApiServer.start({
      rbac: true,
      users: [
        { name: 'eve', token: EVE },
        { name: 'alice', token: ALICE },
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
});
