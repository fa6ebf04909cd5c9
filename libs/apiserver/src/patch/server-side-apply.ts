/**
 * Server-side apply (`application/apply-patch+yaml`): kube-apiserver's `FieldManager.Apply` with
 * structured-merge-diff's `Updater.Apply` (merge, prune, conflict detection, ownership).
 */
import type { JsonObject, PatchSchema } from '../types.js';
import { ApplyConflictError, PatchError } from './patch-error.js';
import type { ApplyConflict } from './patch-error.js';
import { FieldSet, formatFieldPath, valueElement } from './field-set.js';
import type { FieldPath } from './field-set.js';
import { cloneJson, isJsonObject, jsonTypeName } from './internal/json-value.js';
import {
  compareStripped,
  decodeManagers,
  describeManager,
  encodeManagers,
  identity,
  METADATA_PATH,
  stripServerFields,
} from './internal/managers.js';
import type { Manager } from './internal/managers.js';
import { TypedWalker } from './internal/typed-walk.js';
import type { SchemaPath } from './internal/typed-walk.js';

/** Arguments of {@link serverSideApply}. */
export interface ServerSideApplyArgs {
  /** The stored object; undefined when the apply creates it. */
  live: JsonObject | undefined;
  /** The applied configuration (the parsed request body). */
  applied: JsonObject;
  /** The field manager (`?fieldManager=`, required for apply). */
  manager: string;
  /** `?force=true`: take conflicting fields from their owners instead of failing. */
  force: boolean;
  /** The apiVersion of the request; the applied configuration must carry the same. */
  apiVersion: string;
  /**
   * `status` to apply to the status subresource (only `.status` of `applied` counts); absent by default.
   * The caller answers 404 itself when the object does not exist: only the main resource is created by apply.
   */
  subresource?: string;
  /** RFC 3339 time to record for the applier. */
  now: string;
  /** List and map semantics of the kind. */
  schema: PatchSchema;
  /**
   * Whether the main resource's apply ignores `.status` (the kind has a status subresource, so the status
   * is neither changed nor owned through the main resource). Defaults to false.
   */
  ignoreStatus?: boolean;
  /**
   * `live` is the caller's to give away (a fresh parse of a stored object, whose managedFields this
   * module encoded): the `fieldsV1` of entries the apply leaves unchanged are reused in the result
   * instead of encoded again, so the result shares them with `live`. Default false.
   */
  reuseEncoding?: boolean;
}

/**
 * Applies `applied` for `manager` with Kubernetes server-side apply semantics and returns the resulting
 * object (a deep copy) with its `metadata.managedFields`.
 *
 * The fields the configuration sets become the manager's Apply entry. Setting a field another manager
 * owns to a different value is a conflict ({@link ApplyConflictError}, 409) unless `force`, which takes
 * the field over; setting it to the same value shares ownership. Fields the manager applied before and
 * no longer applies are removed when nobody else owns them, and only disowned otherwise. Lists follow
 * `schema.listInfo`: `map` lists merge per key (`k:{"name":"x"}`), `set` lists per value (`v:"x"`),
 * other lists are atomic and replaced whole; maps merge per key unless `schema.isAtomicMap`.
 *
 * @throws {@link PatchError} `NotAnObject` (400) when `applied` is not an object;
 *   `InvalidApplyConfiguration` (400) when its apiVersion differs from `apiVersion`, it sets
 *   `metadata.managedFields`, or a list-map item lacks a key or repeats one; {@link ApplyConflictError}
 *   (409) on conflicts without `force`.
 */
export function serverSideApply(args: ServerSideApplyArgs): JsonObject {
  const { live, applied, manager, force, apiVersion, now, schema } = args;
  const subresource = args.subresource === '' ? undefined : args.subresource;
  checkConfiguration(applied, apiVersion);
  const walker = new TypedWalker(schema);
  const merger = new ApplyMerger(walker);

  // nothing below writes to `base` (the merge copies what it takes from it, the comparison and
  // lookups only read), so it shares live's values; only metadata is copied, without managedFields
  const base = live === undefined ? {} : withoutManagedFields(live);
  const config = configurationFor(applied, subresource, args.ignoreStatus === true);
  // (a fresh set: the .metadata node is taken out in place, as difference(METADATA_NODE) would)
  const configSet = walker.fieldSet(stripServerFields(config), true).remove(METADATA_PATH);

  const managers = decodeManagers(live, args.reuseEncoding === true);
  const self: Manager = { manager, operation: 'Apply', apiVersion, set: configSet };
  if (subresource !== undefined) self.subresource = subresource;
  const selfId = identity(self);
  const previous = managers.find((m) => identity(m) === selfId);
  const others = managers.filter((m) => m !== previous);

  let merged = merger.merge(base, config, []) as JsonObject;
  if (previous !== undefined) {
    const owned = others.reduce((set, m) => set.union(m.set), configSet);
    merged = prune(merged, previous.set, owned, walker);
  }

  const { added, modified, removed } = compareStripped(walker, base, merged);
  const changed = modified.isEmpty() ? added : added.union(modified);
  // An explicit null removes the field; it changes the value, so it conflicts like any other change.
  // (only a configuration holding a null somewhere can null a field: most hold none, and skip the walk)
  const nulled = containsNull(config)
    ? FieldSet.of(
        ...configSet.paths().filter((path) => {
          if (walker.get(config, path) !== null) return false;
          const was = walker.get(base, path);
          // a null that kept live's items (see ApplyMerger.mergesItems) changed nothing there
          // (a null over a live null changes nothing either: structured-merge-diff sees null == null)
          return (
            was !== undefined && was !== null && !(hasItems(was) && walker.get(merged, path) !== undefined)
          );
        }),
      )
    : new FieldSet();
  const contested = nulled.isEmpty() ? changed : changed.union(nulled);
  // only the entries that hold a contested path are intersected (most hold none)
  const conflicts = others
    .filter((m) => m.set.intersects(contested))
    .map((m) => ({ m, set: m.set.intersection(contested) }))
    .filter((c) => !c.set.isEmpty());
  if (conflicts.length > 0 && !force) throw conflictError(conflicts);
  for (const { m, set } of conflicts) m.set = m.set.difference(set);
  // a set holding no removed path stays as it is (and keeps its stored encoding)
  for (const m of others) if (m.set.intersects(removed)) m.set = m.set.difference(removed);

  const objectChanged = !changed.isEmpty() || !removed.isEmpty();
  const setChanged = previous === undefined || !previous.set.equals(configSet);
  // kube's managedFieldsUpdater stamps the applier only when the apply changed the object: an apply
  // that changes no value keeps the entry's time, and a new entry then has none
  if (objectChanged) self.time = now;
  else if (previous?.time !== undefined) self.time = previous.time;
  // a re-apply of the same fields (the common case for an operator) keeps the entry's stored encoding
  if (!setChanged && previous.encoded !== undefined && previous.encoded.set === previous.set) {
    self.set = previous.set;
    self.encoded = previous.encoded;
  }

  const entries = encodeManagers([...others, self]);
  const metadata = isJsonObject(merged.metadata) ? merged.metadata : {};
  if (entries.length > 0) metadata.managedFields = entries;
  else delete metadata.managedFields;
  if (entries.length > 0 || isJsonObject(merged.metadata)) merged.metadata = metadata;
  return merged;
}

function checkConfiguration(applied: unknown, apiVersion: string): asserts applied is JsonObject {
  if (!isJsonObject(applied)) {
    throw new PatchError(
      'NotAnObject',
      400,
      `an apply configuration must be an object, not ${jsonTypeName(applied)}`,
    );
  }
  if (applied.apiVersion !== apiVersion) {
    throw new PatchError(
      'InvalidApplyConfiguration',
      400,
      `Incorrect version specified in apply patch. Specified patch version: ${typeof applied.apiVersion === 'string' ? applied.apiVersion : ''}, expected: ${apiVersion}`,
    );
  }
  const metadata = applied.metadata;
  if (metadata !== undefined && !isJsonObject(metadata)) {
    throw new PatchError('InvalidApplyConfiguration', 400, 'metadata must be an object');
  }
  if (isJsonObject(metadata) && metadata.managedFields !== undefined && metadata.managedFields !== null) {
    throw new PatchError('InvalidApplyConfiguration', 400, 'metadata.managedFields must be nil');
  }
}

/** `object` with a copy of its metadata that leaves out managedFields (every other value shared). */
function withoutManagedFields(object: JsonObject): JsonObject {
  if (!isJsonObject(object.metadata) || !Object.hasOwn(object.metadata, 'managedFields')) return object;
  const metadata: JsonObject = {};
  for (const key of Object.keys(object.metadata))
    if (key !== 'managedFields') metadata[key] = object.metadata[key];
  const out: JsonObject = {};
  for (const key of Object.keys(object)) out[key] = key === 'metadata' ? metadata : object[key];
  return out;
}

/** The part of the configuration this apply may change. */
function configurationFor(
  applied: JsonObject,
  subresource: string | undefined,
  ignoreStatus: boolean,
): JsonObject {
  const config = cloneJson(applied);
  if (isJsonObject(config.metadata)) delete config.metadata.managedFields;
  if (subresource === 'status') {
    const out: JsonObject = { apiVersion: config.apiVersion, kind: config.kind };
    if (config.status !== undefined) out.status = config.status;
    return out;
  }
  if (ignoreStatus) delete config.status;
  return config;
}

/**
 * Removes the fields `previous` owned that nobody owns any more (`Updater.prune`): a path leaves the
 * object when it, or a list item on its way, is no longer held ({@link held}); list-map key fields of a
 * kept item stay.
 */
function prune(object: JsonObject, previous: FieldSet, owned: FieldSet, walker: TypedWalker): JsonObject {
  // in place: `object` is the merge's fresh result, no one else holds it
  const out = object;
  const removed: FieldPath[] = [];
  for (const path of previous.paths()) {
    if (held(path, owned)) continue;
    if (removed.some((gone) => gone.length <= path.length && gone.every((e, i) => path[i] === e))) continue;
    if (isKeyOfKeptItem(path)) continue;
    walker.remove(out, path);
    removed.push(path);
    // A map or list emptied by the removal goes too, unless someone owns it (structured-merge-diff's
    // RemoveItems drops empty containers).
    for (let depth = path.length - 1; depth > 0; depth--) {
      const parent = path.slice(0, depth);
      const value = walker.get(out, parent);
      const empty = Array.isArray(value)
        ? value.length === 0
        : isJsonObject(value) && Object.keys(value).length === 0;
      if (!empty || owned.has(parent)) break;
      walker.remove(out, parent);
    }
  }
  return out;
}

/**
 * Whether the applier's dropping of `path` leaves it in place: every node from the root down to it is
 * held. structured-merge-diff's prune (`RemoveItems`, then `addBackOwnedItems` with
 * `EnsureNamedFieldsAreMembers`) holds a field (`f:`) that someone owns or that has an owned field below
 * it, but a list item (`k:`, `v:`, `i:`) only when someone owns the item itself: an item the applier
 * stops applying goes whole, with the fields an updater set in it, unless another manager owns the item
 * (merge/multiple_appliers_test.go `remove_one_with_dangling_subitem_keep_one`).
 */
function held(path: FieldPath, owned: FieldSet): boolean {
  for (let depth = 1; depth <= path.length; depth++) {
    const node = depth === path.length ? path : path.slice(0, depth);
    if (owned.has(node)) continue;
    if (!node[depth - 1].startsWith('f:') || !owned.hasDescendant(node)) return false;
  }
  return true;
}

function isKeyOfKeptItem(path: FieldPath): boolean {
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  if (last === undefined || parent === undefined || !last.startsWith('f:') || !parent.startsWith('k:'))
    return false;
  const keys = JSON.parse(parent.slice(2)) as JsonObject;
  return Object.hasOwn(keys, last.slice(2));
}

function conflictError(conflicts: { m: Manager; set: FieldSet }[]): ApplyConflictError {
  const sorted = [...conflicts].sort((a, b) =>
    identity(a.m) < identity(b.m) ? -1 : identity(a.m) > identity(b.m) ? 1 : 0,
  );
  const list: ApplyConflict[] = [];
  const causes: string[] = [];
  const lines: string[] = [];
  for (const { m, set } of sorted) {
    const who = describeManager(m);
    lines.push(`conflicts with ${who}:`);
    for (const path of set.paths()) {
      const field = formatFieldPath(path);
      list.push({ manager: m.manager, field });
      causes.push(`conflict with ${who}`);
      lines.push(`- ${field}`);
    }
  }
  const message =
    list.length === 1
      ? `Apply failed with 1 conflict: ${causes[0]}: ${list[0].field}`
      : `Apply failed with ${list.length} conflicts: ${lines.join('\n')}`;
  return new ApplyConflictError(list, message, causes);
}

/** `TypedValue.Merge`: the configuration's values win; lists and maps merge by the schema. */
class ApplyMerger {
  constructor(private readonly walker: TypedWalker) {}

  /** Whether `value` at `sp` is a non-empty map, struct or granular list (merged item by item). */
  mergesItems(value: unknown, sp: SchemaPath): boolean {
    if (!hasItems(value)) return false;
    const shape = this.walker.shape(value, sp);
    return shape === 'map' || shape === 'listMap' || shape === 'listSet';
  }

  merge(lhs: unknown, rhs: unknown, sp: SchemaPath): unknown {
    if (rhs === undefined) return cloneJson(lhs);
    if (lhs === undefined || lhs === null) return cloneJson(rhs);
    const ls = this.walker.shape(lhs, sp);
    const rs = this.walker.shape(rhs, sp);
    if (ls !== rs || rs === 'scalar' || rs === 'atomic') return cloneJson(rhs);
    if (rs === 'map') {
      // lhs's fields in their order (each copied once, or merged with rhs's), then rhs's new ones;
      // a null in rhs removes the field
      // (keys by for...in, own only; a scalar from rhs is taken as it is, which is what merging it
      // gives, and a field only rhs has is copied, so a child schema path is built only where a
      // merge of two objects or lists needs it)
      const l = lhs as JsonObject;
      const r = rhs as JsonObject;
      const out: JsonObject = {};
      for (const key in l) {
        if (!Object.hasOwn(l, key)) continue;
        if (!Object.hasOwn(r, key)) out[key] = cloneJson(l[key]);
        else {
          const value = r[key];
          if (value === null) {
            // structured-merge-diff merges a null map, struct or granular list as one without
            // items: the live items stay (a later prune drops those only this manager owned);
            // a null scalar or atomic value removes the field
            if (l[key] === null) out[key] = null;
            else if (this.mergesItems(l[key], [...sp, key])) out[key] = cloneJson(l[key]);
            continue;
          }
          out[key] =
            typeof value === 'object' || value === undefined
              ? this.merge(l[key], value, [...sp, key])
              : value;
        }
      }
      for (const key in r) {
        if (!Object.hasOwn(r, key)) continue;
        const value = r[key];
        if (value !== null && !Object.hasOwn(l, key)) out[key] = cloneJson(value);
      }
      return out;
    }
    if (rs === 'listSet') {
      const element = (item: unknown): string => valueElement(item);
      return mergeOrdered(lhs as unknown[], rhs as unknown[], element, element, (l, r) => cloneJson(r ?? l));
    }
    const where = (): string => sp.join('.');
    const itemSp = [...sp, '[]'];
    const rhsElement = (item: unknown): string => this.walker.itemElement(item, sp, true, where)!;
    if (this.walker.indexItems(lhs as unknown[], sp, false, where) === undefined) return cloneJson(rhs);
    const lhsElement = (item: unknown): string => this.walker.itemElement(item, sp, false, where)!;
    return mergeOrdered(lhs as unknown[], rhs as unknown[], lhsElement, rhsElement, (l, r) =>
      this.merge(l, r, itemSp),
    );
  }
}

/**
 * Merges two lists of identified items in structured-merge-diff's order: live-only items keep their
 * place, shared and new items follow the configuration's order.
 */
function mergeOrdered(
  lhs: unknown[],
  rhs: unknown[],
  lhsElement: (item: unknown) => string,
  rhsElement: (item: unknown) => string,
  mergeItem: (l: unknown, r: unknown) => unknown,
): unknown[] {
  const lPEs = lhs.map(lhsElement);
  const rPEs = rhs.map(rhsElement);
  const lItems = new Map<string, unknown>();
  lPEs.forEach((pe, i) => {
    if (!lItems.has(pe)) lItems.set(pe, lhs[i]);
  });
  const rItems = new Map<string, unknown>();
  rPEs.forEach((pe, i) => rItems.set(pe, rhs[i]));
  const shared = rPEs.filter((pe) => lItems.has(pe));
  let nextShared = shared.shift();
  const mergedRhs = new Set<string>();
  const out: unknown[] = [];
  let l = 0;
  let r = 0;
  while (l < lPEs.length || r < rPEs.length) {
    if (l < lPEs.length && r < rPEs.length) {
      const pe = lPEs[l];
      if (pe === rPEs[r]) {
        mergedRhs.add(pe);
        out.push(mergeItem(lItems.get(pe), rItems.get(pe)));
        l++;
        r++;
        nextShared = shared.shift();
        continue;
      }
      if (rItems.has(pe) && nextShared !== undefined && nextShared !== pe) {
        l++;
        continue;
      }
    }
    if (l < lPEs.length) {
      const pe = lPEs[l];
      if (!rItems.has(pe)) {
        out.push(cloneJson(lhs[l]));
        l++;
        continue;
      } else if (mergedRhs.has(pe)) {
        l++;
      }
    }
    if (r < rPEs.length) {
      const pe = rPEs[r];
      mergedRhs.add(pe);
      out.push(mergeItem(lItems.get(pe), rItems.get(pe)));
      r++;
      if (nextShared === pe) nextShared = shared.shift();
    }
  }
  return out;
}

/** Whether a JSON value is a non-empty object or array. */
function hasItems(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value === null || typeof value !== 'object') return false;
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

/** Whether a JSON value is or holds a `null` at any depth. */
function containsNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(containsNull);
  const o = value as Record<string, unknown>;
  for (const key in o) if (Object.hasOwn(o, key) && containsNull(o[key])) return true;
  return false;
}
