import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { invalid, nonNegative } from './field-causes.js';

// ValidateLeaseSpec (pkg/apis/coordination/validation): a lease duration above 0 and lease
// transitions of 0 or more, with kube's paths and wording. The strategy and preferredHolder
// fields (the CoordinatedLeaderElection feature, off by default in 1.32) are not checked.

/** The causes of a 422 for a Lease's spec. */
export function leaseCauses(o: JsonObject): StatusCause[] {
  const spec = isObject(o.spec) ? o.spec : {};
  const causes: StatusCause[] = [];
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0)
    causes.push(invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  causes.push(...nonNegative(spec.leaseTransitions, 'spec.leaseTransitions'));
  return causes;
}
