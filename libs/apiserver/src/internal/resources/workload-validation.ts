import type { JsonObject, StatusCause } from '../../types.js';
import { isObject } from '../common/json.js';
import { labelSelectorFromObject } from '../../selectors/label-selector-object.js';
import { matchesLabels, selectsEverything } from '../../selectors/label-selector.js';
import { validateName } from '../storage/names.js';
import { duplicate, invalid, nonNegative, notSupported, objects, required } from './field-causes.js';
import { labelSelectorCauses } from './pod-validation-label-selector.js';
import { envCauses, envFromCauses } from './pod-validation-env.js';
import {
  initContainerCauses,
  PORT_RANGE,
  portNameProblems,
  probeAndLifecycleCauses,
  regularContainerPolicyCauses,
} from './pod-validation-probes.js';
import { volumeMountCauses, volumesCauses } from './pod-validation-volumes.js';
import { resourceRequirementsCauses } from './pod-validation-resources.js';
import {
  hostNetworkCauses,
  hostPortConflictCauses,
  podIdentityCauses,
  podPriorityCauses,
  pullPolicyCauses,
  readinessGateCauses,
  terminationMessagePolicyCauses,
} from './pod-validation-fields.js';
import { dnsConfigCauses, osCauses } from './pod-validation-dns.js';
import { containerSecurityContextCauses, podSecurityContextCauses } from './pod-validation-security.js';
import {
  affinityCauses,
  labelsCauses,
  tolerationsCauses,
  topologySpreadCauses,
} from './pod-validation-scheduling.js';

export { labelSelectorCauses } from './pod-validation-label-selector.js';
export { PORT_RANGE, portNameProblems } from './pod-validation-probes.js';

// What kube-apiserver 1.32 refuses in pods, pod templates and the workloads around them, beyond
// their schema types (pkg/apis/core/validation ValidatePodSpec, ValidatePodTemplateSpec; and
// pkg/apis/apps/validation, pkg/apis/batch/validation): a selector that does not match the
// template's labels, a container without an image, a mount of a volume the pod does not have, a Job
// restarting Always; and, in the pod-validation-*.ts files, probes and lifecycle hooks, env and
// envFrom, volume sources and mounts, security contexts, affinities, topology spread constraints and
// tolerations; with kube's paths and wording. Not everything kube checks is here (DNS config, host
// aliases, resource claims, ephemeral containers, Windows options are not validated).

/** The protocols of container and Service ports. */
export const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const;
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const;
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'] as const;

// ---- pod specs ----

/**
 * validateContainerPorts: names IANA service names and unique (a name with problems is not
 * compared), a containerPort (0 or absent is missing) in range, a known protocol.
 */
function containerPortCauses(ports: JsonObject[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = `${path}[${i}]`;
    if (typeof port.name === 'string' && port.name !== '') {
      const problems = portNameProblems(port.name);
      for (const m of problems) causes.push(invalid(`${at}.name`, port.name, m));
      if (problems.length === 0 && names.has(port.name)) causes.push(duplicate(`${at}.name`, port.name));
      if (problems.length === 0) names.add(port.name);
    }
    const containerPort = typeof port.containerPort === 'number' ? port.containerPort : 0;
    if (containerPort === 0) causes.push(required(`${at}.containerPort`));
    else if (containerPort < 1 || containerPort > 65535)
      causes.push(invalid(`${at}.containerPort`, containerPort, PORT_RANGE));
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

/** What a container's checks need from its pod. */
interface PodContext {
  /** Names of the containers seen so far (init and regular). */
  names: Set<string>;
  /** The volumes a container may mount (those without errors). */
  volumes: ReadonlySet<string>;
  /** The pod's hostUsers (true unless set to false). */
  hostUsers: boolean;
}

/**
 * validateContainerCommon, in kube's order: the name, the image, ports, env, envFrom, volume mounts,
 * resources, the security context.
 */
function containerCauses(c: JsonObject, at: string, pod: PodContext): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = typeof c.name === 'string' ? c.name : '';
  if (name === '') causes.push(required(`${at}.name`));
  else {
    causes.push(...validateName(name, 'label', `${at}.name`));
    if (pod.names.has(name)) causes.push(duplicate(`${at}.name`, name));
    pod.names.add(name);
  }
  if (typeof c.image !== 'string' || c.image === '') causes.push(required(`${at}.image`));
  causes.push(...terminationMessagePolicyCauses(c, at));
  causes.push(...containerPortCauses(objects(c.ports), `${at}.ports`));
  causes.push(...envCauses(c.env, `${at}.env`));
  causes.push(...envFromCauses(c.envFrom, `${at}.envFrom`));
  causes.push(...volumeMountCauses(c, pod.volumes, `${at}.volumeMounts`));
  causes.push(...pullPolicyCauses(c, at));
  causes.push(...resourceRequirementsCauses(c.resources, `${at}.resources`));
  causes.push(...containerSecurityContextCauses(c.securityContext, `${at}.securityContext`, pod.hostUsers));
  return causes;
}

/**
 * ValidatePodSpec's common checks at `path` (`spec` of a Pod, `spec.template.spec` of a workload):
 * volumes; containers (at least one; names unique across init and regular containers; an image;
 * ports; env; mounts of volumes the pod has; requests within limits; security contexts; probes and
 * lifecycle hooks, which init containers may only have as sidecars); the restart and DNS policies;
 * the node selector; the pod's security context; affinity; topology spread; tolerations.
 */
export function podSpecCauses(spec: unknown, path: string): StatusCause[] {
  if (!isObject(spec)) return [required(`${path}.containers`)];
  const causes: StatusCause[] = [];
  const { causes: volumeCauses, mountable } = volumesCauses(spec.volumes, `${path}.volumes`);
  causes.push(...volumeCauses);
  const pod: PodContext = {
    names: new Set<string>(),
    volumes: mountable,
    hostUsers: spec.hostUsers !== false,
  };
  const containers = objects(spec.containers);
  if (containers.length === 0) causes.push(required(`${path}.containers`));
  // one name space for regular and init containers: ValidatePodSpec validates the regular ones
  // first (validateContainers), so a name both use is the init container's duplicate
  containers.forEach((c, i) => {
    const at = `${path}.containers[${i}]`;
    causes.push(
      ...containerCauses(c, at, pod),
      ...probeAndLifecycleCauses(c, at),
      ...regularContainerPolicyCauses(c, at),
    );
  });
  causes.push(...hostPortConflictCauses(containers, `${path}.containers`));
  objects(spec.initContainers).forEach((c, i) => {
    const at = `${path}.initContainers[${i}]`;
    causes.push(
      ...containerCauses(c, at, pod),
      ...initContainerCauses(c, at),
      // init containers run one by one: kube checks each one's host ports alone
      ...hostPortConflictCauses([c], `${path}.initContainers`, i),
    );
  });
  causes.push(...hostNetworkCauses(spec, path));
  if (
    typeof spec.restartPolicy === 'string' &&
    !(RESTART_POLICIES as readonly string[]).includes(spec.restartPolicy)
  )
    causes.push(notSupported(`${path}.restartPolicy`, spec.restartPolicy, RESTART_POLICIES));
  if (typeof spec.dnsPolicy === 'string' && !(DNS_POLICIES as readonly string[]).includes(spec.dnsPolicy))
    causes.push(notSupported(`${path}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES));
  causes.push(...labelsCauses(spec.nodeSelector, `${path}.nodeSelector`));
  causes.push(...podSecurityContextCauses(spec, `${path}.securityContext`));
  causes.push(...affinityCauses(spec.affinity, `${path}.affinity`));
  causes.push(...dnsConfigCauses(spec, `${path}.dnsConfig`));
  causes.push(...readinessGateCauses(spec.readinessGates, `${path}.readinessGates`));
  causes.push(...topologySpreadCauses(spec.topologySpreadConstraints, `${path}.topologySpreadConstraints`));
  causes.push(...podIdentityCauses(spec, path));
  causes.push(...tolerationsCauses(spec.tolerations, `${path}.tolerations`));
  causes.push(...podPriorityCauses(spec, path));
  causes.push(...osCauses(spec.os, `${path}.os`));
  // validateContainersOnlyForPod: a Pod's images (not a template's) have no surrounding whitespace;
  // only a Pod's spec is validated at `spec` itself
  if (path === 'spec')
    for (const key of ['containers', 'initContainers'])
      objects(spec[key]).forEach((c, i) => {
        if (typeof c.image === 'string' && c.image.trim() !== c.image)
          causes.push(
            invalid(`${path}.${key}[${i}].image`, c.image, 'must not have leading or trailing whitespace'),
          );
      });
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
