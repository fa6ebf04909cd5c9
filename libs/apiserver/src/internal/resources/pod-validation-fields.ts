import type { JsonObject, StatusCause } from '../../types.js';
import { labelKeyErrors } from '../../selectors/label-validation.js';
import { validateName } from '../storage/names.js';
import { duplicate, invalid, notSupported, objects } from './field-causes.js';

// The remaining single fields of a pod spec and its containers as kube-apiserver 1.32 validates
// them (pkg/apis/core/validation validateContainerCommon's terminationMessagePolicy and
// validatePullPolicy, AccumulateUniqueHostPorts, validatePodHostNetworkDeps, validateReadinessGates,
// and ValidatePodSpec's checks of serviceAccountName, nodeName, activeDeadlineSeconds, hostname,
// subdomain, priorityClassName and preemptionPolicy). Both policies are defaulted first, so only a
// wrong value is reported.

const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'] as const;
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;

/** validateContainerCommon: a known terminationMessagePolicy. */
export function terminationMessagePolicyCauses(c: JsonObject, path: string): StatusCause[] {
  const v = c.terminationMessagePolicy;
  return typeof v === 'string' && !(TERMINATION_MESSAGE_POLICIES as readonly string[]).includes(v)
    ? [notSupported(`${path}.terminationMessagePolicy`, v, TERMINATION_MESSAGE_POLICIES)]
    : [];
}

/** validatePullPolicy: a known imagePullPolicy. */
export function pullPolicyCauses(c: JsonObject, path: string): StatusCause[] {
  const v = c.imagePullPolicy;
  return typeof v === 'string' && !(PULL_POLICIES as readonly string[]).includes(v)
    ? [notSupported(`${path}.imagePullPolicy`, v, PULL_POLICIES)]
    : [];
}

/**
 * checkHostPortConflicts over `containers` at `path` (the list): a hostPort used twice for one
 * protocol and host IP. Kube checks regular containers together and each init container alone.
 */
export function hostPortConflictCauses(
  containers: readonly JsonObject[],
  path: string,
  offset = 0,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  containers.forEach((c, i) => {
    objects(c.ports).forEach((p, j) => {
      if (typeof p.hostPort !== 'number' || p.hostPort === 0) return;
      const protocol = typeof p.protocol === 'string' ? p.protocol : '';
      const hostIp = typeof p.hostIP === 'string' ? p.hostIP : '';
      const key = `${protocol}/${hostIp}/${p.hostPort}`;
      if (seen.has(key)) causes.push(duplicate(`${path}[${i + offset}].ports[${j}].hostPort`, key));
      seen.add(key);
    });
  });
  return causes;
}

/** validatePodHostNetworkDeps: on the host network a regular container's hostPort is its containerPort. */
export function hostNetworkCauses(spec: JsonObject, path: string): StatusCause[] {
  if (spec.hostNetwork !== true) return [];
  const causes: StatusCause[] = [];
  objects(spec.containers).forEach((c, i) =>
    objects(c.ports).forEach((p, j) => {
      const hp = typeof p.hostPort === 'number' ? p.hostPort : 0;
      const cp = typeof p.containerPort === 'number' ? p.containerPort : 0;
      if (hp !== 0 && hp !== cp)
        causes.push(
          invalid(
            `${path}.containers[${i}].ports[${j}].hostPort`,
            hp,
            'must match `containerPort` when `hostNetwork` is true',
          ),
        );
    }),
  );
  return causes;
}

/** validateReadinessGates: each conditionType a qualified name. */
export function readinessGateCauses(gates: unknown, path: string): StatusCause[] {
  return objects(gates).flatMap((g, i) => {
    const type = typeof g.conditionType === 'string' ? g.conditionType : '';
    return labelKeyErrors(type).map((m) => invalid(`${path}[${i}].conditionType`, type, m));
  });
}

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** ValidatePodSpec's serviceAccountName, nodeName, activeDeadlineSeconds, hostname and subdomain. */
export function podIdentityCauses(spec: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (nonEmpty(spec.serviceAccountName))
    causes.push(...validateName(spec.serviceAccountName, 'subdomain', `${path}.serviceAccountName`));
  if (nonEmpty(spec.nodeName)) causes.push(...validateName(spec.nodeName, 'subdomain', `${path}.nodeName`));
  const deadline = spec.activeDeadlineSeconds;
  if (typeof deadline === 'number' && (deadline < 1 || deadline > 2147483647))
    causes.push(
      invalid(`${path}.activeDeadlineSeconds`, deadline, 'must be between 1 and 2147483647, inclusive'),
    );
  if (nonEmpty(spec.hostname)) causes.push(...validateName(spec.hostname, 'label', `${path}.hostname`));
  if (nonEmpty(spec.subdomain)) causes.push(...validateName(spec.subdomain, 'label', `${path}.subdomain`));
  return causes;
}

const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'] as const;

/** ValidatePodSpec's priorityClassName and preemptionPolicy. */
export function podPriorityCauses(spec: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (nonEmpty(spec.priorityClassName))
    causes.push(...validateName(spec.priorityClassName, 'subdomain', `${path}.priorityClassName`));
  const policy = spec.preemptionPolicy;
  if (typeof policy === 'string' && !(PREEMPTION_POLICIES as readonly string[]).includes(policy))
    causes.push(notSupported(`${path}.preemptionPolicy`, policy, PREEMPTION_POLICIES));
  return causes;
}
