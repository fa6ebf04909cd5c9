/**
 * Field ownership for non-apply writes (create, update, every patch type): kube-apiserver's
 * `FieldManager.Update` with structured-merge-diff's `Updater.Update` and `managedFieldsUpdater`.
 */
import type { JsonObject, ManagedFieldsEntry, PatchSchema } from '../types.js';
import type { FieldSet } from './field-set.js';
import {
  compareStripped,
  decodeManagers,
  encodeManagers,
  identity,
  isResetRequest,
  METADATA_NODE,
  stripServerFields,
} from './internal/managers.js';
import type { Manager } from './internal/managers.js';
import { isJsonObject } from './internal/json-value.js';
import { TypedWalker } from './internal/typed-walk.js';

/** Arguments of {@link trackUpdate}. */
export interface TrackUpdateArgs {
  /** The stored object before the write; undefined for a create. Its managedFields are the starting point. */
  before: JsonObject | undefined;
  /** The object about to be stored. */
  after: JsonObject;
  /** The field manager (`?fieldManager=`, else derived from the user agent by the caller). */
  manager: string;
  /** The apiVersion the request used (`apps/v1`). */
  apiVersion: string;
  /** `status` for a write to the status subresource; absent (default) for the main resource. */
  subresource?: string;
  /** RFC 3339 time to record for the writing manager. */
  now: string;
  /** List and map semantics of the kind. */
  schema: PatchSchema;
  /**
   * `before` is the caller's to give away (a fresh parse of a stored object, whose managedFields this
   * module encoded): the `fieldsV1` of entries the write leaves unchanged are reused in the result
   * instead of encoded again, so the result shares them with `before`. Default false.
   */
  reuseEncoding?: boolean;
}

/**
 * The managedFields to store on `after` for a non-apply write by `manager` (operation `Update`).
 *
 * Fields the write adds or changes become owned by the manager's Update entry (one entry per manager,
 * apiVersion and subresource) and are taken from every other entry, Apply entries included; fields the
 * write removes leave every entry; entries left empty are dropped; the writer's `time` becomes `now`.
 * A write that changes nothing leaves managedFields as they were. Server-owned metadata (name,
 * namespace, uid, resourceVersion, generation, creationTimestamp, deletion fields, managedFields) and
 * apiVersion/kind are never tracked.
 *
 * As kube-apiserver does, a non-empty `after.metadata.managedFields` on the main resource replaces the
 * stored ones (so a client can edit them), `[{}]` resets them, and entries that do not decode are ignored.
 *
 * @returns the entries in kube-apiserver's order (Apply first, then by time, manager, apiVersion).
 */
export function trackUpdate(args: TrackUpdateArgs): ManagedFieldsEntry[] {
  const { before, after, manager, apiVersion, subresource, now, schema } = args;
  const managers = startingManagers(before, after, subresource, args.reuseEncoding === true);
  const walker = new TypedWalker(schema);
  // compared as stripped of server fields, less the .metadata node, without copying either object
  const { added, removed: gone, modified } = compareStripped(walker, before ?? {}, after);
  const changed = modified.isEmpty() ? added : added.union(modified);
  const nothingGone = gone.isEmpty();
  if (changed.isEmpty() && nothingGone) return encodeManagers(managers);

  const self: Manager = { manager, operation: 'Update', apiVersion, time: now, set: changed };
  if (subresource !== undefined && subresource !== '') self.subresource = subresource;
  const selfId = identity(self);
  const existing = managers.find((m) => identity(m) === selfId);
  // the writer changing only fields it already owns (a controller writing the same fields again, the
  // common case) ends with the set it had: (set - changed) + changed; so that set, and the encoding
  // stored with it, are kept instead of taking the paths out and putting them back
  const ownsAll = existing !== undefined && nothingGone && changed.isSubsetOf(existing.set);
  for (const m of managers)
    // a set holding none of the paths keeps its encoding (difference would give the same paths)
    if (
      !(ownsAll && m === existing) &&
      (m.set.intersects(changed) || (!nothingGone && m.set.intersects(gone)))
    )
      m.set = nothingGone ? m.set.difference(changed) : m.set.difference(changed).difference(gone);
  const owned = nothingGone ? changed : changed.difference(gone);
  if (!owned.isEmpty()) {
    if (existing === undefined) managers.push({ ...self, set: owned });
    else {
      if (!ownsAll) existing.set = existing.set.union(owned);
      existing.time = now;
    }
  }
  return encodeManagers(capUpdateManagers(managers));
}

/** kube-apiserver keeps at most this many Update entries (`DefaultMaxUpdateManagers`). */
const MAX_UPDATE_MANAGERS = 10;
/** The manager name of the entries the oldest Update entries are merged into. */
const ANCIENT_CHANGES = 'ancient-changes';

/**
 * `capManagersManager`: merges the oldest Update entries, per apiVersion, into an `ancient-changes`
 * entry until at most {@link MAX_UPDATE_MANAGERS} Update entries remain.
 */
function capUpdateManagers(managers: Manager[]): Manager[] {
  const updaters = managers.filter((m) => m.operation === 'Update');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return managers;
  const seconds = (m: Manager): number => Math.floor((Date.parse(m.time ?? '') || 0) / 1000);
  updaters.sort(
    (a, b) => seconds(a) - seconds(b) || (identity(a) < identity(b) ? -1 : identity(a) > identity(b) ? 1 : 0),
  );
  let list = [...managers];
  let length = updaters.length;
  const firstOfVersion = new Map<string, Manager>();
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const m = updaters[i];
    const first = firstOfVersion.get(m.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(m.apiVersion, m);
      continue;
    }
    const bucketId = identity({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: m.apiVersion });
    let bucket = list.find((x) => identity(x) === bucketId);
    if (bucket === undefined) {
      list = list.filter((x) => x !== first);
      bucket = { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: m.apiVersion, set: first.set };
      if (first.time !== undefined) bucket.time = first.time;
      list.push(bucket);
    }
    if (bucket !== m) {
      bucket.set = m.set.union(bucket.set);
      list = list.filter((x) => x !== m);
      length--;
      if (m.time !== undefined) bucket.time = m.time;
    }
  }
  return list;
}

function startingManagers(
  before: JsonObject | undefined,
  after: JsonObject,
  subresource: string | undefined,
  reuseEncoding: boolean,
): Manager[] {
  if (subresource === undefined || subresource === '') {
    if (isResetRequest(after)) return [];
    const afterEntries = isJsonObject(after.metadata) ? after.metadata.managedFields : undefined;
    const beforeEntries = isJsonObject(before?.metadata) ? before.metadata.managedFields : undefined;
    // the stored entries carried over as they are (the same array) are as reusable as before's
    const requested = decodeManagers(after, reuseEncoding && afterEntries === beforeEntries);
    const afterMeta = isJsonObject(after.metadata) ? after.metadata : undefined;
    if (requested.length > 0 && afterMeta !== undefined) return requested;
  }
  return decodeManagers(before, reuseEncoding);
}

/** The set of fields `object` sets, as server-side apply would own them (for tests and matchers). */
export function fieldSetOf(object: JsonObject, schema: PatchSchema): FieldSet {
  return new TypedWalker(schema).fieldSet(stripServerFields(object), false).difference(METADATA_NODE);
}
