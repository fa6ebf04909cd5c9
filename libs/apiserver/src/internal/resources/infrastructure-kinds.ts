import type { JsonObject, StatusCause } from '../../types.js';
import { deepEqual, isObject } from '../common/json.js';
import { forbidden, invalid, notSupported, objects, required } from './field-causes.js';

// Defaults and validation of the cluster-infrastructure kinds beyond their schema types, as
// kube-apiserver 1.32 gives them: core/v1 Node and LimitRange (pkg/apis/core/v1/defaults.go),
// discovery.k8s.io/v1 EndpointSlice (pkg/apis/discovery/v1/defaults.go, pkg/apis/discovery/validation),
// storage.k8s.io/v1 StorageClass (pkg/apis/storage/v1/defaults.go, pkg/apis/storage/validation) and
// scheduling.k8s.io/v1 PriorityClass (pkg/apis/scheduling/v1/defaults.go, pkg/apis/scheduling/validation).

/** apimachinery's ValidateImmutableField. */
const immutable = (field: string, value: unknown): StatusCause => invalid(field, value, 'field is immutable');

// ---- Node ----

/** SetDefaults_NodeStatus: without allocatable, a node's allocatable is its capacity. */
export function defaultNode(o: JsonObject): void {
  const status = o.status;
  if (isObject(status) && status.allocatable === undefined && isObject(status.capacity))
    status.allocatable = { ...status.capacity };
}

// ---- LimitRange ----

/**
 * SetDefaults_LimitRangeItem: a Container item's default limits come from its max, its default
 * requests from its default limits, then from its min.
 */
export function defaultLimitRange(spec: JsonObject): void {
  for (const item of objects(spec.limits)) {
    if (item.type !== 'Container') continue;
    const limits: JsonObject = isObject(item.default) ? item.default : {};
    const requests: JsonObject = isObject(item.defaultRequest) ? item.defaultRequest : {};
    for (const source of [item.max])
      if (isObject(source)) for (const [k, v] of Object.entries(source)) limits[k] ??= v;
    for (const source of [limits, item.min])
      if (isObject(source)) for (const [k, v] of Object.entries(source)) requests[k] ??= v;
    // empty maps are omitted (omitempty)
    if (Object.keys(limits).length > 0) item.default = limits;
    if (Object.keys(requests).length > 0) item.defaultRequest = requests;
  }
}

// ---- EndpointSlice ----

const ADDRESS_TYPES = ['IPv4', 'IPv6', 'FQDN'] as const;

/** SetDefaults_EndpointPort: a port's name "" and protocol TCP. */
export function defaultEndpointSlice(o: JsonObject): void {
  for (const port of objects(o.ports)) {
    port.name ??= '';
    port.protocol ??= 'TCP';
  }
}

/** ValidateEndpointSliceCreate's address type: required, one of IPv4, IPv6 and FQDN. */
export function validateEndpointSlice(o: JsonObject): StatusCause[] {
  const type = o.addressType;
  if (type === undefined || type === '') return [required('addressType')];
  if (typeof type === 'string' && !(ADDRESS_TYPES as readonly string[]).includes(type))
    return [notSupported('addressType', type, ADDRESS_TYPES)];
  return [];
}

/** ValidateEndpointSliceUpdate: the address type is immutable. */
export function validateEndpointSliceUpdate(next: JsonObject, old: JsonObject): StatusCause[] {
  return next.addressType === old.addressType ? [] : [immutable('addressType', next.addressType)];
}

// ---- StorageClass ----

const RECLAIM_POLICIES = ['Delete', 'Retain'] as const;
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'] as const;

/** SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate. */
export function defaultStorageClass(o: JsonObject): void {
  o.reclaimPolicy ??= 'Delete';
  o.volumeBindingMode ??= 'Immediate';
}

/** ValidateStorageClass: a provisioner, and a reclaim policy and binding mode kube knows. */
export function validateStorageClass(o: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (o.provisioner === undefined || o.provisioner === '') causes.push(required('provisioner'));
  if (
    typeof o.reclaimPolicy === 'string' &&
    !(RECLAIM_POLICIES as readonly string[]).includes(o.reclaimPolicy)
  )
    causes.push(notSupported('reclaimPolicy', o.reclaimPolicy, RECLAIM_POLICIES));
  if (
    typeof o.volumeBindingMode === 'string' &&
    !(BINDING_MODES as readonly string[]).includes(o.volumeBindingMode)
  )
    causes.push(notSupported('volumeBindingMode', o.volumeBindingMode, BINDING_MODES));
  return causes;
}

/** ValidateStorageClassUpdate: parameters, provisioner, reclaim policy and binding mode are fixed at creation. */
export function validateStorageClassUpdate(next: JsonObject, old: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!deepEqual(next.parameters ?? {}, old.parameters ?? {}))
    causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (next.provisioner !== old.provisioner)
    causes.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (next.reclaimPolicy !== old.reclaimPolicy)
    causes.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (next.volumeBindingMode !== old.volumeBindingMode)
    causes.push(immutable('volumeBindingMode', next.volumeBindingMode));
  return causes;
}

// ---- PriorityClass ----

/** scheduling.HighestUserDefinablePriority: the largest value a class outside the system ones may have. */
const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'] as const;

/** The priority classes kube-apiserver creates at start (pkg/apis/scheduling SystemPriorityClasses). */
export const SYSTEM_PRIORITY_CLASSES: readonly JsonObject[] = [
  {
    metadata: { name: 'system-node-critical' },
    value: 2_000_001_000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    metadata: { name: 'system-cluster-critical' },
    value: 2_000_000_000,
    description:
      'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

/** SetDefaults_PriorityClass: preemptionPolicy PreemptLowerPriority. */
export function defaultPriorityClass(o: JsonObject): void {
  o.preemptionPolicy ??= 'PreemptLowerPriority';
}

/**
 * ValidatePriorityClass: the `system-` prefix is reserved for the system classes, which keep their
 * values and are not the global default (IsKnownSystemPriorityClass); any other class's value is at
 * most 1,000,000,000.
 */
export function validatePriorityClass(o: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = isObject(o.metadata) && typeof o.metadata.name === 'string' ? o.metadata.name : '';
  const value = typeof o.value === 'number' ? o.value : 0;
  if (name.startsWith('system-')) {
    const system = SYSTEM_PRIORITY_CLASSES.find((c) => (c.metadata as { name: string }).name === name);
    const why =
      system === undefined
        ? `${name} is not a known system priority class`
        : value !== system.value
          ? `value of ${name} PriorityClass must be ${String(system.value)}`
          : o.globalDefault === true
            ? `globalDefault of ${name} PriorityClass must be false`
            : undefined;
    if (why !== undefined)
      causes.push(
        forbidden(
          'metadata.name',
          `priority class names with 'system-' prefix are reserved for system use only. error: ${why}`,
        ),
      );
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    causes.push(
      forbidden(
        'value',
        `maximum allowed value of a user defined priority is ${String(HIGHEST_USER_DEFINABLE_PRIORITY)}`,
      ),
    );
  }
  if (
    typeof o.preemptionPolicy === 'string' &&
    !(PREEMPTION_POLICIES as readonly string[]).includes(o.preemptionPolicy)
  )
    causes.push(notSupported('preemptionPolicy', o.preemptionPolicy, PREEMPTION_POLICIES));
  return causes;
}

/** ValidatePriorityClassUpdate: the value and the preemption policy are fixed at creation. */
export function validatePriorityClassUpdate(next: JsonObject, old: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (next.value !== old.value) causes.push(forbidden('value', 'may not be changed in an update.'));
  if (next.preemptionPolicy !== old.preemptionPolicy)
    causes.push(immutable('preemptionPolicy', next.preemptionPolicy));
  return causes;
}
