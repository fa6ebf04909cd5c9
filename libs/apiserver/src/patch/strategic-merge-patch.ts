/**
 * Kubernetes strategic merge patch (`application/strategic-merge-patch+json`), following
 * `k8s.io/apimachinery/pkg/util/strategicpatch` (`StrategicMergeMapPatch`: parallel deletion lists are
 * applied, nulls that match nothing are ignored).
 */
import type { JsonObject, ListInfo, PatchSchema } from '../types.js';
import { PatchError } from './patch-error.js';
import { cloneJson, isJsonObject, jsonEqual, jsonTypeName } from './internal/json-value.js';
import { identity, normalizeOrder, partition } from './internal/list-order.js';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';

/**
 * Applies a strategic merge patch to `target` and returns the patched copy; `target` is not changed.
 *
 * Lists are merged as `schema` says (`strategicListInfo` when present, else `listInfo`): a `map` list
 * merges items by its first key (the `patchMergeKey`), a `set` list of scalars is a union, anything else is
 * replaced whole. Supported directives: `$patch: replace | delete | merge` in maps and list items,
 * `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`, `$retainKeys`; `null` deletes a field.
 * Item order follows kube-apiserver: `$setElementOrder` first, then the order of the patch list, then the
 * order of the live list (so an item added by a patch without `$setElementOrder` comes first).
 *
 * Deviation: `$patch: merge` in a map is accepted as a no-op (kube-apiserver rejects it); a new subtree
 * taken from the patch is cleaned of every directive and null, not only of `$patch`.
 *
 * @param target - the object to patch.
 * @param patch - the parsed request body; must be a JSON object.
 * @param schema - the kind's list semantics, e.g. from `builtinPatchSchema`.
 * @returns the patched object (a deep copy).
 * @throws {@link PatchError} `NotAnObject` (400) when `patch` is not an object; `InvalidPatch` (400) for a
 *   malformed directive; `RetainKeysMismatch` (400) when the patch sets fields `$retainKeys` does not list;
 *   `MissingMergeKey` (422) for a list item without its merge key; `TypeMismatch` (422) for a list of lists.
 */
export function applyStrategicMergePatch(
  target: JsonObject,
  patch: unknown,
  schema: PatchSchema,
): JsonObject {
  if (!isJsonObject(patch)) {
    throw new PatchError(
      'NotAnObject',
      400,
      `a strategic merge patch must be a JSON object, not ${jsonTypeName(patch)}`,
    );
  }
  const engine = new StrategicMerger(schema);
  return engine.mergeMap(cloneJson(target), cloneJson(patch), []);
}

class StrategicMerger {
  constructor(private readonly schema: PatchSchema) {}

  private listInfo(path: readonly string[]): ListInfo | undefined {
    return this.schema.strategicListInfo?.(path) ?? this.schema.listInfo(path);
  }

  /** Merges `patch` into `original` (both owned by the caller; both may be changed). */
  mergeMap(original: JsonObject, patch: JsonObject, path: readonly string[]): JsonObject {
    if (Object.hasOwn(patch, DIRECTIVE)) {
      const directive = patch[DIRECTIVE];
      delete patch[DIRECTIVE];
      if (directive === 'replace') return this.fresh(patch, path) as JsonObject;
      if (directive === 'delete') return {};
      if (directive !== 'merge') throw badDirective(directive, path);
    }
    this.applyRetainKeys(original, patch, path);
    this.applySetElementOrder(original, patch, path);

    for (const [rawKey, patchValue] of Object.entries(patch)) {
      if (rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        const key = rawKey.slice(DELETE_FROM_PRIMITIVE_LIST.length);
        if (!Array.isArray(patchValue)) {
          throw new PatchError(
            'InvalidPatch',
            400,
            `invalid patch: ${rawKey} at ${show(path)} must be a list`,
          );
        }
        const current = original[key];
        if (Array.isArray(current)) {
          original[key] = current.filter((item) => !patchValue.some((gone) => jsonEqual(gone, item)));
        }
        continue;
      }
      if (patchValue === null) {
        delete original[rawKey];
        continue;
      }
      const childPath = [...path, rawKey];
      const current = original[rawKey];
      if (!Object.hasOwn(original, rawKey) || kindOf(current) !== kindOf(patchValue)) {
        const value = this.fresh(patchValue, childPath);
        if (value === undefined) delete original[rawKey];
        else original[rawKey] = value;
      } else if (isJsonObject(current) && isJsonObject(patchValue)) {
        original[rawKey] = this.mergeMap(current, patchValue, childPath);
      } else if (Array.isArray(current) && Array.isArray(patchValue)) {
        original[rawKey] = this.mergeListField(current, patchValue, childPath);
      } else {
        original[rawKey] = patchValue;
      }
    }
    return original;
  }

  /** Merges a list field by its strategy (merge by key, union of scalars, or replace). */
  private mergeListField(original: unknown[], patch: unknown[], path: readonly string[]): unknown[] {
    const info = this.listInfo(path);
    if (info?.type === 'map' || info?.type === 'set') {
      return this.mergeList(original, patch, path, info.type === 'map' ? info.keys?.[0] : undefined);
    }
    return this.fresh(patch, path) as unknown[];
  }

  /** `mergeSlice`: merge items, then enforce the order (patch order, then live order). */
  private mergeList(
    original: unknown[],
    patch: unknown[],
    path: readonly string[],
    mergeKey: string | undefined,
  ): unknown[] {
    if (original.length === 0 && patch.length === 0) return original;
    const kind = elementKind([original, patch], path);
    if (kind !== 'object') {
      const merged = [...original];
      for (const item of patch) if (!merged.some((have) => jsonEqual(have, item))) merged.push(item);
      const [inPatch, serverOnly] = partition(merged, patch, undefined);
      return normalizeOrder(inPatch, serverOnly, patch, original, undefined);
    }
    if (mergeKey === undefined) {
      throw new PatchError('InvalidPatch', 400, `cannot merge lists without merge key for ${show(path)}`);
    }
    const [base, items] = this.specialElements(
      original as JsonObject[],
      patch as JsonObject[],
      mergeKey,
      path,
    );
    const merged = [...base];
    for (const item of items) {
      if (!Object.hasOwn(item, mergeKey)) throw missingMergeKey(item, mergeKey, path);
      const at = merged.findIndex((have) => jsonEqual(have[mergeKey], item[mergeKey]));
      const itemPath = [...path, '[]'];
      if (at >= 0) merged[at] = this.mergeMap(merged[at], item, itemPath);
      else merged.push(this.fresh(item, itemPath) as JsonObject);
    }
    const [inPatch, serverOnly] = partition(merged, items, mergeKey);
    return normalizeOrder(inPatch, serverOnly, items, base, mergeKey);
  }

  /** `mergeSliceWithSpecialElements`: `$patch: delete` items delete by key, `$patch: replace` replaces. */
  private specialElements(
    original: JsonObject[],
    patch: JsonObject[],
    mergeKey: string,
    path: readonly string[],
  ): [JsonObject[], JsonObject[]] {
    let base = original;
    const plain: JsonObject[] = [];
    let replace = false;
    for (const item of patch) {
      if (!Object.hasOwn(item, DIRECTIVE)) {
        plain.push(item);
        continue;
      }
      const directive = item[DIRECTIVE];
      if (directive === 'delete') {
        if (!Object.hasOwn(item, mergeKey)) throw missingMergeKey(item, mergeKey, path);
        base = base.filter((have) => !jsonEqual(have[mergeKey], item[mergeKey]));
      } else if (directive === 'replace') {
        replace = true;
      } else if (directive === 'merge') {
        throw new PatchError(
          'InvalidPatch',
          400,
          `merging lists cannot yet be specified in the patch (${show(path)})`,
        );
      } else {
        throw badDirective(directive, path);
      }
    }
    if (replace) return [plain.map((item) => this.fresh(item, [...path, '[]']) as JsonObject), []];
    return [base, plain];
  }

  /** `$retainKeys`: drop live fields it does not list; the patch may only set listed fields. */
  private applyRetainKeys(original: JsonObject, patch: JsonObject, path: readonly string[]): void {
    if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
    const retain = patch[RETAIN_KEYS];
    delete patch[RETAIN_KEYS];
    if (!Array.isArray(retain) || !retain.every((key) => typeof key === 'string')) {
      throw new PatchError(
        'InvalidPatch',
        400,
        `invalid patch: $retainKeys at ${show(path)} must be a list of strings`,
      );
    }
    const keep = new Set(retain);
    for (const [key, value] of Object.entries(patch)) {
      if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER))
        continue;
      if (key === DIRECTIVE) continue;
      if (!keep.has(key)) {
        throw new PatchError(
          'RetainKeysMismatch',
          400,
          `invalid patch: field ${JSON.stringify(key)} at ${show(path)} is not listed in $retainKeys`,
        );
      }
    }
    for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
  }

  /** `mergePatchIntoOriginal`: merge each list named by `$setElementOrder/<field>` and order it. */
  private applySetElementOrder(original: JsonObject, patch: JsonObject, path: readonly string[]): void {
    for (const [rawKey, order] of Object.entries(patch)) {
      if (!rawKey.startsWith(SET_ELEMENT_ORDER)) continue;
      delete patch[rawKey];
      const key = rawKey.slice(SET_ELEMENT_ORDER.length);
      const listPath = [...path, key];
      if (!Array.isArray(order) || key === '') {
        throw new PatchError('InvalidPatch', 400, `invalid patch: ${rawKey} at ${show(path)} must be a list`);
      }
      const hasOriginal = Object.hasOwn(original, key) && original[key] !== null;
      const hasPatch = Object.hasOwn(patch, key) && patch[key] !== null;
      const originalList = original[key];
      const patchList = patch[key];
      if ((hasOriginal && !Array.isArray(originalList)) || (hasPatch && !Array.isArray(patchList))) {
        throw new PatchError(
          'InvalidPatch',
          400,
          `invalid patch: ${show(listPath)} must be a list to use ${rawKey}`,
        );
      }
      const info = this.listInfo(listPath);
      const mergeKey = info?.type === 'map' ? info.keys?.[0] : undefined;
      if (hasPatch) checkOrderMatchesPatch(patchList as unknown[], order, mergeKey, listPath);
      let merged: unknown[];
      if (hasOriginal && hasPatch) {
        merged = this.mergeListField(originalList as unknown[], patchList as unknown[], listPath);
      } else if (hasPatch) {
        merged = this.fresh(patchList, listPath) as unknown[];
      } else if (hasOriginal) {
        merged = originalList as unknown[];
      } else {
        continue;
      }
      if (merged.length > 0 && merged.every(isJsonObject) && mergeKey === undefined) {
        // A replaced list of objects has no key to order by; the patch order stands.
        original[key] = merged;
      } else {
        const [inOrder, serverOnly] = partition(merged, order, mergeKey);
        original[key] = normalizeOrder(
          inOrder,
          serverOnly,
          order,
          hasOriginal ? (originalList as unknown[]) : [],
          mergeKey,
        );
      }
      delete patch[key];
    }
  }

  /**
   * A value taken from the patch where the live object has nothing to merge with: directives are
   * processed against an empty value and nulls dropped. Returns undefined when the value is dropped.
   */
  private fresh(value: unknown, path: readonly string[]): unknown {
    if (isJsonObject(value)) {
      const directive = value[DIRECTIVE];
      if (directive === 'delete') return undefined;
      const copy = { ...value };
      if (directive !== undefined) {
        if (directive !== 'replace' && directive !== 'merge') throw badDirective(directive, path);
        delete copy[DIRECTIVE];
      }
      for (const key of Object.keys(copy)) {
        if (
          key.startsWith(SET_ELEMENT_ORDER) ||
          key.startsWith(DELETE_FROM_PRIMITIVE_LIST) ||
          key === RETAIN_KEYS
        ) {
          delete copy[key];
        }
      }
      const out: JsonObject = {};
      for (const [key, item] of Object.entries(copy)) {
        if (item === null) continue;
        const cleaned = this.fresh(item, [...path, key]);
        if (cleaned !== undefined) out[key] = cleaned;
      }
      return out;
    }
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const item of value) {
        if (isJsonObject(item) && item[DIRECTIVE] === 'replace' && Object.keys(item).length === 1) continue;
        const cleaned = this.fresh(item, [...path, '[]']);
        if (cleaned !== undefined) out.push(cleaned);
      }
      return out;
    }
    return value;
  }
}

type ValueKind = 'object' | 'array' | 'scalar' | 'null';

function kindOf(value: unknown): ValueKind {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (isJsonObject(value)) return 'object';
  return 'scalar';
}

/** `sliceElementType`: every item of both lists must be of one kind, and not a list. */
function elementKind(lists: unknown[][], path: readonly string[]): ValueKind {
  let kind: ValueKind | undefined;
  for (const list of lists) {
    for (const item of list) {
      const here = kindOf(item);
      if (here === 'array') {
        throw new PatchError('TypeMismatch', 422, `lists of lists are not supported (${show(path)})`);
      }
      if (kind === undefined) kind = here;
      else if (kind !== here) {
        throw new PatchError('InvalidPatch', 400, `list element types are not identical in ${show(path)}`);
      }
    }
  }
  return kind ?? 'scalar';
}

/** `validatePatchWithSetOrderList`: the patch list must follow the order `$setElementOrder` gives. */
function checkOrderMatchesPatch(
  patchList: unknown[],
  order: unknown[],
  mergeKey: string | undefined,
  path: readonly string[],
): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = patchList.filter((item) => !(isJsonObject(item) && Object.hasOwn(item, DIRECTIVE)));
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    const expected = order[o];
    if (mergeKey !== undefined) {
      if (!isJsonObject(item) || !Object.hasOwn(item, mergeKey)) throw missingMergeKey(item, mergeKey, path);
      if (!isJsonObject(expected) || !Object.hasOwn(expected, mergeKey))
        throw missingMergeKey(expected, mergeKey, path);
    }
    if (jsonEqual(identity(item, mergeKey), identity(expected, mergeKey))) p++;
    o++;
  }
  if (p < items.length) {
    throw new PatchError(
      'InvalidPatch',
      400,
      `invalid patch: the order in the patch list ${show(path)} does not match its $setElementOrder list`,
    );
  }
}

function show(path: readonly string[]): string {
  return path.length === 0 ? '<root>' : path.join('.').replace(/\.\[\]/g, '[]');
}

function badDirective(directive: unknown, path: readonly string[]): PatchError {
  return new PatchError(
    'InvalidPatch',
    400,
    `unknown patch type: ${JSON.stringify(directive)} at ${show(path)}`,
  );
}

function missingMergeKey(item: unknown, mergeKey: string, path: readonly string[]): PatchError {
  return new PatchError(
    'MissingMergeKey',
    422,
    `map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey} (${show(path)})`,
  );
}
