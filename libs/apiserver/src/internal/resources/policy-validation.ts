import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';

// The validation kube-apiserver gives autoscaling/v2 HorizontalPodAutoscalers and policy/v1
// PodDisruptionBudgets beyond their schema types (pkg/apis/autoscaling/validation and
// pkg/apis/policy/validation): what an operator computing them wrong is refused on a cluster.

const invalid = (field: string, value: string, message: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${value}: ${message}`,
});
const required = (field: string): StatusCause => ({
  reason: 'FieldValueRequired',
  field,
  message: 'Required value',
});

/** ValidateHorizontalPodAutoscalerSpec (minReplicas' lower bound 1: HPAScaleToZero is off by default). */
export function validateHorizontalPodAutoscaler(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const min = spec.minReplicas;
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
  if (typeof min === 'number' && min < 1)
    causes.push(invalid('spec.minReplicas', String(min), 'must be greater than or equal to 1'));
  if (max < 1) causes.push(invalid('spec.maxReplicas', String(max), 'must be greater than 0'));
  if (typeof min === 'number' && max < min)
    causes.push(invalid('spec.maxReplicas', String(max), 'must be greater than or equal to `minReplicas`'));
  const ref = isObject(spec.scaleTargetRef) ? spec.scaleTargetRef : {};
  for (const key of ['kind', 'name']) {
    const value = ref[key];
    if (typeof value !== 'string' || value === '') causes.push(required(`spec.scaleTargetRef.${key}`));
  }
  return causes;
}

/** Go's `%#v` of an intstr.IntOrString, as field.Invalid prints one. */
function goIntOrString(v: number | string): string {
  return typeof v === 'number'
    ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`
    : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}`;
}

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent of one field. */
function intOrPercentCauses(v: unknown, field: string): StatusCause[] {
  if (typeof v === 'number')
    return v < 0 ? [invalid(field, String(v), 'must be greater than or equal to 0')] : [];
  if (typeof v !== 'string') return [];
  if (!/^[0-9]+%$/.test(v)) {
    return [
      invalid(
        field,
        goIntOrString(v),
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ),
    ];
  }
  return Number(v.slice(0, -1)) > 100
    ? [invalid(field, goIntOrString(v), 'must not be greater than 100%')]
    : [];
}

/** ValidatePodDisruptionBudgetSpec: not both minAvailable and maxUnavailable; each a count or a percent up to 100%. */
export function validatePodDisruptionBudget(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    // kube prints the whole spec struct here (with pointers); its fields are what matters
    causes.push(
      invalid(
        'spec',
        'policy.PodDisruptionBudgetSpec{...}',
        'minAvailable and maxUnavailable cannot be both set',
      ),
    );
  }
  causes.push(...intOrPercentCauses(spec.minAvailable, 'spec.minAvailable'));
  causes.push(...intOrPercentCauses(spec.maxUnavailable, 'spec.maxUnavailable'));
  return causes;
}
