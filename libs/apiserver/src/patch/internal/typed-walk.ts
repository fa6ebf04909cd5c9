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

  private collectMap(value: JsonObject, fp: FieldPath, sp: SchemaPath, set: FieldSet, strict: boolean): void {
    for (const [key, child] of Object.entries(value)) {
      const childFp = [...fp, `f:${key}`];
      const childSp = [...sp, key];
      this.collect(child, childFp, childSp, set, strict);
      if (child === null || (isJsonObject(child) && Object.keys(child).length === 0)) set.insert(childFp);
    }
  }

  private collect(value: unknown, fp: FieldPath, sp: SchemaPath, set: FieldSet, strict: boolean): void {
    const shape = this.shape(value, sp);
    const where = (): string =>
      fp.map((e) => (e.startsWith('f:') ? `.${e.slice(2)}` : `[${e.slice(2)}]`)).join('');
    switch (shape) {
      case 'scalar':
      case 'atomic':
        set.insert(fp);
        return;
      case 'map':
        this.collectMap(value as JsonObject, fp, sp, set, strict);
        return;
      case 'listSet':
        for (const item of value as unknown[]) set.insert([...fp, valueElement(item)]);
        return;
      case 'listMap': {
        const itemSp = [...sp, '[]'];
        const index = this.indexItems(value as unknown[], sp, strict, where);
        if (index === undefined) {
          set.insert(fp);
          return;
        }
        for (const element of index.order) {
          const itemFp = [...fp, element];
          if (!index.duplicates.has(element))
            this.collect(index.items.get(element), itemFp, itemSp, set, strict);
          set.insert(itemFp);
        }
      }
    }
  }

  /**
   * `Compare`: paths added, removed and modified from `lhs` to `rhs` (undefined = absent). Intermediate
   * nodes that appear or disappear are added or removed too.
   */
  compare(lhs: JsonObject, rhs: JsonObject): { added: FieldSet; removed: FieldSet; modified: FieldSet } {
    const result = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
    this.compareMap(lhs, rhs, [], [], result);
    return result;
  }

  private compareMap(
    lhs: JsonObject | undefined,
    rhs: JsonObject | undefined,
    fp: FieldPath,
    sp: SchemaPath,
    result: { added: FieldSet; removed: FieldSet; modified: FieldSet },
  ): void {
    const keys = new Set([...Object.keys(lhs ?? {}), ...Object.keys(rhs ?? {})]);
    for (const key of keys) {
      const l = lhs !== undefined && Object.hasOwn(lhs, key) ? lhs[key] : undefined;
      const r = rhs !== undefined && Object.hasOwn(rhs, key) ? rhs[key] : undefined;
      this.compareNode(l, r, [...fp, `f:${key}`], [...sp, key], result);
    }
  }

  private compareNode(
    lhs: unknown,
    rhs: unknown,
    fp: FieldPath,
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
          if (!l.some((x) => jsonEqual(x, item))) result.added.insert([...fp, valueElement(item)]);
        for (const item of l)
          if (!r.some((x) => jsonEqual(x, item))) result.removed.insert([...fp, valueElement(item)]);
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
          const itemFp = [...fp, element];
          if (l?.duplicates.has(element) === true || r?.duplicates.has(element) === true) {
            if (!jsonEqual(l?.items.get(element), r?.items.get(element))) result.modified.insert(itemFp);
            continue;
          }
          this.compareNode(l?.items.get(element), r?.items.get(element), itemFp, itemSp, result);
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
