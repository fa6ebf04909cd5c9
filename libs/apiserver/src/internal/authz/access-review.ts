import type { JsonObject, StatusCause } from '../../types.js';
import { errors } from '../common/errors.js';
import { clone, isObject, metaOf, rfc3339, str } from '../common/json.js';
import type { AuthorizationAttributes, Peers, RbacObjects } from '../common/peers.js';
import type { ResourceType, ResourceVersion } from '../resources/resource-type.js';
import { apiVersionOf } from '../resources/resource-type.js';
import type { Store } from '../storage/store.js';

/** An authenticated (or impersonated) user. */
export interface AuthUser {
  name: string;
  /** Every group, the ones authentication or impersonation adds included. */
  groups: string[];
  /** The uid impersonation named (`Impersonate-Uid`), if any. */
  uid?: string;
  /** The extras impersonation named (`Impersonate-Extra-<key>`), if any. */
  extra?: Record<string, string[]>;
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

/** Authorizes a request; 403 with Kubernetes' message (and RBAC's reason, if any) when denied. */
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
    // kube-apiserver appends the authorizer's reason (RBAC's: roles that bindings refer to and are missing)
    throw Object.assign(errors.forbidden(rbac.forbiddenMessage(attrs, d.reason)), { details });
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

/** The attributes of an access review's spec (exactly one of the two is set once validated). */
interface ReviewAttributes {
  ra: JsonObject | undefined;
  nra: JsonObject | undefined;
}

/** kube's ValidateSubjectAccessReviewSpec (and its self variant): exactly one kind of attributes. */
function attributesCauses(spec: JsonObject | undefined): { attrs: ReviewAttributes; causes: StatusCause[] } {
  const ra = spec && isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  const nra = spec && isObject(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
  const causes: StatusCause[] = [];
  if (ra && nra) {
    // the bad value as Go prints kube's internal type (%#v)
    const value = `authorization.NonResourceAttributes{Path:${JSON.stringify(str(nra.path ?? ''))}, Verb:${JSON.stringify(str(nra.verb ?? ''))}}`;
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.nonResourceAttributes',
      message: `Invalid value: ${value}: cannot be specified in combination with resourceAttributes`,
    });
  }
  if (!ra && !nra) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.resourceAttributes',
      message:
        'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  }
  return { attrs: { ra, nra }, causes };
}

/** The status of an access review of `subject` (kube's SubjectAccessReviewStatus). */
function accessStatus(
  store: Store,
  peers: Peers,
  rbacEnabled: boolean,
  subject: AuthUser,
  { ra, nra }: ReviewAttributes,
): JsonObject {
  // kube's privileged-group authorizer allows system:masters with no reason
  if (isSuperUser(subject)) return { allowed: true };
  if (!rbacEnabled) return { allowed: true, reason: 'RBAC is not enforced' };
  let attrs: AuthorizationAttributes;
  if (nra) {
    attrs = {
      user: subject.name,
      groups: subject.groups,
      verb: str(nra.verb ?? ''),
      apiGroup: '',
      resource: '',
      nonResourceURL: str(nra.path ?? ''),
    };
  } else {
    attrs = {
      user: subject.name,
      groups: subject.groups,
      verb: str(ra!.verb ?? ''),
      apiGroup: str(ra!.group ?? ''),
      resource: str(ra!.resource ?? ''),
    };
    if (typeof ra!.subresource === 'string' && ra!.subresource) attrs.subresource = ra!.subresource;
    if (typeof ra!.namespace === 'string' && ra!.namespace) attrs.namespace = ra!.namespace;
    if (typeof ra!.name === 'string' && ra!.name) attrs.name = ra!.name;
  }
  const d = peers.rbac.authorize(attrs, rbacObjects(store));
  const status: JsonObject = { allowed: d.allowed };
  if (d.reason) status.reason = d.reason;
  return status;
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
  const { attrs, causes } = attributesCauses(spec);
  if (causes.length > 0)
    throw errors.invalid({ group: rt.group, resource: rt.plural, kind: rt.kind, name: '' }, causes);
  return respond(rt, version, body, accessStatus(store, peers, rbacEnabled, user, attrs));
}

/**
 * SubjectAccessReview, and LocalSubjectAccessReview (`namespace` set: the namespace of its path):
 * may the user and groups the spec names do this? The groups are taken as the review names them
 * (nothing is added, as in kube). A local review's resource attributes must name its namespace and
 * non-resource attributes are refused (422, kube's ValidateLocalSubjectAccessReview).
 */
export function reviewSubjectAccess(
  store: Store,
  peers: Peers,
  rbacEnabled: boolean,
  rt: ResourceType,
  version: ResourceVersion,
  body: JsonObject,
  namespace?: string,
): JsonObject {
  const spec = isObject(body.spec) ? body.spec : undefined;
  const { attrs, causes } = attributesCauses(spec);
  const user = typeof spec?.user === 'string' ? spec.user : '';
  const groups = Array.isArray(spec?.groups)
    ? spec.groups.filter((g): g is string => typeof g === 'string')
    : [];
  if (user === '' && groups.length === 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.user',
      message: 'Invalid value: "": at least one of user or group must be specified',
    });
  }
  let out = body;
  if (namespace !== undefined) {
    const meta = isObject(body.metadata) ? body.metadata : {};
    if (typeof meta.namespace === 'string' && meta.namespace !== '' && meta.namespace !== namespace)
      throw errors.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    out = { ...body, metadata: { ...meta, namespace } };
    const raNamespace = attrs.ra ? str(attrs.ra.namespace ?? '') : undefined;
    if (raNamespace !== undefined && raNamespace !== namespace) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.resourceAttributes.namespace',
        message: `Invalid value: ${JSON.stringify(raNamespace)}: must match metadata.namespace`,
      });
    }
    if (attrs.nra) {
      // kube validates the v1 type, whose generated String() prints the value
      const value = `&NonResourceAttributes{Path:${str(attrs.nra.path ?? '')},Verb:${str(attrs.nra.verb ?? '')},}`;
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.nonResourceAttributes',
        message: `Invalid value: ${value}: disallowed on this kind of request`,
      });
    }
  }
  if (causes.length > 0)
    throw errors.invalid({ group: rt.group, resource: rt.plural, kind: rt.kind, name: '' }, causes);
  return respond(rt, version, out, accessStatus(store, peers, rbacEnabled, { name: user, groups }, attrs));
}

/** SelfSubjectRulesReview: the rules that apply to the caller in a namespace. */
export function reviewRules(
  store: Store,
  peers: Peers,
  rbacEnabled: boolean,
  rt: ResourceType,
  version: ResourceVersion,
  body: JsonObject,
  user: AuthUser,
): JsonObject {
  const spec = isObject(body.spec) ? body.spec : {};
  const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
  // kube-apiserver's SelfSubjectRulesReview storage refuses a review without a namespace
  if (namespace === '') throw errors.badRequest('no namespace on request');
  // system:masters has no rules of its own: it gets those of its bindings (cluster-admin's), as in kube
  if (!rbacEnabled) {
    return respond(rt, version, body, {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  }
  const rules = peers.rbac.rulesFor(user.name, user.groups, namespace, rbacObjects(store));
  return respond(rt, version, body, rules as unknown as JsonObject);
}

/**
 * SelfSubjectReview (`kubectl auth whoami`): who the caller is, as the request acts (after
 * impersonation): user name, uid, groups and extras, as kube-apiserver's selfsubjectreview storage
 * answers. Everyone may ask (`system:basic-user`).
 */
export function reviewSelf(
  rt: ResourceType,
  version: ResourceVersion,
  body: JsonObject,
  user: AuthUser,
): JsonObject {
  const userInfo: JsonObject = { username: user.name };
  if (user.uid) userInfo.uid = user.uid;
  userInfo.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) userInfo.extra = clone(user.extra);
  return respond(rt, version, body, { userInfo });
}
