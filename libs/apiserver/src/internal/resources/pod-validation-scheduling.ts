import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { labelKeyErrors, labelValueErrors } from '../../selectors/label-validation.js';
import { validateName } from '../storage/names.js';
import {
  duplicate,
  forbidden,
  goValue,
  invalid,
  notSupported,
  objects,
  required,
  strings,
} from './field-causes.js';
import { labelSelectorCauses } from './pod-validation-label-selector.js';

// Where a pod may be scheduled, as kube-apiserver 1.32 validates it (pkg/apis/core/validation
// ValidateLabels for the nodeSelector, validateAffinity with ValidateNodeSelector,
// ValidatePreferredSchedulingTerms, validatePodAffinityTerm, validateWeightedPodAffinityTerms;
// validateTopologySpreadConstraints; ValidateTolerations). The matchLabelKeys and mismatchLabelKeys
// of pod affinity terms are not checked here.

/** unversionedvalidation.ValidateLabelName: a qualified name. */
function labelNameCauses(key: string, path: string): StatusCause[] {
  return labelKeyErrors(key).map((m) => invalid(path, key, m));
}

/** unversionedvalidation.ValidateLabels (a nodeSelector). */
export function labelsCauses(labels: unknown, path: string): StatusCause[] {
  if (!isObject(labels)) return [];
  const causes: StatusCause[] = [];
  for (const [k, v] of Object.entries(labels)) {
    causes.push(...labelNameCauses(k, path));
    if (typeof v === 'string') for (const m of labelValueErrors(v)) causes.push(invalid(path, v, m));
  }
  return causes;
}

/** ValidateNodeSelectorRequirement. */
function nodeRequirementCauses(req: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const values = strings(req.values);
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0)
        causes.push(required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0)
        causes.push(
          forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
        );
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1)
        causes.push(
          required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"),
        );
      break;
    default:
      causes.push(invalid(`${path}.operator`, req.operator ?? '', 'not a valid selector operator'));
  }
  causes.push(...labelNameCauses(typeof req.key === 'string' ? req.key : '', `${path}.key`));
  return causes;
}

/** ValidateNodeFieldSelectorRequirement: only `metadata.name`, In or NotIn, one node name. */
function nodeFieldRequirementCauses(req: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const values = strings(req.values);
  if (req.operator === 'In' || req.operator === 'NotIn') {
    if (values.length !== 1)
      causes.push(
        required(
          `${path}.values`,
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        ),
      );
  } else causes.push(invalid(`${path}.operator`, req.operator ?? '', 'not a valid selector operator'));
  if (req.key !== 'metadata.name')
    causes.push(invalid(`${path}.key`, req.key ?? '', 'not a valid field selector key'));
  else values.forEach((v, i) => causes.push(...validateName(v, 'subdomain', `${path}.values[${i}]`)));
  return causes;
}

/** ValidateNodeSelectorTerm. */
function nodeTermCauses(term: unknown, path: string): StatusCause[] {
  const t = isObject(term) ? term : {};
  return [
    ...objects(t.matchExpressions).flatMap((r, j) =>
      nodeRequirementCauses(r, `${path}.matchExpressions[${j}]`),
    ),
    ...objects(t.matchFields).flatMap((r, j) => nodeFieldRequirementCauses(r, `${path}.matchFields[${j}]`)),
  ];
}

function weightCauses(weight: unknown, path: string): StatusCause[] {
  const w = typeof weight === 'number' ? weight : 0;
  return w <= 0 || w > 100 ? [invalid(path, w, 'must be in the range 1-100')] : [];
}

/** validateNodeAffinity. */
function nodeAffinityCauses(na: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const req = na.requiredDuringSchedulingIgnoredDuringExecution;
  if (isObject(req)) {
    const termsAt = `${path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
    const terms = Array.isArray(req.nodeSelectorTerms) ? req.nodeSelectorTerms : [];
    if (terms.length === 0) causes.push(required(termsAt, 'must have at least one node selector term'));
    terms.forEach((t, i) => causes.push(...nodeTermCauses(t, `${termsAt}[${i}]`)));
  }
  objects(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((p, i) => {
    const at = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    causes.push(...weightCauses(p.weight, `${at}.weight`));
    causes.push(...nodeTermCauses(p.preference, `${at}.preference`));
  });
  return causes;
}

/** validatePodAffinityTerm: selectors, namespaces (reported at `namespace`), a topology key. */
function podAffinityTermCauses(term: unknown, path: string): StatusCause[] {
  const t = isObject(term) ? term : {};
  const causes = [
    ...labelSelectorCauses(t.labelSelector, `${path}.labelSelector`),
    ...labelSelectorCauses(t.namespaceSelector, `${path}.namespaceSelector`),
  ];
  for (const ns of strings(t.namespaces)) causes.push(...validateName(ns, 'label', `${path}.namespace`));
  const key = typeof t.topologyKey === 'string' ? t.topologyKey : '';
  if (key === '') causes.push(required(`${path}.topologyKey`, 'can not be empty'));
  causes.push(...labelNameCauses(key, `${path}.topologyKey`));
  return causes;
}

/** validatePodAffinity and validatePodAntiAffinity. */
function podAffinityCauses(pa: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const req = pa.requiredDuringSchedulingIgnoredDuringExecution;
  if (Array.isArray(req))
    req.forEach((t, i) =>
      causes.push(
        ...podAffinityTermCauses(t, `${path}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`),
      ),
    );
  objects(pa.preferredDuringSchedulingIgnoredDuringExecution).forEach((w, i) => {
    const at = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    causes.push(...weightCauses(w.weight, `${at}.weight`));
    causes.push(...podAffinityTermCauses(w.podAffinityTerm, `${at}.podAffinityTerm`));
  });
  return causes;
}

/** validateAffinity at `path` (`spec.affinity`). */
export function affinityCauses(affinity: unknown, path: string): StatusCause[] {
  if (!isObject(affinity)) return [];
  const causes: StatusCause[] = [];
  if (isObject(affinity.nodeAffinity))
    causes.push(...nodeAffinityCauses(affinity.nodeAffinity, `${path}.nodeAffinity`));
  if (isObject(affinity.podAffinity))
    causes.push(...podAffinityCauses(affinity.podAffinity, `${path}.podAffinity`));
  if (isObject(affinity.podAntiAffinity))
    causes.push(...podAffinityCauses(affinity.podAntiAffinity, `${path}.podAntiAffinity`));
  return causes;
}

const NOT_POSITIVE = 'must be greater than zero';
const WHEN_UNSATISFIABLE = ['DoNotSchedule', 'ScheduleAnyway'] as const;
const NODE_INCLUSION = ['Honor', 'Ignore'] as const;

/** validateTopologySpreadConstraints at `path`. */
export function topologySpreadCauses(constraints: unknown, path: string): StatusCause[] {
  const list = objects(constraints);
  const causes: StatusCause[] = [];
  list.forEach((c, i) => {
    const at = `${path}[${i}]`;
    const maxSkew = typeof c.maxSkew === 'number' ? c.maxSkew : 0;
    if (maxSkew <= 0) causes.push(invalid(`${at}.maxSkew`, maxSkew, NOT_POSITIVE));
    const key = typeof c.topologyKey === 'string' ? c.topologyKey : '';
    if (key === '') causes.push(required(`${at}.topologyKey`, 'can not be empty'));
    const action = typeof c.whenUnsatisfiable === 'string' ? c.whenUnsatisfiable : '';
    if (!(WHEN_UNSATISFIABLE as readonly string[]).includes(action))
      causes.push(notSupported(`${at}.whenUnsatisfiable`, action, WHEN_UNSATISFIABLE));
    if (
      list.slice(i + 1).some((o) => (o.topologyKey ?? '') === key && (o.whenUnsatisfiable ?? '') === action)
    )
      causes.push(duplicate(`${at}.{topologyKey, whenUnsatisfiable}`, `{${key}, ${action}}`));
    if (typeof c.minDomains === 'number') {
      if (c.minDomains <= 0) causes.push(invalid(`${at}.minDomains`, c.minDomains, NOT_POSITIVE));
      if (action !== 'DoNotSchedule')
        causes.push(
          invalid(
            `${at}.minDomains`,
            c.minDomains,
            `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`,
          ),
        );
    }
    for (const policy of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      const v = c[policy];
      if (typeof v === 'string' && !(NODE_INCLUSION as readonly string[]).includes(v))
        causes.push(notSupported(`${at}.${policy}`, v, NODE_INCLUSION));
    }
    const matchLabelKeys = strings(c.matchLabelKeys);
    if (matchLabelKeys.length > 0) {
      const selector = isObject(c.labelSelector) ? c.labelSelector : undefined;
      const keys = new Set<string>([
        ...Object.keys(selector && isObject(selector.matchLabels) ? selector.matchLabels : {}),
        ...objects(selector?.matchExpressions).map((e) => (typeof e.key === 'string' ? e.key : '')),
      ]);
      if (!selector)
        causes.push(forbidden(`${at}.matchLabelKeys`, 'must not be specified when labelSelector is not set'));
      matchLabelKeys.forEach((k, j) => {
        causes.push(...labelNameCauses(k, `${at}.matchLabelKeys[${j}]`));
        if (keys.has(k))
          causes.push(
            invalid(`${at}.matchLabelKeys[${j}]`, k, 'exists in both matchLabelKeys and labelSelector'),
          );
      });
    }
    causes.push(...labelSelectorCauses(c.labelSelector, `${at}.labelSelector`));
  });
  return causes;
}

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

/** A toleration as Go's %#v prints the internal core.Toleration kube reports for `Exists` with a value. */
function goToleration(t: JsonObject): string {
  const s = (v: unknown): string => JSON.stringify(typeof v === 'string' ? v : '');
  const seconds =
    typeof t.tolerationSeconds === 'number' ? `(*int64)(${goValue(t.tolerationSeconds)})` : '(*int64)(nil)';
  return `core.Toleration{Key:${s(t.key)}, Operator:${s(t.operator)}, Value:${s(t.value)}, Effect:${s(t.effect)}, TolerationSeconds:${seconds}}`;
}

/** ValidateTolerations at `path`. */
export function tolerationsCauses(tolerations: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  objects(tolerations).forEach((t, i) => {
    const at = `${path}[${i}]`;
    const key = typeof t.key === 'string' ? t.key : '';
    const operator = typeof t.operator === 'string' ? t.operator : '';
    const effect = typeof t.effect === 'string' ? t.effect : '';
    const value = typeof t.value === 'string' ? t.value : '';
    if (key !== '') causes.push(...labelNameCauses(key, `${at}.key`));
    if (key === '' && operator !== 'Exists')
      causes.push(
        invalid(
          `${at}.operator`,
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== 'NoExecute')
      causes.push(
        invalid(`${at}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"),
      );
    if (operator === 'Equal' || operator === '') {
      const errs = labelValueErrors(value);
      if (errs.length > 0) causes.push(invalid(`${at}.operator`, value, errs.join(';')));
    } else if (operator === 'Exists') {
      if (value !== '')
        causes.push({
          reason: 'FieldValueInvalid',
          field: `${at}.operator`,
          message: `Invalid value: ${goToleration(t)}: value must be empty when \`operator\` is 'Exists'`,
        });
    } else causes.push(notSupported(`${at}.operator`, operator, ['Equal', 'Exists']));
    if (effect !== '' && !(EFFECTS as readonly string[]).includes(effect))
      causes.push(notSupported(`${at}.effect`, effect, EFFECTS));
  });
  return causes;
}
