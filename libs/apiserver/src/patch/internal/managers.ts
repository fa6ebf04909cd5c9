/**
 * Decoding, identifying and encoding `metadata.managedFields` entries, and stripping the fields
 * kube-apiserver never tracks (`k8s.io/apimachinery/pkg/util/managedfields/internal`).
 */
import type { JsonObject, ManagedFieldsEntry } from '../../types.js';
import { FieldSet } from '../field-set.js';
import { isJsonObject } from './json-value.js';
import type { RootView, TypedWalker } from './typed-walk.js';

/** A decoded managedFields entry. */
export interface Manager {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  subresource?: string;
  set: FieldSet;
  /**
   * The entry's stored `fieldsV1` and the set it decoded to: while `set` is still that set (every
   * change assigns a new one), encoding reuses `fieldsV1` instead of encoding the set again.
   */
  encoded?: { set: FieldSet; fieldsV1: JsonObject };
}

/**
 * The identity of an entry (`BuildManagerIdentifier`): manager, operation and subresource, plus the
 * apiVersion for Update entries (an applier keeps one entry whatever version it applies with).
 */
export function identity(m: Pick<Manager, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  // the JSON of {manager, operation[, apiVersion][, subresource]}, written without building the object
  let id = `{"manager":${JSON.stringify(m.manager)},"operation":${JSON.stringify(m.operation)}`;
  if (m.operation === 'Update') id += `,"apiVersion":${JSON.stringify(m.apiVersion)}`;
  if (m.subresource !== undefined && m.subresource !== '')
    id += `,"subresource":${JSON.stringify(m.subresource)}`;
  return `${id}}`;
}

/** How a conflict names a manager (`printManager`): `"kubectl"`, `"kubectl" using apps/v1`. */
export function describeManager(m: Manager): string {
  let out = JSON.stringify(m.manager);
  if (m.subresource !== undefined && m.subresource !== '')
    out += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') out += ` using ${m.apiVersion}`;
  return out;
}

function decodeEntry(raw: unknown, reuse: boolean): Manager | undefined {
  if (!isJsonObject(raw)) return undefined;
  const { manager, operation, apiVersion, time, subresource, fieldsType, fieldsV1 } = raw;
  if (operation !== 'Apply' && operation !== 'Update') return undefined;
  if (fieldsType !== undefined && fieldsType !== 'FieldsV1') return undefined;
  const decoded: Manager = {
    manager: typeof manager === 'string' ? manager : '',
    operation,
    apiVersion: typeof apiVersion === 'string' ? apiVersion : '',
    set: FieldSet.fromFieldsV1(fieldsV1 ?? {}),
  };
  if (typeof time === 'string') decoded.time = time;
  if (typeof subresource === 'string' && subresource !== '') decoded.subresource = subresource;
  if (reuse && isJsonObject(fieldsV1)) decoded.encoded = { set: decoded.set, fieldsV1 };
  return decoded;
}

/**
 * Decodes `metadata.managedFields` of `object`. As kube-apiserver does, entries that do not decode make
 * the whole list count as empty rather than failing the request; entries with the same identity merge.
 *
 * `reuseEncoding`: the entries were encoded by {@link encodeManagers} (a stored object) and `object` is
 * the caller's to give away, so an entry whose set stays unchanged is encoded by reusing its `fieldsV1`.
 */
export function decodeManagers(object: JsonObject | undefined, reuseEncoding = false): Manager[] {
  const raw = isJsonObject(object?.metadata) ? object.metadata.managedFields : undefined;
  if (!Array.isArray(raw)) return [];
  const out = new Map<string, Manager>();
  try {
    for (const entry of raw) {
      const decoded = decodeEntry(entry, reuseEncoding);
      if (decoded === undefined) return [];
      const id = identity(decoded);
      const previous = out.get(id);
      if (previous === undefined) out.set(id, decoded);
      else previous.set = previous.set.union(decoded.set);
    }
  } catch {
    return [];
  }
  return [...out.values()];
}

/** Whether `object` asks to reset managedFields (`managedFields: [{}]`). */
export function isResetRequest(object: JsonObject): boolean {
  const raw = isJsonObject(object.metadata) ? object.metadata.managedFields : undefined;
  return Array.isArray(raw) && raw.length === 1 && isJsonObject(raw[0]) && Object.keys(raw[0]).length === 0;
}

/** Recently parsed entry times: entries carry a few distinct stamps, each parsed again on every write. */
const parsedTimes = new Map<string, number>();

/** Whole seconds since the epoch of an RFC 3339 time; 0 when absent or not a time. */
function secondsOf(time: string | undefined): number {
  if (time === undefined) return 0;
  let seconds = parsedTimes.get(time);
  if (seconds === undefined) {
    const parsed = Date.parse(time);
    seconds = Number.isNaN(parsed) ? 0 : Math.floor(parsed / 1000);
    // bounded: a long-running server meets a new second every second
    if (parsedTimes.size >= 512) parsedTimes.clear();
    parsedTimes.set(time, seconds);
  }
  return seconds;
}

/** Encodes entries in kube-apiserver's order: Apply before Update, then by time, manager, apiVersion, subresource. */
export function encodeManagers(managers: readonly Manager[]): ManagedFieldsEntry[] {
  const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const nonEmpty = managers.filter((m) => !m.set.isEmpty());
  // each entry's time parsed once (and only when there is something to sort), not at every comparison
  const kept = nonEmpty.map((m) => ({ m, seconds: nonEmpty.length > 1 ? secondsOf(m.time) : 0 }));
  const order = (
    { m: p, seconds: ps }: { m: Manager; seconds: number },
    { m: q, seconds: qs }: { m: Manager; seconds: number },
  ): number =>
    compare(p.operation, q.operation) ||
    ps - qs ||
    compare(p.manager, q.manager) ||
    compare(p.apiVersion, q.apiVersion) ||
    compare(p.subresource ?? '', q.subresource ?? '');
  // a stable insertion sort in place: a few entries, and Array.prototype.sort with a comparator
  // allocated a work array on every write
  for (let i = 1; i < kept.length; i++) {
    const x = kept[i];
    let j = i;
    while (j > 0 && order(kept[j - 1], x) > 0) {
      kept[j] = kept[j - 1];
      j--;
    }
    kept[j] = x;
  }
  return kept.map(({ m }) => {
    const entry: ManagedFieldsEntry = {
      manager: m.manager,
      operation: m.operation,
      apiVersion: m.apiVersion,
      time: m.time ?? '',
      fieldsType: 'FieldsV1',
      fieldsV1: m.encoded !== undefined && m.encoded.set === m.set ? m.encoded.fieldsV1 : m.set.toFieldsV1(),
    };
    if (m.time === undefined) delete (entry as Partial<ManagedFieldsEntry>).time;
    if (m.subresource !== undefined) entry.subresource = m.subresource;
    return entry;
  });
}

/** Metadata fields the server owns; never part of a field set (`stripmeta.go`, plus deletion fields). */
const SERVER_METADATA = [
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'clusterName',
  'generation',
  'managedFields',
  'resourceVersion',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

const SERVER_METADATA_KEYS = new Set(SERVER_METADATA);
const TYPE_KEYS = new Set(['apiVersion', 'kind']);

/**
 * A shallow copy of `object`'s own enumerable keys except `skip`, in their order (built by adding keys
 * rather than deleting them from a spread copy, which would leave a slow dictionary-mode object).
 */
function copyWithout(object: JsonObject, skip: ReadonlySet<string>): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(object)) {
    if (skip.has(key)) continue;
    // an own `__proto__` key (JSON.parse makes one) stays a plain data property, as a spread keeps it
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: object[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = object[key];
  }
  return out;
}

/** A shallow copy of `object` without apiVersion, kind and server-owned metadata, for read-only field-set work. */
export function stripServerFields(object: JsonObject): JsonObject {
  // shallow: only the top level and metadata are copied (the result shares every other value with
  // `object`, which is all the read-only walks over it need, at a fraction of a deep copy's cost)
  const out = copyWithout(object, TYPE_KEYS);
  if (isJsonObject(out.metadata)) out.metadata = copyWithout(out.metadata, SERVER_METADATA_KEYS);
  return out;
}

/** The `.metadata` node itself is never owned (only fields below it). */
export const METADATA_NODE = FieldSet.of(['f:metadata']);

/** The path of the `.metadata` node ({@link METADATA_NODE}'s one path). */
export const METADATA_PATH: readonly string[] = ['f:metadata'];

/** The root as {@link stripServerFields} shows it, without copying the root. */
const STRIPPED_ROOT: RootView = {
  skip: TYPE_KEYS,
  view: (key, value) =>
    key === 'metadata' && isJsonObject(value) ? copyWithout(value, SERVER_METADATA_KEYS) : value,
};

/**
 * `walker.compare` of `lhs` and `rhs` as {@link stripServerFields} shows them, less the `.metadata` node
 * itself ({@link METADATA_NODE}): the same sets as comparing stripped copies and taking that node out.
 */
export function compareStripped(
  walker: TypedWalker,
  lhs: JsonObject,
  rhs: JsonObject,
): { added: FieldSet; removed: FieldSet; modified: FieldSet } {
  const result = walker.compare(lhs, rhs, STRIPPED_ROOT);
  result.added.remove(METADATA_PATH);
  result.removed.remove(METADATA_PATH);
  result.modified.remove(METADATA_PATH);
  return result;
}
