// Review S11 (RBAC): the groups a request acts with. kube-apiserver adds a service account's groups
// and system:authenticated when it authenticates (the token authenticator, the authenticated-group
// adder) and, for an impersonated user, in the impersonation filter, where groups named by
// Impersonate-Group are the authority: the authorizer then uses the groups as they are.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeApiServer } from '../../server.js';
import { call, created } from '../../__tests__/http-helper.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const SSRR = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
const group = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name });

describe('review S11: the groups of an impersonated or authenticated user', () => {
  let server: KubeApiServer;
  const OP_TOKEN = 'op-sa-token';

  beforeAll(async () => {
    server = await KubeApiServer.start({
      rbac: true,
      users: [{ name: 'system:serviceaccount:default:op', token: OP_TOKEN }],
    });
    // pods for every service account of "default", configmaps for every authenticated user
    await created(server, `${RBAC}/clusterroles`, {
      metadata: { name: 's11-pods' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
    });
    await created(server, `${RBAC}/clusterrolebindings`, {
      metadata: { name: 's11-pods-for-default-sas' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 's11-pods' },
      subjects: [group('system:serviceaccounts:default')],
    });
    await created(server, `${RBAC}/clusterroles`, {
      metadata: { name: 's11-configmaps' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
    });
    await created(server, `${RBAC}/clusterrolebindings`, {
      metadata: { name: 's11-configmaps-for-authenticated' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 's11-configmaps' },
      subjects: [group('system:authenticated')],
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('[FINDING S11-RB1] impersonating a service account with Impersonate-Group acts with those groups only (not the service account’s): 403', async () => {
    const headers = {
      'Impersonate-User': 'system:serviceaccount:default:op',
      'Impersonate-Group': 'devs',
    };
    const res = await call(server, 'GET', '/api/v1/namespaces/default/pods', undefined, { headers });
    expect(res.status).toBe(403);
    expect(res.json<{ message: string }>().message).toBe(
      'pods is forbidden: User "system:serviceaccount:default:op" cannot list resource "pods" in API group "" in the namespace "default"',
    );
    // the groups named (and system:authenticated) are the ones its rules come from
    const rules = await call(
      server,
      'POST',
      SSRR,
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectRulesReview',
        spec: { namespace: 'default' },
      },
      { headers },
    );
    const resources = rules
      .json<{ status: { resourceRules: { resources: string[] }[] } }>()
      .status.resourceRules.flatMap((r) => r.resources);
    expect(resources).toContain('configmaps');
    expect(resources).not.toContain('pods');
  });

  it('[FINDING S11-RB1] impersonating a user in system:unauthenticated does not add system:authenticated: 403', async () => {
    const res = await call(server, 'GET', '/api/v1/namespaces/default/configmaps', undefined, {
      headers: { 'Impersonate-User': 'carol', 'Impersonate-Group': 'system:unauthenticated' },
    });
    expect(res.status).toBe(403);
    expect(res.json<{ message: string }>().message).toBe(
      'configmaps is forbidden: User "carol" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
  });

  it('a service account impersonated without groups, and one authenticated by its token, get its groups and system:authenticated', async () => {
    const asOp = await call(server, 'GET', '/api/v1/namespaces/default/pods', undefined, {
      headers: { 'Impersonate-User': 'system:serviceaccount:default:op' },
    });
    expect(asOp.status).toBe(200);
    for (const path of ['/api/v1/namespaces/default/pods', '/api/v1/namespaces/default/configmaps']) {
      const byToken = await call(server, 'GET', path, undefined, { token: OP_TOKEN });
      expect([path, byToken.status]).toEqual([path, 200]);
    }
    const elsewhere = await call(server, 'GET', '/api/v1/namespaces/kube-system/pods', undefined, {
      headers: { 'Impersonate-User': 'system:serviceaccount:kube-system:op', 'Impersonate-Group': 'x' },
    });
    expect(elsewhere.status).toBe(403);
  });
});
