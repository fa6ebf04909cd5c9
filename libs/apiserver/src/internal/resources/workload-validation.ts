import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { compareQuantities, isQuantity, parseQuantity } from '../../quantity/quantity.js';
import { labelSelectorFromObject } from '../../selectors/label-selector-object.js';
import { matchesLabels, selectsEverything } from '../../selectors/label-selector.js';
import { labelKeyErrors, labelValueErrors } from '../../selectors/label-validation.js';
import { validateName } from '../storage/names.js';
import {
  duplicate,
  forbidden,
  invalid,
  nonNegative,
  notFound,
  notSupported,
  objects,
  required,
} from './field-causes.js';

// What kube-apiserver 1.32 refuses in pods, pod templates and the workloads around them, beyond
// their schema types (pkg/apis/core/validation ValidatePodSpec, ValidatePodTemplateSpec; and
// pkg/apis/apps/validation, pkg/apis/batch/validation): the mistakes an operator building its
// dependents makes most (a selector that does not match the template's labels, a container
// without an image, a mount of a volume the pod does not have, a Job restarting Always), with
// kube's paths and wording. Not everything kube checks is here: probes, env names, security
// contexts, affinities, topology spread and volume sources are not validated.

/** The protocols of container and Service ports. */
export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const;
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const;

// ---- label selectors (apimachinery meta/v1/validation ValidateLabelSelector) ----

/** ValidateLabelSelector: keys and values of matchLabels, each requirement's key, operator and values. */
export function labelSelectorCauses(sel: unknown, path: string): StatusCause[] {
  if (!isObject(sel)) return [];
  const causes: StatusCause[] = [];
  const matchLabels = isObject(sel.matchLabels) ? sel.matchLabels : {};
  for (const [k, v] of Object.entries(matchLabels)) {
    for (const m of labelKeyErrors(k)) causes.push(invalid(`${path}.matchLabels`, k, m));
    if (typeof v === 'string')
      for (const m of labelValueErrors(v)) causes.push(invalid(`${path}.matchLabels`, v, m));
  }
  objects(sel.matchExpressions).forEach((req, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values = Array.isArray(req.values) ? req.values : [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          causes.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          causes.push(
            forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
          );
        break;
      default:
        causes.push(invalid(`${at}.operator`, req.operator, 'not a valid selector operator'));
    }
    if (typeof req.key === 'string')
      for (const m of labelKeyErrors(req.key)) causes.push(invalid(`${at}.key`, req.key, m));
    values.forEach((v, j) => {
      if (typeof v === 'string')
        for (const m of labelValueErrors(v)) causes.push(invalid(`${at}.values[${j}]`, v, m));
    });
  });
  return causes;
}

// ---- pod specs ----

/** validation.IsValidPortName (an IANA service name). */
export function portNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 15) problems.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name))
    problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) problems.push('must contain at least one letter (a-z)');
  if (name.includes('--')) problems.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) problems.push('must not begin or end with a hyphen');
  return problems;
}

/** validation.IsValidPortNum's message. */
export const PORT_RANGE = 'must be between 1 and 65535, inclusive';

/** validateContainerPorts: numbers in range, names IANA service names and unique, a known protocol. */
function containerPortCauses(ports: JsonObject[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = `${path}[${i}]`;
    if (typeof port.name === 'string' && port.name !== '') {
      for (const m of portNameProblems(port.name)) causes.push(invalid(`${at}.name`, port.name, m));
      if (names.has(port.name)) causes.push(duplicate(`${at}.name`, port.name));
      names.add(port.name);
    }
    if (typeof port.containerPort === 'number' && (port.containerPort < 1 || port.containerPort > 65535))
      causes.push(invalid(`${at}.containerPort`, port.containerPort, PORT_RANGE));
    if (
      typeof port.hostPort === 'number' &&
      port.hostPort !== 0 &&
      (port.hostPort < 1 || port.hostPort > 65535)
    )
      causes.push(invalid(`${at}.hostPort`, port.hostPort, PORT_RANGE));
    if (typeof port.protocol === 'string' && !(PROTOCOLS as readonly string[]).includes(port.protocol))
      causes.push(notSupported(`${at}.protocol`, port.protocol, PROTOCOLS));
  });
  return causes;
}

/** ValidateResourceRequirements: a request above its limit (for the resources both name). */
function resourceCauses(resources: unknown, path: string): StatusCause[] {
  if (!isObject(resources) || !isObject(resources.limits) || !isObject(resources.requests)) return [];
  const causes: StatusCause[] = [];
  for (const [name, request] of Object.entries(resources.requests)) {
    const limit = resources.limits[name];
    if (
      typeof request !== 'string' ||
      typeof limit !== 'string' ||
      !isQuantity(request) ||
      !isQuantity(limit)
    )
      continue;
    if (compareQuantities(parseQuantity(request), parseQuantity(limit)) > 0)
      causes.push(
        invalid(`${path}.requests`, request, `must be less than or equal to ${name} limit of ${limit}`),
      );
  }
  return causes;
}

/** The checks of validateContainers common to containers and init containers. */
function containerCauses(
  c: JsonObject,
  at: string,
  names: Set<string>,
  volumes: ReadonlySet<string>,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = typeof c.name === 'string' ? c.name : '';
  if (name === '') causes.push(required(`${at}.name`));
  else {
    causes.push(...validateName(name, 'label', `${at}.name`));
    if (names.has(name)) causes.push(duplicate(`${at}.name`, name));
    names.add(name);
  }
  if (typeof c.image !== 'string' || c.image === '') causes.push(required(`${at}.image`));
  causes.push(...containerPortCauses(objects(c.ports), `${at}.ports`));
  objects(c.volumeMounts).forEach((m, i) => {
    const mountAt = `${at}.volumeMounts[${i}]`;
    const volume = typeof m.name === 'string' ? m.name : '';
    if (volume === '') causes.push(required(`${mountAt}.name`));
    else if (!volumes.has(volume)) causes.push(notFound(`${mountAt}.name`, volume));
    if (typeof m.mountPath !== 'string' || m.mountPath === '') causes.push(required(`${mountAt}.mountPath`));
  });
  causes.push(...resourceCauses(c.resources, `${at}.resources`));
  return causes;
}

/**
 * ValidatePodSpec's common checks at `path` (`spec` of a Pod, `spec.template.spec` of a workload):
 * volume names, containers (at least one; names unique across init and regular containers; an
 * image; ports; mounts of volumes the pod has; requests within limits) and the restart policy.
 */
export function podSpecCauses(spec: unknown, path: string): StatusCause[] {
  if (!isObject(spec)) return [required(`${path}.containers`)];
  const causes: StatusCause[] = [];
  const volumes = new Set<string>();
  objects(spec.volumes).forEach((v, i) => {
    const name = typeof v.name === 'string' ? v.name : '';
    if (name === '') causes.push(required(`${path}.volumes[${i}].name`));
    else {
      causes.push(...validateName(name, 'label', `${path}.volumes[${i}].name`));
      if (volumes.has(name)) causes.push(duplicate(`${path}.volumes[${i}].name`, name));
      volumes.add(name);
    }
  });
  const names = new Set<string>();
  const containers = objects(spec.containers);
  if (containers.length === 0) causes.push(required(`${path}.containers`));
  // validateInitContainers runs before validateContainers; one name space for both
  objects(spec.initContainers).forEach((c, i) =>
    causes.push(...containerCauses(c, `${path}.initContainers[${i}]`, names, volumes)),
  );
  containers.forEach((c, i) =>
    causes.push(...containerCauses(c, `${path}.containers[${i}]`, names, volumes)),
  );
  if (
    typeof spec.restartPolicy === 'string' &&
    !(RESTART_POLICIES as readonly string[]).includes(spec.restartPolicy)
  )
    causes.push(notSupported(`${path}.restartPolicy`, spec.restartPolicy, RESTART_POLICIES));
  return causes;
}

// ---- workloads ----

function templateLabels(template: unknown): Record<string, string> {
  const meta = isObject(template) && isObject(template.metadata) ? template.metadata : {};
  return isObject(meta.labels) ? (meta.labels as Record<string, string>) : {};
}

/**
 * The selector rules of Deployments, ReplicaSets, StatefulSets and DaemonSets (ValidateDeploymentSpec,
 * ValidateReplicaSetSpec, ValidateStatefulSetSpec, ValidateDaemonSetSpec): a selector, not empty,
 * valid, matching the template's labels; replicas not negative; the template's pods restart Always.
 */
export function replicatedWorkloadCauses(kind: string, spec: JsonObject | undefined): StatusCause[] {
  if (!spec) return [required('spec.selector')];
  const causes: StatusCause[] = [];
  causes.push(...nonNegative(spec.replicas, 'spec.replicas'));
  const selector = spec.selector;
  if (!isObject(selector)) causes.push(required('spec.selector'));
  else {
    const selectorCauses = labelSelectorCauses(selector, 'spec.selector');
    causes.push(...selectorCauses);
    const empty =
      Object.keys(isObject(selector.matchLabels) ? selector.matchLabels : {}).length === 0 &&
      objects(selector.matchExpressions).length === 0;
    // kube's ReplicaSet rule says "deployment" too
    const noun = kind === 'ReplicaSet' ? 'deployment' : kind.toLowerCase();
    if (empty) causes.push(invalid('spec.selector', selector, `empty selector is invalid for ${noun}`));
    if (selectorCauses.length === 0 && !empty)
      causes.push(...templateMatchCauses(selector, spec.template, 'spec.template'));
  }
  if (!isObject(spec.template)) causes.push(required('spec.template'));
  else {
    const podSpec = isObject(spec.template.spec) ? spec.template.spec : undefined;
    causes.push(...podSpecCauses(podSpec, 'spec.template.spec'));
    const policy = podSpec?.restartPolicy;
    if (typeof policy === 'string' && policy !== 'Always')
      causes.push(notSupported('spec.template.spec.restartPolicy', policy, ['Always']));
  }
  return causes;
}

/** ValidatePodTemplateSpecForReplicaSet's label rule: the selector must select the template's pods. */
function templateMatchCauses(selector: JsonObject, template: unknown, path: string): StatusCause[] {
  let matches: boolean;
  try {
    const parsed = labelSelectorFromObject(selector);
    matches = selectsEverything(parsed) || matchesLabels(parsed, templateLabels(template));
  } catch {
    return [invalid('spec.selector', selector, 'invalid label selector')];
  }
  return matches
    ? []
    : [
        invalid(
          `${path}.metadata.labels`,
          templateLabels(template),
          '`selector` does not match template `labels`',
        ),
      ];
}

/**
 * validateJobSpec's template rules (Jobs, and CronJobs' job templates under `path`): a selector
 * matching the template when `manualSelector` is set, restart policy OnFailure or Never, the pod spec.
 */
export function jobSpecCauses(spec: JsonObject | undefined, path: string): StatusCause[] {
  if (!spec) return [];
  const causes: StatusCause[] = [];
  if (spec.manualSelector === true) {
    if (!isObject(spec.selector)) causes.push(required(`${path}.selector`));
    else {
      const selectorCauses = labelSelectorCauses(spec.selector, `${path}.selector`);
      causes.push(...selectorCauses);
      if (selectorCauses.length === 0)
        causes.push(...templateMatchCauses(spec.selector, spec.template, `${path}.template`));
    }
  }
  const template = isObject(spec.template) ? spec.template : undefined;
  const podSpec = template && isObject(template.spec) ? template.spec : undefined;
  causes.push(...podSpecCauses(podSpec, `${path}.template.spec`));
  const policy = podSpec?.restartPolicy;
  if (policy !== 'OnFailure' && policy !== 'Never')
    causes.push(notSupported(`${path}.template.spec.restartPolicy`, policy ?? '', ['OnFailure', 'Never']));
  return causes;
}
