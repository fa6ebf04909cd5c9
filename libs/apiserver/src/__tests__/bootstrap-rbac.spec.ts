/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- these tests read loosely typed JSON answers */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../server.js';
import { call } from './http-helper.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const DAVE = { token: 'dave-token' };

describe('KubeApiServer bootstrap RBAC policy', () => {
  let server: KubeApiServer;
  beforeAll(async () => {
    server = await KubeApiServer.start({ rbac: true, users: [{ name: 'dave', token: 'dave-token' }] });
  });
  afterAll(async () => {
    await server.stop();
  });

  const rulesReview = async (namespace: string): Promise<any> =>
    (
      await call(
        server,
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
        { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } },
        DAVE,
      )
    ).json<any>().status;
  const canI = async (attrs: Record<string, string>, nonResource = false): Promise<boolean> => {
    const spec = nonResource ? { nonResourceAttributes: attrs } : { resourceAttributes: attrs };
    const res = await call(
      server,
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec },
      DAVE,
    );
    expect(res.status).toBe(201);
    return res.json<any>().status.allowed as boolean;
  };

  it('[AS-RBAC-BOOTSTRAP] the cluster roles and bindings of a real cluster exist at start', async () => {
    const roles = (await call(server, 'GET', `${RBAC}/clusterroles`)).json<any>().items as any[];
    const names = roles.map((r) => r.metadata.name as string);
    for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery'])
      expect(names).toContain(n);
    const bindings = (await call(server, 'GET', `${RBAC}/clusterrolebindings`)).json<any>().items as any[];
    const subjectsOf = (name: string) => bindings.find((b) => b.metadata.name === name)?.subjects;
    expect(subjectsOf('cluster-admin')).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' },
    ]);
    for (const n of ['system:basic-user', 'system:discovery'])
      expect(subjectsOf(n)).toEqual([
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' },
      ]);
    const view = roles.find((r) => r.metadata.name === 'view');
    expect(view.aggregationRule.clusterRoleSelectors).toEqual([
      { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
    ]);
  });

  it('[AS-RBAC-BOOTSTRAP] an authenticated user without bindings may discover and review itself, nothing else', async () => {
    for (const path of ['/api', '/api/v1', '/apis', '/apis/apps/v1', '/version', '/openapi/v2'])
      expect([path, (await call(server, 'GET', path, undefined, DAVE)).status]).toEqual([path, 200]);
    expect(await canI({ verb: 'list', resource: 'configmaps', namespace: 'default' })).toBe(false);
    expect(await canI({ verb: 'get', path: '/apis' }, true)).toBe(true);
    expect(await canI({ verb: 'get', path: '/metrics' }, true)).toBe(false);
    const status = await rulesReview('default');
    expect(status.incomplete).toBe(false);
    expect(status.resourceRules).toEqual([
      {
        verbs: ['create'],
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      },
      { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
    ]);
    const urls = (status.nonResourceRules as any[]).flatMap((r) => r.nonResourceURLs as string[]);
    expect(urls).toEqual(expect.arrayContaining(['/api', '/apis/*', '/openapi/*', '/version']));
  });

  it('[AS-RBAC-BOOTSTRAP] binding view or edit in a namespace grants their aggregated rules there', async () => {
    const bind = (name: string, role: string) =>
      call(server, 'POST', `${RBAC}/namespaces/default/rolebindings`, {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'User', name: 'dave' }],
      });
    expect((await bind('dave-view', 'view')).status).toBe(201);
    expect(await canI({ verb: 'list', group: 'apps', resource: 'deployments', namespace: 'default' })).toBe(
      true,
    );
    expect(await canI({ verb: 'list', resource: 'configmaps', namespace: 'kube-system' })).toBe(false);
    expect(await canI({ verb: 'create', resource: 'configmaps', namespace: 'default' })).toBe(false);
    expect(await canI({ verb: 'get', resource: 'secrets', namespace: 'default' })).toBe(false);
    const denied = await call(
      server,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      { metadata: { name: 'x' } },
      DAVE,
    );
    expect(denied.status).toBe(403);
    const viewRules = (await rulesReview('default')).resourceRules as any[];
    expect(viewRules.some((r) => r.apiGroups.includes('apps') && r.resources.includes('deployments'))).toBe(
      true,
    );
    expect((await bind('dave-edit', 'edit')).status).toBe(201);
    expect(
      (await call(server, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } }, DAVE))
        .status,
    ).toBe(201);
    expect(await canI({ verb: 'get', resource: 'secrets', namespace: 'default' })).toBe(true);
    expect(
      await canI({
        verb: 'create',
        group: 'rbac.authorization.k8s.io',
        resource: 'roles',
        namespace: 'default',
      }),
    ).toBe(false);
  });

  it('[AS-RBAC-BOOTSTRAP] without system:discovery discovery is forbidden; restart() re-creates the deleted bootstrap binding', async () => {
    expect((await call(server, 'DELETE', `${RBAC}/clusterrolebindings/system:discovery`)).status).toBe(200);
    const denied = await call(server, 'GET', '/apis', undefined, DAVE);
    expect(denied.status).toBe(403);
    expect(denied.json<any>().message).toBe('forbidden: User "dave" cannot get path "/apis"');
    await server.faults.restart();
    expect((await call(server, 'GET', `${RBAC}/clusterrolebindings/system:discovery`)).status).toBe(200);
    expect((await call(server, 'GET', '/apis', undefined, DAVE)).status).toBe(200);
    expect((await call(server, 'GET', `${RBAC}/clusterroles/cluster-admin`)).status).toBe(200);
  });
});
