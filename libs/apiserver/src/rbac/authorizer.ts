import { describeSource, RuleResolver } from './rule-resolver.js';
import { ruleAllows } from './rule-matching.js';
import type {
  AuthorizationAttributes,
  AuthorizationDecision,
  NonResourceRule,
  RbacObjects,
  ResourceRule,
  SubjectRulesReviewStatus,
} from './types.js';

/** The group whose members may do anything (kube-apiserver's privileged-group authorizer, before RBAC). */
export const SYSTEM_MASTERS = 'system:masters';

function aggregateErrors(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/**
 * Decides a request with Kubernetes RBAC semantics:
 * - members of `system:masters` may do anything;
 * - a ClusterRoleBinding grants its ClusterRole's rules in every namespace and at the cluster scope;
 * - a RoleBinding grants, in its own namespace only, the rules of a Role of that namespace or of a ClusterRole;
 * - subjects are `User`, `Group` or `ServiceAccount` (a ServiceAccount subject without namespace means the
 *   RoleBinding's namespace); the user's groups are taken as given (see {@link AuthorizationAttributes.groups});
 * - a rule grants when its verbs (`*` for all), apiGroups (`*`), resources (`*`, `res`, `res/sub`, `*\/sub`)
 *   and resourceNames (empty: any; else the request's name must be listed, so a rule with names never grants
 *   `list`, `watch`, `create` or `deletecollection`, which have no name) all match; a non-resource request
 *   matches `nonResourceURLs` (`*`, exact, or a `prefix*`) and verbs;
 * - aggregated ClusterRoles get the rules of the ClusterRoles their `aggregationRule` selects.
 *
 * Nothing is ever denied explicitly: no matching rule means not allowed.
 */
export function authorize(attrs: AuthorizationAttributes, rbac: RbacObjects): AuthorizationDecision {
  const groups = attrs.groups;
  if (groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
  const errors: string[] = [];
  let reason: string | undefined;
  new RuleResolver(rbac).visitRulesFor(attrs.user, groups, attrs.namespace ?? '', (source, rule, error) => {
    if (rule && source && ruleAllows(attrs, rule)) {
      reason = `RBAC: allowed by ${describeSource(source)}`;
      return false;
    }
    if (error !== undefined) errors.push(error);
    return true;
  });
  if (reason !== undefined) return { allowed: true, reason };
  return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregateErrors(errors)}` : '' };
}

/**
 * The rules a user has in a namespace, as a SelfSubjectRulesReview reports them: every rule of the
 * ClusterRoleBindings and of the namespace's RoleBindings that apply to the user, split into resource
 * rules and non-resource rules (a rule with both appears in both lists). `system:masters` gets no
 * rules of its own (kube-apiserver's privileged-group authorizer lists none): it has those of its
 * bindings, `cluster-admin`'s `*` on everything in a cluster's bootstrap policy.
 */
export function rulesFor(
  user: string,
  groups: string[],
  namespace: string,
  rbac: RbacObjects,
): SubjectRulesReviewStatus {
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  const errors: string[] = [];
  new RuleResolver(rbac).visitRulesFor(user, groups, namespace, (_source, rule, error) => {
    if (error !== undefined) errors.push(error);
    if (!rule) return true;
    if (rule.resources.length > 0) {
      const r: ResourceRule = {
        verbs: [...rule.verbs],
        apiGroups: [...rule.apiGroups],
        resources: [...rule.resources],
      };
      if (rule.resourceNames.length > 0) r.resourceNames = [...rule.resourceNames];
      resourceRules.push(r);
    }
    if (rule.nonResourceURLs.length > 0) {
      nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs] });
    }
    return true;
  });
  // kube's RBAC rule resolver never calls its answer incomplete: what it could not resolve is an error
  const status: SubjectRulesReviewStatus = { resourceRules, nonResourceRules, incomplete: false };
  if (errors.length > 0) status.evaluationError = aggregateErrors(errors);
  return status;
}

/** kube-apiserver escapes these in the user-controlled part of a Forbidden message. */
function sanitize(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The message of the 403 Status kube-apiserver answers when a request is not allowed, e.g.
 * `configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"`,
 * `leases.coordination.k8s.io "x" is forbidden: User "op" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "ns"`,
 * `nodes is forbidden: User "u" cannot list resource "nodes" in API group "" at the cluster scope`,
 * `forbidden: User "u" cannot get path "/metrics"`.
 *
 * @param reason - the decision's reason; appended after `: ` when not empty (default: none).
 */
export function forbiddenMessage(attrs: AuthorizationAttributes, reason = ''): string {
  let inner: string;
  if (attrs.nonResourceURL !== undefined) {
    inner = `User ${JSON.stringify(attrs.user)} cannot ${attrs.verb} path ${JSON.stringify(attrs.nonResourceURL)}`;
  } else {
    const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    const where = attrs.namespace
      ? `in the namespace ${JSON.stringify(attrs.namespace)}`
      : 'at the cluster scope';
    inner = `User ${JSON.stringify(attrs.user)} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)} ${where}`;
  }
  inner = sanitize(inner);
  if (reason) inner = `${inner}: ${reason}`;
  if (attrs.nonResourceURL !== undefined || attrs.resource === '') return `forbidden: ${inner}`;
  const qualified = attrs.apiGroup ? `${attrs.resource}.${attrs.apiGroup}` : attrs.resource;
  return attrs.name
    ? `${qualified} ${JSON.stringify(attrs.name)} is forbidden: ${inner}`
    : `${qualified} is forbidden: ${inner}`;
}
