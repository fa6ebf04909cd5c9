import type { JsonObject, StatusCause } from '../../types.js';
import { isObject, str } from '../common/json.js';
import type { ResourceType } from './resource-type.js';
import { canonicalizeClaimQuantities, canonicalizePodSpecQuantities } from './quantity-defaults.js';
import type { NodePortAllocator } from './service-defaults.js';
import { allocateNodePorts } from './service-defaults.js';
import { decodeObjectMeta, dropEmptyOptionalFields } from './omitempty.js';
import { defaultClaimSpec, defaultPodOnly, defaultPodSpec } from './pod-defaults.js';
import { defaultJobSpec, generateJobSelector } from './job-defaults.js';
import { validateIngressPathTypes } from './ingress-paths.js';
import {
  validateHorizontalPodAutoscaler,
  validateNetworkPolicy,
  validatePodDisruptionBudget,
} from './policy-validation.js';
import {
  defaultEndpointSlice,
  defaultLimitRange,
  defaultNode,
  defaultPriorityClass,
  defaultStorageClass,
  validateEndpointSlice,
  validatePriorityClass,
  validateStorageClass,
} from './infrastructure-kinds.js';
import { jobSpecCauses, podSpecCauses, replicatedWorkloadCauses } from './workload-validation.js';
import { serviceSpecCauses } from './service-validation.js';
import { claimSpecCauses, configMapCauses, secretCauses } from './core-validation.js';
import { cronJobCauses, jobCountCauses } from './batch-validation.js';
import { daemonSetCauses, deploymentCauses, statefulSetCauses } from './apps-validation.js';
import { bindingCauses, roleCauses } from './rbac-validation.js';
import { ingressCauses } from './ingress-validation.js';
import { eventCauses } from './event-validation.js';
import { endpointsCauses } from './endpoints-validation.js';
import { leaseCauses } from './lease-validation.js';
import { replicationControllerCauses } from './replication-controller-validation.js';

/**
 * Defaults kube-apiserver fills in when it decodes a built-in object (on every create, update and
 * patch). Only the commonly observed fields are covered; each default is set only when absent.
 */
function set(obj: JsonObject, key: string, value: unknown): void {
  if (obj[key] === undefined) obj[key] = value;
}

function obj(parent: JsonObject, key: string): JsonObject {
  const v = parent[key];
  if (isObject(v)) return v;
  const fresh: JsonObject = {};
  parent[key] = fresh;
  return fresh;
}

function list(parent: JsonObject, key: string): JsonObject[] {
  const v = parent[key];
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/**
 * SetDefaults_PersistentVolumeClaim and SetDefaults_PersistentVolumeClaimSpec, on a claim or a
 * StatefulSet's claim template: volumeMode Filesystem and status.phase Pending (kube's spec and
 * status are Go structs, always present in its answers).
 */
function defaultClaim(claim: JsonObject): void {
  defaultClaimSpec(obj(claim, 'spec'));
  const status = obj(claim, 'status');
  if (status.phase === undefined || status.phase === '') status.phase = 'Pending';
}

function defaultTemplate(spec: JsonObject, kind: string): void {
  const template = spec.template;
  if (!isObject(template)) return;
  if (isObject(template.spec)) {
    defaultPodSpec(template.spec);
    canonicalizePodSpecQuantities(template.spec, kind);
  }
}

/**
 * SetDefaults_ReplicationController: the selector and the object's labels default to the pod
 * template's labels, replicas to 1; then the template's pod defaults.
 */
function defaultReplicationController(o: JsonObject, spec: JsonObject, kind: string): void {
  const template = isObject(spec.template) ? spec.template : undefined;
  const templateMeta = template && isObject(template.metadata) ? template.metadata : undefined;
  const labels = templateMeta && isObject(templateMeta.labels) ? templateMeta.labels : undefined;
  if (labels !== undefined) {
    if (!isObject(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    const meta = obj(o, 'metadata');
    if (!isObject(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...labels };
  }
  set(spec, 'replicas', 1);
  defaultTemplate(spec, kind);
}

/** Built-in kinds whose `metadata.generation` kube-apiserver maintains (custom resources always have it). */
const GENERATION_KINDS = new Set([
  'apps/deployments',
  'apps/statefulsets',
  'apps/replicasets',
  'apps/daemonsets',
  'batch/jobs',
  'batch/cronjobs',
  '/replicationcontrollers',
  'networking.k8s.io/ingresses',
  'networking.k8s.io/networkpolicies',
  'policy/poddisruptionbudgets',
  'autoscaling/horizontalpodautoscalers',
  'apiextensions.k8s.io/customresourcedefinitions',
]);

/** Whether kube-apiserver sets and bumps `metadata.generation` for objects of this type. */
export function tracksGeneration(rt: ResourceType): boolean {
  return rt.crdName !== undefined || GENERATION_KINDS.has(`${rt.group}/${rt.plural}`);
}

/** What the built-in defaults allocate from: cluster IPs, and node ports with what is in use. */
export interface BuiltinAllocators {
  clusterIps: ClusterIpAllocator;
  nodePorts: NodePortAllocator;
  /** Node ports held by stored Services other than the one being written. */
  nodePortsInUse(namespace: string, name: string): Set<number>;
}

/** Allocates Service cluster IPs from 10.96.0.0/12, never reusing one while in use. */
export class ClusterIpAllocator {
  private next = 10;
  private readonly used = new Set<string>();

  allocate(): string {
    for (;;) {
      const n = this.next++;
      const ip = `10.96.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
      if (!this.used.has(ip)) {
        this.used.add(ip);
        return ip;
      }
    }
  }

  reserve(ip: string): void {
    this.used.add(ip);
  }
}

/**
 * Decodes a built-in object as kube-apiserver's Go types do (`null`s rewritten, empty optional maps
 * and lists dropped: see {@link dropEmptyOptionalFields}), then applies its kind's defaults, all on
 * `o` (mutated); of a custom resource only the metadata is decoded ({@link decodeObjectMeta}). `old` is the stored object on updates (immutable allocated values such as a
 * Service's clusterIP are kept from it).
 */
export function applyBuiltinDefaults(
  rt: ResourceType,
  o: JsonObject,
  old: JsonObject | undefined,
  alloc: BuiltinAllocators,
): StatusCause[] {
  if (rt.crdName !== undefined) {
    // a custom resource's ObjectMeta is Go-decoded too; the rest keeps its JSON
    decodeObjectMeta(o);
    return [];
  }
  // before defaulting, as kube decodes before it defaults: a `null` field is absent (nil) when the
  // defaults look at it (`replicas: null` is defaulted to 1); the defaults add no empty map or list
  dropEmptyOptionalFields(rt, o);
  return defaultBuiltin(rt, o, old, alloc);
}

/**
 * What kube's registry strategies add to a new built-in object once it is decoded, defaulted and
 * admitted and has its uid (PrepareForCreate), after its managedFields are computed: a Job's
 * generated selector and labels. `o` is mutated.
 */
export function prepareBuiltinForCreate(rt: ResourceType, o: JsonObject): void {
  if (rt.crdName === undefined && rt.group === 'batch' && rt.plural === 'jobs') generateJobSelector(o);
}

function defaultBuiltin(
  rt: ResourceType,
  o: JsonObject,
  old: JsonObject | undefined,
  alloc: BuiltinAllocators,
): StatusCause[] {
  const key = `${rt.group}/${rt.plural}`;
  const spec = isObject(o.spec) ? o.spec : undefined;
  switch (key) {
    case '/pods':
      if (spec) {
        defaultPodSpec(spec);
        defaultPodOnly(spec);
        set(spec, 'preemptionPolicy', 'PreemptLowerPriority');
        set(spec, 'priority', 0);
        set(spec, 'serviceAccountName', 'default');
        set(spec, 'serviceAccount', spec.serviceAccountName);
        canonicalizePodSpecQuantities(spec, rt.kind);
      }
      return podSpecCauses(spec, 'spec');
    case 'apps/deployments':
      if (spec) {
        set(spec, 'replicas', 1);
        set(spec, 'revisionHistoryLimit', 10);
        set(spec, 'progressDeadlineSeconds', 600);
        const strategy = obj(spec, 'strategy');
        set(strategy, 'type', 'RollingUpdate');
        if (strategy.type === 'RollingUpdate') {
          const ru = obj(strategy, 'rollingUpdate');
          set(ru, 'maxUnavailable', '25%');
          set(ru, 'maxSurge', '25%');
        }
        defaultTemplate(spec, rt.kind);
      }
      return [...deploymentCauses(spec), ...replicatedWorkloadCauses('Deployment', spec)];
    case 'apps/statefulsets':
      if (spec) {
        set(spec, 'replicas', 1);
        set(spec, 'podManagementPolicy', 'OrderedReady');
        set(spec, 'revisionHistoryLimit', 10);
        const us = obj(spec, 'updateStrategy');
        // kube adds an empty rollingUpdate only when it defaults the type (SetDefaults_StatefulSet)
        if (us.type === undefined || us.type === '') {
          us.type = 'RollingUpdate';
          if (us.rollingUpdate === undefined) us.rollingUpdate = {};
        }
        if (us.type === 'RollingUpdate' && isObject(us.rollingUpdate)) set(us.rollingUpdate, 'partition', 0);
        for (const t of list(spec, 'volumeClaimTemplates')) {
          defaultClaim(t);
          canonicalizeClaimQuantities(t, rt.kind);
        }
        const retention = obj(spec, 'persistentVolumeClaimRetentionPolicy');
        set(retention, 'whenDeleted', 'Retain');
        set(retention, 'whenScaled', 'Retain');
        defaultTemplate(spec, rt.kind);
      }
      return [...statefulSetCauses(spec), ...replicatedWorkloadCauses('StatefulSet', spec)];
    case 'apps/replicasets':
      if (spec) {
        set(spec, 'replicas', 1);
        defaultTemplate(spec, rt.kind);
      }
      return replicatedWorkloadCauses('ReplicaSet', spec);
    case 'apps/daemonsets':
      if (spec) {
        set(spec, 'revisionHistoryLimit', 10);
        const us = obj(spec, 'updateStrategy');
        set(us, 'type', 'RollingUpdate');
        if (us.type === 'RollingUpdate') {
          const ru = obj(us, 'rollingUpdate');
          set(ru, 'maxUnavailable', 1);
          set(ru, 'maxSurge', 0);
        }
        defaultTemplate(spec, rt.kind);
      }
      return [...daemonSetCauses(spec), ...replicatedWorkloadCauses('DaemonSet', spec)];
    case 'batch/jobs':
      if (spec) {
        defaultJobSpec(o, spec);
        defaultTemplate(spec, rt.kind);
      }
      return [...jobCountCauses(spec, 'spec'), ...jobSpecCauses(spec, 'spec')];
    case 'batch/cronjobs':
      // SetDefaults_CronJob; the job template's pod template gets the pod defaults
      if (spec) {
        set(spec, 'concurrencyPolicy', 'Allow');
        set(spec, 'suspend', false);
        set(spec, 'successfulJobsHistoryLimit', 3);
        set(spec, 'failedJobsHistoryLimit', 1);
        const jobTemplate = isObject(spec.jobTemplate) ? spec.jobTemplate : undefined;
        if (jobTemplate && isObject(jobTemplate.spec)) defaultTemplate(jobTemplate.spec, rt.kind);
      }
      {
        const jobTemplate = spec && isObject(spec.jobTemplate) ? spec.jobTemplate : undefined;
        return [
          ...cronJobCauses(o, old),
          ...jobSpecCauses(
            jobTemplate && isObject(jobTemplate.spec) ? jobTemplate.spec : undefined,
            'spec.jobTemplate.spec',
          ),
        ];
      }
    case '/replicationcontrollers':
      if (spec) defaultReplicationController(o, spec, rt.kind);
      return replicationControllerCauses(spec);
    case '/persistentvolumes': {
      // SetDefaults_PersistentVolume (and a hostPath's type, SetDefaults_HostPathVolumeSource)
      const pvSpec = obj(o, 'spec');
      set(pvSpec, 'persistentVolumeReclaimPolicy', 'Retain');
      set(pvSpec, 'volumeMode', 'Filesystem');
      if (isObject(pvSpec.hostPath)) set(pvSpec.hostPath, 'type', '');
      set(obj(o, 'status'), 'phase', 'Pending');
      return [];
    }
    case '/services': {
      if (!spec) return serviceSpecCauses(undefined);
      defaultService(spec, old, alloc.clusterIps);
      const meta = isObject(o.metadata) ? o.metadata : {};
      const oldSpec = old && isObject(old.spec) ? old.spec : undefined;
      const invalid = serviceSpecCauses(spec);
      if (invalid.length > 0) return invalid;
      return allocateNodePorts(
        spec,
        oldSpec,
        () => alloc.nodePortsInUse(str(meta.namespace), str(meta.name)),
        alloc.nodePorts,
      );
    }
    case '/secrets':
      set(o, 'type', 'Opaque');
      if (isObject(o.stringData)) {
        const data = obj(o, 'data');
        for (const [k, v] of Object.entries(o.stringData)) {
          if (typeof v === 'string') data[k] = Buffer.from(v, 'utf8').toString('base64');
        }
        delete o.stringData;
        // (stringData without a string value adds nothing: an empty data is omitted as ever)
        if (Object.keys(data).length === 0) delete o.data;
      }
      return secretCauses(o);
    case '/configmaps':
      return configMapCauses(o);
    case '/events':
      return eventCauses(o, false, old === undefined);
    case 'events.k8s.io/events':
      return eventCauses(o, true, old === undefined);
    case '/endpoints':
      // SetDefaults_Endpoints
      for (const subset of list(o, 'subsets'))
        for (const p of list(subset, 'ports'))
          if (p.protocol === undefined || p.protocol === '') p.protocol = 'TCP';
      return endpointsCauses(o);
    case 'coordination.k8s.io/leases':
      return leaseCauses(o);
    case 'networking.k8s.io/ingresses':
      return spec ? [...validateIngressPathTypes(spec), ...ingressCauses(spec)] : ingressCauses({});
    case 'networking.k8s.io/networkpolicies':
      if (!spec) return [];
      defaultNetworkPolicy(spec);
      return validateNetworkPolicy(spec);
    case 'autoscaling/horizontalpodautoscalers':
      if (!spec) return [];
      defaultHorizontalPodAutoscaler(spec);
      return validateHorizontalPodAutoscaler(spec);
    case 'policy/poddisruptionbudgets':
      return spec ? validatePodDisruptionBudget(spec) : [];
    case '/nodes':
      defaultNode(o);
      return [];
    case '/limitranges':
      if (spec) defaultLimitRange(spec);
      return [];
    case 'discovery.k8s.io/endpointslices':
      defaultEndpointSlice(o);
      return validateEndpointSlice(o);
    case 'storage.k8s.io/storageclasses':
      defaultStorageClass(o);
      return validateStorageClass(o);
    case 'scheduling.k8s.io/priorityclasses':
      defaultPriorityClass(o);
      return validatePriorityClass(o);
    case 'rbac.authorization.k8s.io/rolebindings':
    case 'rbac.authorization.k8s.io/clusterrolebindings':
      defaultBinding(o);
      return bindingCauses(o, rt.plural === 'rolebindings');
    case 'rbac.authorization.k8s.io/roles':
      return roleCauses(o, true);
    case 'rbac.authorization.k8s.io/clusterroles':
      return roleCauses(o, false);
    case '/persistentvolumeclaims':
      defaultClaim(o);
      canonicalizeClaimQuantities(o, rt.kind);
      return claimSpecCauses(o.spec, 'spec');
    default:
      return [];
  }
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * SetDefaults_RoleBinding, SetDefaults_ClusterRoleBinding and SetDefaults_Subject
 * (pkg/apis/rbac/v1/defaults.go): the roleRef's apiGroup, and a User's or Group's subject's, is
 * rbac.authorization.k8s.io; a ServiceAccount's stays empty (omitted).
 */
function defaultBinding(o: JsonObject): void {
  const roleRef = o.roleRef;
  if (isObject(roleRef) && (roleRef.apiGroup === undefined || roleRef.apiGroup === ''))
    roleRef.apiGroup = RBAC_GROUP;
  for (const subject of list(o, 'subjects')) {
    if (subject.apiGroup !== undefined && subject.apiGroup !== '') continue;
    if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = RBAC_GROUP;
  }
}

/** kube's DefaultClientIPServiceAffinitySeconds (3 hours). */
const CLIENT_IP_AFFINITY_SECONDS = 10800;

/**
 * SetDefaults_Service (pkg/apis/core/v1/defaults.go), then what the Service registry allocates and
 * infers (pkg/registry/core/service/storage/alloc.go, a single-stack IPv4 cluster): the cluster IP,
 * clusterIPs, ipFamilyPolicy (kept from the stored Service on update; RequireDualStack for a headless
 * Service without a selector, else SingleStack) and ipFamilies.
 */
function defaultService(spec: JsonObject, old: JsonObject | undefined, ips: ClusterIpAllocator): void {
  if (spec.sessionAffinity === undefined || spec.sessionAffinity === '') spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const cfg = spec.sessionAffinityConfig;
    const clientIP = isObject(cfg) ? cfg.clientIP : undefined;
    if (!isObject(clientIP) || clientIP.timeoutSeconds === undefined)
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: CLIENT_IP_AFFINITY_SECONDS } };
  }
  if (spec.type === undefined || spec.type === '') spec.type = 'ClusterIP';
  for (const p of list(spec, 'ports')) {
    if (p.protocol === undefined || p.protocol === '') p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  // ExternallyAccessible (pkg/api/v1/service): node ports, a load balancer, or external IPs
  const externalIPs = spec.externalIPs;
  const externallyAccessible =
    spec.type === 'NodePort' ||
    spec.type === 'LoadBalancer' ||
    (spec.type === 'ClusterIP' && Array.isArray(externalIPs) && externalIPs.length > 0);
  if (externallyAccessible && (spec.externalTrafficPolicy === undefined || spec.externalTrafficPolicy === ''))
    spec.externalTrafficPolicy = 'Cluster';
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP')
    set(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') set(spec, 'allocateLoadBalancerNodePorts', true);

  if (spec.type === 'ExternalName') return;
  const oldSpec = old && isObject(old.spec) ? old.spec : undefined;
  if (spec.clusterIP === undefined || spec.clusterIP === '') {
    spec.clusterIP =
      typeof oldSpec?.clusterIP === 'string' && oldSpec.clusterIP !== '' ? oldSpec.clusterIP : ips.allocate();
  } else if (
    typeof spec.clusterIP === 'string' &&
    !(typeof oldSpec?.clusterIP === 'string' && oldSpec.clusterIP !== '')
  )
    // (an update may not change an allocated IP: the change is refused, nothing to reserve)
    ips.reserve(spec.clusterIP);
  set(spec, 'clusterIPs', [spec.clusterIP]);
  const selector = spec.selector;
  const headlessWithoutSelector =
    spec.clusterIP === 'None' && !(isObject(selector) && Object.keys(selector).length > 0);
  if (spec.ipFamilyPolicy === undefined) {
    spec.ipFamilyPolicy =
      oldSpec?.ipFamilyPolicy !== undefined
        ? oldSpec.ipFamilyPolicy
        : headlessWithoutSelector
          ? 'RequireDualStack'
          : 'SingleStack';
  }
  set(spec, 'ipFamilies', ['IPv4']);
  // a headless Service without a selector may ask for both families even on a single-stack cluster
  const families = spec.ipFamilies;
  if (
    headlessWithoutSelector &&
    Array.isArray(families) &&
    families.length === 1 &&
    spec.ipFamilyPolicy !== 'SingleStack'
  )
    families.push(families[0] === 'IPv6' ? 'IPv4' : 'IPv6');
}

/** SetDefaults_NetworkPolicy: ports' protocol TCP; without policyTypes, Ingress (and Egress when it has egress rules). */
function defaultNetworkPolicy(spec: JsonObject): void {
  for (const direction of ['ingress', 'egress'])
    for (const rule of list(spec, direction))
      for (const p of list(rule, 'ports'))
        if (p.protocol === undefined || p.protocol === '') p.protocol = 'TCP';
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = list(spec, 'egress').length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

/**
 * SetDefaults_HorizontalPodAutoscaler (autoscaling/v2): minReplicas 1; without metrics, CPU at 80%
 * utilization; a given behavior gets both scaling rules filled (SetDefaults_HorizontalPodAutoscalerBehavior).
 */
function defaultHorizontalPodAutoscaler(spec: JsonObject): void {
  if (spec.minReplicas === undefined) spec.minReplicas = 1;
  if (isObject(spec.behavior)) {
    const behavior = spec.behavior;
    // GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: what the rules set wins, field by field
    behavior.scaleUp = {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
      ...withoutUndefined(behavior.scaleUp),
    };
    // no stabilization window for scale-down: the controller's --horizontal-pod-autoscaler-downscale-stabilization applies
    behavior.scaleDown = {
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      ...withoutUndefined(behavior.scaleDown),
    };
  }
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
      },
    ];
  }
}

/** The members of a scaling rule that are set (copyHPAScalingRules copies the non-nil ones). */
function withoutUndefined(rules: unknown): JsonObject {
  if (!isObject(rules)) return {};
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(rules)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}
