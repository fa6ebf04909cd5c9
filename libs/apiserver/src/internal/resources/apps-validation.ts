import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { forbidden, invalid, nonNegative, notSupported, regexError, required } from './field-causes.js';

// What kube-apiserver 1.32 refuses in the rollout settings of Deployments, DaemonSets and
// StatefulSets beyond their schema types (pkg/apis/apps/validation ValidateDeploymentSpec,
// ValidateDeploymentStrategy, ValidateRollingUpdateDeployment, ValidateDaemonSetSpec,
// ValidateRollingUpdateDaemonSet, ValidateStatefulSetSpec), with kube's paths and wording. The
// selector and the pod template are checked by replicatedWorkloadCauses (workload-validation.ts).

const PERCENT_RE = /^[0-9]+%$/;

/** ValidatePositiveIntOrPercent: a non-negative integer or a percent string. */
function intOrPercentCauses(v: unknown, field: string): StatusCause[] {
  if (typeof v === 'string') {
    return PERCENT_RE.test(v)
      ? []
      : [
          invalid(
            field,
            v,
            regexError(
              "a valid percent string must be a numeric string followed by an ending '%'",
              '[0-9]+%',
              '1%',
              '93%',
            ),
          ),
        ];
  }
  return nonNegative(v, field);
}

/** getIntOrPercentValue: the percent's number, an integer, or a string's Atoi (0 when it is none). */
function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return 0;
  const digits = PERCENT_RE.test(v) ? v.slice(0, -1) : v;
  return /^[+-]?[0-9]+$/.test(digits) ? Number(digits) : 0;
}

/** IsNotMoreThan100Percent. */
function atMost100Percent(v: unknown, field: string): StatusCause[] {
  return typeof v === 'string' && PERCENT_RE.test(v) && Number(v.slice(0, -1)) > 100
    ? [invalid(field, v, 'must not be greater than 100%')]
    : [];
}

/** ValidateDeploymentStrategy and the counts of ValidateDeploymentSpec. */
export function deploymentCauses(spec: JsonObject | undefined): StatusCause[] {
  if (!spec) return [];
  const causes: StatusCause[] = [];
  const strategy = isObject(spec.strategy) ? spec.strategy : {};
  const path = 'spec.strategy';
  switch (strategy.type) {
    case 'Recreate':
      if (strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null)
        causes.push(
          forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'"),
        );
      break;
    case 'RollingUpdate': {
      const ru = strategy.rollingUpdate;
      if (!isObject(ru)) {
        causes.push(required(`${path}.rollingUpdate`, 'this should be defaulted and never be nil'));
        break;
      }
      const at = `${path}.rollingUpdate`;
      causes.push(
        ...intOrPercentCauses(ru.maxUnavailable, `${at}.maxUnavailable`),
        ...intOrPercentCauses(ru.maxSurge, `${at}.maxSurge`),
      );
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0)
        causes.push(invalid(`${at}.maxUnavailable`, ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
      causes.push(...atMost100Percent(ru.maxUnavailable, `${at}.maxUnavailable`));
      break;
    }
    default:
      causes.push(notSupported(path, strategy, ['Recreate', 'RollingUpdate']));
  }
  causes.push(
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'),
  );
  const deadline = spec.progressDeadlineSeconds;
  if (typeof deadline === 'number') {
    causes.push(...nonNegative(deadline, 'spec.progressDeadlineSeconds'));
    const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
    if (deadline <= minReady)
      causes.push(invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
  }
  return causes;
}

/** ValidateDaemonSetSpec's counts and ValidateDaemonSetUpdateStrategy. */
export function daemonSetCauses(spec: JsonObject | undefined): StatusCause[] {
  if (!spec) return [];
  const causes: StatusCause[] = [...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds')];
  const strategy = isObject(spec.updateStrategy) ? spec.updateStrategy : {};
  const path = 'spec.updateStrategy';
  switch (strategy.type) {
    case 'OnDelete':
      break;
    case 'RollingUpdate': {
      const ru = strategy.rollingUpdate;
      if (!isObject(ru)) {
        causes.push(required(`${path}.rollingUpdate`));
        break;
      }
      const at = `${path}.rollingUpdate`;
      causes.push(
        ...intOrPercentCauses(ru.maxUnavailable, `${at}.maxUnavailable`),
        ...intOrPercentCauses(ru.maxSurge, `${at}.maxSurge`),
        ...atMost100Percent(ru.maxUnavailable, `${at}.maxUnavailable`),
        ...atMost100Percent(ru.maxSurge, `${at}.maxSurge`),
      );
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge)
        causes.push(invalid(`${at}.maxSurge`, ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
      else if (!hasUnavailable && !hasSurge)
        causes.push(required(`${at}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
      break;
    }
    default:
      causes.push(notSupported(path, strategy, ['RollingUpdate', 'OnDelete']));
  }
  causes.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  return causes;
}

const RETENTION = ['Retain', 'Delete'];

/** ValidateStatefulSetSpec's policies, update strategy and counts. */
export function statefulSetCauses(spec: JsonObject | undefined): StatusCause[] {
  if (!spec) return [];
  const causes: StatusCause[] = [];
  const policy = spec.podManagementPolicy;
  if (policy === undefined || policy === null || policy === '')
    causes.push(required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel')
    causes.push(invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = isObject(spec.updateStrategy) ? spec.updateStrategy : {};
  const ru = strategy.rollingUpdate;
  switch (strategy.type) {
    case 'OnDelete':
      if (ru !== undefined && ru !== null)
        causes.push(
          invalid('spec.updateStrategy.rollingUpdate', ru, "only allowed for updateStrategy 'RollingUpdate'"),
        );
      break;
    case 'RollingUpdate':
      if (isObject(ru)) {
        const at = 'spec.updateStrategy.rollingUpdate';
        causes.push(...nonNegative(ru.partition, `${at}.partition`));
        if (ru.maxUnavailable !== undefined && ru.maxUnavailable !== null) {
          causes.push(...intOrPercentCauses(ru.maxUnavailable, `${at}.maxUnavailable`));
          if (intOrPercentValue(ru.maxUnavailable) === 0)
            causes.push(invalid(`${at}.maxUnavailable`, ru.maxUnavailable, 'cannot be 0'));
          causes.push(...atMost100Percent(ru.maxUnavailable, `${at}.maxUnavailable`));
        }
      }
      break;
    case undefined:
    case null:
    case '':
      causes.push(required('spec.updateStrategy'));
      break;
    default:
      causes.push(invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  if (isObject(retention))
    for (const key of ['whenDeleted', 'whenScaled']) {
      const v = retention[key];
      if (typeof v === 'string' && v !== '' && !RETENTION.includes(v))
        causes.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${key}`, v, RETENTION));
    }
  causes.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  return causes;
}
