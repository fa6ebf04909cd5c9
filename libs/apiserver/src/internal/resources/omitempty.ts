import type { JsonObject } from '../../types.js';
import { builtinComponents, schemaResolver, unknownBuiltinFields } from '../openapi/builtin-schemas.js';
import type { ResourceType } from './resource-type.js';

/**
 * Optional fields whose Go type has no `omitempty` (kube-apiserver answers them `[]` when sent
 * empty), by definition name: the OpenAPI schemas cannot tell these from the others.
 */
const KEPT_WHEN_EMPTY: Record<string, string[]> = {
  'io.k8s.api.rbac.v1.Role': ['rules'],
  'io.k8s.api.rbac.v1.ClusterRole': ['rules'],
  // `Endpoints []Endpoint json:"endpoints"` and `Ports []EndpointPort json:"ports"` (k8s.io/api
  // discovery/v1): no omitempty (client-node's schema marks neither required)
  'io.k8s.api.discovery.v1.EndpointSlice': ['endpoints', 'ports'],
};

/** A root schema, its `$ref` resolver and the schemas' fields Go declares without `omitempty`. */
interface Walker {
  root: JsonObject;
  resolve: (s: JsonObject) => JsonObject;
  kept: Map<JsonObject, string[]>;
}

/** Per resource type and apiVersion: the kind's walker (null: no schema). */
const walkers = new WeakMap<ResourceType, Map<string, Walker | null>>();

/** ObjectMeta's walker (custom resources' metadata), built on first use; null: no schema. */
let objectMetaWalker: Walker | null | undefined;

function walkerOf(
  built: { root: string; schemas: Record<string, JsonObject> } | undefined,
  rootName?: string,
): Walker | null {
  const root = built?.schemas[rootName ?? built.root];
  if (!built || !root) return null;
  const kept = new Map<JsonObject, string[]>();
  for (const [name, fields] of Object.entries(KEPT_WHEN_EMPTY)) {
    const schema = built.schemas[name];
    if (schema) kept.set(schema, fields);
  }
  return { root, resolve: schemaResolver(built.schemas), kept };
}

/** A schema whose Go type is a slice or a map (`omitempty` drops those when empty, never a struct). */
function isListOrMap(s: JsonObject): boolean {
  return s.type === 'array' || (isPlainObject(s.additionalProperties) && s.properties === undefined);
}

function isPlainObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isEmpty(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (!isPlainObject(v)) return false;
  for (const k in v) if (Object.hasOwn(v, k)) return false;
  return true;
}

/**
 * The zero value Go's JSON decoder leaves where a `null` meets a field or item of this schema's type
 * (`null` sets nothing there): `""`, `0`, `false`, or an empty struct; undefined for a slice or a map
 * (those become nil, which a field without `omitempty` serialises as `null`) and unknown types.
 */
function zeroOf(s: JsonObject): unknown {
  switch (s.type) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return s.properties !== undefined ? {} : undefined;
    default:
      return undefined;
  }
}

/**
 * Rewrites a built-in object (mutated) as kube-apiserver's decoding into Go types and their
 * `omitempty` tags leave it, at any depth:
 * - a `null` optional field is dropped (a nil pointer, map or slice, or a zero value `omitempty`
 *   leaves out), so the defaults apply to it afterwards (`replicas: null` comes back `1`); a `null`
 *   required field, map value or list item becomes its type's zero value (`""`, `0`, `false`, `{}`),
 *   which is what decoding `null` into a Go string, number, bool or struct leaves
 *   (`labels: {a: null}` is `a: ""`); a `null` slice or map there stays `null` (a nil slice of a
 *   field without `omitempty`);
 * - empty maps and lists of optional fields are dropped: built-in kinds are Go structs whose
 *   optional slice and map fields carry `omitempty`, so `metadata.labels: {}`, a ConfigMap's
 *   `data: {}` or a container's `env: []` are never in an answer.
 * Which fields are optional comes from the kind's OpenAPI schema (a property outside its schema's
 * `required`, except the few optional fields Go declares without `omitempty`, such as a Role's
 * `rules`); required fields, structs (`resources: {}`), map entries, list items and fields of unknown
 * schema keep their empties. Custom resources are left alone (kube keeps their JSON as sent).
 * Runs before the defaults (which create no empty map or list), on every write of a built-in kind.
 */
export function dropEmptyOptionalFields(rt: ResourceType, o: JsonObject): void {
  if (rt.crdName !== undefined) return;
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  let byVersion = walkers.get(rt);
  if (byVersion === undefined) {
    byVersion = new Map();
    walkers.set(rt, byVersion);
  }
  let w = byVersion.get(apiVersion);
  if (w === undefined) {
    w = walkerOf(builtinComponents(rt.group, apiVersion.slice(apiVersion.indexOf('/') + 1), rt.kind));
    byVersion.set(apiVersion, w);
  }
  if (w !== null) decode(w, o, w.root, 0);
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** ObjectMeta's schema with the definitions it references (a ConfigMap's hold them all). */
function objectMetaComponents(): { root: string; schemas: Record<string, JsonObject> } | undefined {
  return builtinComponents('', 'v1', 'ConfigMap');
}

/**
 * ObjectMeta's fields, each with the fields of its list items where those are structs
 * (`ownerReferences`, `managedFields`), else `true`: ObjectMeta nests no deeper (`fieldsV1` is free
 * form), so one look at each metadata field and list item tells whether a write needs the walks.
 */
let objectMetaShape: Map<string, ReadonlySet<string> | true> | null | undefined;

function shapeOfObjectMeta(): Map<string, ReadonlySet<string> | true> | null {
  if (objectMetaShape !== undefined) return objectMetaShape;
  const w =
    objectMetaWalker === undefined
      ? (objectMetaWalker = walkerOf(objectMetaComponents(), OBJECT_META))
      : objectMetaWalker;
  const props = w?.root.properties as Record<string, JsonObject> | undefined;
  if (!w || !props) return (objectMetaShape = null);
  const shape = new Map<string, ReadonlySet<string> | true>();
  for (const [k, p] of Object.entries(props)) {
    const ps = w.resolve(p);
    const items = ps.type === 'array' && isPlainObject(ps.items) ? w.resolve(ps.items) : undefined;
    const itemProps = items?.properties as Record<string, JsonObject> | undefined;
    shape.set(k, itemProps ? new Set(Object.keys(itemProps)) : true);
  }
  return (objectMetaShape = shape);
}

/**
 * Whether `meta` holds something ObjectMeta decoding changes: an unknown field (also in a list
 * item), a `null` (also a map value or in a list item), an empty map or list, or a list item that
 * is no object where one is expected. Nearly every write holds none, and skips the walks.
 */
function metaNeedsDecoding(meta: JsonObject, shape: Map<string, ReadonlySet<string> | true>): boolean {
  for (const k in meta) {
    if (!Object.hasOwn(meta, k)) continue;
    const sub = shape.get(k);
    const v = meta[k];
    if (sub === undefined || v === null) return true;
    if (typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      if (v.length === 0) return true;
      if (sub === true) {
        for (const item of v) if (item === null) return true;
        continue;
      }
      for (const item of v) {
        if (!isPlainObject(item)) return true;
        for (const ik in item)
          if (Object.hasOwn(item, ik) && (!sub.has(ik) || item[ik] === null)) return true;
      }
      continue;
    }
    let empty = true;
    for (const mk in v) {
      if (!Object.hasOwn(v, mk)) continue;
      empty = false;
      if ((v as JsonObject)[mk] === null) return true;
    }
    if (empty) return true;
  }
  return false;
}

/**
 * Rewrites a custom resource's `metadata` (mutated) as {@link dropEmptyOptionalFields} does a
 * built-in object: kube-apiserver decodes a custom resource's ObjectMeta into its Go type and
 * writes it back (apiextensions-apiserver's `objectmeta.Coerce` and `SetObjectMeta`), so
 * `labels: {}`, `annotations: null` or `finalizers: []` are in no answer there either, while the
 * rest of the object keeps its JSON as sent.
 */
export function decodeObjectMeta(o: JsonObject): void {
  const meta = o.metadata;
  if (!isPlainObject(meta)) return;
  const shape = shapeOfObjectMeta();
  if (shape === null || !metaNeedsDecoding(meta, shape)) return;
  if (objectMetaWalker) decode(objectMetaWalker, meta, objectMetaWalker.root, 1);
}

/**
 * Removes from a custom resource's `metadata` (mutated) the fields ObjectMeta does not have, at any
 * depth, and returns their paths (`metadata.foo`): kube-apiserver decodes a custom resource's
 * metadata into an ObjectMeta and writes it back, so they are dropped, with a warning or, under
 * `fieldValidation=Strict`, a 400 (apiextensions-apiserver's GetObjectMetaWithOptions reports them).
 */
export function unknownObjectMetaFields(o: JsonObject): string[] {
  const meta = o.metadata;
  if (!isPlainObject(meta)) return [];
  const shape = shapeOfObjectMeta();
  if (shape === null || !metaNeedsDecoding(meta, shape)) return [];
  const comps = objectMetaComponents();
  if (!comps?.schemas[OBJECT_META]) return [];
  const unknown = unknownBuiltinFields(meta, comps.schemas, OBJECT_META, true);
  return unknown.length === 0 ? unknown : unknown.map((path) => `metadata.${path}`);
}

/** Puts the zero value of `schema`'s type (see {@link zeroOf}) at `key` of `into`, where it has one. */
function setZero(into: object, key: string | number, schema: JsonObject): void {
  const zero = zeroOf(schema);
  if (zero !== undefined) (into as Record<string | number, unknown>)[key] = zero;
}

/** The walk of {@link dropEmptyOptionalFields}: `v` (mutated) against `schema`, at `depth`. */
function decode(w: Walker, v: unknown, schema: JsonObject, depth: number): void {
  if (depth > 40 || v === null || typeof v !== 'object') return;
  const { resolve, kept } = w;
  const s = resolve(schema);
  if (s['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (Array.isArray(v)) {
    const items = s.items as JsonObject | undefined;
    if (items)
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (x !== null) decode(w, x, items, depth + 1);
        else setZero(v, i, resolve(items));
      }
    return;
  }
  const obj = v as Record<string, unknown>;
  // keys walked with for...in (own keys only), without a key or value list per object per write
  if (isPlainObject(s.additionalProperties)) {
    const values = s.additionalProperties;
    for (const k in obj) {
      if (!Object.hasOwn(obj, k)) continue;
      const x = obj[k];
      if (x !== null) decode(w, x, values, depth + 1);
      else setZero(obj, k, resolve(values));
    }
    return;
  }
  const props = s.properties as Record<string, JsonObject> | undefined;
  if (!props) return;
  const required = Array.isArray(s.required) ? (s.required as string[]) : [];
  const keep = kept.get(s);
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const p = props[k];
    if (!p) continue;
    const x = obj[k];
    if (x === null) {
      if (!required.includes(k) && !keep?.includes(k)) delete obj[k];
      else setZero(obj, k, resolve(p));
      continue;
    }
    if (typeof x !== 'object') continue;
    const ps = resolve(p);
    decode(w, x, p, depth + 1);
    if (isEmpty(x) && isListOrMap(ps) && !required.includes(k) && !keep?.includes(k)) delete obj[k];
  }
}
