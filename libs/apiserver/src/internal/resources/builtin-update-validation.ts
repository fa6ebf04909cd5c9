import type { JsonObject, StatusCause } from '../../types.js';
import { deepEqual, isObject } from '../common/json.js';
import type { ResourceType } from './resource-type.js';

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

/**
 * A value as field.Error prints it in an `Invalid value: <v>` message: numbers and booleans as they
 * are, strings quoted, a nil value as `null`, anything else as JSON (Go's encoding/json: keys in
 * order, `<`, `>` and `&` escaped). Kube marshals its internal Go types: for the metav1 types
 * (label selectors) and lists of strings this is the same text; for an internal type without JSON
 * names (a Job's pod template) kube prints Go field names, which we do not reproduce.
 */
export function goValue(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return goJson(v);
}

function goJson(v: unknown): string {
  return JSON.stringify(sortKeys(v)).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sortKeys(v[k]);
  return out;
}

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

/** ValidateJobSpecUpdate: completions (not of Indexed Jobs), selector, template and completionMode. */
const job: Rule = (next, old) => {
  const spec = part(next, 'spec');
  const oldSpec = part(old, 'spec');
  const causes: StatusCause[] = [];
  if (spec.completionMode !== 'Indexed')
    causes.push(...immutable('spec.completions', spec.completions, oldSpec.completions));
  causes.push(...immutable('spec.selector', spec.selector, oldSpec.selector));
  const neverStarted = oldSpec.suspend === true && part(old, 'status').startTime === undefined;
  const template = neverStarted
    ? withoutSchedulingDirectives(spec.template, oldSpec.template)
    : spec.template;
  if (!deepEqual(template, oldSpec.template)) causes.push(invalid('spec.template', spec.template, IMMUTABLE));
  causes.push(...immutable('spec.completionMode', spec.completionMode, oldSpec.completionMode));
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

/** The rules by `<group>/<plural>`. */
const RULES: Record<string, Rule> = {
  '/configmaps': configMap,
  '/secrets': secret,
  '/services': service,
  'apps/deployments': selectorRule,
  'apps/replicasets': selectorRule,
  'apps/daemonsets': selectorRule,
  'apps/statefulsets': statefulSet,
  'batch/jobs': job,
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
