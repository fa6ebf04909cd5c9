import type { JsonObject, StatusCause } from '../../types.js';
import { deepEqual, isObject } from '../common/json.js';
import type { ResourceType } from './resource-type.js';
import { goJson, goValue } from './field-causes.js';
import {
  validateEndpointSliceUpdate,
  validatePriorityClassUpdate,
  validateStorageClassUpdate,
} from './infrastructure-kinds.js';

/**
 * The update rules kube-apiserver applies to built-in kinds (its `Validate<Kind>Update` functions
 * and the apps/v1 selector rule of the registry strategies): fields that may not change once
 * stored. Each rule looks at the object about to be stored (decoded and defaulted) and the stored
 * one, and gives the causes of a 422 with kube's paths and wording. Called for writes of the main
 * resource only: a status write keeps the stored spec.
 */
type Rule = (next: JsonObject, old: JsonObject) => StatusCause[];

/** Kube's `field is immutable` (apimachinery's FieldImmutableErrorMsg). */
const IMMUTABLE = 'field is immutable';

function invalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${goValue(value)}: ${detail}` };
}

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

/** apimachinery's ValidateImmutableField: `Invalid value: <new>: field is immutable` when changed. */
function immutable(field: string, next: unknown, old: unknown): StatusCause[] {
  return deepEqual(next, old) ? [] : [invalid(field, next, IMMUTABLE)];
}

// ---- ConfigMap and Secret ----

const WHEN_IMMUTABLE = 'field is immutable when `immutable` is set';

/** ValidateConfigMapUpdate / ValidateSecretUpdate: an object marked `immutable: true` keeps its data. */
function frozenData(next: JsonObject, old: JsonObject, fields: string[]): StatusCause[] {
  if (old.immutable !== true) return [];
  const causes: StatusCause[] = [];
  if (next.immutable !== true) causes.push(forbidden('immutable', WHEN_IMMUTABLE));
  for (const f of fields) if (!deepEqual(next[f], old[f])) causes.push(forbidden(f, WHEN_IMMUTABLE));
  return causes;
}

const configMap: Rule = (next, old) => frozenData(next, old, ['data', 'binaryData']);

/** The type may never change; stringData is already folded into data (as kube validates it). */
const secret: Rule = (next, old) => [
  ...immutable('type', next.type, old.type),
  ...frozenData(next, old, ['data']),
];

function part(o: JsonObject, key: string): JsonObject {
  const v = o[key];
  return isObject(v) ? v : {};
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => String(x)) : [];
}

/** A copy of `spec` with `keys` taken from `from` (absent there: absent here). */
function withFrom(spec: JsonObject, from: JsonObject, keys: string[]): JsonObject {
  const out: JsonObject = { ...spec };
  for (const k of keys) {
    if (from[k] === undefined) delete out[k];
    else out[k] = from[k];
  }
  return out;
}

/**
 * The changed leaves of two JSON values as `- path: old` / `+ path: new` lines, the diff kube appends
 * to its Pod and PersistentVolumeClaim messages. Kube prints go-cmp's diff of its Go structs; this
 * is our own, shorter rendering of the same changes.
 */
function diff(a: unknown, b: unknown, path = ''): string[] {
  if (deepEqual(a, b)) return [];
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => diff(a[k], b[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((x, i) => diff(x, b[i], `${path}[${i}]`));
  const out: string[] = [];
  if (a !== undefined) out.push(`- ${path}: ${goJson(a)}`);
  if (b !== undefined) out.push(`+ ${path}: ${goJson(b)}`);
  return out;
}

// ---- apps/v1 and batch/v1 ----

/** apps/v1 (and every group/version but the removed beta ones): a workload's selector is immutable. */
const selectorRule: Rule = (next, old) =>
  immutable('spec.selector', part(next, 'spec').selector, part(old, 'spec').selector);

const STATEFULSET_MUTABLE = [
  'replicas',
  'template',
  'updateStrategy',
  'minReadySeconds',
  'ordinals',
  'persistentVolumeClaimRetentionPolicy',
];

/** ValidateStatefulSetUpdate: the spec apart from the mutable fields may not change. */
const statefulSet: Rule = (next, old) => {
  const spec = part(next, 'spec');
  const oldSpec = part(old, 'spec');
  if (deepEqual(withFrom(spec, oldSpec, STATEFULSET_MUTABLE), oldSpec)) return [];
  return [
    forbidden(
      'spec',
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
};

/**
 * The parts of a Job's pod template that may change while the Job is suspended and has never
 * started (kube's mutable scheduling directives): labels, annotations, node selector, tolerations,
 * scheduling gates and node affinity.
 */
function withoutSchedulingDirectives(template: unknown, from: unknown): unknown {
  if (!isObject(template)) return template;
  const src = isObject(from) ? from : {};
  const meta = withFrom(part(template, 'metadata'), part(src, 'metadata'), ['labels', 'annotations']);
  const spec = withFrom(part(template, 'spec'), part(src, 'spec'), [
    'nodeSelector',
    'tolerations',
    'schedulingGates',
  ]);
  const affinity = { ...part(spec, 'affinity') };
  const srcAffinity = part(part(src, 'spec'), 'affinity');
  if (srcAffinity.nodeAffinity === undefined) delete affinity.nodeAffinity;
  else affinity.nodeAffinity = srcAffinity.nodeAffinity;
  if (Object.keys(affinity).length > 0) spec.affinity = affinity;
  else delete spec.affinity;
  const out: JsonObject = { ...template, spec };
  if (Object.keys(meta).length > 0 || src.metadata !== undefined) out.metadata = meta;
  else delete out.metadata;
  return out;
}

/**
 * ValidateJobSpecUpdate: completions (of an Indexed Job, only together with parallelism:
 * validateCompletions with elastic Indexed Jobs, GA in 1.31), selector, template, completionMode,
 * podFailurePolicy and backoffLimitPerIndex.
 */
const job: Rule = (next, old) => {
  const spec = part(next, 'spec');
  const oldSpec = part(old, 'spec');
  const causes: StatusCause[] = [];
  if (spec.completionMode !== 'Indexed')
    causes.push(...immutable('spec.completions', spec.completions, oldSpec.completions));
  else if (
    typeof spec.completions === 'number' &&
    spec.completions !== oldSpec.completions &&
    spec.completions !== spec.parallelism
  )
    causes.push(
      invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism'),
    );
  causes.push(...immutable('spec.selector', spec.selector, oldSpec.selector));
  const neverStarted = oldSpec.suspend === true && part(old, 'status').startTime === undefined;
  const template = neverStarted
    ? withoutSchedulingDirectives(spec.template, oldSpec.template)
    : spec.template;
  if (!deepEqual(template, oldSpec.template)) causes.push(invalid('spec.template', spec.template, IMMUTABLE));
  causes.push(...immutable('spec.completionMode', spec.completionMode, oldSpec.completionMode));
  causes.push(...immutable('spec.podFailurePolicy', spec.podFailurePolicy, oldSpec.podFailurePolicy));
  causes.push(
    ...immutable('spec.backoffLimitPerIndex', spec.backoffLimitPerIndex, oldSpec.backoffLimitPerIndex),
  );
  return causes;
};

// ---- Service ----

const MAY_NOT_CHANGE = 'may not change once set';

/**
 * ValidateServiceUpdate's cluster IP, IP family, load balancer class and health check node port
 * rules, after kube's normalization of clusterIP and clusterIPs (a changed clusterIP with unchanged
 * clusterIPs stands for clusterIPs of that one IP). A clusterIP left out was already kept from the
 * stored Service by the defaults, as kube's registry keeps allocated values.
 */
const service: Rule = (next, old) => {
  const spec = part(next, 'spec');
  const oldSpec = part(old, 'spec');
  const causes: StatusCause[] = [];
  let ips = strings(spec.clusterIPs);
  const oldIps = strings(oldSpec.clusterIPs);
  const ip = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  if (ip !== (oldSpec.clusterIP ?? '') && deepEqual(ips, oldIps)) ips = ip === '' ? [] : [ip];
  if (spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName') {
    const headless = (l: string[]) => l.length === 1 && l[0] === 'None';
    if (!(headless(ips) && headless(oldIps))) causes.push(...clusterIpChanges(spec, ips, oldIps));
    if (headless(ips) === headless(oldIps) && !headless(ips)) {
      const fams = strings(spec.ipFamilies);
      const oldFams = strings(oldSpec.ipFamilies);
      if (fams.length === oldFams.length) {
        for (let i = 0; i < oldFams.length; i++)
          if (fams[i] !== oldFams[i]) causes.push(invalid('spec.ipFamilies[0]', fams, MAY_NOT_CHANGE));
      } else if (fams.length > 0 && oldFams.length > 0 && fams[0] !== oldFams[0])
        causes.push(invalid('spec.ipFamilies[0]', ips, MAY_NOT_CHANGE));
    }
  }
  if (spec.type === 'LoadBalancer' && oldSpec.type === 'LoadBalancer') {
    if ((spec.loadBalancerClass ?? null) !== (oldSpec.loadBalancerClass ?? null))
      causes.push(invalid('spec.loadBalancerClass', spec.loadBalancerClass, MAY_NOT_CHANGE));
  }
  const needsHealthCheck = (s: JsonObject) =>
    s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';
  if (
    needsHealthCheck(spec) &&
    needsHealthCheck(oldSpec) &&
    spec.healthCheckNodePort !== oldSpec.healthCheckNodePort
  )
    causes.push(forbidden('spec.healthCheckNodePort', IMMUTABLE));
  return causes;
};

/** validateUpgradeDowngradeClusterIPs: the primary IP never changes, a secondary one may come or go. */
function clusterIpChanges(spec: JsonObject, ips: string[], oldIps: string[]): StatusCause[] {
  const causes: StatusCause[] = [];
  if (ips.length === oldIps.length) {
    oldIps.forEach((x, i) => {
      if (x !== ips[i]) causes.push(invalid(`spec.clusterIPs[${i}]`, ips, MAY_NOT_CHANGE));
    });
  } else if (oldIps.length > ips.length) {
    if (ips.length === 0)
      causes.push(invalid('spec.clusterIPs[0]', ips, 'primary clusterIP can not be unset'));
    if (ips.length > 0 && ips[0] !== oldIps[0])
      causes.push(invalid('spec.clusterIPs[0]', ips, MAY_NOT_CHANGE));
    if (ips.length === 1 && spec.ipFamilyPolicy !== 'SingleStack')
      causes.push(
        invalid(
          'spec.ipFamilyPolicy',
          spec.ipFamilyPolicy,
          "must be set to 'SingleStack' when releasing the secondary clusterIP",
        ),
      );
  } else if (oldIps.length > 0 && ips[0] !== oldIps[0]) {
    causes.push(invalid('spec.clusterIPs[0]', ips, MAY_NOT_CHANGE));
  }
  return causes;
}

// ---- PersistentVolumeClaim ----

const BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

/**
 * ValidatePersistentVolumeClaimUpdate: the spec is immutable except volumeName set once, a
 * storageClassName set where there was none (matching the beta annotation if any), and the storage
 * request and volumeAttributesClassName of a bound claim. volumeMode is reported once more on its
 * own, under kube's path `volumeMode`.
 */
const pvc: Rule = (next, old) => {
  const spec = part(next, 'spec');
  const oldSpec = part(old, 'spec');
  const n: JsonObject = { ...spec };
  const o: JsonObject = { ...oldSpec };
  if (o.volumeName === undefined || o.volumeName === '') {
    if (n.volumeName === undefined) delete o.volumeName;
    else o.volumeName = n.volumeName;
  }
  const annotation = part(part(old, 'metadata'), 'annotations')[BETA_STORAGE_CLASS];
  if (
    o.storageClassName === undefined &&
    n.storageClassName !== undefined &&
    (annotation === undefined || annotation === n.storageClassName)
  )
    delete n.storageClassName;
  if (part(next, 'status').phase === 'Bound') {
    const requests = part(part(n, 'resources'), 'requests');
    if (isObject(part(n, 'resources').requests)) {
      const oldStorage = part(part(o, 'resources'), 'requests').storage;
      const r = { ...requests };
      if (oldStorage === undefined) delete r.storage;
      else r.storage = oldStorage;
      n.resources = { ...part(n, 'resources'), requests: r };
    }
    if (n.volumeAttributesClassName !== undefined) {
      if (o.volumeAttributesClassName === undefined) delete n.volumeAttributesClassName;
      else n.volumeAttributesClassName = o.volumeAttributesClassName;
    }
  }
  const causes: StatusCause[] = [];
  if (!deepEqual(n, o))
    causes.push(
      forbidden(
        'spec',
        `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${diff(o, n, 'spec').join('\n')}`,
      ),
    );
  causes.push(...immutable('volumeMode', spec.volumeMode, oldSpec.volumeMode));
  return causes;
};

// ---- Pod ----

const UPDATABLE_POD_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
].join(',');

const MAX_INT32 = 2147483647;

/**
 * ValidatePodUpdate: containers may not be added or removed; images, activeDeadlineSeconds (set,
 * or lowered), tolerations (added; tolerationSeconds changed), scheduling gates (removed) and a
 * negative terminationGracePeriodSeconds set to 1 may change; anything else in the spec is a
 * Forbidden `spec` with the list of what may change and a diff. The extra freedoms of a pod still
 * held by scheduling gates (added nodeSelector and node affinity terms) are not modelled.
 */
const pod: Rule = (next, old) => {
  const spec = part(next, 'spec');
  const oldSpec = part(old, 'spec');
  const causes: StatusCause[] = [];
  for (const key of ['containers', 'initContainers']) {
    const list = Array.isArray(spec[key]) ? (spec[key] as unknown[]) : [];
    const oldList = Array.isArray(oldSpec[key]) ? (oldSpec[key] as unknown[]) : [];
    if (list.length !== oldList.length)
      return [...causes, forbidden(`spec.${key}`, 'pod updates may not add or remove containers')];
    list.forEach((c, i) => {
      if (!isObject(c) || typeof c.image !== 'string' || c.image === '')
        causes.push({
          reason: 'FieldValueRequired',
          field: `spec.${key}[${i}].image`,
          message: 'Required value',
        });
      else if (c.image.trim() !== c.image)
        causes.push(
          invalid(`spec.${key}[${i}].image`, c.image, 'must not have leading or trailing whitespace'),
        );
    });
  }
  const ads = spec.activeDeadlineSeconds;
  const oldAds = oldSpec.activeDeadlineSeconds;
  if (typeof ads === 'number') {
    if (ads < 0 || ads > MAX_INT32)
      return [
        ...causes,
        invalid('spec.activeDeadlineSeconds', ads, `must be between 0 and ${MAX_INT32}, inclusive`),
      ];
    if (typeof oldAds === 'number' && oldAds < ads)
      return [
        ...causes,
        invalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value'),
      ];
  } else if (oldAds !== undefined) {
    causes.push(
      invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'),
    );
  }
  causes.push(...onlyAddedTolerations(spec.tolerations, oldSpec.tolerations));
  const gates = new Set(
    (Array.isArray(oldSpec.schedulingGates) ? oldSpec.schedulingGates : []).map((g) => goJson(g)),
  );
  for (const g of Array.isArray(spec.schedulingGates) ? spec.schedulingGates : []) {
    if (!gates.has(goJson(g)))
      causes.push(
        forbidden(
          'spec.schedulingGates',
          `only deletion is allowed, but found new scheduling gate '${isObject(g) ? String(g.name) : String(g)}'`,
        ),
      );
  }
  if (deepEqual(spec, oldSpec)) return causes;
  const munged: JsonObject = withFrom(spec, oldSpec, [
    'activeDeadlineSeconds',
    'schedulingGates',
    'tolerations',
  ]);
  for (const key of ['containers', 'initContainers']) {
    const oldList = Array.isArray(oldSpec[key]) ? (oldSpec[key] as unknown[]) : [];
    if (Array.isArray(munged[key]))
      munged[key] = (munged[key] as unknown[]).map((c, i) => {
        const was = oldList[i];
        if (!isObject(c) || !isObject(was)) return c;
        const out: JsonObject = { ...c };
        if (was.image === undefined) delete out.image;
        else out.image = was.image;
        return out;
      });
  }
  const grace = oldSpec.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0 && munged.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = grace;
  if (!deepEqual(munged, oldSpec))
    causes.push(
      forbidden(
        'spec',
        `pod updates may not change fields other than ${UPDATABLE_POD_FIELDS}\n${diff(oldSpec, munged, 'spec').join('\n')}`,
      ),
    );
  return causes;
};

/** validateOnlyAddedTolerations: each old toleration is still there (tolerationSeconds aside). */
function onlyAddedTolerations(next: unknown, old: unknown): StatusCause[] {
  const list = Array.isArray(next) ? next.filter(isObject) : [];
  for (const t of Array.isArray(old) ? old.filter(isObject) : []) {
    const found = list.some((n) => {
      const was: JsonObject = { ...t };
      if (n.tolerationSeconds === undefined) delete was.tolerationSeconds;
      else was.tolerationSeconds = n.tolerationSeconds;
      return deepEqual(was, n);
    });
    if (!found)
      return [
        forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'),
      ];
  }
  return [];
}

// ---- RBAC ----

/**
 * ValidateRoleBindingUpdate / ValidateClusterRoleBindingUpdate: the roleRef may not change. Kube
 * prints its internal RoleRef, a Go struct without JSON names: `{"APIGroup":..,"Kind":..,"Name":..}`.
 */
const roleRef: Rule = (next, old) => {
  const r = part(next, 'roleRef');
  const o = part(old, 'roleRef');
  const same = ['apiGroup', 'kind', 'name'].every((k) => (r[k] ?? '') === (o[k] ?? ''));
  if (same) return [];
  const value = { APIGroup: r.apiGroup ?? '', Kind: r.kind ?? '', Name: r.name ?? '' };
  return [
    {
      reason: 'FieldValueInvalid',
      field: 'roleRef',
      message: `Invalid value: ${goJson(value)}: cannot change roleRef`,
    },
  ];
};

/** The rules by `<group>/<plural>`. */
const RULES: Record<string, Rule> = {
  '/configmaps': configMap,
  '/secrets': secret,
  '/services': service,
  '/persistentvolumeclaims': pvc,
  '/pods': pod,
  'apps/deployments': selectorRule,
  'apps/replicasets': selectorRule,
  'apps/daemonsets': selectorRule,
  'apps/statefulsets': statefulSet,
  'batch/jobs': job,
  'rbac.authorization.k8s.io/rolebindings': roleRef,
  'rbac.authorization.k8s.io/clusterrolebindings': roleRef,
  'discovery.k8s.io/endpointslices': validateEndpointSliceUpdate,
  'storage.k8s.io/storageclasses': validateStorageClassUpdate,
  'scheduling.k8s.io/priorityclasses': validatePriorityClassUpdate,
};

/**
 * The causes of a 422 for an update of a built-in object (`next`: decoded and defaulted; `old`: the
 * stored object). Empty for custom resources and kinds without update rules.
 */
export function validateBuiltinUpdate(rt: ResourceType, next: JsonObject, old: JsonObject): StatusCause[] {
  if (rt.crdName !== undefined) return [];
  const rule = RULES[`${rt.group}/${rt.plural}`];
  return rule ? rule(next, old) : [];
}
