import type { JsonObject } from '../types.js';
import { labelSelectorFromObject, matchesLabels } from '../selectors/index.js';
import type { PolicyRule, RbacObjects } from './types.js';

/**
 * Walks the rules that apply to a user in a namespace, as kube-apiserver's `DefaultRuleResolver.VisitRulesFor`:
 * ClusterRoleBindings first (they grant everywhere), then the RoleBindings of the namespace (which may
 * refer to a Role of that namespace or to a ClusterRole).
 */

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** One subject of a binding. */
interface Subject {
  kind: string;
  name: string;
  namespace: string;
}

/** Where a rule came from, for the decision's reason. */
export interface RuleSource {
  bindingKind: 'ClusterRoleBinding' | 'RoleBinding';
  bindingName: string;
  bindingNamespace: string;
  roleKind: string;
  roleName: string;
  subject: Subject;
}

/** Called for each rule, or with an error; returns false to stop the walk. */
export type RuleVisitor = (
  source: RuleSource | undefined,
  rule: PolicyRule | undefined,
  error: string | undefined,
) => boolean;

function asObject(v: unknown): JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
}

function asString(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function asStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function metaOf(obj: JsonObject): { name: string; namespace: string; labels: Record<string, string> } {
  const meta = asObject(obj.metadata);
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(asObject(meta.labels))) if (typeof v === 'string') labels[k] = v;
  return { name: asString(meta.name), namespace: asString(meta.namespace), labels };
}

/** The rules of a Role or ClusterRole, normalised. */
export function rulesOf(role: JsonObject): PolicyRule[] {
  const rules = Array.isArray(role.rules) ? role.rules : [];
  return rules.map((r) => {
    const o = asObject(r);
    return {
      verbs: asStrings(o.verbs),
      apiGroups: asStrings(o.apiGroups),
      resources: asStrings(o.resources),
      resourceNames: asStrings(o.resourceNames),
      nonResourceURLs: asStrings(o.nonResourceURLs),
    };
  });
}

function subjectsOf(binding: JsonObject): Subject[] {
  const subjects = Array.isArray(binding.subjects) ? binding.subjects : [];
  return subjects.map((s) => {
    const o = asObject(s);
    return { kind: asString(o.kind), name: asString(o.name), namespace: asString(o.namespace) };
  });
}

/**
 * The groups kube-apiserver's authenticators add to a user: every user but `system:anonymous` is in
 * `system:authenticated` (`system:anonymous` is in `system:unauthenticated`); a service account
 * `system:serviceaccount:<ns>:<name>` is also in `system:serviceaccounts` and `system:serviceaccounts:<ns>`.
 */
export function effectiveGroups(user: string, groups: readonly string[]): string[] {
  // In the order kube-apiserver builds them: the service account authenticator's groups, then the
  // authenticated (or unauthenticated) group appended by the group adder.
  const out = new Set(groups);
  const sa = parseServiceAccountUser(user);
  if (sa) {
    out.add('system:serviceaccounts');
    out.add(`system:serviceaccounts:${sa.namespace}`);
  }
  out.add(user === 'system:anonymous' ? 'system:unauthenticated' : 'system:authenticated');
  return [...out];
}

/** Splits `system:serviceaccount:<ns>:<name>`; undefined for other users. */
export function parseServiceAccountUser(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

/**
 * Whether a subject names the user. A ServiceAccount subject without a namespace means the
 * binding's namespace (never matches in a ClusterRoleBinding).
 */
function appliesTo(
  user: string,
  groups: readonly string[],
  subject: Subject,
  bindingNamespace: string,
): boolean {
  switch (subject.kind) {
    case 'User':
      return user === subject.name;
    case 'Group':
      return groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user === `${SERVICE_ACCOUNT_PREFIX}${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** Rules of ClusterRoles, aggregation resolved, computed once per {@link RuleResolver}. */
export class RuleResolver {
  private readonly clusterRoles = new Map<string, JsonObject>();
  private readonly roles = new Map<string, JsonObject>();
  private readonly aggregated = new Map<string, PolicyRule[]>();

  constructor(private readonly rbac: RbacObjects) {
    for (const cr of rbac.clusterRoles) this.clusterRoles.set(metaOf(cr).name, cr);
    for (const r of rbac.roles) {
      const m = metaOf(r);
      this.roles.set(`${m.namespace}/${m.name}`, r);
    }
  }

  /**
   * A ClusterRole's rules. For an aggregated ClusterRole (`aggregationRule.clusterRoleSelectors`) these
   * are the rules of every other ClusterRole matching one of the selectors, as the aggregation
   * controller writes them (transitively; a role's own `rules` are replaced, as the controller does).
   */
  clusterRoleRules(name: string): PolicyRule[] | undefined {
    return this.resolveClusterRole(name, new Set());
  }

  private resolveClusterRole(name: string, visiting: Set<string>): PolicyRule[] | undefined {
    const cached = this.aggregated.get(name);
    if (cached) return cached;
    const role = this.clusterRoles.get(name);
    if (!role) return undefined;
    const aggregation = asObject(role.aggregationRule);
    if (!Array.isArray(aggregation.clusterRoleSelectors)) {
      const rules = rulesOf(role);
      this.aggregated.set(name, rules);
      return rules;
    }
    visiting.add(name);
    const selectors = aggregation.clusterRoleSelectors.flatMap((s) => {
      try {
        return [labelSelectorFromObject(asObject(s))];
      } catch {
        return []; // an invalid selector selects nothing, as the controller skips it
      }
    });
    const rules: PolicyRule[] = [];
    const seen = new Set<string>();
    for (const [otherName, other] of [...this.clusterRoles].sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    )) {
      if (otherName === name || visiting.has(otherName)) continue;
      const labels = metaOf(other).labels;
      if (!selectors.some((sel) => matchesLabels(sel, labels))) continue;
      for (const rule of this.resolveClusterRole(otherName, visiting) ?? []) {
        const key = JSON.stringify(rule);
        if (!seen.has(key)) {
          seen.add(key);
          rules.push(rule);
        }
      }
    }
    visiting.delete(name);
    this.aggregated.set(name, rules);
    return rules;
  }

  /** A Role's rules, or undefined when there is no such Role in the namespace. */
  roleRules(namespace: string, name: string): PolicyRule[] | undefined {
    const role = this.roles.get(`${namespace}/${name}`);
    return role ? rulesOf(role) : undefined;
  }

  private roleReferenceRules(
    roleRef: JsonObject,
    bindingNamespace: string,
  ): { rules?: PolicyRule[]; error?: string } {
    const kind = asString(roleRef.kind);
    const name = asString(roleRef.name);
    if (kind === 'Role') {
      const role = this.roles.get(`${bindingNamespace}/${name}`);
      return role
        ? { rules: rulesOf(role) }
        : { error: `role.rbac.authorization.k8s.io ${JSON.stringify(name)} not found` };
    }
    if (kind === 'ClusterRole') {
      const rules = this.clusterRoleRules(name);
      return rules
        ? { rules }
        : { error: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(name)} not found` };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(kind)}` };
  }

  /** Visits every rule granted to the user in `namespace` (`''`: cluster-wide rules only). */
  visitRulesFor(user: string, groups: readonly string[], namespace: string, visit: RuleVisitor): void {
    const walk = (
      bindings: readonly JsonObject[],
      bindingKind: RuleSource['bindingKind'],
      bindingNamespace: string,
    ): boolean => {
      for (const binding of bindings) {
        const subject = subjectsOf(binding).find((s) => appliesTo(user, groups, s, bindingNamespace));
        if (!subject) continue;
        const roleRef = asObject(binding.roleRef);
        const { rules, error } = this.roleReferenceRules(roleRef, bindingNamespace);
        if (error !== undefined) {
          if (!visit(undefined, undefined, error)) return false;
          continue;
        }
        const source: RuleSource = {
          bindingKind,
          bindingName: metaOf(binding).name,
          bindingNamespace,
          roleKind: asString(roleRef.kind),
          roleName: asString(roleRef.name),
          subject,
        };
        for (const rule of rules ?? []) if (!visit(source, rule, undefined)) return false;
      }
      return true;
    };
    if (!walk(this.rbac.clusterRoleBindings, 'ClusterRoleBinding', '')) return;
    if (namespace !== '') {
      const inNamespace = this.rbac.roleBindings.filter((rb) => metaOf(rb).namespace === namespace);
      walk(inNamespace, 'RoleBinding', namespace);
    }
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount')
    return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

/** `ClusterRoleBinding "b" of ClusterRole "r" to User "u"` / `RoleBinding "b/ns" of Role "r" to Group "g"`, as RBAC words it. */
export function describeSource(s: RuleSource): string {
  const binding = s.bindingKind === 'RoleBinding' ? `${s.bindingName}/${s.bindingNamespace}` : s.bindingName;
  return `${s.bindingKind} ${JSON.stringify(binding)} of ${s.roleKind} ${JSON.stringify(s.roleName)} to ${describeSubject(s.subject, s.bindingNamespace)}`;
}
