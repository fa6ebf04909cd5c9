import type { JsonObject } from '../types.js';
import { authorize, SYSTEM_MASTERS } from './authorizer.js';
import { RuleResolver, rulesOf } from './rule-resolver.js';
import type { PolicyRule, RbacObjects } from './types.js';

/**
 * RBAC's privilege-escalation prevention, as kube-apiserver applies it when Roles, ClusterRoles,
 * RoleBindings and ClusterRoleBindings are created or updated: a user may only grant permissions
 * they hold, unless they may `escalate` the role or `bind` the referenced role.
 */

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** A create (no `old`) or update of one RBAC object by a user. */
export interface EscalationRequest {
  user: string;
  /** The user's groups as authenticated (the authenticator's groups are added as {@link authorize} does). */
  groups: string[];
  /** The Role, ClusterRole, RoleBinding or ClusterRoleBinding being written (its `kind` decides). */
  object: JsonObject;
  /** The stored object for an update. Default: a create. */
  old?: JsonObject;
  /**
   * The name in the request's URL, which the `escalate` check of a Role or ClusterRole names (an
   * update, a patch, or an apply that creates). Default: the object's name on update, none on create.
   */
  requestName?: string;
}

/** The outcome of {@link checkEscalation}: allowed, or the Status kube-apiserver answers with. */
export type EscalationDecision =
  | { allowed: true }
  | {
      allowed: false;
      status: 403;
      reason: 'Forbidden';
      message: string;
      details: { group: string; kind: string; name: string };
    }
  | {
      allowed: false;
      status: 404;
      reason: 'NotFound';
      message: string;
      details: { group: string; kind: string; name: string };
    };

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [], nonResourceURLs: [] },
  { verbs: ['*'], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: ['*'] },
];

function asObject(v: unknown): JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Go's `%q` of a `[]string`: `["a" "b"]`. */
function goQuoteList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** One rule split into single group/resource/verb/name (or URL/verb) rules (`validation.BreakdownRule`). */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups) {
    for (const resource of rule.resources) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames.length > 0 ? rule.resourceNames.map((n) => [n]) : [[]];
        for (const resourceNames of names) {
          out.push({
            verbs: [verb],
            apiGroups: [group],
            resources: [resource],
            resourceNames,
            nonResourceURLs: [],
          });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs) {
    for (const verb of rule.verbs)
      out.push({ verbs: [verb], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: [url] });
  }
  return out;
}

const hasAll = (set: readonly string[], wanted: readonly string[]): boolean =>
  wanted.every((w) => set.includes(w));

function resourcesCover(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes('*') || hasAll(owner, wanted)) return true;
  return wanted.every((path) => {
    if (owner.includes(path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && owner.includes(`*/${path.slice(slash + 1)}`);
  });
}

function urlsCover(owner: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((path) =>
    owner.some((o) => o === path || (o.endsWith('*') && path.startsWith(o.replace(/\*+$/, '')))),
  );
}

/** Whether an owner rule covers an atomic rule (`validation.ruleCovers`). */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = owner.verbs.includes('*') || hasAll(owner.verbs, sub.verbs);
  const groups = owner.apiGroups.includes('*') || hasAll(owner.apiGroups, sub.apiGroups);
  const names =
    sub.resourceNames.length === 0
      ? owner.resourceNames.length === 0
      : owner.resourceNames.length === 0 || hasAll(owner.resourceNames, sub.resourceNames);
  return (
    verbs &&
    groups &&
    resourcesCover(owner.resources, sub.resources) &&
    names &&
    urlsCover(owner.nonResourceURLs, sub.nonResourceURLs)
  );
}

/**
 * The parts of `wanted` that `held` does not cover, as atomic rules (`validation.Covers`);
 * empty when every permission in `wanted` is held.
 */
export function uncoveredRules(held: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdown).filter((sub) => !held.some((owner) => ruleCovers(owner, sub)));
}

/** Merges atomic rules that differ only by verb (`validation.CompactRules`). */
function compact(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple =
      r.resourceNames.length <= 1 &&
      r.nonResourceURLs.length === 0 &&
      r.apiGroups.length === 1 &&
      r.resources.length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups[0], r.resources[0], r.resourceNames[0] ?? null]);
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...r.verbs);
    else simple.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

/** `rbacv1helpers.CompactString`: `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`. */
export function compactRuleString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups.length > 0) parts.push(`APIGroups:${goQuoteList(r.apiGroups)}`);
  if (r.resources.length > 0) parts.push(`Resources:${goQuoteList(r.resources)}`);
  if (r.nonResourceURLs.length > 0) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs)}`);
  if (r.resourceNames.length > 0) parts.push(`ResourceNames:${goQuoteList(r.resourceNames)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** `ConfirmNoEscalation`: undefined when the user holds every rule in `namespace`, else the message. */
function confirmNoEscalation(
  user: string,
  groups: string[],
  namespace: string,
  rules: readonly PolicyRule[],
  rbac: RbacObjects,
): string | undefined {
  const held: PolicyRule[] = [];
  const errors: string[] = [];
  new RuleResolver(rbac).visitRulesFor(user, groups, namespace, (_source, rule, error) => {
    if (rule) held.push(rule);
    if (error !== undefined) errors.push(error);
    return true;
  });
  const missing = uncoveredRules(held, rules);
  if (missing.length === 0) return undefined;
  const lines = [...new Set(compact(missing).map(compactRuleString))].sort();
  let msg = `user ${JSON.stringify(user)} (groups=${goQuoteList(groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (errors.length > 0) msg += `; resolution errors: [${errors.join(' ')}]`;
  return msg;
}

/** Whether only fields the garbage collector touches (or server-managed ones) differ (`IsOnlyMutatingGCFields`). */
function onlyGcFieldsChanged(obj: JsonObject, old: JsonObject): boolean {
  const strip = (o: JsonObject): unknown => {
    const meta = { ...asObject(o.metadata) };
    for (const k of [
      'ownerReferences',
      'finalizers',
      'selfLink',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'resourceVersion',
      'managedFields',
      'generation',
    ]) {
      delete meta[k];
    }
    return normalise({ ...o, metadata: meta });
  };
  return JSON.stringify(strip(obj)) === JSON.stringify(strip(old));
}

/** Sorted keys; empty lists and maps dropped (Kubernetes' semantic equality treats them as absent). */
function normalise(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalise);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v).sort()) {
    const child = normalise((v as Record<string, unknown>)[key]);
    if (child === undefined || child === null) continue;
    if (Array.isArray(child) && child.length === 0) continue;
    if (typeof child === 'object' && !Array.isArray(child) && Object.keys(child).length === 0) continue;
    out[key] = child;
  }
  return out;
}

/** Whether a ClusterRole has an aggregationRule with selectors (kube's `hasAggregationRule`). */
function aggregates(clusterRole: JsonObject): boolean {
  const selectors = asObject(clusterRole.aggregationRule).clusterRoleSelectors;
  return Array.isArray(selectors) && selectors.length > 0;
}

function forbidden(resource: string, name: string, why: string): EscalationDecision {
  return {
    allowed: false,
    status: 403,
    reason: 'Forbidden',
    message: `${resource}.${RBAC_GROUP} ${JSON.stringify(name)} is forbidden: ${why}`,
    details: { group: RBAC_GROUP, kind: resource, name },
  };
}

/**
 * Checks a create or update of a Role, ClusterRole, RoleBinding or ClusterRoleBinding as kube-apiserver does:
 * - members of `system:masters` may write anything;
 * - an update that changes only ownerReferences, finalizers or deletion fields is always allowed;
 * - a Role/ClusterRole is allowed when the user may `escalate` it, or holds every rule it grants (in the
 *   Role's namespace; cluster-wide for a ClusterRole); setting, changing or removing an `aggregationRule`
 *   needs `*` on everything;
 * - a binding is allowed when the user may `bind` the referenced role (in the binding's namespace, or
 *   cluster-wide for a ClusterRoleBinding), or holds every rule of that role; a missing role is a 404.
 *
 * Other kinds are always allowed (the check does not apply to them).
 */
export function checkEscalation(req: EscalationRequest, rbac: RbacObjects): EscalationDecision {
  const groups = req.groups;
  if (groups.includes(SYSTEM_MASTERS)) return { allowed: true };
  if (req.old && onlyGcFieldsChanged(req.object, req.old)) return { allowed: true };
  const kind = str(req.object.kind);
  const meta = asObject(req.object.metadata);
  const name = str(meta.name);
  const namespace = kind === 'Role' || kind === 'RoleBinding' ? str(meta.namespace) : '';
  const can = (verb: string, apiGroup: string, resource: string, objName: string, ns: string): boolean =>
    authorize(
      { user: req.user, groups: req.groups, verb, apiGroup, resource, name: objName, namespace: ns },
      rbac,
    ).allowed;

  if (kind === 'Role' || kind === 'ClusterRole') {
    const resource = kind === 'Role' ? 'roles' : 'clusterroles';
    // The request's URL names the object for updates and patches, not for a create (POST).
    const urlName = req.requestName ?? (req.old ? name : '');
    if (can('escalate', RBAC_GROUP, resource, urlName, namespace)) return { allowed: true };
    const why = confirmNoEscalation(req.user, groups, namespace, rulesOf(req.object), rbac);
    if (why !== undefined) return forbidden(resource, name, why);
    // setting, changing or removing an aggregationRule needs `*` on everything
    if (
      kind === 'ClusterRole' &&
      (aggregates(req.object) || (req.old !== undefined && aggregates(req.old)))
    ) {
      if (confirmNoEscalation(req.user, groups, '', FULL_AUTHORITY, rbac) !== undefined) {
        return forbidden(resource, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
    }
    return { allowed: true };
  }

  if (kind === 'RoleBinding' || kind === 'ClusterRoleBinding') {
    const resource = kind === 'RoleBinding' ? 'rolebindings' : 'clusterrolebindings';
    const roleRef = asObject(req.object.roleRef);
    const refKind = str(roleRef.kind);
    const refName = str(roleRef.name);
    const refResource = refKind === 'Role' ? 'roles' : refKind === 'ClusterRole' ? 'clusterroles' : undefined;
    if (refResource && can('bind', str(roleRef.apiGroup), refResource, refName, namespace))
      return { allowed: true };
    const resolver = new RuleResolver(rbac);
    let rules: PolicyRule[] | undefined;
    if (refKind === 'ClusterRole') rules = resolver.clusterRoleRules(refName);
    else if (refKind === 'Role') rules = resolver.roleRules(namespace, refName);
    if (rules === undefined) {
      const missingKind = refKind === 'Role' ? 'role' : 'clusterrole';
      return {
        allowed: false,
        status: 404,
        reason: 'NotFound',
        message: `${missingKind}.${RBAC_GROUP} ${JSON.stringify(refName)} not found`,
        details: { group: RBAC_GROUP, kind: missingKind, name: refName },
      };
    }
    const why = confirmNoEscalation(req.user, groups, namespace, rules, rbac);
    return why === undefined ? { allowed: true } : forbidden(resource, name, why);
  }
  return { allowed: true };
}
