/**
 * Which webhooks a request calls, by kube-apiserver's rules: operations, API groups, versions,
 * resources with subresources (`*`, `x/*`, `* /status`), scope, `matchPolicy: Equivalent`, and the
 * namespace and object label selectors.
 */
import { matchesLabels, selectsEverything } from '../selectors/index.js';
import type { AdmissionAttributes } from './admission-attributes.js';
import { labelsOf } from './admission-attributes.js';
import type { ResolvedWebhook, WebhookRule } from './webhook-configuration.js';

/** What matching needs to know about the cluster. */
export interface MatchContext {
  /** The labels of a namespace; undefined when it does not exist. */
  namespaceLabels(name: string): Record<string, string> | undefined;
  /** The other served versions of the same group and resource (for `matchPolicy: Equivalent`). */
  equivalentVersions(group: string, resource: string): readonly string[];
}

function listed(list: readonly string[], value: string): boolean {
  return list.includes('*') || list.includes(value);
}

function resourceMatches(rule: WebhookRule, resource: string, subresource: string): boolean {
  for (const r of rule.resources) {
    if (r === '*/*') return true;
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const sub = slash < 0 ? '' : r.slice(slash + 1);
    if ((res === '*' || res === resource) && (sub === '*' || sub === subresource)) return true;
  }
  return false;
}

function scopeMatches(rule: WebhookRule, attrs: AdmissionAttributes): boolean {
  const isNamespace = attrs.group === '' && attrs.resource === 'namespaces';
  if (rule.scope === 'Namespaced') return !isNamespace && attrs.namespace !== '';
  if (rule.scope === 'Cluster') return isNamespace || attrs.namespace === '';
  return true;
}

/** Whether one rule matches the request at `version`. */
export function ruleMatches(rule: WebhookRule, attrs: AdmissionAttributes, version: string): boolean {
  return (
    listed(rule.operations, attrs.operation) &&
    listed(rule.apiGroups, attrs.group) &&
    listed(rule.apiVersions, version) &&
    resourceMatches(rule, attrs.resource, attrs.subresource) &&
    scopeMatches(rule, attrs)
  );
}

function namespaceSelected(hook: ResolvedWebhook, attrs: AdmissionAttributes, ctx: MatchContext): boolean {
  if (selectsEverything(hook.namespaceSelector)) return true;
  if (attrs.group === '' && attrs.resource === 'namespaces') {
    return (
      matchesLabels(hook.namespaceSelector, labelsOf(attrs.object)) ||
      (attrs.oldObject !== undefined && matchesLabels(hook.namespaceSelector, labelsOf(attrs.oldObject)))
    );
  }
  // cluster-scoped objects are not subject to the namespace selector
  if (!attrs.namespaced || attrs.namespace === '') return true;
  return matchesLabels(hook.namespaceSelector, ctx.namespaceLabels(attrs.namespace) ?? {});
}

function objectSelected(hook: ResolvedWebhook, attrs: AdmissionAttributes): boolean {
  if (selectsEverything(hook.objectSelector)) return true;
  return (
    (attrs.object !== undefined && matchesLabels(hook.objectSelector, labelsOf(attrs.object))) ||
    (attrs.oldObject !== undefined && matchesLabels(hook.objectSelector, labelsOf(attrs.oldObject)))
  );
}

/**
 * The version at which `hook` is called for the request, or undefined when it is not called: the
 * request's own version when a rule names it, else (under `matchPolicy: Equivalent`) another served
 * version of the same resource that a rule names; the object is then sent converted to it.
 */
export function matchWebhook(
  hook: ResolvedWebhook,
  attrs: AdmissionAttributes,
  ctx: MatchContext,
): string | undefined {
  let version: string | undefined;
  if (hook.rules.some((r) => ruleMatches(r, attrs, attrs.version))) version = attrs.version;
  else if (hook.matchPolicy === 'Equivalent') {
    for (const v of ctx.equivalentVersions(attrs.group, attrs.resource)) {
      if (v !== attrs.version && hook.rules.some((r) => ruleMatches(r, attrs, v))) {
        version = v;
        break;
      }
    }
  }
  if (version === undefined) return undefined;
  if (!namespaceSelected(hook, attrs, ctx) || !objectSelected(hook, attrs)) return undefined;
  return version;
}
