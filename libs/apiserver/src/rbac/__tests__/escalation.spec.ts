import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from '../../types.js';
import type { PolicyRule } from '../index.js';
import { checkEscalation, compactRuleString, effectiveGroups, uncoveredRules } from '../index.js';
import { clusterRole, clusterRoleBinding, rbac, role, roleBinding } from './fixtures.js';

function rule(r: Partial<PolicyRule>): PolicyRule {
  return { verbs: [], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: [], ...r };
}

describe('uncoveredRules (validation.Covers)', () => {
  const cases: Array<
    [title: string, held: Partial<PolicyRule>[], wanted: Partial<PolicyRule>, uncovered: number]
  > = [
    [
      'same rule',
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      0,
    ],
    [
      'split over two held rules',
      [
        { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      ],
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
      0,
    ],
    [
      'a missing verb',
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      { verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] },
      1,
    ],
    [
      'wildcards cover everything',
      [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      { verbs: ['escalate'], apiGroups: ['x'], resources: ['y/z'] },
      0,
    ],
    [
      '*/sub covers res/sub',
      [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }],
      { verbs: ['get'], apiGroups: [''], resources: ['pods/status'] },
      0,
    ],
    [
      '*/sub does not cover the resource',
      [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }],
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      1,
    ],
    [
      'held without names covers named',
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      0,
    ],
    [
      'held with names does not cover unnamed',
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }],
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      1,
    ],
    [
      'held with names covers those names',
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a', 'b'] }],
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['b', 'c'] },
      1,
    ],
    [
      'URL prefix',
      [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }],
      { verbs: ['get'], nonResourceURLs: ['/apis/x', '/api'] },
      1,
    ],
  ];
  it.each(cases)('%s', (_title, held, wanted, uncovered) => {
    expect(uncoveredRules(held.map(rule), [rule(wanted)])).toHaveLength(uncovered);
  });

  it('prints rules the Go way', () => {
    expect(compactRuleString(rule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }))).toBe(
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    );
    expect(compactRuleString(rule({ verbs: ['get'], nonResourceURLs: ['/x'] }))).toBe(
      '{NonResourceURLs:["/x"], Verbs:["get"]}',
    );
  });
});

describe('checkEscalation', () => {
  const objects = rbac({
    clusterRoles: [
      clusterRole('cm-editor', [
        { verbs: ['get', 'list', 'create'], apiGroups: [''], resources: ['configmaps'] },
      ]),
      clusterRole('secret-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]),
      clusterRole('rbac-writer', [
        {
          verbs: ['create', 'update'],
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'],
        },
      ]),
      clusterRole('escalator', [
        { verbs: ['escalate'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] },
      ]),
      clusterRole('binder', [
        {
          verbs: ['bind'],
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['clusterroles'],
          resourceNames: ['secret-reader'],
        },
      ]),
    ],
    roles: [role('team', 'local-secrets', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }])],
    roleBindings: [
      roleBinding('team', 'alice-cm', 'ClusterRole', 'cm-editor', [{ kind: 'User', name: 'alice' }]),
      roleBinding('team', 'alice-rbac', 'ClusterRole', 'rbac-writer', [{ kind: 'User', name: 'alice' }]),
      roleBinding('team', 'esc', 'ClusterRole', 'escalator', [{ kind: 'User', name: 'esc' }]),
      roleBinding('team', 'bind', 'ClusterRole', 'binder', [{ kind: 'User', name: 'binder' }]),
    ],
    clusterRoleBindings: [clusterRoleBinding('carol-cm', 'cm-editor', [{ kind: 'User', name: 'carol' }])],
  });
  const newRole = (ns: string, rules: JsonObject[]): JsonObject => role(ns, 'new', rules as never);

  it('allows a Role with rules the user holds in that namespace', () => {
    expect(
      checkEscalation(
        {
          user: 'alice',
          groups: effectiveGroups('alice', []),
          object: newRole('team', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
        },
        objects,
      ),
    ).toEqual({ allowed: true });
  });

  it('refuses a Role granting more, with kube-apiserver’s message', () => {
    const decision = checkEscalation(
      {
        user: 'alice',
        groups: effectiveGroups('alice', []),
        object: newRole('team', [
          { verbs: ['get', 'list', 'delete'], apiGroups: [''], resources: ['configmaps', 'secrets'] },
        ]),
      },
      objects,
    );
    expect(decision).toEqual({
      allowed: false,
      status: 403,
      reason: 'Forbidden',
      message:
        'roles.rbac.authorization.k8s.io "new" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}',
      details: { group: 'rbac.authorization.k8s.io', kind: 'roles', name: 'new' },
    });
  });

  it('permissions held in one namespace do not allow a Role in another', () => {
    expect(
      checkEscalation(
        {
          user: 'alice',
          groups: effectiveGroups('alice', []),
          object: newRole('other', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
        },
        objects,
      ).allowed,
    ).toBe(false);
  });

  it('a ClusterRole needs the permissions cluster-wide', () => {
    const cr = clusterRole('new', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]);
    expect(
      checkEscalation({ user: 'alice', groups: effectiveGroups('alice', []), object: cr }, objects).allowed,
    ).toBe(false);
    expect(
      checkEscalation({ user: 'carol', groups: effectiveGroups('carol', []), object: cr }, objects).allowed,
    ).toBe(true);
  });

  it('the escalate verb allows any Role', () => {
    expect(
      checkEscalation(
        {
          user: 'esc',
          groups: effectiveGroups('esc', []),
          object: newRole('team', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]),
        },
        objects,
      ).allowed,
    ).toBe(true);
  });

  it('an aggregationRule needs full authority', () => {
    const agg = clusterRole('agg', [], {
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] },
    });
    const decision = checkEscalation(
      { user: 'carol', groups: effectiveGroups('carol', []), object: agg },
      objects,
    );
    expect(decision).toMatchObject({
      allowed: false,
      message:
        'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule',
    });
    expect(checkEscalation({ user: 'root', groups: ['system:masters'], object: agg }, objects).allowed).toBe(
      true,
    );
  });

  it('a binding is allowed when the user holds the role’s rules, or may bind it', () => {
    const bindCm = roleBinding('team', 'b', 'ClusterRole', 'cm-editor', [{ kind: 'User', name: 'bob' }]);
    const bindSecrets = roleBinding('team', 'b', 'ClusterRole', 'secret-reader', [
      { kind: 'User', name: 'bob' },
    ]);
    expect(
      checkEscalation({ user: 'alice', groups: effectiveGroups('alice', []), object: bindCm }, objects)
        .allowed,
    ).toBe(true);
    expect(
      checkEscalation({ user: 'alice', groups: effectiveGroups('alice', []), object: bindSecrets }, objects),
    ).toMatchObject({
      allowed: false,
      status: 403,
      message: expect.stringMatching(
        /^rolebindings\.rbac\.authorization\.k8s\.io "b" is forbidden: user "alice" .*\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}$/,
      ) as unknown as string,
    });
    expect(
      checkEscalation({ user: 'binder', groups: effectiveGroups('binder', []), object: bindSecrets }, objects)
        .allowed,
    ).toBe(true);
    // bind is granted for that role name only
    expect(
      checkEscalation({ user: 'binder', groups: effectiveGroups('binder', []), object: bindCm }, objects)
        .allowed,
    ).toBe(false);
  });

  it('a binding to a missing role is a 404', () => {
    const b = roleBinding('team', 'b', 'Role', 'nope', [{ kind: 'User', name: 'bob' }]);
    expect(
      checkEscalation({ user: 'alice', groups: effectiveGroups('alice', []), object: b }, objects),
    ).toMatchObject({
      allowed: false,
      status: 404,
      reason: 'NotFound',
      message: 'role.rbac.authorization.k8s.io "nope" not found',
    });
  });

  it('a RoleBinding may reference a Role of its namespace', () => {
    const b = roleBinding('team', 'b', 'Role', 'local-secrets', [{ kind: 'User', name: 'bob' }]);
    expect(
      checkEscalation({ user: 'alice', groups: effectiveGroups('alice', []), object: b }, objects).allowed,
    ).toBe(false);
    const withSecrets = rbac({
      ...objects,
      roleBindings: [
        ...objects.roleBindings,
        roleBinding('team', 's', 'Role', 'local-secrets', [{ kind: 'User', name: 'alice' }]),
      ],
    });
    expect(
      checkEscalation({ user: 'alice', groups: effectiveGroups('alice', []), object: b }, withSecrets)
        .allowed,
    ).toBe(true);
  });

  it('an update touching only GC fields is allowed; other updates are checked', () => {
    const old = newRole('team', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    const gcOnly = structuredClone(old);
    (gcOnly.metadata as JsonObject).finalizers = ['x'];
    (gcOnly.metadata as JsonObject).ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' },
    ];
    expect(
      checkEscalation({ user: 'alice', groups: effectiveGroups('alice', []), object: gcOnly, old }, objects)
        .allowed,
    ).toBe(true);
    const relabelled = structuredClone(old);
    (relabelled.metadata as JsonObject).labels = { a: 'b' };
    expect(
      checkEscalation(
        { user: 'alice', groups: effectiveGroups('alice', []), object: relabelled, old },
        objects,
      ).allowed,
    ).toBe(false);
  });

  it('service account groups are listed as kube-apiserver lists them', () => {
    const decision = checkEscalation(
      {
        user: 'system:serviceaccount:team:op',
        groups: effectiveGroups('system:serviceaccount:team:op', []),
        object: newRole('team', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]),
      },
      objects,
    );
    expect(decision).toMatchObject({
      message: expect.stringContaining(
        'user "system:serviceaccount:team:op" (groups=["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"])',
      ) as unknown as string,
    });
  });

  it('other kinds are not checked', () => {
    expect(
      checkEscalation(
        {
          user: 'nobody',
          groups: effectiveGroups('nobody', []),
          object: { kind: 'ConfigMap', metadata: { name: 'x' } },
        },
        objects,
      ),
    ).toEqual({ allowed: true });
  });
});
