import type { JsonObject } from '../types.js';

/**
 * What a request wants to do, as kube-apiserver's `authorizer.Attributes` describe it.
 * A request is a resource request unless `nonResourceURL` is set.
 */
export interface AuthorizationAttributes {
  /** The user name, e.g. `alice` or `system:serviceaccount:ns:sa`. `system:anonymous` is the unauthenticated user. */
  user: string;
  /**
   * The user's groups, all of them: as authentication made them (with `system:authenticated`, and a
   * service account's `system:serviceaccounts` and `system:serviceaccounts:<ns>`; see `effectiveGroups`)
   * or as impersonation named them. The authorizer adds none: a request impersonating a service account
   * with `Impersonate-Group` acts with the groups named (and `system:authenticated`) only, as in kube.
   */
  groups: string[];
  /**
   * The verb: for resources `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`,
   * `deletecollection` (or any custom verb such as `escalate`); for non-resource URLs the lower-cased
   * HTTP method (`get`, `post`, ...).
   */
  verb: string;
  /** The API group, `''` for the core group. */
  apiGroup: string;
  /** The resource (plural), e.g. `configmaps`. */
  resource: string;
  /** The subresource, e.g. `status`, `scale`, `log`. Default: none. */
  subresource?: string;
  /**
   * The namespace of the request; absent or `''` for cluster-scoped requests and for lists across
   * all namespaces. As kube-apiserver does, a request on a Namespace object itself
   * (`/api/v1/namespaces/foo`) should carry `namespace: 'foo'`.
   */
  namespace?: string;
  /** The object's name when the URL names one (`get`, `update`, `patch`, `delete`); absent for `list`, `watch`, `create`, `deletecollection`. */
  name?: string;
  /** The path of a non-resource request, e.g. `/healthz` or `/apis`. Default: a resource request. */
  nonResourceURL?: string;
}

/** The RBAC objects in force, as stored (`rbac.authorization.k8s.io/v1` JSON). */
export interface RbacObjects {
  roles: JsonObject[];
  clusterRoles: JsonObject[];
  roleBindings: JsonObject[];
  clusterRoleBindings: JsonObject[];
}

/** The outcome of {@link authorize}. */
export interface AuthorizationDecision {
  allowed: boolean;
  /**
   * Why, in RBAC's words: on allow `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "alice"`;
   * on deny `''`, or `RBAC: [role.rbac.authorization.k8s.io "x" not found, ...]` when a binding that applies
   * to the user refers to a missing role (kube-apiserver appends this to the Forbidden message).
   */
  reason: string;
}

/** One rule of a Role or ClusterRole (`rbacv1.PolicyRule`), normalised: absent lists are empty. */
export interface PolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
  nonResourceURLs: string[];
}

/** A resource rule as reported by a SelfSubjectRulesReview (`resourceNames` omitted when empty). */
export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

/** A non-resource rule as reported by a SelfSubjectRulesReview. */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs: string[];
}

/** The `status` of a SelfSubjectRulesReview. */
export interface SubjectRulesReviewStatus {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /**
   * Always false, as kube-apiserver's RBAC rule resolver reports it (an authorizer that cannot list a
   * user's rules would set it): a binding to a missing role shows in {@link evaluationError} instead.
   */
  incomplete: boolean;
  /** The errors met resolving the rules (bindings that refer to missing roles); absent when none. */
  evaluationError?: string;
}
