/**
 * Decoding, identifying and encoding `metadata.managedFields` entries, and stripping the fields
 * kube-apiserver never tracks (`k8s.io/apimachinery/pkg/util/managedfields/internal`).
 */
import type { JsonObject, ManagedFieldsEntry } from '../../types.js';
import { FieldSet } from '../field-set.js';
import { isJsonObject } from './json-value.js';

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
  const id: JsonObject = { manager: m.manager, operation: m.operation };
  if (m.operation === 'Update') id.apiVersion = m.apiVersion;
  if (m.subresource !== undefined && m.subresource !== '') id.subresource = m.subresource;
  return JSON.stringify(id);
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

/** Encodes entries in kube-apiserver's order: Apply before Update, then by time, manager, apiVersion, subresource. */
export function encodeManagers(managers: readonly Manager[]): ManagedFieldsEntry[] {
  const seconds = (time: string | undefined): number => {
    const parsed = time === undefined ? NaN : Date.parse(time);
    return Number.isNaN(parsed) ? 0 : Math.floor(parsed / 1000);
  };
  const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return managers
    .filter((m) => !m.set.isEmpty())
    .sort(
      (p, q) =>
        compare(p.operation, q.operation) ||
        seconds(p.time) - seconds(q.time) ||
        compare(p.manager, q.manager) ||
        compare(p.apiVersion, q.apiVersion) ||
        compare(p.subresource ?? '', q.subresource ?? ''),
    )
    .map((m) => {
      const entry: ManagedFieldsEntry = {
        manager: m.manager,
        operation: m.operation,
        apiVersion: m.apiVersion,
        time: m.time ?? '',
        fieldsType: 'FieldsV1',
        fieldsV1:
          m.encoded !== undefined && m.encoded.set === m.set ? m.encoded.fieldsV1 : m.set.toFieldsV1(),
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
