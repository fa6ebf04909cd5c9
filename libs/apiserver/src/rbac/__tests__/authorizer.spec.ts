import { describe, expect, it } from '@jest/globals';
import type { AuthorizationAttributes } from '../index.js';
import { authorize, effectiveGroups } from '../index.js';
import { clusterRole, clusterRoleBinding, rbac, role, roleBinding } from './fixtures.js';

type Case = [title: string, attrs: Partial<AuthorizationAttributes>, allowed: boolean];

/** A request's attributes; its groups as authentication makes them (the authorizer adds none). */
function attrs(a: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  const all: AuthorizationAttributes = {
    user: 'alice',
    groups: [],
    verb: 'get',
    apiGroup: '',
    resource: 'configmaps',
    namespace: 'default',
    ...a,
  };
  return { ...all, groups: effectiveGroups(all.user, all.groups) };
}

describe('authorize: bindings and scope', () => {
  const objects = rbac({
    clusterRoles: [
      clusterRole('cm-reader', [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] },
      ]),
      clusterRole('node-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] }]),
      clusterRole('lease-editor', [
        { verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] },
      ]),
    ],
    roles: [
      role('team', 'secret-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]),
      role('other', 'secret-writer', [{ verbs: ['create'], apiGroups: [''], resources: ['secrets'] }]),
    ],
    clusterRoleBindings: [
      clusterRoleBinding('nodes-to-bob', 'node-reader', [{ kind: 'User', name: 'bob' }]),
      clusterRoleBinding('leases-to-ops', 'lease-editor', [{ kind: 'Group', name: 'ops' }]),
      // A ClusterRoleBinding to a Role refers to nothing.
      clusterRoleBinding('crb-to-role', 'secret-reader', [{ kind: 'User', name: 'eve' }], 'Role'),
    ],
    roleBindings: [
      roleBinding('team', 'cm-to-alice', 'ClusterRole', 'cm-reader', [{ kind: 'User', name: 'alice' }]),
      roleBinding('team', 'secrets-to-alice', 'Role', 'secret-reader', [{ kind: 'User', name: 'alice' }]),
      // Refers to a Role of another namespace: RoleBindings only see Roles of their own namespace.
      roleBinding('team', 'foreign-role', 'Role', 'secret-writer', [{ kind: 'User', name: 'alice' }]),
    ],
  });

  const cases: Case[] = [
    ['RoleBinding to a ClusterRole grants in its namespace', { namespace: 'team', verb: 'list' }, true],
    ['... and not in another namespace', { namespace: 'default', verb: 'list' }, false],
    [
      '... and not at the cluster scope (list across namespaces)',
      { namespace: undefined, verb: 'list' },
      false,
    ],
    ['... and not other verbs', { namespace: 'team', verb: 'delete', name: 'x' }, false],
    ['... and not other users', { user: 'mallory', namespace: 'team', verb: 'list' }, false],
    [
      'RoleBinding to a Role of its namespace grants',
      { namespace: 'team', resource: 'secrets', name: 's' },
      true,
    ],
    [
      'RoleBinding to a Role of another namespace grants nothing',
      { namespace: 'team', resource: 'secrets', verb: 'create' },
      false,
    ],
    [
      'ClusterRoleBinding grants at the cluster scope',
      { user: 'bob', resource: 'nodes', namespace: undefined, verb: 'list' },
      true,
    ],
    [
      'ClusterRoleBinding grants in every namespace',
      { user: 'bob', resource: 'nodes', namespace: 'any', verb: 'get' },
      true,
    ],
    [
      'Group subject',
      { user: 'op', groups: ['ops'], apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'ns' },
      true,
    ],
    [
      'Group subject, user not in the group',
      { user: 'op', groups: ['dev'], apiGroup: 'coordination.k8s.io', resource: 'leases' },
      false,
    ],
    ['the API group must match', { user: 'op', groups: ['ops'], apiGroup: '', resource: 'leases' }, false],
    [
      'ClusterRoleBinding to a Role grants nothing',
      { user: 'eve', resource: 'secrets', namespace: 'team' },
      false,
    ],
    [
      'a user name is not a group name',
      { user: 'ops', groups: [], apiGroup: 'coordination.k8s.io', resource: 'leases' },
      false,
    ],
  ];
  it.each(cases)('%s', (_title, a, allowed) => {
    expect(authorize(attrs(a), objects).allowed).toBe(allowed);
  });

  it('says which binding allowed, in RBAC words', () => {
    expect(authorize(attrs({ namespace: 'team', verb: 'list' }), objects).reason).toBe(
      'RBAC: allowed by RoleBinding "cm-to-alice/team" of ClusterRole "cm-reader" to User "alice"',
    );
    expect(authorize(attrs({ user: 'bob', resource: 'nodes', namespace: undefined }), objects).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "nodes-to-bob" of ClusterRole "node-reader" to User "bob"',
    );
  });

  it('a denial has no reason unless a binding that applies refers to a missing role', () => {
    expect(authorize(attrs({ user: 'bob', verb: 'delete' }), objects)).toEqual({
      allowed: false,
      reason: '',
    });
    expect(authorize(attrs({ user: 'eve', resource: 'pods' }), objects)).toEqual({
      allowed: false,
      reason: 'RBAC: role.rbac.authorization.k8s.io "secret-reader" not found',
    });
    const missing = rbac({
      clusterRoleBindings: [clusterRoleBinding('a', 'gone', [{ kind: 'User', name: 'alice' }])],
      roleBindings: [roleBinding('default', 'b', 'Role', 'gone-too', [{ kind: 'User', name: 'alice' }])],
    });
    expect(authorize(attrs({}), missing).reason).toBe(
      'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "gone-too" not found]',
    );
  });

  it('no RBAC objects: nothing is allowed', () => {
    expect(authorize(attrs({}), rbac({})).allowed).toBe(false);
  });

  it('system:masters may do anything, with no objects at all', () => {
    const decision = authorize(
      attrs({ user: 'admin', groups: ['system:masters'], verb: 'escalate', resource: 'x' }),
      rbac({}),
    );
    expect(decision.allowed).toBe(true);
    expect(
      authorize(attrs({ user: 'admin', groups: ['system:masters'], nonResourceURL: '/metrics' }), rbac({}))
        .allowed,
    ).toBe(true);
  });
});

describe('authorize: subjects', () => {
  const reader = clusterRole('reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]);
  const sa = 'system:serviceaccount:ops:operator';
  const cases: Array<
    [
      title: string,
      binding: 'crb' | 'rb',
      subject: Record<string, string>,
      a: Partial<AuthorizationAttributes>,
      allowed: boolean,
    ]
  > = [
    [
      'ServiceAccount with namespace in a ClusterRoleBinding',
      'crb',
      { kind: 'ServiceAccount', name: 'operator', namespace: 'ops' },
      { user: sa },
      true,
    ],
    [
      'ServiceAccount of another namespace',
      'crb',
      { kind: 'ServiceAccount', name: 'operator', namespace: 'dev' },
      { user: sa },
      false,
    ],
    [
      'ServiceAccount without namespace in a ClusterRoleBinding matches nobody',
      'crb',
      { kind: 'ServiceAccount', name: 'operator' },
      { user: sa },
      false,
    ],
    [
      'ServiceAccount without namespace in a RoleBinding means the binding namespace',
      'rb',
      { kind: 'ServiceAccount', name: 'operator' },
      { user: sa, namespace: 'ops' },
      true,
    ],
    [
      'a user named like the ServiceAccount is not it',
      'crb',
      { kind: 'ServiceAccount', name: 'operator', namespace: 'ops' },
      { user: 'operator' },
      false,
    ],
    [
      'group system:serviceaccounts holds every ServiceAccount',
      'crb',
      { kind: 'Group', name: 'system:serviceaccounts' },
      { user: sa },
      true,
    ],
    [
      '... but not a plain user',
      'crb',
      { kind: 'Group', name: 'system:serviceaccounts' },
      { user: 'alice' },
      false,
    ],
    [
      'group system:serviceaccounts:<ns>',
      'crb',
      { kind: 'Group', name: 'system:serviceaccounts:ops' },
      { user: sa },
      true,
    ],
    [
      'group system:serviceaccounts:<other ns>',
      'crb',
      { kind: 'Group', name: 'system:serviceaccounts:dev' },
      { user: sa },
      false,
    ],
    [
      'group system:authenticated holds every user',
      'crb',
      { kind: 'Group', name: 'system:authenticated' },
      { user: 'alice' },
      true,
    ],
    [
      '... but not system:anonymous',
      'crb',
      { kind: 'Group', name: 'system:authenticated' },
      { user: 'system:anonymous' },
      false,
    ],
    [
      'system:anonymous is in system:unauthenticated',
      'crb',
      { kind: 'Group', name: 'system:unauthenticated' },
      { user: 'system:anonymous' },
      true,
    ],
    ['User subject', 'crb', { kind: 'User', name: 'alice' }, {}, true],
    ['an unknown subject kind matches nobody', 'crb', { kind: 'Robot', name: 'alice' }, {}, false],
  ];
  it.each(cases)('%s', (_title, kind, subject, a, allowed) => {
    const objects = rbac({
      clusterRoles: [reader],
      clusterRoleBindings: kind === 'crb' ? [clusterRoleBinding('b', 'reader', [subject as never])] : [],
      roleBindings:
        kind === 'rb' ? [roleBinding('ops', 'b', 'ClusterRole', 'reader', [subject as never])] : [],
    });
    expect(authorize(attrs({ namespace: 'ops', ...a }), objects).allowed).toBe(allowed);
  });

  it('describes a ServiceAccount subject as name/namespace', () => {
    const objects = rbac({
      clusterRoles: [reader],
      roleBindings: [
        roleBinding('ops', 'b', 'ClusterRole', 'reader', [{ kind: 'ServiceAccount', name: 'operator' }]),
      ],
    });
    expect(authorize(attrs({ user: sa, namespace: 'ops' }), objects).reason).toBe(
      'RBAC: allowed by RoleBinding "b/ops" of ClusterRole "reader" to ServiceAccount "operator/ops"',
    );
  });
});

describe('authorize: rule matching', () => {
  const sub = { kind: 'User', name: 'alice' };
  const cases: Array<
    [title: string, rule: Record<string, string[]>, a: Partial<AuthorizationAttributes>, allowed: boolean]
  > = [
    [
      'verb *',
      { verbs: ['*'], apiGroups: [''], resources: ['configmaps'] },
      { verb: 'deletecollection' },
      true,
    ],
    [
      'custom verb',
      { verbs: ['escalate'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] },
      { verb: 'escalate', apiGroup: 'rbac.authorization.k8s.io', resource: 'roles' },
      true,
    ],
    [
      'apiGroup *',
      { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] },
      { apiGroup: 'apps', resource: 'deployments' },
      true,
    ],
    ['no apiGroups grants nothing', { verbs: ['get'], resources: ['configmaps'] }, {}, false],
    [
      'resource * covers subresources',
      { verbs: ['patch'], apiGroups: ['example.com'], resources: ['*'] },
      { verb: 'patch', apiGroup: 'example.com', resource: 'webpages', subresource: 'status' },
      true,
    ],
    [
      'a resource does not cover its subresources',
      { verbs: ['patch'], apiGroups: ['example.com'], resources: ['webpages'] },
      { verb: 'patch', apiGroup: 'example.com', resource: 'webpages', subresource: 'status' },
      false,
    ],
    [
      'res/sub grants the subresource',
      { verbs: ['patch'], apiGroups: ['example.com'], resources: ['webpages/status'] },
      { verb: 'patch', apiGroup: 'example.com', resource: 'webpages', subresource: 'status' },
      true,
    ],
    [
      'res/sub does not grant the resource',
      { verbs: ['patch'], apiGroups: ['example.com'], resources: ['webpages/status'] },
      { verb: 'patch', apiGroup: 'example.com', resource: 'webpages' },
      false,
    ],
    [
      'res/sub does not grant another subresource',
      { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
      { resource: 'pods', subresource: 'exec' },
      false,
    ],
    [
      '*/sub grants that subresource of any resource',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] },
      { apiGroup: 'apps', resource: 'deployments', subresource: 'scale' },
      true,
    ],
    [
      '*/sub does not grant the resource',
      { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] },
      { apiGroup: 'apps', resource: 'deployments' },
      false,
    ],
    [
      '*/sub does not grant a longer subresource ending alike',
      { verbs: ['get'], apiGroups: [''], resources: ['*/status'] },
      { resource: 'pods', subresource: 'xstatus' },
      false,
    ],
    [
      'res/* is not a wildcard',
      { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] },
      { resource: 'pods', subresource: 'log' },
      false,
    ],
    [
      'resourceNames grants the named object',
      { verbs: ['get', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] },
      { name: 'cfg', verb: 'update' },
      true,
    ],
    [
      'resourceNames refuses other names',
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] },
      { name: 'other' },
      false,
    ],
    [
      'resourceNames never grants list',
      { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] },
      { verb: 'list' },
      false,
    ],
    [
      'resourceNames never grants watch',
      { verbs: ['watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] },
      { verb: 'watch' },
      false,
    ],
    [
      'resourceNames never grants create',
      { verbs: ['create'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] },
      { verb: 'create' },
      false,
    ],
    [
      'resourceNames never grants deletecollection',
      { verbs: ['deletecollection'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'] },
      { verb: 'deletecollection' },
      false,
    ],
    [
      'nonResourceURLs exact',
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      { nonResourceURL: '/healthz' },
      true,
    ],
    [
      'nonResourceURLs exact, other path',
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      { nonResourceURL: '/healthz/ping' },
      false,
    ],
    [
      'nonResourceURLs prefix*',
      { verbs: ['get'], nonResourceURLs: ['/healthz/*'] },
      { nonResourceURL: '/healthz/ping' },
      true,
    ],
    ['nonResourceURLs *', { verbs: ['get'], nonResourceURLs: ['*'] }, { nonResourceURL: '/anything' }, true],
    [
      'nonResourceURLs verb',
      { verbs: ['get'], nonResourceURLs: ['*'] },
      { nonResourceURL: '/anything', verb: 'post' },
      false,
    ],
    [
      'resource rules never grant a path',
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { nonResourceURL: '/metrics' },
      false,
    ],
    ['nonResourceURLs never grant a resource', { verbs: ['*'], nonResourceURLs: ['*'] }, {}, false],
  ];
  it.each(cases)('%s', (_title, rule, a, allowed) => {
    const objects = rbac({
      clusterRoles: [clusterRole('r', [rule as never])],
      clusterRoleBindings: [clusterRoleBinding('b', 'r', [sub])],
    });
    expect(authorize(attrs(a), objects).allowed).toBe(allowed);
  });
});

describe('authorize: aggregated ClusterRoles', () => {
  const sub = { kind: 'User', name: 'alice' };
  const objects = rbac({
    clusterRoles: [
      clusterRole('monitoring', [], {
        aggregationRule: {
          clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }],
        },
        rules: [{ verbs: ['delete'], apiGroups: [''], resources: ['secrets'] }],
      }),
      clusterRole('monitoring-endpoints', [{ verbs: ['get'], apiGroups: [''], resources: ['endpoints'] }], {
        metadata: {
          name: 'monitoring-endpoints',
          labels: { 'rbac.example.com/aggregate-to-monitoring': 'true' },
        },
      }),
      clusterRole('monitoring-nested', [], {
        metadata: {
          name: 'monitoring-nested',
          labels: { 'rbac.example.com/aggregate-to-monitoring': 'true' },
        },
        aggregationRule: {
          clusterRoleSelectors: [{ matchExpressions: [{ key: 'nested', operator: 'Exists' }] }],
        },
      }),
      clusterRole('leaf', [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }], {
        metadata: { name: 'leaf', labels: { nested: '' } },
      }),
      clusterRole('unlabelled', [{ verbs: ['get'], apiGroups: [''], resources: ['services'] }]),
    ],
    clusterRoleBindings: [clusterRoleBinding('b', 'monitoring', [sub])],
  });
  const cases: Case[] = [
    ['rules of a selected role', { resource: 'endpoints' }, true],
    ['rules of a role selected through another aggregated role', { resource: 'pods', verb: 'list' }, true],
    ['rules of an unselected role', { resource: 'services' }, false],
    [
      'the aggregated role’s own rules are replaced, as the controller does',
      { resource: 'secrets', verb: 'delete', name: 'x' },
      false,
    ],
  ];
  it.each(cases)('%s', (_title, a, allowed) => {
    expect(authorize(attrs(a), objects).allowed).toBe(allowed);
  });

  it('survives a selection cycle', () => {
    const cyclic = rbac({
      clusterRoles: [
        clusterRole('a', [], {
          metadata: { name: 'a', labels: { x: '1' } },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { y: '1' } }] },
        }),
        clusterRole('b', [], {
          metadata: { name: 'b', labels: { y: '1' } },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: '1' } }] },
        }),
      ],
      clusterRoleBindings: [clusterRoleBinding('b', 'a', [sub])],
    });
    expect(authorize(attrs({}), cyclic).allowed).toBe(false);
  });
});
