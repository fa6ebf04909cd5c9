import type { JsonObject } from '../../types.js';

/** The kind of a stored change, as in a watch event. */
export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change. `json` is the object after the change (for DELETED: its last state). */
export interface StoreEvent {
  readonly type: ChangeType;
  /** The storage key of the resource: `group/plural` (`/configmaps` for core). */
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  /** The resourceVersion this change produced (for DELETED: the deletion's version). */
  readonly rv: number;
  readonly json: string;
  /** The state before the change (MODIFIED and DELETED). */
  readonly prevJson: string | undefined;
}

/** An object put back by {@link Store.restore}, with the resourceVersion it was saved with. */
export interface RestoredEntry {
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly json: string;
  readonly rv: number;
}

/** One stored object: its serialized JSON is the stored form (small and immutable). */
interface Entry {
  json: string;
  rv: number;
}

/**
 * Listener of committed changes (in commit order). `object`, when the writer had it, is the change's
 * `json` already parsed: listeners may read it during the call but must neither change nor keep it.
 */
export type ChangeListener = (event: StoreEvent, object?: JsonObject) => void;

/**
 * The in-memory storage: objects per resource, one global increasing resourceVersion, and a
 * bounded history of changes for watch resume and consistent paged lists.
 *
 * It knows nothing of Kubernetes semantics: callers (the object service) set metadata, check
 * preconditions and serialize. Every write is synchronous, so a write and its event are atomic.
 */
export class Store {
  private readonly data = new Map<string, Map<string, Entry>>();
  private readonly history: StoreEvent[] = [];
  private historyStart = 0;
  private readonly listeners = new Set<ChangeListener>();
  private readonly dropListeners = new Set<(resource: string) => void>();
  private version: number;
  /** Every change with rv <= this is gone from history. */
  private compactedRv: number;

  constructor(
    private readonly historySize: number,
    initialRv = 1,
  ) {
    this.version = initialRv;
    this.compactedRv = initialRv;
  }

  /** The current (latest) resourceVersion. */
  get currentRv(): number {
    return this.version;
  }

  /** The oldest resourceVersion a watch or paged list can still start from. */
  get oldestRv(): number {
    return this.compactedRv;
  }

  /** Reserves the next resourceVersion (the caller must commit with it at once). */
  nextRv(): number {
    return this.version + 1;
  }

  private bucket(resource: string): Map<string, Entry> {
    let b = this.data.get(resource);
    if (!b) {
      b = new Map();
      this.data.set(resource, b);
    }
    return b;
  }

  /** The stored JSON of one object, or undefined. */
  getJson(resource: string, namespace: string, name: string): string | undefined {
    return this.data.get(resource)?.get(key(namespace, name))?.json;
  }

  /** One object parsed (a fresh copy the caller may change), or undefined. */
  get(resource: string, namespace: string, name: string): JsonObject | undefined {
    const j = this.getJson(resource, namespace, name);
    return j === undefined ? undefined : (JSON.parse(j) as JsonObject);
  }

  /**
   * The stored JSON of the objects of a resource (in one namespace, or all when `namespace` is
   * undefined), sorted by namespace/name as etcd would, optionally after `after` (a key).
   */
  listJson(resource: string, namespace?: string): { key: string; json: string }[] {
    const b = this.data.get(resource);
    if (!b) return [];
    const out: { key: string; json: string }[] = [];
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    for (const [k, e] of b)
      if (prefix === undefined || k.startsWith(prefix)) out.push({ key: k, json: e.json });
    out.sort((a, b2) => (a.key < b2.key ? -1 : a.key > b2.key ? 1 : 0));
    return out;
  }

  /** Parsed copies of the objects of a resource. */
  list(resource: string, namespace?: string): JsonObject[] {
    return this.listJson(resource, namespace).map((e) => JSON.parse(e.json) as JsonObject);
  }

  /** How many objects of a resource are stored. */
  count(resource: string): number {
    return this.data.get(resource)?.size ?? 0;
  }

  /**
   * The objects of a resource as they were at `rv` (rolled back through history), or undefined
   * when history no longer reaches back that far.
   */
  listJsonAt(resource: string, rv: number, namespace?: string): { key: string; json: string }[] | undefined {
    if (rv < this.compactedRv) return undefined;
    if (rv >= this.version) return this.listJson(resource, namespace);
    const state = new Map<string, string>();
    for (const e of this.listJson(resource, namespace)) state.set(e.key, e.json);
    for (let i = this.history.length - 1; i >= this.historyStart; i--) {
      const ev = this.history[i];
      if (ev.rv <= rv) break;
      if (ev.resource !== resource || (namespace !== undefined && ev.namespace !== namespace)) continue;
      const k = key(ev.namespace, ev.name);
      if (ev.type === 'ADDED') state.delete(k);
      else state.set(k, ev.prevJson ?? ev.json);
    }
    return [...state.entries()]
      .map(([k, json]) => ({ key: k, json }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Changes of a resource after `rv` (exclusive), or undefined when history does not reach back. */
  eventsSince(resource: string, rv: number): StoreEvent[] | undefined {
    if (rv < this.compactedRv) return undefined;
    const out: StoreEvent[] = [];
    // binary search the first event with ev.rv > rv
    let lo = this.historyStart;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.history[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.history.length; i++) {
      const ev = this.history[i];
      if (ev.resource === resource) out.push(ev);
    }
    return out;
  }

  /**
   * Stores `json` (already carrying resourceVersion `rv`, which must be {@link nextRv}). `object`, the
   * value `json` serializes, is handed to listeners so they need not parse it again; it is not kept.
   */
  put(
    resource: string,
    namespace: string,
    name: string,
    json: string,
    rv: number,
    object?: JsonObject,
  ): StoreEvent {
    this.assertRv(rv);
    const b = this.bucket(resource);
    const k = key(namespace, name);
    const prev = b.get(k);
    b.set(k, { json, rv });
    return this.commit(
      {
        type: prev ? 'MODIFIED' : 'ADDED',
        resource,
        namespace,
        name,
        rv,
        json,
        prevJson: prev?.json,
      },
      object,
    );
  }

  /** Removes an object; `json` is its last state with resourceVersion `rv` ({@link nextRv}). */
  remove(
    resource: string,
    namespace: string,
    name: string,
    json: string,
    rv: number,
  ): StoreEvent | undefined {
    const b = this.data.get(resource);
    const k = key(namespace, name);
    const prev = b?.get(k);
    if (!b || !prev) return undefined;
    this.assertRv(rv);
    b.delete(k);
    return this.commit({ type: 'DELETED', resource, namespace, name, rv, json, prevJson: prev.json });
  }

  /** Every stored object, for a state file. */
  dump(): { resource: string; json: string }[] {
    const out: { resource: string; json: string }[] = [];
    for (const [resource, b] of this.data) for (const e of b.values()) out.push({ resource, json: e.json });
    return out;
  }

  /**
   * Puts back objects saved earlier (a state file), each with the resourceVersion it had, without
   * history: the current resourceVersion becomes `currentRv` (or the highest loaded one, if higher)
   * and every older one is compacted away, so a watch or paged list from before gets 410 Expired
   * while one from the current version goes on. Listeners then see each object ADDED, in `entries`
   * order, once all are in place. An object already stored is kept (its entry is skipped).
   */
  restore(entries: readonly RestoredEntry[], currentRv: number): void {
    const fresh = entries.filter(
      (e) => this.data.get(e.resource)?.get(key(e.namespace, e.name)) === undefined,
    );
    let top = Math.max(this.version, currentRv);
    for (const e of fresh) top = Math.max(top, e.rv);
    this.version = top;
    this.compactedRv = top;
    for (const e of fresh) this.bucket(e.resource).set(key(e.namespace, e.name), { json: e.json, rv: e.rv });
    for (const e of fresh) {
      const ev: StoreEvent = { type: 'ADDED', ...e, prevJson: undefined };
      for (const l of this.listeners) l(ev);
    }
  }

  /** Drops every object of a resource without events (a CRD's resources going away). */
  dropResource(resource: string): void {
    this.data.delete(resource);
    for (const listener of [...this.dropListeners]) listener(resource);
  }

  /** Registers a listener of {@link dropResource} (a CRD's storage torn down); returns its removal. */
  onDropResource(listener: (resource: string) => void): () => void {
    this.dropListeners.add(listener);
    return () => this.dropListeners.delete(listener);
  }

  /** Forgets all history, so every earlier resourceVersion is too old (410 on resume). */
  compact(): void {
    this.history.length = 0;
    this.historyStart = 0;
    this.compactedRv = this.version;
  }

  /** Registers a listener of committed changes; returns its removal. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private assertRv(rv: number): void {
    if (rv !== this.version + 1)
      throw new Error(`resourceVersion ${rv} is not the next one (${this.version + 1})`);
  }

  private commit(ev: StoreEvent, object?: JsonObject): StoreEvent {
    this.version = ev.rv;
    this.history.push(ev);
    if (this.history.length - this.historyStart > this.historySize) {
      const dropped = this.history[this.historyStart];
      this.history[this.historyStart] = undefined as unknown as StoreEvent;
      this.historyStart++;
      this.compactedRv = dropped.rv;
      if (this.historyStart > 4096 && this.historyStart * 2 > this.history.length) {
        this.history.splice(0, this.historyStart);
        this.historyStart = 0;
      }
    }
    for (const l of this.listeners) l(ev, object);
    return ev;
  }
}

/** The key of an object inside its resource: `namespace/name` (`/name` for cluster-scoped). */
export function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
