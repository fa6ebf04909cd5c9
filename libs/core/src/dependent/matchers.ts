import type { KubernetesResource } from '../api/resource-type.js';
import { clone, deepEqual, isSubset } from './internal/json.js';
import { pruneToFields } from './internal/fields-v1.js';
import type { FieldsV1 } from './internal/fields-v1.js';
import { applyEntry } from './internal/owned-fields.js';
import { quantityValue } from './internal/quantity.js';

/** Fields of an object that apply never manages (identity, server-owned metadata, status). */
const UNMANAGED_TOP = ['apiVersion', 'kind', 'status'];
const UNMANAGED_METADATA = [
  'name',
  'namespace',
  'generateName',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
];

/**
 * The managed-fields matcher (JOSDK's `SSABasedGenericKubernetesResourceMatcher`): compares the
 * desired object with the part of the actual one that `fieldManager` owns through apply. Fields
 * defaulted by the server or owned by others are ignored; a field we applied that someone else took
 * over, changed or removed, or a field the desired state adds or drops, is a mismatch. When the
 * actual object has no apply entry of the manager (it was created or updated otherwise), it does
 * not match, so the next apply takes ownership (moving from update-based to apply-based management),
 * unless the intent names no field beyond `apiVersion`, `kind`, `metadata.name` and
 * `metadata.namespace`: such an apply owns nothing, and kube-apiserver keeps no entry for it, so it
 * would change nothing (an object whose intent is only that it exists, e.g. a Namespace).
 *
 * `status` is compared only where our main apply entry owns `f:status` (a kind without a status
 * subresource, whose main apply writes it); elsewhere the main apply never writes it. For built-in
 * kinds an empty list, or an empty map at a field whose Go type is a map (`labels`, `data`, ...), that
 * the desired state has where the object has nothing matches, at any depth, inside list items too (a
 * container's `env: []`, a volume's `items: []`): kube-apiserver serialises them with Go's
 * `omitempty`, so such an apply changes nothing. An empty struct (`labelSelector: {}`) is a value:
 * kube keeps it. Custom resources are compared exactly (the server keeps their `{}` and `[]`),
 * except their metadata, which kube-apiserver decodes into an ObjectMeta like any kind's. On every
 * kind an applied `{}` that is a leaf of our field set holds whatever members other managers set in
 * that map: structured-merge-diff merges `{}` into the live map and leaves theirs alone.
 */
export function matchesManagedFields<R extends KubernetesResource>(
  actual: R,
  desired: R,
  fieldManager: string,
): boolean {
  const entry = applyEntry(actual, fieldManager);
  if (!entry) return namesNoField(desired);
  if (!entry.fieldsV1) return false;
  const kind = actual.kind ?? desired.kind;
  const apiVersion = actual.apiVersion ?? desired.apiVersion;
  // an applied `{}` over others' members (our leaf `f:labels: {}` next to their `f:labels.f:team`)
  // holds whatever they set: structured-merge-diff merges `{}` into the live map, on custom
  // resources as on built-in kinds
  const owned = pruneToFields(actual, entry.fieldsV1 as FieldsV1, desired) as Record<string, unknown>;
  // a kind without a status subresource: the main apply owns (and writes) the status
  const ownsStatus = Object.prototype.hasOwnProperty.call(entry.fieldsV1, 'f:status');
  // an empty map is a value on both sides (applying or dropping `config: {}` is a change); pruning
  // already left out maps emptied by someone else's removals. Built-in kinds never show empty
  // omitempty maps and lists, at any depth (list items too), so there one the object lacks is no
  // difference.
  const traits = kindTraits(kind, apiVersion);
  const omitsEmpties = traits.builtIn;
  if (!traits.sanitized) {
    // nothing to rewrite: compared as they are (the pruned view shares nested objects with the
    // informer's cached resource and the desired object is the caller's, so neither is changed)
    return sameIntent(owned, desired as Record<string, unknown>, ownsStatus, omitsEmpties);
  }
  const wanted = sanitizeForMatch(
    stripUnmanaged(clone(desired) as Record<string, unknown>, ownsStatus),
    kind,
    apiVersion,
  );
  const have = sanitizeOwned(
    stripUnmanaged(clone<Record<string, unknown>>(owned), ownsStatus),
    kind,
    apiVersion,
  );
  return sameIntent(have, wanted, ownsStatus, omitsEmpties);
}

/**
 * Whether an apply of `desired` would own no field: no member but `apiVersion`, `kind` and a
 * `metadata` of only `name` and `namespace` (members that are undefined count as absent, as in JSON).
 * The API server strips these from every field set (kube-apiserver's field manager), so the set is
 * empty, no managedFields entry is kept, and the object stays as it is.
 */
function namesNoField(desired: KubernetesResource): boolean {
  const d = desired as Record<string, unknown>;
  for (const k in d) {
    if (!Object.hasOwn(d, k) || d[k] === undefined || k === 'apiVersion' || k === 'kind') continue;
    if (k !== 'metadata') return false;
    const m = d[k];
    if (m === null || typeof m !== 'object' || Array.isArray(m)) return false;
    for (const mk in m) {
      if (!Object.hasOwn(m, mk) || (m as Record<string, unknown>)[mk] === undefined) continue;
      if (mk !== 'name' && mk !== 'namespace') return false;
    }
  }
  return true;
}

/** What the matcher needs to know of a kind: whether it is built in and whether it is sanitized. */
interface KindTraits {
  builtIn: boolean;
  sanitized: boolean;
}

/**
 * {@link KindTraits} by apiVersion and kind, worked out once per pair instead of per match (string
 * slicing and a `${apiVersion}/${kind}` key per call). Bounded: cleared when it grows large.
 */
const traitsByKind = new Map<string | undefined, Map<string | undefined, KindTraits>>();

function kindTraits(kind: string | undefined, apiVersion: string | undefined): KindTraits {
  let byKind = traitsByKind.get(apiVersion);
  let traits = byKind?.get(kind);
  if (traits) return traits;
  traits = { builtIn: isBuiltIn(apiVersion), sanitized: sanitizes(kind, apiVersion) };
  if (!byKind) {
    if (traitsByKind.size >= 256) traitsByKind.clear();
    byKind = new Map();
    traitsByKind.set(apiVersion, byKind);
  }
  if (byKind.size >= 256) byKind.clear();
  byKind.set(kind, traits);
  return traits;
}

const UNMANAGED_METADATA_SET = new Set(UNMANAGED_METADATA);
const isUnmanagedMetadata = (k: string): boolean => UNMANAGED_METADATA_SET.has(k);
/** Top-level members compared on their own (metadata) or never (identity; status unless owned). */
const isIdentityOrMetadata = (k: string): boolean => k === 'apiVersion' || k === 'kind' || k === 'metadata';
const isUnmanagedTop = (k: string): boolean => isIdentityOrMetadata(k) || k === 'status';

/**
 * Whether the owned view `have` holds exactly the intent `wanted`, leaving out what apply never
 * manages (identity, server-owned metadata, status unless `ownsStatus`); a `metadata` with nothing
 * else is no metadata. With `omitsEmpties` (built-in kinds) what the server omits (see
 * {@link omittedByServer}) whose key `have` lacks is no difference, at any depth; in metadata (an
 * ObjectMeta on every kind) always.
 */
function sameIntent(
  have: Record<string, unknown>,
  wanted: Record<string, unknown>,
  ownsStatus: boolean,
  omitsEmpties: boolean,
): boolean {
  if (!sameMembers(have, wanted, ownsStatus ? isIdentityOrMetadata : isUnmanagedTop, omitsEmpties))
    return false;
  const hm = have['metadata'] ?? {};
  const wm = jsonValue(wanted['metadata']) ?? {};
  const hmo = objectAt(hm);
  const wmo = objectAt(wm);
  if (!hmo || !wmo) return deepEqual(hm, wm);
  // metadata is an ObjectMeta on every kind (kube-apiserver decodes a custom resource's metadata
  // into one too), whose empty maps and lists are omitted
  return sameMembers(hmo, wmo, isUnmanagedMetadata, true);
}

/** The members of two objects but those `skipped` are equal (see {@link sameIntent}). */
function sameMembers(
  have: Record<string, unknown>,
  wanted: Record<string, unknown>,
  skipped: (key: string) => boolean,
  omitsEmpties: boolean,
): boolean {
  // for..in with an own-property check instead of Object.keys: the same keys, no array per object
  let matched = 0;
  for (const k in wanted) {
    if (!Object.hasOwn(wanted, k) || skipped(k)) continue;
    const w = jsonValue(wanted[k]);
    if (w === undefined) continue;
    if (!Object.prototype.hasOwnProperty.call(have, k) || have[k] === undefined) {
      if (omitsEmpties && omittedByServer(k, w)) continue;
      return false;
    }
    if (!sameValue(have[k], w, omitsEmpties)) return false;
    matched++;
  }
  let present = 0;
  for (const k in have) if (Object.hasOwn(have, k) && !skipped(k) && have[k] !== undefined) present++;
  return present === matched;
}

const none = (): boolean => false;

/** Equality of JSON values as {@link deepEqual}, with the omitempty rule inside maps and list items. */
function sameValue(have: unknown, wanted: unknown, omitsEmpties: boolean): boolean {
  const w = jsonValue(wanted);
  if (have === w) return true;
  if (typeof have !== 'object' || typeof w !== 'object' || have === null || w === null) return false;
  if (Array.isArray(have) || Array.isArray(w)) {
    // keyed lists: the pruned view keeps our items in the object's order, as the intent lists them
    // when nothing changed; atomic lists item by item
    if (!Array.isArray(have) || !Array.isArray(w) || have.length !== w.length) return false;
    for (let i = 0; i < w.length; i++) if (!sameValue(have[i], w[i], omitsEmpties)) return false;
    return true;
  }
  return sameMembers(have as Record<string, unknown>, w as Record<string, unknown>, none, omitsEmpties);
}

/**
 * Fields of built-in kinds whose Go type is a map (`map[string]string`, `ResourceList`, ...): an empty
 * one is left out by `omitempty`, so `labels: {}` changes nothing on the object. Only names that are a
 * map wherever built-in kinds use them are listed: `selector` is a map on a Service but a
 * `LabelSelector` struct elsewhere, where `{}` selects everything; `parameters` (a StorageClass's map,
 * an IngressClass's struct), `overhead` (a Pod's map, a RuntimeClass's struct) and `allocatable` (a
 * Node's map, a CSINode driver's struct) likewise. An unlisted map costs a no-op apply, never a
 * skipped change.
 */
const GO_MAP_FIELDS = new Set([
  'labels',
  'annotations',
  'data',
  'binaryData',
  'stringData',
  'nodeSelector',
  'matchLabels',
  'limits',
  'requests',
  'capacity',
  'hard',
  'volumeAttributes',
]);

/**
 * Whether the server leaves the desired member `key: value` out of a built-in object entirely, so its
 * absence on the object is no difference: an empty list (Go's `omitempty` drops an empty slice) or an
 * empty object at a key that is a Go map ({@link GO_MAP_FIELDS}). An empty struct is not: kube keeps
 * a pointer to an empty struct as `{}`, and it may mean something else than none (an empty
 * `labelSelector` selects every object, a missing one none), so adding it is a change.
 */
function omittedByServer(key: string, value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  const o = objectAt(value);
  if (!o || !GO_MAP_FIELDS.has(key)) return false;
  for (const k in o) if (jsonValue(o[k]) !== undefined) return false;
  return true;
}

/** A desired value as JSON has it: `toJSON` applied (a Date is its string); plain values as they are. */
function jsonValue(value: unknown): unknown {
  if (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  )
    return clone(value);
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  return value;
}

/** Kinds whose desired or actual state the matcher rewrites before comparing (see sanitizeForMatch). */
function sanitizes(kind: string | undefined, apiVersion: string | undefined): boolean {
  if (kind === undefined) return false;
  if (kind === 'Secret' || kind === 'StatefulSet' || isRbacBinding(kind, apiVersion)) return true;
  return QUANTITY_TYPES.has(`${apiVersion ?? ''}/${kind}`);
}

/** API groups of kube-apiserver's built-in kinds that contain a dot (others are custom resources). */
const BUILT_IN_DOTTED_GROUPS = new Set([
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/** Whether `apiVersion` is one of kube-apiserver's built-in groups (core, `apps`, `batch`, ...). */
function isBuiltIn(apiVersion: string | undefined): boolean {
  if (!apiVersion) return false;
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return !group.includes('.') || BUILT_IN_DOTTED_GROUPS.has(group);
}

/** Options of {@link matchesWholeObject}. */
export interface WholeObjectMatchOptions {
  /**
   * Require the desired labels and annotations to be on the object (with the desired values; others'
   * entries are fine), as JOSDK's `GenericKubernetesResourceMatcher` does. `false` ignores them.
   * Defaults to true.
   */
  labelsAndAnnotations?: boolean;
  /** Compare only `spec` (else every top-level field but metadata and status). Defaults to false. */
  specOnly?: boolean;
}

/**
 * The whole-object matcher (JOSDK's `GenericKubernetesResourceMatcher`): every desired value must
 * be in the actual object; fields only the actual object has (server defaults) are fine. Of the
 * metadata only the desired labels and annotations count (unless `labelsAndAnnotations` is false):
 * each must be there with its value, while entries others added are fine. Resource quantities of built-in kinds are compared by value,
 * as the managed-fields matcher compares them (the server returns `2000m` as `2`).
 */
export function matchesWholeObject<R extends KubernetesResource>(
  actual: R,
  desired: R,
  options: WholeObjectMatchOptions = {},
): boolean {
  let a = actual as Record<string, unknown>;
  const d = sanitizeDesired(clone(desired)) as Record<string, unknown>;
  const kind = actual.kind ?? desired.kind;
  const apiVersion = actual.apiVersion ?? desired.apiVersion;
  if (kind !== undefined && QUANTITY_TYPES.has(`${apiVersion ?? ''}/${kind}`)) {
    // quantities by value on both sides (the actual one is a copy: it is the informer's object)
    a = clone(a);
    normalizeQuantities(a, kind, apiVersion);
    normalizeQuantities(d, kind, apiVersion);
  }
  const keys = options.specOnly
    ? ['spec']
    : Object.keys(d).filter((k) => !['metadata', 'status', 'apiVersion', 'kind'].includes(k));
  for (const key of keys) if (!isSubset(d[key], a[key])) return false;
  if (options.labelsAndAnnotations ?? true) {
    const dm = desired.metadata ?? {};
    const am = actual.metadata ?? {};
    if (
      !isSubset(dm.labels ?? {}, am.labels ?? {}) ||
      !isSubset(dm.annotations ?? {}, am.annotations ?? {})
    ) {
      return false;
    }
  }
  return true;
}

/**
 * Rewrites a desired object so apply does not loop on known server normalisations: a Secret's
 * `stringData` becomes base64 `data` (the server never returns `stringData`). A `stringData` that
 * is not a map of strings (a null or an object as a value) is left as it is, for the API server to
 * decode or reject: the write is sent, never skipped on a guess.
 */
export function sanitizeDesired<R extends KubernetesResource>(desired: R): R {
  if (desired.kind === 'Secret' && (desired.apiVersion ?? 'v1') === 'v1')
    sanitizeSecretFields(desired as Record<string, unknown>);
  return desired;
}

/** Whether `v` is a map whose members are strings (undefined ones count as absent, as in JSON). */
function isStringMap(v: unknown): v is Record<string, string | undefined> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  for (const k in v) {
    const member = (v as Record<string, unknown>)[k];
    if (Object.hasOwn(v, k) && member !== undefined && typeof member !== 'string') return false;
  }
  return true;
}

/**
 * Drops what apply never manages (`status` too unless `keepStatus`: the main apply owns it); a
 * `metadata` left empty by that (an intent naming only `name`/`namespace`) is dropped too, since it
 * says nothing to compare.
 */
function stripUnmanaged(obj: Record<string, unknown>, keepStatus = false): Record<string, unknown> {
  for (const k of UNMANAGED_TOP) if (!(keepStatus && k === 'status')) delete obj[k];
  const meta = obj['metadata'] as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object') {
    for (const k of UNMANAGED_METADATA) delete meta[k];
    if (Object.keys(meta).length === 0) delete obj['metadata'];
  }
  return obj;
}

/** A Secret's `stringData` folded into base64 `data`, when it is a map of strings (see sanitizeDesired). */
function sanitizeSecretFields(s: Record<string, unknown>): void {
  const stringData = s['stringData'];
  if (!stringData || !isStringMap(stringData)) return;
  const data = { ...((s['data'] as Record<string, string> | undefined) ?? {}) };
  for (const [k, v] of Object.entries(stringData))
    if (v !== undefined) data[k] = Buffer.from(v, 'utf8').toString('base64');
  s['data'] = data;
  delete s['stringData'];
}

/** Desired-side sanitizing (JOSDK's sanitizers). */
function sanitizeForMatch(
  desired: Record<string, unknown>,
  kind: string | undefined,
  apiVersion: string | undefined,
): Record<string, unknown> {
  if (kind === 'Secret') sanitizeSecretFields(desired);
  if (kind === 'StatefulSet') normalizeClaimTemplates(desired);
  if (isRbacBinding(kind, apiVersion)) normalizeBindingGroups(desired);
  normalizeQuantities(desired, kind, apiVersion);
  return desired;
}

/** Actual-side sanitizing: parts the server may add under fields we own. */
function sanitizeOwned(
  owned: Record<string, unknown>,
  kind: string | undefined,
  apiVersion: string | undefined,
): Record<string, unknown> {
  if (kind === 'StatefulSet') normalizeClaimTemplates(owned);
  if (isRbacBinding(kind, apiVersion)) normalizeBindingGroups(owned);
  normalizeQuantities(owned, kind, apiVersion);
  return owned;
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const isRbacBinding = (kind: string | undefined, apiVersion: string | undefined): boolean =>
  (kind === 'RoleBinding' || kind === 'ClusterRoleBinding') && apiVersion === `${RBAC_GROUP}/v1`;

/**
 * kube-apiserver's defaults of a binding (rbac/v1 SetDefaults_RoleBinding, SetDefaults_Subject):
 * `roleRef.apiGroup` and a User or Group subject's `apiGroup` are rbac.authorization.k8s.io when
 * left out. `subjects` is an atomic list (the apply owns the whole of it, defaults included), so
 * both sides are compared with them filled in.
 */
function normalizeBindingGroups(obj: Record<string, unknown>): void {
  const roleRef = objectAt(obj['roleRef']);
  if (roleRef && (roleRef['apiGroup'] === undefined || roleRef['apiGroup'] === ''))
    roleRef['apiGroup'] = RBAC_GROUP;
  const subjects = obj['subjects'];
  if (!Array.isArray(subjects)) return;
  for (const item of subjects) {
    const subject = objectAt(item);
    if (!subject || (subject['apiGroup'] !== undefined && subject['apiGroup'] !== '')) continue;
    if (subject['kind'] === 'User' || subject['kind'] === 'Group') subject['apiGroup'] = RBAC_GROUP;
  }
}

/**
 * The server fills apiVersion, kind, status and `spec.volumeMode` (Filesystem) of claim templates, an
 * atomic list the apply owns whole; compare without that difference (JOSDK's SSA matcher sanitizes
 * the same fields). Only a list's object items are claim templates: anything else is compared as it
 * is (no match, so the apply is sent and the API server's answer decides).
 */
function normalizeClaimTemplates(obj: Record<string, unknown>): void {
  const templates = objectAt(obj['spec'])?.['volumeClaimTemplates'];
  if (!Array.isArray(templates)) return;
  for (const item of templates) {
    const t = objectAt(item);
    if (!t) continue;
    t['apiVersion'] ??= 'v1';
    t['kind'] ??= 'PersistentVolumeClaim';
    delete t['status'];
    const spec = objectAt(t['spec']);
    if (spec) spec['volumeMode'] ??= 'Filesystem';
  }
}

/** Built-in kinds (by `apiVersion/kind`) whose pod template is at `spec.template.spec`. */
const POD_TEMPLATE_KINDS = new Set([
  'apps/v1/Deployment',
  'apps/v1/StatefulSet',
  'apps/v1/ReplicaSet',
  'apps/v1/DaemonSet',
  'batch/v1/Job',
  'v1/ReplicationController',
]);

/**
 * `apiVersion/kind` of the kinds with `resource.Quantity` fields (k8s.io/api), which
 * {@link normalizeQuantities} rewrites.
 */
const QUANTITY_TYPES = new Set([
  ...POD_TEMPLATE_KINDS,
  'v1/Pod',
  'v1/PodTemplate',
  'v1/PersistentVolumeClaim',
  'v1/PersistentVolume',
  'v1/ResourceQuota',
  'v1/LimitRange',
  'batch/v1/CronJob',
  'autoscaling/v2/HorizontalPodAutoscaler',
  'node.k8s.io/v1/RuntimeClass',
  'storage.k8s.io/v1/CSIStorageCapacity',
  'resource.k8s.io/v1/ResourceClaim',
  'resource.k8s.io/v1/ResourceClaimTemplate',
  'resource.k8s.io/v1/ResourceSlice',
]);

/** A quantity member `key` of `holder` replaced by its value key (a non-quantity is left as it is). */
function quantityAt(holder: unknown, key: string): void {
  const h = objectAt(holder);
  if (h && h[key] !== undefined) h[key] = quantityValue(h[key]) ?? h[key];
}

/** Every member of a map of quantities (a `ResourceList`) replaced by its value key. */
function quantityMap(map: unknown): void {
  const m = objectAt(map);
  if (m) for (const name of Object.keys(m)) quantityAt(m, name);
}

/** The object items of `list` (nothing when it is not a list). */
function itemsOf(list: unknown): Record<string, unknown>[] {
  if (!Array.isArray(list)) return [];
  const out: Record<string, unknown>[] = [];
  for (const item of list) {
    const o = objectAt(item);
    if (o) out.push(o);
  }
  return out;
}

/** A `ResourceRequirements` (or `VolumeResourceRequirements`): its limits and requests. */
function requirementQuantities(r: unknown): void {
  quantityMap(objectAt(r)?.['limits']);
  quantityMap(objectAt(r)?.['requests']);
}

/** The divisors of a downward API volume's (or projected source's) items. */
function downwardQuantities(downwardAPI: unknown): void {
  for (const item of itemsOf(objectAt(downwardAPI)?.['items']))
    quantityAt(item['resourceFieldRef'], 'divisor');
}

/** A PersistentVolumeClaim spec (also a claim template's or an ephemeral volume's). */
function claimSpecQuantities(spec: unknown): void {
  requirementQuantities(objectAt(spec)?.['resources']);
}

/**
 * A PodSpec's quantities: containers' (init, ephemeral) resources and env resource-field divisors,
 * pod-level resources, overhead, and volumes' emptyDir size limits, downward API divisors (also in
 * projected volumes) and ephemeral volumes' claims.
 */
function podSpecQuantities(ps: unknown): void {
  const p = objectAt(ps);
  if (!p) return;
  for (const key of ['containers', 'initContainers', 'ephemeralContainers'])
    for (const c of itemsOf(p[key])) {
      requirementQuantities(c['resources']);
      for (const e of itemsOf(c['env']))
        quantityAt(objectAt(e['valueFrom'])?.['resourceFieldRef'], 'divisor');
    }
  requirementQuantities(p['resources']);
  quantityMap(p['overhead']);
  for (const v of itemsOf(p['volumes'])) {
    quantityAt(v['emptyDir'], 'sizeLimit');
    downwardQuantities(v['downwardAPI']);
    for (const source of itemsOf(objectAt(v['projected'])?.['sources']))
      downwardQuantities(source['downwardAPI']);
    claimSpecQuantities(objectAt(objectAt(v['ephemeral'])?.['volumeClaimTemplate'])?.['spec']);
  }
}

/** A `MetricTarget` of each of an autoscaling/v2 HPA's metrics, and its scaling rules' tolerances. */
function hpaQuantities(spec: Record<string, unknown>): void {
  for (const metric of itemsOf(spec['metrics']))
    for (const source of ['object', 'pods', 'resource', 'containerResource', 'external']) {
      const target = objectAt(metric[source])?.['target'];
      quantityAt(target, 'value');
      quantityAt(target, 'averageValue');
    }
  const behavior = objectAt(spec['behavior']);
  quantityAt(behavior?.['scaleUp'], 'tolerance');
  quantityAt(behavior?.['scaleDown'], 'tolerance');
}

/** A resource.k8s.io/v1 ResourceClaimSpec: the capacity each device request (or alternative) asks. */
function deviceClaimQuantities(spec: unknown): void {
  for (const request of itemsOf(objectAt(objectAt(spec)?.['devices'])?.['requests'])) {
    quantityMap(objectAt(objectAt(request['exactly'])?.['capacity'])?.['requests']);
    for (const sub of itemsOf(request['firstAvailable']))
      quantityMap(objectAt(sub['capacity'])?.['requests']);
  }
}

/** The values of a map of resource.k8s.io `Counter`s. */
function counterQuantities(counters: unknown): void {
  const m = objectAt(counters);
  if (m) for (const counter of Object.values(m)) quantityAt(counter, 'value');
}

/** A resource.k8s.io/v1 ResourceSliceSpec: devices' capacities and counters, shared counters. */
function resourceSliceQuantities(spec: Record<string, unknown>): void {
  for (const device of itemsOf(spec['devices'])) {
    const capacity = objectAt(device['capacity']);
    if (capacity)
      for (const c of Object.values(capacity)) {
        quantityAt(c, 'value');
        const policy = objectAt(objectAt(c)?.['requestPolicy']);
        quantityAt(policy, 'default');
        const valid: unknown = policy?.['validValues'];
        if (Array.isArray(valid)) {
          const list = valid as unknown[];
          for (let i = 0; i < list.length; i++) list[i] = quantityValue(list[i]) ?? list[i];
        }
        const range = policy?.['validRange'];
        for (const key of ['min', 'max', 'step']) quantityAt(range, key);
      }
    for (const consumption of itemsOf(device['consumesCounters'])) counterQuantities(consumption['counters']);
  }
  for (const set of itemsOf(spec['sharedCounters'])) counterQuantities(set['counters']);
}

/**
 * Resource quantities as exact values on both sides: kube-apiserver decodes every
 * `resource.Quantity` field of a built-in kind and returns it in its canonical form (`2000m` as
 * `2`, `1024Mi` as `1Gi`), which is the same value (JOSDK's ResourceRequirementsSanitizer, extended
 * to every quantity field of the kinds in {@link QUANTITY_TYPES}: pod specs wherever a kind holds
 * one, claims and volumes, quotas and limit ranges, HPA metric targets, RuntimeClass overhead,
 * CSIStorageCapacity and dynamic resource allocation). Custom resources (another apiVersion) are
 * compared as written, since the server keeps their strings.
 */
function normalizeQuantities(
  obj: Record<string, unknown>,
  kind: string | undefined,
  apiVersion: string | undefined,
): void {
  if (kind === undefined) return;
  const type = `${apiVersion ?? ''}/${kind}`;
  const spec = objectAt(obj['spec']);
  const templateOf = (s: Record<string, unknown> | undefined): unknown => objectAt(s?.['template'])?.['spec'];
  if (type === 'v1/PodTemplate') return podSpecQuantities(objectAt(obj['template'])?.['spec']);
  if (type === 'node.k8s.io/v1/RuntimeClass') return quantityMap(objectAt(obj['overhead'])?.['podFixed']);
  if (type === 'storage.k8s.io/v1/CSIStorageCapacity') {
    quantityAt(obj, 'capacity');
    return quantityAt(obj, 'maximumVolumeSize');
  }
  if (!spec) return;
  if (type === 'v1/Pod') podSpecQuantities(spec);
  else if (type === 'v1/PersistentVolumeClaim') claimSpecQuantities(spec);
  else if (type === 'v1/PersistentVolume') quantityMap(spec['capacity']);
  else if (type === 'v1/ResourceQuota') quantityMap(spec['hard']);
  else if (type === 'v1/LimitRange') {
    for (const l of itemsOf(spec['limits']))
      for (const key of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'])
        quantityMap(l[key]);
  } else if (type === 'batch/v1/CronJob')
    podSpecQuantities(templateOf(objectAt(objectAt(spec['jobTemplate'])?.['spec'])));
  else if (type === 'autoscaling/v2/HorizontalPodAutoscaler') hpaQuantities(spec);
  else if (type === 'resource.k8s.io/v1/ResourceClaim') deviceClaimQuantities(spec);
  else if (type === 'resource.k8s.io/v1/ResourceClaimTemplate') deviceClaimQuantities(spec['spec']);
  else if (type === 'resource.k8s.io/v1/ResourceSlice') resourceSliceQuantities(spec);
  else if (POD_TEMPLATE_KINDS.has(type)) podSpecQuantities(templateOf(spec));
  if (type === 'apps/v1/StatefulSet')
    for (const t of itemsOf(spec['volumeClaimTemplates'])) claimSpecQuantities(t['spec']);
}

function objectAt(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
