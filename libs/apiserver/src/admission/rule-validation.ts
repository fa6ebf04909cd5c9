/**
 * Validation of the rules of admission webhooks (`webhooks[].rules`) and of ValidatingAdmissionPolicy
 * match resources (`resourceRules`, `excludeResourceRules`), as k8s.io/kubernetes
 * pkg/apis/admissionregistration/validation does it (validateRuleWithOperations, validateRule,
 * validateResources, validateNamedRuleWithOperations): operations, API groups, API versions and
 * resources are required (a rule without them matches nothing), `*` stands alone, and the
 * subresource wildcards may not overlap.
 */
import type { StatusCause } from '../types.js';
import { isObject } from '../internal/common/json.js';
import { duplicate, invalid, notSupported, required } from '../crd/field-errors.js';

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** kube's validateResources: the resources of a rule, with subresources (`pods/status`, `*\/scale`). */
function validateResources(resources: string[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (resources.length === 0) causes.push(required(field));
  const withWildcardSubresource = new Set<string>();
  const withWildcardResource = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSubresource = false;
  resources.forEach((r, i) => {
    if (r === '') {
      causes.push(required(`${field}[${i}]`));
      return;
    }
    if (r === '*/*') doubleWildcard = true;
    if (r === '*') singleWildcard = true;
    const slash = r.indexOf('/');
    if (slash < 0) {
      // as kube: the last resource without a subresource decides
      withoutSubresource = r !== '*';
      return;
    }
    const res = r.slice(0, slash);
    const sub = r.slice(slash + 1);
    if (withWildcardSubresource.has(res))
      causes.push(invalid(`${field}[${i}]`, r, `if '${res}/*' is present, must not specify ${r}`));
    if (withWildcardResource.has(sub))
      causes.push(invalid(`${field}[${i}]`, r, `if '*/${sub}' is present, must not specify ${r}`));
    if (sub === '*') withWildcardSubresource.add(res);
    if (res === '*') withWildcardResource.add(sub);
  });
  if (resources.length > 1 && doubleWildcard)
    causes.push(invalid(field, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSubresource)
    causes.push(
      invalid(field, resources, "if '*' is present, must not specify other resources without subresources"),
    );
  return causes;
}

/** kube's validateRuleWithOperations for the rule at `field` (e.g. `webhooks[0].rules[1]`). */
export function validateRuleWithOperations(value: unknown, field: string): StatusCause[] {
  const rule = isObject(value) ? value : {};
  const causes: StatusCause[] = [];
  const operations = strings(rule.operations);
  if (operations.length === 0) causes.push(required(`${field}.operations`));
  if (operations.length > 1 && operations.includes('*'))
    causes.push(
      invalid(`${field}.operations`, operations, "if '*' is present, must not specify other operations"),
    );
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) causes.push(notSupported(`${field}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) causes.push(required(`${field}.apiGroups`));
  if (groups.length > 1 && groups.includes('*'))
    causes.push(
      invalid(`${field}.apiGroups`, groups, "if '*' is present, must not specify other API groups"),
    );
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) causes.push(required(`${field}.apiVersions`));
  if (versions.length > 1 && versions.includes('*'))
    causes.push(
      invalid(`${field}.apiVersions`, versions, "if '*' is present, must not specify other API versions"),
    );
  versions.forEach((v, i) => {
    if (v === '') causes.push(required(`${field}.apiVersions[${i}]`));
  });
  causes.push(...validateResources(strings(rule.resources), `${field}.resources`));
  if (rule.scope !== undefined && rule.scope !== null && !SCOPES.some((sc) => sc === rule.scope))
    causes.push(notSupported(`${field}.scope`, rule.scope, SCOPES));
  return causes;
}

/** kube's validateNamedRuleWithOperations: a policy's rule, with unique `resourceNames`. */
export function validateNamedRuleWithOperations(value: unknown, field: string): StatusCause[] {
  const rule = isObject(value) ? value : {};
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  strings(rule.resourceNames).forEach((name, i) => {
    if (name === '.' || name === '..')
      causes.push(invalid(`${field}.resourceNames[${i}]`, name, `may not be '${name}'`));
    for (const bad of ['/', '%'])
      if (name.includes(bad))
        causes.push(invalid(`${field}.resourceNames[${i}]`, name, `may not contain '${bad}'`));
    if (seen.has(name)) causes.push(duplicate(`${field}.resourceNames[${i}]`, name));
    seen.add(name);
  });
  causes.push(...validateRuleWithOperations(rule, field));
  return causes;
}
