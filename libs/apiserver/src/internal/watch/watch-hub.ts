import type { JsonObject } from '../../types.js';
import type { ObjectFilter } from './filter.js';
import type { Store, StoreEvent } from '../storage/store.js';
import { partialObjectMetadataJson } from '../encoding/partial-metadata.js';

/** Where a watch writes its lines (an HTTP response in practice). */
export interface WatchSink {
  /** Writes one line; false when the transport's buffer is full. */
  write(line: string): boolean;
  /** Bytes buffered and not yet sent. */
  readonly buffered: number;
  end(): void;
}

/** One open watch. */
export interface Watcher {
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly filter: ObjectFilter | undefined;
  /** Rewrites an object's apiVersion for the watched version (undefined: the stored one). */
  readonly apiVersion: string | undefined;
  /** Sends objects as `PartialObjectMetadata` of this apiVersion (`meta.k8s.io/v1`); undefined: whole objects. */
  readonly metadataAs?: string | undefined;
  /**
   * Turns each object into what the client asked for instead (a Table for `as=Table`), called once per
   * event in order; undefined: the object as stored (with `apiVersion` and `metadataAs` applied).
   */
  readonly transform?: ((json: string) => string) | undefined;
  readonly sink: WatchSink;
  /** Highest resourceVersion sent so far. */
  lastRv: number;
  closed: boolean;
  /** Events held back until the initial ones are written (watch start). */
  pending: StoreEvent[] | undefined;
  onClose?: () => void;
}

const parsedCache = new WeakMap<StoreEvent, { now?: JsonObject; prev?: JsonObject }>();
const lineCache = new WeakMap<StoreEvent, Map<string, string>>();

function parsed(ev: StoreEvent, which: 'now' | 'prev'): JsonObject | undefined {
  let c = parsedCache.get(ev);
  if (!c) {
    c = {};
    parsedCache.set(ev, c);
  }
  if (which === 'now') return (c.now ??= JSON.parse(ev.json) as JsonObject);
  if (ev.prevJson === undefined) return undefined;
  return (c.prev ??= JSON.parse(ev.prevJson) as JsonObject);
}

const leftCache = new WeakMap<StoreEvent, string>();

/**
 * The object of a DELETED event for a change that takes an object out of a watch's selection: its
 * previous (selected) state with the event's resourceVersion, as kube-apiserver's cache watcher sends it.
 */
function leftSelectionJson(ev: StoreEvent): string {
  let json = leftCache.get(ev);
  if (json === undefined) {
    const prev = parsed(ev, 'prev')!;
    const meta = prev.metadata;
    json = JSON.stringify({
      ...prev,
      metadata: {
        ...(meta !== null && typeof meta === 'object' ? meta : {}),
        resourceVersion: String(ev.rv),
      },
    });
    leftCache.set(ev, json);
  }
  return json;
}

/** The serialized line of an event, shared by every watcher that sees it the same way. */
function lineOf(
  ev: StoreEvent,
  type: string,
  json: string,
  apiVersion: string | undefined,
  metadataAs: string | undefined,
): string {
  let m = lineCache.get(ev);
  if (!m) {
    m = new Map();
    lineCache.set(ev, m);
  }
  const k = `${type}|${apiVersion ?? ''}|${json === ev.json ? 'n' : 'p'}|${metadataAs ?? ''}`;
  let line = m.get(k);
  if (line === undefined) {
    let body = json;
    if (metadataAs !== undefined) body = partialObjectMetadataJson(json, metadataAs);
    else if (apiVersion !== undefined) {
      const o = JSON.parse(json) as JsonObject;
      o.apiVersion = apiVersion;
      body = JSON.stringify(o);
    }
    line = `{"type":"${type}","object":${body}}\n`;
    m.set(k, line);
  }
  return line;
}

/** Serializes a watch event for an object. */
export function eventLine(type: string, obj: JsonObject | string): string {
  return `{"type":"${type}","object":${typeof obj === 'string' ? obj : JSON.stringify(obj)}}\n`;
}

/**
 * Fans committed changes out to open watches. Each event is serialized once per distinct view and
 * the same string is written to every watcher. A watcher whose transport falls more than
 * `maxBufferedBytes` behind is ended (never silently skipped), so its client resumes from its last
 * resourceVersion, as kube-apiserver does with slow watchers.
 */
export class WatchHub {
  private readonly watchers = new Map<string, Set<Watcher>>();
  private readonly unsubscribe: () => void;

  constructor(
    store: Store,
    /** Bytes a watch may fall behind before it is ended. */
    readonly maxBufferedBytes: number,
    /** Live events a watch may queue while its catch-up is written before it is ended. */
    private readonly maxPending = 100_000,
  ) {
    const changes = store.onChange((ev) => this.dispatch(ev));
    // a resource whose storage goes (its CRD deleted) ends its watches, as kube-apiserver's do
    const drops = store.onDropResource((resource) => this.closeResource(resource));
    this.unsubscribe = () => {
      changes();
      drops();
    };
  }

  /** Number of open watches. */
  get size(): number {
    let n = 0;
    for (const s of this.watchers.values()) n += s.size;
    return n;
  }

  add(w: Watcher): void {
    let s = this.watchers.get(w.resource);
    if (!s) {
      s = new Set();
      this.watchers.set(w.resource, s);
    }
    s.add(w);
  }

  /** Ends one watch. */
  close(w: Watcher): void {
    if (w.closed) return;
    w.closed = true;
    this.watchers.get(w.resource)?.delete(w);
    try {
      w.sink.end();
    } finally {
      w.onClose?.();
    }
  }

  /** Ends every watch of one resource (`group/plural`). */
  closeResource(resource: string): void {
    const s = this.watchers.get(resource);
    if (s) for (const w of [...s]) this.close(w);
  }

  /** Ends every open watch (clients see the stream end and re-watch). */
  closeAll(): void {
    for (const s of [...this.watchers.values()]) for (const w of [...s]) this.close(w);
  }

  /** Stops listening to the store and ends every watch. */
  dispose(): void {
    this.unsubscribe();
    this.closeAll();
  }

  private dispatch(ev: StoreEvent): void {
    const s = this.watchers.get(ev.resource);
    if (!s || s.size === 0) return;
    for (const w of s) {
      if (w.pending) {
        w.pending.push(ev);
        if (w.pending.length > this.maxPending) this.close(w);
      } else this.deliver(w, ev);
    }
  }

  /** Writes one stored change to a watcher, applying its namespace and selector view. */
  deliver(w: Watcher, ev: StoreEvent): void {
    if (w.closed || ev.rv <= w.lastRv) return;
    if (w.namespace !== undefined && ev.namespace !== w.namespace) return;
    let type: string = ev.type;
    let json = ev.json;
    if (w.filter) {
      const nowMatch = w.filter(parsed(ev, 'now')!);
      const prev = parsed(ev, 'prev');
      const prevMatch = prev !== undefined && w.filter(prev);
      if (ev.type === 'ADDED') {
        if (!nowMatch) return;
      } else if (ev.type === 'MODIFIED') {
        if (nowMatch && !prevMatch) type = 'ADDED';
        else if (!nowMatch && prevMatch) {
          type = 'DELETED';
          json = leftSelectionJson(ev);
        } else if (!nowMatch) return;
      } else if (!nowMatch && !prevMatch) return;
    }
    w.lastRv = ev.rv;
    if (w.transform !== undefined) this.send(w, eventLine(type, w.transform(json)));
    else this.send(w, lineOf(ev, type, json, w.apiVersion, w.metadataAs));
  }

  /** Writes a line, ending the watch when the client is too far behind. */
  send(w: Watcher, line: string): void {
    if (w.closed) return;
    w.sink.write(line);
    if (w.sink.buffered > this.maxBufferedBytes) this.close(w);
  }
}
