import { describe, expect, it } from '@jest/globals';
import { rulesFor } from '../index.js';
import { clusterRole, clusterRoleBinding, rbac, role, roleBinding } from './fixtures.js';

describe('rulesFor (SelfSubjectRulesReview)', () => {
  const objects = rbac({
    clusterRoles: [
      clusterRole('view', [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      ]),
      clusterRole('named', [
        { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
      ]),
    ],
    roles: [
      role('team', 'leases', [{ verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] }]),
    ],
    clusterRoleBindings: [
      clusterRoleBinding('all-view', 'view', [{ kind: 'Group', name: 'system:authenticated' }]),
    ],
    roleBindings: [
      roleBinding('team', 'leases', 'Role', 'leases', [{ kind: 'User', name: 'alice' }]),
      roleBinding('team', 'named', 'ClusterRole', 'named', [{ kind: 'User', name: 'alice' }]),
      roleBinding('other', 'leases', 'ClusterRole', 'named', [{ kind: 'User', name: 'alice' }]),
    ],
  });

  it('lists cluster-wide and namespace rules, split by kind', () => {
    expect(rulesFor('alice', ['system:authenticated'], 'team', objects)).toEqual({
      resourceRules: [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
        { verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] },
        { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
      ],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
    });
  });

  it('another namespace: only the cluster-wide rules', () => {
    const status = rulesFor('alice', ['system:authenticated'], 'elsewhere', objects);
    expect(status.resourceRules).toEqual([
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
    ]);
  });

  it('anonymous users get nothing from system:authenticated', () => {
    expect(rulesFor('system:anonymous', ['system:unauthenticated'], 'team', objects)).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
    });
  });

  it("a binding to a missing role is an evaluationError (kube's RBAC resolver leaves incomplete false)", () => {
    const broken = rbac({
      roleBindings: [roleBinding('team', 'b', 'Role', 'gone', [{ kind: 'User', name: 'alice' }])],
    });
    expect(rulesFor('alice', ['system:authenticated'], 'team', broken)).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
      evaluationError: 'role.rbac.authorization.k8s.io "gone" not found',
    });
  });

  it("system:masters: the rules of its bindings (cluster-admin's), none of its own, as kube lists them", () => {
    expect(rulesFor('admin', ['system:masters'], 'team', rbac({}))).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false,
    });
    const bootstrap = rbac({
      clusterRoles: [
        clusterRole('cluster-admin', [
          { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
          { nonResourceURLs: ['*'], verbs: ['*'] },
        ]),
      ],
      clusterRoleBindings: [
        clusterRoleBinding('cluster-admin', 'cluster-admin', [{ kind: 'Group', name: 'system:masters' }]),
      ],
    });
    const status = rulesFor('admin', ['system:masters'], 'team', bootstrap);
    expect(status.resourceRules).toEqual([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    expect(status.nonResourceRules).toEqual([{ verbs: ['*'], nonResourceURLs: ['*'] }]);
  });
});
