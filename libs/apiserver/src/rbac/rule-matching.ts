import type { AuthorizationAttributes, PolicyRule } from './types.js';

/** Kubernetes' wildcard for verbs, API groups, resources and non-resource URLs. */
const ALL = '*';

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === ALL || v === verb);
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return rule.apiGroups.some((g) => g === ALL || g === group);
}

/**
 * `*` matches every resource and subresource; `pods` matches only the resource itself;
 * `pods/status` only that subresource; `*\/status` that subresource of every resource.
 */
function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  return rule.resources.some((r) => {
    if (r === ALL || r === combined) return true;
    if (subresource === '') return false;
    return r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource);
  });
}

/** An empty list allows any name; otherwise the request's name (`''` when none) must be listed. */
function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  return rule.resourceNames.length === 0 || rule.resourceNames.includes(name);
}

/** `*` matches every path; `/apis/*` every path starting with `/apis/`; anything else exactly. */
function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return rule.nonResourceURLs.some((u) => {
    if (u === ALL || u === path) return true;
    return u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''));
  });
}

/** Whether one rule grants the request (kube-apiserver `rbac.RuleAllows`). */
export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (attrs.nonResourceURL !== undefined) {
    return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.nonResourceURL);
  }
  const subresource = attrs.subresource ?? '';
  const combined = subresource ? `${attrs.resource}/${subresource}` : attrs.resource;
  return (
    verbMatches(rule, attrs.verb) &&
    apiGroupMatches(rule, attrs.apiGroup) &&
    resourceMatches(rule, combined, subresource) &&
    resourceNameMatches(rule, attrs.name ?? '')
  );
}
