import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { forbidden, invalid, nonNegative, notSupported, required } from './field-causes.js';
import { podSpecCauses } from './workload-validation.js';

// ValidateReplicationControllerSpec (pkg/apis/core/validation) beyond the schema types: a non-empty
// selector (defaulted from the template's labels), non-negative counts, a template whose labels the
// selector matches, a valid pod spec that restarts Always, no activeDeadlineSeconds; kube's paths
// and wording.

/** The causes of a 422 for a ReplicationController's (defaulted) spec. */
export function replicationControllerCauses(spec: JsonObject | undefined): StatusCause[] {
  const s = spec ?? {};
  const causes: StatusCause[] = [...nonNegative(s.minReadySeconds, 'spec.minReadySeconds')];
  const selector = isObject(s.selector) ? s.selector : {};
  if (Object.keys(selector).length === 0) causes.push(required('spec.selector'));
  causes.push(...nonNegative(s.replicas, 'spec.replicas'));
  const template = s.template;
  if (!isObject(template)) {
    causes.push(required('spec.template'));
    return causes;
  }
  const meta = isObject(template.metadata) ? template.metadata : {};
  const labels = isObject(meta.labels) ? meta.labels : {};
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v))
    causes.push(
      invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'),
    );
  const podSpec = isObject(template.spec) ? template.spec : undefined;
  causes.push(...podSpecCauses(podSpec, 'spec.template.spec'));
  const policy = podSpec?.restartPolicy;
  if (typeof policy === 'string' && policy !== 'Always')
    causes.push(notSupported('spec.template.spec.restartPolicy', policy, ['Always']));
  if (podSpec?.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null)
    causes.push(
      forbidden(
        'spec.template.spec.activeDeadlineSeconds',
        'activeDeadlineSeconds in ReplicationController is not Supported',
      ),
    );
  return causes;
}
