import type { JsonObject } from '../../types.js';
import type { RbacObjects } from '../index.js';

/** Builders of RBAC objects for the tests. */
export type Rule = {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
};
export type Subject = {
  kind: string;
  name: string;
  namespace?: string;
};

export function clusterRole(name: string, rules: Rule[], extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules,
    ...extra,
  };
}

export function role(namespace: string, name: string, rules: Rule[]): JsonObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace }, rules };
}

export function clusterRoleBinding(
  name: string,
  roleName: string,
  subjects: Subject[],
  roleKind = 'ClusterRole',
): JsonObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
    subjects: subjects.map((s) => ({
      apiGroup: s.kind === 'ServiceAccount' ? '' : 'rbac.authorization.k8s.io',
      ...s,
    })),
  };
}

export function roleBinding(
  namespace: string,
  name: string,
  roleKind: 'Role' | 'ClusterRole',
  roleName: string,
  subjects: Subject[],
): JsonObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
    subjects,
  };
}

export function rbac(parts: Partial<RbacObjects>): RbacObjects {
  return { roles: [], clusterRoles: [], roleBindings: [], clusterRoleBindings: [], ...parts };
}
