/**
 * The API approval policy of protected groups (`k8s.io`, `kubernetes.io` and their subdomains): a
 * CRD there carries the `api-approved.kubernetes.io` annotation, a URL (approved) or a reason
 * starting with `unapproved` (bypassed). As apiextensions-apiserver's apihelpers GetAPIApprovalState.
 */
import type { JsonObject } from '../types.js';
import { isObject, objectAt, stringAt } from './json-util.js';

/** The annotation a CRD of a protected group needs. */
export const API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';

/** The approval state of a CRD's annotation. */
export type ApiApprovalState = 'Approved' | 'Bypassed' | 'Missing' | 'Invalid';

/** Whether a group is a protected community group. */
export function isProtectedGroup(group: string): boolean {
  return (
    group === 'k8s.io' ||
    group.endsWith('.k8s.io') ||
    group === 'kubernetes.io' ||
    group.endsWith('.kubernetes.io')
  );
}

/** Go's url.ParseRequestURI giving a scheme and a host (`https://github.com/...`). */
function isUrlWithHost(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s]+/.test(value)) return false;
  // Go's URL parser refuses control characters anywhere
  for (const ch of value) {
    const c = ch.charCodeAt(0);
    if (c < 0x20 || c === 0x7f) return false;
  }
  return true;
}

/** The state of the annotation and kube-apiserver's words for it. */
export function apiApprovalState(crd: JsonObject): { state: ApiApprovalState; reason: string } {
  const annotations = objectAt(crd, 'metadata').annotations;
  const value = isObject(annotations) ? (stringAt(annotations, API_APPROVED_ANNOTATION) ?? '') : '';
  const doc = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (value === '')
    return {
      state: 'Missing',
      reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}", ${doc}`,
    };
  if (value.startsWith('unapproved'))
    return { state: 'Bypassed', reason: `not approved: ${JSON.stringify(value)}` };
  if (isUrlWithHost(value)) return { state: 'Approved', reason: `approved in ${value}` };
  return {
    state: 'Invalid',
    reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}" with either a URL or a reason starting with "unapproved", ${doc}`,
  };
}
