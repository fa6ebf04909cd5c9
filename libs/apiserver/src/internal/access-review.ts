import type { JsonObject } from '../types.js';
import { errors } from './errors.js';
import { clone, isObject, metaOf, rfc3339, str } from './json.js';
import type { AuthorizationAttributes, Peers, RbacObjects } from './peers.js';
import type { ResourceType, ResourceVersion } from './resource-type.js';
import { apiVersionOf } from './resource-type.js';
import type { Store } from './store.js';

/** An authenticated user. */
export interface AuthUser {
  name: string;
  groups: string[];
}

/** The RBAC objects currently stored. */
export function rbacObjects(store: Store): RbacObjects {
  const g = 'rbac.authorization.k8s.io';
  return {
    roles: store.list(`${g}/roles`),
    clusterRoles: store.list(`${g}/clusterroles`),
    roleBindings: store.list(`${g}/rolebindings`),
    clusterRoleBindings: store.list(`${g}/clusterrolebindings`),
  };
}

/** Whether a user bypasses RBAC (system:masters). */
export function isSuperUser(user: AuthUser): boolean {
  return user.groups.includes('system:masters');
}

/** Authorizes a request; 403 with Kubernetes' message when denied. */
export function authorizeOrThrow(store: Store, peers: Peers, attrs: AuthorizationAttributes): void {
  if (attrs.groups.includes('system:masters')) return;
  const rbac = peers.rbac;
  const d = rbac.authorize(attrs, rbacObjects(store));
  if (!d.allowed) {
    const details: { name?: string; group: string; kind: string } = {
      group: attrs.apiGroup,
      kind: attrs.resource,
    };
    if (attrs.name !== undefined) details.name = attrs.name;
    throw Object.assign(errors.forbidden(rbac.forbiddenMessage(attrs)), { details });
  }
}

function respond(
  rt: ResourceType,
  version: ResourceVersion,
  body: JsonObject,
  status: JsonObject,
): JsonObject {
  const out = clone(body);
  out.apiVersion = apiVersionOf(rt.group, version.name);
  out.kind = rt.kind;
  const m = metaOf(out);
  m.creationTimestamp = rfc3339(new Date());
  out.status = status;
  return out;
}

/** SelfSubjectAccessReview: may the caller do this? */
export function reviewAccess(
  store: Store,
  peers: Peers,
  rbacEnabled: boolean,
  rt: ResourceType,
  version: ResourceVersion,
  body: JsonObject,
  user: AuthUser,
): JsonObject {
  const spec = isObject(body.spec) ? body.spec : undefined;
  const ra = spec && isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nra = spec && isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  if (!ra && !nra) {
    throw errors.invalid({ group: rt.group, resource: rt.plural, kind: rt.kind, name: '' }, [
      {
        reason: 'FieldValueRequired',
        field: 'spec.resourceAttributes',
        message:
          'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified',
      },
    ]);
  }
  if (!rbacEnabled || isSuperUser(user))
    return respond(rt, version, body, {
      allowed: true,
      reason: rbacEnabled ? 'system:masters' : 'RBAC is not enforced',
    });
  if (nra)
    return respond(rt, version, body, {
      allowed: false,
      reason: 'non-resource URLs are not authorized by this server',
    });
  const attrs: AuthorizationAttributes = {
    user: user.name,
    groups: user.groups,
    verb: str(ra!.verb ?? ''),
    apiGroup: str(ra!.group ?? ''),
    resource: str(ra!.resource ?? ''),
  };
  if (typeof ra!.subresource === 'string' && ra!.subresource) attrs.subresource = ra!.subresource;
  if (typeof ra!.namespace === 'string' && ra!.namespace) attrs.namespace = ra!.namespace;
  if (typeof ra!.name === 'string' && ra!.name) attrs.name = ra!.name;
  const d = peers.rbac.authorize(attrs, rbacObjects(store));
  const status: JsonObject = { allowed: d.allowed };
  if (d.reason) status.reason = d.reason;
  return respond(rt, version, body, status);
}

function subjectMatches(subjects: unknown, user: AuthUser, namespace: string | undefined): boolean {
  if (!Array.isArray(subjects)) return false;
  return subjects.some((s) => {
    if (!isObject(s)) return false;
    if (s.kind === 'User') return s.name === user.name;
    if (s.kind === 'Group') return typeof s.name === 'string' && user.groups.includes(s.name);
    if (s.kind === 'ServiceAccount')
      return user.name === `system:serviceaccount:${str(s.namespace ?? namespace)}:${str(s.name)}`;
    return false;
  });
}

/** SelfSubjectRulesReview: the rules that apply to the caller in a namespace. */
export function reviewRules(
  store: Store,
  _peers: Peers,
  rbacEnabled: boolean,
  rt: ResourceType,
  version: ResourceVersion,
  body: JsonObject,
  user: AuthUser,
): JsonObject {
  const spec = isObject(body.spec) ? body.spec : {};
  const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
  if (!rbacEnabled || isSuperUser(user)) {
    return respond(rt, version, body, {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  }
  const objs = rbacObjects(store);
  const roleRules = (kind: string, name: string, ns: string | undefined): unknown[] => {
    const pool =
      kind === 'ClusterRole' ? objs.clusterRoles : objs.roles.filter((r) => metaOf(r).namespace === ns);
    const r = pool.find((x) => metaOf(x).name === name);
    return r && Array.isArray(r.rules) ? r.rules : [];
  };
  const rules: unknown[] = [];
  for (const b of objs.clusterRoleBindings) {
    if (!subjectMatches(b.subjects, user, undefined) || !isObject(b.roleRef)) continue;
    rules.push(...roleRules('ClusterRole', str(b.roleRef.name), undefined));
  }
  if (namespace) {
    for (const b of objs.roleBindings) {
      if (
        metaOf(b).namespace !== namespace ||
        !subjectMatches(b.subjects, user, namespace) ||
        !isObject(b.roleRef)
      )
        continue;
      rules.push(...roleRules(str(b.roleRef.kind), str(b.roleRef.name), namespace));
    }
  }
  const resourceRules = rules.filter((r) => isObject(r) && Array.isArray(r.resources));
  const nonResourceRules = rules.filter((r) => isObject(r) && Array.isArray(r.nonResourceURLs));
  return respond(rt, version, body, { resourceRules, nonResourceRules, incomplete: false });
}
