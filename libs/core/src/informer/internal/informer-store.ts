import type { KubernetesResource } from '../../api/resource-type.js';
import { InformerUsageError } from '../errors.js';

/** Computes the index values of an object (e.g. the names of the secrets a pod mounts). */
export type IndexFunction<T> = (obj: T) => string[];

interface Index<T> {
  fn: IndexFunction<T>;
  keysByValue: Map<string, Set<string>>;
  valuesByKey: Map<string, string[]>;
}

/** The key of an object in the cache: `namespace/name`, or `name` (same as `ResourceID.key`). */
export function cacheKey(obj: KubernetesResource): string | undefined {
  const name = obj.metadata?.name;
  if (!name) return undefined;
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * The informer's cache: objects by key, a namespace index and user indexes kept up to date on every
 * put and remove. Not thread-safe by design: the informer's loop is the only writer.
 */
export class InformerStore<T extends KubernetesResource> {
  private readonly items = new Map<string, T>();
  private readonly keysByNamespace = new Map<string, Set<string>>();
  private readonly indexes = new Map<string, Index<T>>();

  constructor(private readonly onIndexError: (index: string, key: string, error: unknown) => void) {}

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  entries(): IterableIterator<[string, T]> {
    return this.items.entries();
  }

  /** Objects, all or of one namespace. */
  list(namespace?: string): T[] {
    if (namespace === undefined) return [...this.items.values()];
    const keys = this.keysByNamespace.get(namespace);
    if (!keys) return [];
    const out: T[] = [];
    for (const key of keys) out.push(this.items.get(key)!);
    return out;
  }

  /** Stores an object; returns the one it replaced. */
  put(key: string, obj: T): T | undefined {
    const old = this.items.get(key);
    this.items.set(key, obj);
    if (!old) {
      const namespace = obj.metadata?.namespace ?? '';
      let keys = this.keysByNamespace.get(namespace);
      if (!keys) this.keysByNamespace.set(namespace, (keys = new Set()));
      keys.add(key);
    }
    for (const [name, index] of this.indexes) this.reindex(name, index, key, obj);
    return old;
  }

  /** Removes an object; returns it. */
  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.items.delete(key);
    const namespace = old.metadata?.namespace ?? '';
    const keys = this.keysByNamespace.get(namespace);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByNamespace.delete(namespace);
    for (const [name, index] of this.indexes) this.reindex(name, index, key, undefined);
    return old;
  }

  /**
   * Adds an index and fills it from what is cached.
   * @throws InformerUsageError when an index of that name exists.
   */
  addIndex(name: string, fn: IndexFunction<T>): void {
    if (this.indexes.has(name)) throw new InformerUsageError(`an index named "${name}" exists already`);
    const index: Index<T> = { fn, keysByValue: new Map(), valuesByKey: new Map() };
    this.indexes.set(name, index);
    for (const [key, obj] of this.items) this.reindex(name, index, key, obj);
  }

  /** Removes an index (no-op when there is none of that name). */
  removeIndex(name: string): void {
    this.indexes.delete(name);
  }

  /** Whether an index of that name exists. */
  hasIndex(name: string): boolean {
    return this.indexes.has(name);
  }

  /**
   * Objects whose index values include `value`.
   * @throws InformerUsageError for an unknown index.
   */
  byIndex(name: string, value: string): T[] {
    const index = this.indexes.get(name);
    if (!index) throw new InformerUsageError(`no index named "${name}"; add it with addIndexer first`);
    const keys = index.keysByValue.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const key of keys) out.push(this.items.get(key)!);
    return out;
  }

  private reindex(name: string, index: Index<T>, key: string, obj: T | undefined): void {
    const before = index.valuesByKey.get(key);
    let values: string[] | undefined;
    if (obj) {
      try {
        values = uniqueStrings(index.fn(obj));
      } catch (error) {
        this.unindex(index, key, before);
        this.onIndexError(name, key, error);
        return;
      }
    }
    // an update that keeps the values (the usual case: same owner, same labels) changes nothing
    if (before && values && sameValues(before, values)) return;
    this.unindex(index, key, before);
    if (!values) return;
    index.valuesByKey.set(key, values);
    for (const value of values) {
      let keys = index.keysByValue.get(value);
      if (!keys) index.keysByValue.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(index: Index<T>, key: string, before: string[] | undefined): void {
    if (!before) return;
    for (const value of before) {
      const keys = index.keysByValue.get(value);
      keys?.delete(key);
      if (keys?.size === 0) index.keysByValue.delete(value);
    }
    index.valuesByKey.delete(key);
  }
}

/** The distinct strings of an index function's answer; undefined when there are none. */
function uniqueStrings(values: unknown): string[] | undefined {
  if (!Array.isArray(values) || values.length === 0) return undefined;
  if (values.length === 1) return typeof values[0] === 'string' ? [values[0]] : undefined;
  const unique = [...new Set(values.filter((v): v is string => typeof v === 'string'))];
  return unique.length > 0 ? unique : undefined;
}

function sameValues(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
