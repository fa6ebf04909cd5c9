/**
 * Kubernetes RBAC: the authorizer, the rules review and the Forbidden message of kube-apiserver.
 *
 * @packageDocumentation
 */
export { authorize, forbiddenMessage, rulesFor, SYSTEM_MASTERS } from './authorizer.js';
export { ruleAllows } from './rule-matching.js';
export { effectiveGroups, parseServiceAccountUser, rulesOf } from './rule-resolver.js';
export type {
  AuthorizationAttributes,
  AuthorizationDecision,
  NonResourceRule,
  PolicyRule,
  RbacObjects,
  ResourceRule,
  SubjectRulesReviewStatus,
} from './types.js';
export { checkEscalation, compactRuleString, uncoveredRules } from './escalation.js';
export type { EscalationDecision, EscalationRequest } from './escalation.js';
