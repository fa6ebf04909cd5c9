/**
 * A set of field paths, and its `FieldsV1` encoding as stored in `metadata.managedFields`
 * (sigs.k8s.io/structured-merge-diff `fieldpath.Set`).
 *
 * A path is a list of encoded path elements: `f:<field>` (a map field), `k:<json>` (a list-map item by
 * its keys, keys sorted, e.g. `k:{"name":"nginx"}`), `v:<json>` (a set item, e.g. `v:"a"`), `i:<n>` (a list
 * index). In `FieldsV1`, `{}` marks a path that is in the set, and `".": {}` marks a path that is in the set
 * and also has children in it (a list item or map owned both as a whole and field by field).
 */
import type { JsonObject } from '../types.js';
import { PatchError } from './patch-error.js';
import { isJsonObject } from './internal/json-value.js';

/** One path: encoded path elements from the object's root. */
export type FieldPath = readonly string[];

const KIND_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** structured-merge-diff's order of path elements: fields, then keys, then values, then indexes. */
export function comparePathElements(a: string, b: string): number {
  const ka = KIND_ORDER[a[0] ?? ''] ?? 4;
  const kb = KIND_ORDER[b[0] ?? ''] ?? 4;
  if (ka !== kb) return ka - kb;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The path elements of a node's children in structured-merge-diff order. An insertion sort into one
 * array: nodes have a few children, and `Array.prototype.sort` with a comparator allocated a work
 * array on every call (every managedFields encoding of every write sorts each node's children).
 */
function sortedElements(children: ReadonlyMap<string, FieldSet>): string[] {
  const out: string[] = [];
  for (const element of children.keys()) {
    let i = out.length;
    while (i > 0 && comparePathElements(out[i - 1], element) > 0) {
      out[i] = out[i - 1];
      i--;
    }
    out[i] = element;
  }
  return out;
}

/** Whether `element` is an encoded path element: `f:…`, `k:{…`, `v:…` or `i:<digits>`. */
function isPathElement(element: string): boolean {
  if (element.length < 2 || element.charCodeAt(1) !== 0x3a /* : */) return false;
  switch (element.charCodeAt(0)) {
    case 0x66 /* f */:
    case 0x76 /* v */:
      return true;
    case 0x6b /* k */:
      return element.charCodeAt(2) === 0x7b; /* { */
    case 0x69 /* i */:
      return /^i:\d+$/.test(element);
    default:
      return false;
  }
}

function isEmptyObject(value: JsonObject): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/** The children of every node that has none: shared, so only `setChild` may add to a node. */
const NO_CHILDREN = new Map<string, FieldSet>();

/** A mutable set of field paths, stored as a tree. */
export class FieldSet {
  private member = false;
  // most nodes are leaves: they share one empty map (never changed; see setChild) instead of one each
  private children: Map<string, FieldSet> = NO_CHILDREN;

  private setChild(element: string, child: FieldSet): void {
    if (this.children === NO_CHILDREN) this.children = new Map();
    this.children.set(element, child);
  }

  /** A set holding `paths`. */
  static of(...paths: FieldPath[]): FieldSet {
    const set = new FieldSet();
    for (const path of paths) set.insert(path);
    return set;
  }

  /**
   * Decodes a `FieldsV1` object.
   *
   * @throws {@link PatchError} `InvalidManagedFields` (400) when `fields` is not a valid encoding.
   */
  static fromFieldsV1(fields: unknown): FieldSet {
    const set = new FieldSet();
    set.decode(fields, []);
    return set;
  }

  /** `at` is the path of this node, a stack the walk pushes to and pops (read only for messages). */
  private decode(fields: unknown, at: string[]): void {
    if (!isJsonObject(fields)) {
      throw new PatchError(
        'InvalidManagedFields',
        400,
        `invalid FieldsV1 at ${at.join('') || '<root>'}: not an object`,
      );
    }
    for (const element in fields) {
      if (!Object.hasOwn(fields, element)) continue;
      const value = fields[element];
      if (element === '.') {
        if (at.length === 0)
          throw new PatchError('InvalidManagedFields', 400, 'invalid FieldsV1: "." at the root');
        this.member = true;
        continue;
      }
      if (!isPathElement(element)) {
        throw new PatchError(
          'InvalidManagedFields',
          400,
          `invalid FieldsV1 path element ${JSON.stringify(element)}`,
        );
      }
      const child = this.child(element);
      if (isJsonObject(value) && isEmptyObject(value)) child.member = true;
      else {
        at.push(element);
        child.decode(value, at);
        at.pop();
      }
    }
  }

  private child(element: string): FieldSet {
    let child = this.children.get(element);
    if (child === undefined) {
      child = new FieldSet();
      this.setChild(element, child);
    }
    return child;
  }

  private node(path: FieldPath): FieldSet | undefined {
    let node: FieldSet | undefined;
    for (const element of path) {
      node = (node ?? this).children.get(element);
      if (node === undefined) return undefined;
    }
    return node ?? this;
  }

  /** Adds `path` (not the empty path). */
  insert(path: FieldPath): this {
    if (path.length === 0) return this;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the walk starts at this node
    let node: FieldSet = this;
    for (let i = 0; i < path.length; i++) node = node.child(path[i]);
    node.member = true;
    return this;
  }

  /**
   * Takes `path` itself out of the set, in place (what `difference(FieldSet.of(path))` gives; paths
   * below it stay).
   */
  remove(path: FieldPath): this {
    const node = path.length > 0 ? this.node(path) : undefined;
    if (node !== undefined) node.member = false;
    return this;
  }

  /** Whether `path` is in the set. */
  has(path: FieldPath): boolean {
    return path.length > 0 && (this.node(path)?.member ?? false);
  }

  /** Whether some path strictly below `path` is in the set. */
  hasDescendant(path: FieldPath): boolean {
    const node = this.node(path);
    if (node === undefined) return false;
    for (const child of node.children.values()) if (!child.isEmpty()) return true;
    return false;
  }

  /** Whether the set has no path. */
  isEmpty(): boolean {
    if (this.member) return false;
    for (const child of this.children.values()) if (!child.isEmpty()) return false;
    return true;
  }

  /** Every path in the set, in structured-merge-diff order. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (node: FieldSet, at: string[]): void => {
      if (node.member && at.length > 0) out.push(at);
      for (const element of sortedElements(node.children)) {
        walk(node.children.get(element)!, [...at, element]);
      }
    };
    walk(this, []);
    return out;
  }

  /** A copy of this set. */
  clone(): FieldSet {
    return FieldSet.combine(this, undefined, 'union', true) ?? new FieldSet();
  }

  /** Paths in this set or in `other`. */
  union(other: FieldSet): FieldSet {
    return FieldSet.combine(this, other, 'union', true) ?? new FieldSet();
  }

  /** Paths in this set and not in `other` (exact paths; children of a removed path stay). */
  difference(other: FieldSet): FieldSet {
    return FieldSet.combine(this, other, 'difference', true) ?? new FieldSet();
  }

  /** Paths in this set and not in `other` nor below a path of `other`. */
  recursiveDifference(other: FieldSet): FieldSet {
    return FieldSet.of(
      ...this.paths().filter((path) => !path.some((_, i) => other.has(path.slice(0, i + 1)))),
    );
  }

  /** Paths in both sets. */
  intersection(other: FieldSet): FieldSet {
    return FieldSet.combine(this, other, 'intersection', true) ?? new FieldSet();
  }

  /**
   * One node of `a op b`, built by walking both trees together: a node is a member when the operation
   * keeps its path (the root never is, as paths are non-empty), and branches that keep no path are
   * dropped, so the result holds exactly the paths `op` selects from `paths()` of both.
   * @returns undefined when the result below this node is empty
   */
  private static combine(
    a: FieldSet | undefined,
    b: FieldSet | undefined,
    op: 'union' | 'difference' | 'intersection',
    root: boolean,
  ): FieldSet | undefined {
    const out = new FieldSet();
    const inA = a?.member === true;
    const inB = b?.member === true;
    out.member = !root && (op === 'union' ? inA || inB : op === 'difference' ? inA && !inB : inA && inB);
    if (a !== undefined)
      for (const [element, child] of a.children) {
        const other = b?.children.get(element);
        if (op === 'intersection' && other === undefined) continue;
        const r = FieldSet.combine(child, other, op, false);
        if (r !== undefined) out.setChild(element, r);
      }
    if (op === 'union' && b !== undefined)
      for (const [element, child] of b.children) {
        if (a?.children.has(element) === true) continue;
        const r = FieldSet.combine(undefined, child, op, false);
        if (r !== undefined) out.setChild(element, r);
      }
    return out.member || out.children.size > 0 ? out : undefined;
  }

  /** Whether both sets hold the same paths (one walk of both trees; branches holding no path do not count). */
  equals(other: FieldSet): boolean {
    return FieldSet.sameNode(this, other, true);
  }

  private static sameNode(a: FieldSet, b: FieldSet, root: boolean): boolean {
    if (!root && a.member !== b.member) return false;
    for (const [element, child] of a.children) {
      const theirs = b.children.get(element);
      if (theirs === undefined ? !child.isEmpty() : !FieldSet.sameNode(child, theirs, false)) return false;
    }
    for (const [element, child] of b.children) if (!a.children.has(element) && !child.isEmpty()) return false;
    return true;
  }

  /** The `FieldsV1` encoding (`.` first, then children in structured-merge-diff order). */
  toFieldsV1(): JsonObject {
    const out: JsonObject = {};
    FieldSet.encodeInto(this, out);
    return out;
  }

  /**
   * Writes the children of `node` into `out` in one walk (empty branches left out).
   * @returns whether anything was written
   */
  private static encodeInto(node: FieldSet, out: JsonObject): boolean {
    let wrote = false;
    const elements = node.children.size > 1 ? sortedElements(node.children) : node.children.keys();
    for (const element of elements) {
      const child = node.children.get(element)!;
      const inner: JsonObject = child.member ? { '.': {} } : {};
      if (FieldSet.encodeInto(child, inner)) out[element] = inner;
      else if (child.member) out[element] = {};
      else continue;
      wrote = true;
    }
    return wrote;
  }

  /** Whether every path of this set is also in `other` (one walk, nothing built). */
  isSubsetOf(other: FieldSet): boolean {
    for (const element of this.children.keys()) {
      const child = this.children.get(element)!;
      const theirs = other.children.get(element);
      if (theirs === undefined) {
        if (!child.isEmpty()) return false;
      } else if ((child.member && !theirs.member) || !child.isSubsetOf(theirs)) return false;
    }
    return true;
  }

  /** Whether some path is in both this set and `other`. */
  intersects(other: FieldSet): boolean {
    for (const [element, child] of this.children) {
      const theirs = other.children.get(element);
      if (theirs === undefined) continue;
      if ((child.member && theirs.member) || child.intersects(theirs)) return true;
    }
    return false;
  }
}

/** The `FieldsV1` encoding of `set`. */
export function encodeFieldsV1(set: FieldSet): JsonObject {
  return set.toFieldsV1();
}

/**
 * Decodes a `FieldsV1` object into a {@link FieldSet}.
 *
 * @throws {@link PatchError} `InvalidManagedFields` (400) when `fields` is not a valid encoding.
 */
export function decodeFieldsV1(fields: unknown): FieldSet {
  return FieldSet.fromFieldsV1(fields);
}

/** The path element of a list-map item with `keys` (sorted by key name, as Kubernetes writes them). */
export function keyElement(values: Readonly<Record<string, unknown>>): string {
  const sorted: JsonObject = {};
  for (const key of Object.keys(values).sort()) sorted[key] = values[key];
  return `k:${JSON.stringify(sorted)}`;
}

/** The path element of a set item. */
export function valueElement(value: unknown): string {
  return `v:${JSON.stringify(value)}`;
}

/**
 * A path in Kubernetes' message syntax (`fieldpath.Path.String()`), e.g.
 * `.spec.containers[name="nginx"].image`, `.metadata.finalizers[="a"]`, `.spec.list[0]`.
 */
export function formatFieldPath(path: FieldPath): string {
  return path
    .map((element) => {
      const body = element.slice(2);
      switch (element[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const keys = JSON.parse(body) as JsonObject;
          return `[${Object.entries(keys)
            .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}
