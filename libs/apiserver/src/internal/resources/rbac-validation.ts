import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { validateName } from '../storage/names.js';
import { invalid, notSupported, objects, required } from './field-causes.js';

// What kube-apiserver 1.32 refuses in Roles, ClusterRoles and their bindings beyond their schema
// types (pkg/apis/rbac/validation validatePolicyRule, ValidateRoleBinding,
// ValidateClusterRoleBinding, validateRoleBindingSubject), with kube's paths and wording.

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const count = (v: unknown): number => (Array.isArray(v) ? v.length : 0);

/** validatePolicyRule for each of a Role's (namespaced) or a ClusterRole's rules. */
export function roleCauses(o: JsonObject, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  objects(o.rules).forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (count(rule.verbs) === 0)
      causes.push(required(`${at}.verbs`, 'verbs must contain at least one value'));
    if (count(rule.nonResourceURLs) > 0) {
      if (namespaced)
        causes.push(
          invalid(
            `${at}.nonResourceURLs`,
            rule.nonResourceURLs,
            'namespaced rules cannot apply to non-resource URLs',
          ),
        );
      if (count(rule.apiGroups) > 0 || count(rule.resources) > 0 || count(rule.resourceNames) > 0)
        causes.push(
          invalid(
            `${at}.nonResourceURLs`,
            rule.nonResourceURLs,
            'rules cannot apply to both regular resources and non-resource URLs',
          ),
        );
      return;
    }
    if (count(rule.apiGroups) === 0)
      causes.push(required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
    if (count(rule.resources) === 0)
      causes.push(required(`${at}.resources`, 'resource rules must supply at least one resource'));
    if (count(rule.resourceNames) > 0 && count(rule.resources) > 1)
      causes.push(required(`${at}.resourceNames`, 'resource names cannot apply to multiple resources'));
  });
  return causes;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * ValidateRoleBinding / ValidateClusterRoleBinding (defaulted): the roleRef's group, kind and name,
 * and each subject's name, kind, group and (for a ClusterRoleBinding's service account) namespace.
 */
export function bindingCauses(o: JsonObject, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const ref = isObject(o.roleRef) ? o.roleRef : {};
  if (str(ref.apiGroup) !== RBAC_GROUP)
    causes.push(notSupported('roleRef.apiGroup', str(ref.apiGroup), [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(str(ref.kind))) causes.push(notSupported('roleRef.kind', str(ref.kind), kinds));
  const name = str(ref.name);
  if (name === '') causes.push(required('roleRef.name'));
  else causes.push(...validateName(name, 'path', 'roleRef.name'));
  objects(o.subjects).forEach((subject, i) => {
    const at = `subjects[${i}]`;
    const subjectName = str(subject.name);
    const group = str(subject.apiGroup);
    if (subjectName === '') causes.push(required(`${at}.name`));
    switch (subject.kind) {
      case 'ServiceAccount':
        if (subjectName !== '') causes.push(...validateName(subjectName, 'subdomain', `${at}.name`));
        if (group !== '') causes.push(notSupported(`${at}.apiGroup`, group, ['']));
        if (!namespaced && str(subject.namespace) === '') causes.push(required(`${at}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (subjectName === '')
          causes.push(
            invalid(
              `${at}.name`,
              subjectName,
              `${subject.kind === 'User' ? 'user' : 'group'} name cannot be empty`,
            ),
          );
        if (group !== RBAC_GROUP) causes.push(notSupported(`${at}.apiGroup`, group, [RBAC_GROUP]));
        break;
      default:
        causes.push(notSupported(`${at}.kind`, str(subject.kind), ['ServiceAccount', 'User', 'Group']));
    }
  });
  return causes;
}
