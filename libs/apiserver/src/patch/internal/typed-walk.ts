/**
 * Walks JSON values with a {@link PatchSchema} the way structured-merge-diff walks typed values:
 * field sets of a value (`ToFieldSet`), comparison of two values (`Compare`) and removal of paths.
 *
 * Deviation: without a struct schema every object is treated as a struct, so a map entry is a member of
 * the field set only when it is a leaf (kube also marks entries of `additionalProperties` maps that hold
 * objects).
 */
import type { JsonObject, ListInfo, PatchSchema } from '../../types.js';
import { FieldSet, keyElement, valueElement } from '../field-set.js';
import type { FieldPath } from '../field-set.js';
import { PatchError } from '../patch-error.js';
import { isJsonObject, jsonEqual } from './json-value.js';

/** Schema path: field names, `[]` for list items. */
export type SchemaPath = readonly string[];

/** How a node is merged and owned. */
export type NodeShape = 'scalar' | 'atomic' | 'map' | 'listMap' | 'listSet';

/** A JSON scalar: a string, number, boolean or null (never walked by the schema). */
function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

function isEmptyObject(value: JsonObject): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/** How {@link TypedWalker.compare} sees the root: fields left out, and each other field's value. */
export interface RootView {
  /** Root fields not compared. */
  skip: ReadonlySet<string>;
  /** The value compared for root field `key` (read only; `value` itself, or a view of it). */
  view(key: string, value: unknown): unknown;
}

/** Walks JSON values by a kind's {@link PatchSchema} (shapes, field sets, comparison, removal). */
export class TypedWalker {
  constructor(private readonly schema: PatchSchema) {}

  /** The list semantics at schema path `sp`. */
  listInfo(sp: SchemaPath): ListInfo | undefined {
    return this.schema.listInfo(sp);
  }

  /** The shape of `value` at `sp`. */
  shape(value: unknown, sp: SchemaPath): NodeShape {
    if (Array.isArray(value)) {
      const info = this.listInfo(sp);
      if (info?.type === 'map' && (info.keys?.length ?? 0) > 0) return 'listMap';
      if (info?.type === 'set') return 'listSet';
      return 'atomic';
    }
    if (isJsonObject(value)) return this.schema.isAtomicMap?.(sp) === true ? 'atomic' : 'map';
    return 'scalar';
  }

  /**
   * The path element of list-map item `item`, or undefined when a key is missing.
   *
   * @throws {@link PatchError} `InvalidApplyConfiguration` (400) when `strict` and a key is missing.
   */
  itemElement(item: unknown, sp: SchemaPath, strict: boolean, where: () => string): string | undefined {
    const info = this.listInfo(sp);
    const keys = info?.keys ?? [];
    const values: Record<string, unknown> = {};
    for (const key of keys) {
      const value = isJsonObject(item) ? item[key] : undefined;
      const fallback = info?.keyDefaults?.[key];
      if (value !== undefined && value !== null) values[key] = value;
      else if (fallback !== undefined) values[key] = fallback;
      else {
        if (strict) {
          throw new PatchError(
            'InvalidApplyConfiguration',
            400,
            `failed to create typed patch object: ${where()}: associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`,
          );
        }
        return undefined;
      }
    }
    return keyElement(values);
  }

  /**
   * Indexes the items of a list-map by path element. Returns undefined when an item has no key (the
   * list is then handled as atomic). Duplicates are reported in `duplicates`.
   */
  indexItems(
    list: unknown[],
    sp: SchemaPath,
    strict: boolean,
    where: () => string,
  ): { order: string[]; items: Map<string, unknown>; duplicates: Set<string> } | undefined {
    const order: string[] = [];
    const items = new Map<string, unknown>();
    const duplicates = new Set<string>();
    for (const item of list) {
      const element = this.itemElement(item, sp, strict, where);
      if (element === undefined) return undefined;
      if (items.has(element)) {
        if (strict) {
          throw new PatchError(
            'InvalidApplyConfiguration',
            400,
            `failed to create typed patch object: ${where()}: duplicate entries for key ${element.slice(2)}`,
          );
        }
        duplicates.add(element);
        continue;
      }
      order.push(element);
      items.set(element, item);
    }
    return { order, items, duplicates };
  }

  /** `ToFieldSet`: the paths `value` sets (leaves, list items, empty maps). */
  fieldSet(value: JsonObject, strict: boolean): FieldSet {
    const set = new FieldSet();
    this.collectMap(value, [], [], set, strict);
    return set;
  }

  // The walks below keep the field path in one array they push to and pop from (`fp`; inserting a
  // path into a FieldSet copies nothing), and build schema paths only for objects and arrays, the
  // nodes whose shape the schema decides: a scalar leaf costs no array.

  private collectMap(value: JsonObject, fp: string[], sp: SchemaPath, set: FieldSet, strict: boolean): void {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const child = value[key];
      fp.push(`f:${key}`);
      if (isScalar(child)) set.insert(fp);
      else {
        this.collect(child, fp, [...sp, key], set, strict);
        if (isJsonObject(child) && isEmptyObject(child)) set.insert(fp);
      }
      fp.pop();
    }
  }

  private collect(value: unknown, fp: string[], sp: SchemaPath, set: FieldSet, strict: boolean): void {
    const shape = this.shape(value, sp);
    switch (shape) {
      case 'scalar':
      case 'atomic':
        set.insert(fp);
        return;
      case 'map':
        this.collectMap(value as JsonObject, fp, sp, set, strict);
        return;
      case 'listSet':
        for (const item of value as unknown[]) {
          fp.push(valueElement(item));
          set.insert(fp);
          fp.pop();
        }
        return;
      case 'listMap': {
        const where = (): string =>
          fp.map((e) => (e.startsWith('f:') ? `.${e.slice(2)}` : `[${e.slice(2)}]`)).join('');
        const index = this.indexItems(value as unknown[], sp, strict, where);
        if (index === undefined) {
          set.insert(fp);
          return;
        }
        const itemSp = [...sp, '[]'];
        for (const element of index.order) {
          fp.push(element);
          if (!index.duplicates.has(element)) this.collect(index.items.get(element), fp, itemSp, set, strict);
          set.insert(fp);
          fp.pop();
        }
      }
    }
  }

  /**
   * `Compare`: paths added, removed and modified from `lhs` to `rhs` (undefined = absent). Intermediate
   * nodes that appear or disappear are added or removed too.
   */
  compare(
    lhs: JsonObject,
    rhs: JsonObject,
    root?: RootView,
  ): { added: FieldSet; removed: FieldSet; modified: FieldSet } {
    const result = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
    if (root === undefined) {
      this.compareMap(lhs, rhs, [], [], result);
      return result;
    }
    // the root's fields as `root` shows them (instead of comparing copies the caller made)
    const fp: string[] = [];
    for (const key in lhs) {
      if (!Object.hasOwn(lhs, key) || root.skip.has(key)) continue;
      const r = Object.hasOwn(rhs, key) ? root.view(key, rhs[key]) : undefined;
      this.compareChild(root.view(key, lhs[key]), r, key, fp, [], result);
    }
    for (const key in rhs) {
      if (!Object.hasOwn(rhs, key) || Object.hasOwn(lhs, key) || root.skip.has(key)) continue;
      this.compareChild(undefined, root.view(key, rhs[key]), key, fp, [], result);
    }
    return result;
  }

  private compareMap(
    lhs: JsonObject | undefined,
    rhs: JsonObject | undefined,
    fp: string[],
    sp: SchemaPath,
    result: { added: FieldSet; removed: FieldSet; modified: FieldSet },
  ): void {
    // the keys of lhs, then those only rhs has (each once)
    if (lhs !== undefined)
      for (const key in lhs) {
        if (!Object.hasOwn(lhs, key)) continue;
        const r = rhs !== undefined && Object.hasOwn(rhs, key) ? rhs[key] : undefined;
        this.compareChild(lhs[key], r, key, fp, sp, result);
      }
    if (rhs !== undefined)
      for (const key in rhs) {
        if (!Object.hasOwn(rhs, key) || (lhs !== undefined && Object.hasOwn(lhs, key))) continue;
        this.compareChild(undefined, rhs[key], key, fp, sp, result);
      }
  }

  /** {@link compareNode} of the map field `key`, with scalar leaves settled here (no schema path). */
  private compareChild(
    lhs: unknown,
    rhs: unknown,
    key: string,
    fp: string[],
    sp: SchemaPath,
    result: { added: FieldSet; removed: FieldSet; modified: FieldSet },
  ): void {
    fp.push(`f:${key}`);
    if ((lhs === undefined || isScalar(lhs)) && (rhs === undefined || isScalar(rhs))) {
      if (lhs === undefined) {
        if (rhs !== undefined) result.added.insert(fp);
      } else if (rhs === undefined) result.removed.insert(fp);
      else if (lhs !== rhs) result.modified.insert(fp);
    } else this.compareNode(lhs, rhs, fp, [...sp, key], result);
    fp.pop();
  }

  private compareNode(
    lhs: unknown,
    rhs: unknown,
    fp: string[],
    sp: SchemaPath,
    result: { added: FieldSet; removed: FieldSet; modified: FieldSet },
  ): void {
    if (lhs === undefined && rhs === undefined) return;
    if (lhs === undefined) result.added.insert(fp);
    else if (rhs === undefined) result.removed.insert(fp);
    const ls = lhs === undefined ? undefined : this.shape(lhs, sp);
    const rs = rhs === undefined ? undefined : this.shape(rhs, sp);
    if (ls !== undefined && rs !== undefined && ls !== rs) {
      // A value that changed its shape: the old subtree is removed, the new one added.
      result.modified.insert(fp);
      this.compareNode(lhs, undefined, fp, sp, result);
      this.compareNode(undefined, rhs, fp, sp, result);
      return;
    }
    const shape = ls ?? rs;
    switch (shape) {
      case 'scalar':
      case 'atomic':
        if (lhs !== undefined && rhs !== undefined && !jsonEqual(lhs, rhs)) result.modified.insert(fp);
        return;
      case 'map':
        this.compareMap(lhs as JsonObject | undefined, rhs as JsonObject | undefined, fp, sp, result);
        return;
      case 'listSet': {
        const l = (lhs as unknown[] | undefined) ?? [];
        const r = (rhs as unknown[] | undefined) ?? [];
        for (const item of r)
          if (!l.some((x) => jsonEqual(x, item))) {
            fp.push(valueElement(item));
            result.added.insert(fp);
            fp.pop();
          }
        for (const item of l)
          if (!r.some((x) => jsonEqual(x, item))) {
            fp.push(valueElement(item));
            result.removed.insert(fp);
            fp.pop();
          }
        return;
      }
      case 'listMap': {
        const where = (): string => fp.join('');
        const l = lhs === undefined ? undefined : this.indexItems(lhs as unknown[], sp, false, where);
        const r = rhs === undefined ? undefined : this.indexItems(rhs as unknown[], sp, false, where);
        if ((lhs !== undefined && l === undefined) || (rhs !== undefined && r === undefined)) {
          // Items without keys: compare the list as one value.
          if (lhs !== undefined && rhs !== undefined && !jsonEqual(lhs, rhs)) result.modified.insert(fp);
          return;
        }
        const itemSp = [...sp, '[]'];
        const elements = new Set([...(l?.order ?? []), ...(r?.order ?? [])]);
        for (const element of elements) {
          fp.push(element);
          if (l?.duplicates.has(element) === true || r?.duplicates.has(element) === true) {
            if (!jsonEqual(l?.items.get(element), r?.items.get(element))) result.modified.insert(fp);
          } else this.compareNode(l?.items.get(element), r?.items.get(element), fp, itemSp, result);
          fp.pop();
        }
      }
    }
  }

  /** Removes the value at `fp` from `root` (changed in place); nothing happens when it is absent. */
  remove(root: JsonObject, fp: FieldPath): void {
    let parent: unknown = root;
    let sp: string[] = [];
    for (let i = 0; i < fp.length; i++) {
      const element = fp[i];
      const last = i === fp.length - 1;
      if (element.startsWith('f:')) {
        if (!isJsonObject(parent)) return;
        const key = element.slice(2);
        if (last) {
          delete parent[key];
          return;
        }
        parent = parent[key];
        sp = [...sp, key];
        continue;
      }
      if (!Array.isArray(parent)) return;
      const list = parent;
      const at = list.findIndex((item) => this.elementOf(item, element, sp) === element);
      if (at < 0) return;
      if (last) {
        list.splice(at, 1);
        return;
      }
      parent = list[at];
      sp = [...sp, '[]'];
    }
  }

  /** The value at `fp` in `root`, or undefined when absent. */
  get(root: JsonObject, fp: FieldPath): unknown {
    let current: unknown = root;
    let sp: string[] = [];
    for (const element of fp) {
      if (element.startsWith('f:')) {
        if (!isJsonObject(current)) return undefined;
        const key = element.slice(2);
        current = Object.hasOwn(current, key) ? current[key] : undefined;
        sp = [...sp, key];
      } else {
        if (!Array.isArray(current)) return undefined;
        const schemaPath = sp;
        current = current.find((item) => this.elementOf(item, element, schemaPath) === element);
        sp = [...sp, '[]'];
      }
    }
    return current;
  }

  /** The path element of a list item (by key, value or index kind of `like`). */
  elementOf(item: unknown, like: string, sp: SchemaPath): string | undefined {
    if (like.startsWith('k:')) return this.itemElement(item, sp, false, () => '');
    if (like.startsWith('v:')) return valueElement(item);
    return undefined;
  }
}
