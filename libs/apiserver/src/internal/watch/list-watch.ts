import type { ServerResponse } from 'node:http';
import type { JsonObject, StatusCause } from '../../types.js';
import { ApiError, errors } from '../common/errors.js';
import type { ObjectFilter } from './filter.js';
import { metaOf } from '../common/json.js';
import type { Peers } from '../common/peers.js';
import type { ResourceType, ResourceVersion } from '../resources/resource-type.js';
import { apiVersionOf, readDecoder, rewritesApiVersion, storageKey } from '../resources/resource-type.js';
import type { Store, StoreEvent } from '../storage/store.js';
import type { IncludeObject } from '../encoding/table.js';
import { builtinTable } from '../encoding/table.js';
import type { WatchHub, Watcher } from './watch-hub.js';
import { eventLine } from './watch-hub.js';
import { partialObjectMetadata, partialObjectMetadataJson } from '../encoding/partial-metadata.js';

/** Query parameters of list and watch. */
export interface ListParams {
  resourceVersion: string | undefined;
  resourceVersionMatch: string | undefined;
  limit: number | undefined;
  continueToken: string | undefined;
  filter: ObjectFilter | undefined;
  namespace: string | undefined;
}

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: t.rv, start: t.start })).toString('base64url');
}

function decodeContinue(s: string): ContinueToken {
  try {
    const o = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as { rv?: unknown; start?: unknown };
    if (typeof o.rv !== 'number' || typeof o.start !== 'string') throw new Error('bad token');
    return { rv: o.rv, start: o.start };
  } catch {
    throw errors.badRequest('continue key is not valid: invalid continue token');
  }
}

function parseRv(s: string): number {
  if (!/^\d+$/.test(s)) {
    throw new ApiError(
      400,
      'BadRequest',
      `Invalid value: ${JSON.stringify(s)}: resourceVersion must be a non-negative integer`,
    );
  }
  return Number(s);
}

function tooOld(rv: number, oldest: number): ApiError {
  return errors.gone(`too old resource version: ${rv} (${oldest})`);
}

const LIST_OPTIONS = { group: 'meta.k8s.io', resource: 'ListOptions', kind: 'ListOptions', name: '' };

function forbidden(field: string, message: string): StatusCause {
  return { reason: 'FieldValueForbidden', field, message: `Forbidden: ${message}` };
}

/**
 * kube-apiserver's `ValidateListOptions` (apimachinery meta/internalversion/validation), which the list,
 * watch and deletecollection handlers run before anything else: every problem is a cause of one 422
 * `ListOptions.meta.k8s.io "" is invalid`.
 *
 * @param p - the list or watch parameters.
 * @param sendInitialEvents - the `sendInitialEvents` parameter (undefined when not given).
 * @param watch - whether the request is a watch.
 * @throws ApiError (422 Invalid, kind ListOptions) naming each invalid option.
 */
export function validateListOptions(
  p: ListParams,
  sendInitialEvents: boolean | undefined,
  watch: boolean,
): void {
  const causes: StatusCause[] = [];
  const match = p.resourceVersionMatch ?? '';
  const hasContinue = p.continueToken !== undefined && p.continueToken !== '';
  if (watch) {
    if (sendInitialEvents !== undefined && match !== 'NotOlderThan')
      causes.push(
        forbidden(
          'resourceVersionMatch',
          'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        ),
      );
    if (match !== '') {
      if (sendInitialEvents === undefined)
        causes.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          ),
        );
      if (match !== 'NotOlderThan')
        causes.push({
          reason: 'FieldValueNotSupported',
          field: 'resourceVersionMatch',
          message: `Unsupported value: ${JSON.stringify(match)}: supported values: "NotOlderThan"`,
        });
      if (hasContinue)
        causes.push(
          forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
        );
    }
  } else {
    if (match !== '') {
      if (p.resourceVersion === undefined || p.resourceVersion === '')
        causes.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden unless resourceVersion is provided',
          ),
        );
      if (hasContinue)
        causes.push(
          forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
        );
      if (match !== 'Exact' && match !== 'NotOlderThan')
        causes.push({
          reason: 'FieldValueNotSupported',
          field: 'resourceVersionMatch',
          message: `Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan", ""`,
        });
      if (match === 'Exact' && p.resourceVersion === '0')
        causes.push(
          forbidden(
            'resourceVersionMatch',
            'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
          ),
        );
    }
    if (sendInitialEvents !== undefined)
      causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (causes.length > 0) throw errors.invalid(LIST_OPTIONS, causes);
}

/** A page of list results: serialized items and list metadata. */
export interface ListPage {
  items: string[];
  rv: number;
  continueToken: string | undefined;
  remaining: number | undefined;
}

/** Lists one resource with resourceVersion semantics, selectors and paging. */
export function listPage(store: Store, rt: ResourceType, p: ListParams): ListPage {
  const key = storageKey(rt);
  let rv = store.currentRv;
  let start = '';
  let entries: { key: string; json: string }[] | undefined;
  if (p.continueToken) {
    if (p.resourceVersion !== undefined && p.resourceVersion !== '' && p.resourceVersion !== '0') {
      throw errors.badRequest('specifying resource version is not allowed when using continue');
    }
    const t = decodeContinue(p.continueToken);
    start = t.start;
    // a token at resourceVersion -1 (handed out with the 410 below) goes on at the latest state
    rv = t.rv < 0 ? store.currentRv : t.rv;
    entries = t.rv < 0 ? store.listJson(key, p.namespace) : store.listJsonAt(key, rv, p.namespace);
    if (!entries) {
      // as kube-apiserver's etcd3 store (handleCompactedErrorForPaging): the 410 carries a token that
      // continues after the same key at the latest resourceVersion
      const e = errors.gone(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
      e.continueToken = encodeContinue({ rv: -1, start });
      throw e;
    }
  } else if (p.resourceVersionMatch !== undefined && p.resourceVersionMatch !== '') {
    if (p.resourceVersion === undefined || p.resourceVersion === '') {
      throw errors.badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
    }
    const want = parseRv(p.resourceVersion);
    if (p.resourceVersionMatch === 'Exact') {
      if (want > store.currentRv)
        throw new ApiError(
          504,
          'Timeout',
          `Too large resource version: ${want}, current: ${store.currentRv}`,
          { retryAfterSeconds: 1 },
        );
      entries = store.listJsonAt(key, want, p.namespace);
      if (!entries) throw tooOld(want, store.oldestRv);
      rv = want;
    } else if (p.resourceVersionMatch === 'NotOlderThan') {
      if (want > store.currentRv)
        throw new ApiError(
          504,
          'Timeout',
          `Too large resource version: ${want}, current: ${store.currentRv}`,
          { retryAfterSeconds: 1 },
        );
    } else {
      throw errors.badRequest(
        `resourceVersionMatch: Unsupported value: ${JSON.stringify(p.resourceVersionMatch)}: supported values: "Exact", "NotOlderThan"`,
      );
    }
  } else if (p.resourceVersion !== undefined && p.resourceVersion !== '' && p.resourceVersion !== '0') {
    // a plain resourceVersion means "not older than"
    const want = parseRv(p.resourceVersion);
    if (want > store.currentRv)
      throw new ApiError(504, 'Timeout', `Too large resource version: ${want}, current: ${store.currentRv}`, {
        retryAfterSeconds: 1,
      });
  }
  entries ??= store.listJson(key, p.namespace);
  const items: string[] = [];
  let i = 0;
  if (start) {
    // entries are sorted by key; skip to the first after `start`
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (entries[mid].key <= start) lo = mid + 1;
      else hi = mid;
    }
    i = lo;
  }
  // kube-apiserver serves a list at resourceVersion "0" (without continue; match unset or NotOlderThan)
  // from its watch cache, which ignores limit: the whole list comes back in one answer, without a
  // continue token (client-go's reflector relies on it: its first list, RV=0&limit=500, is one request)
  const fromWatchCache =
    !p.continueToken && p.resourceVersion === '0' && (p.resourceVersionMatch ?? '') !== 'Exact';
  const limit = !fromWatchCache && p.limit !== undefined && p.limit > 0 ? p.limit : Infinity;
  let last = '';
  for (; i < entries.length && items.length < limit; i++) {
    const e = entries[i];
    if (p.filter && !p.filter(JSON.parse(e.json) as JsonObject)) continue;
    items.push(e.json);
    last = e.key;
  }
  let continueToken: string | undefined;
  let remaining: number | undefined;
  if (items.length >= limit) {
    // is there any further match?
    let more = false;
    let count = 0;
    for (let j = i; j < entries.length; j++) {
      if (p.filter && !p.filter(JSON.parse(entries[j].json) as JsonObject)) continue;
      more = true;
      count++;
      if (p.filter) break;
    }
    if (more) {
      continueToken = encodeContinue({ rv, start: last });
      if (!p.filter) remaining = count;
    }
  }
  return { items, rv, continueToken, remaining };
}

function rewriteApiVersion(json: string, apiVersion: string): string {
  const o = JSON.parse(json) as JsonObject;
  o.apiVersion = apiVersion;
  return JSON.stringify(o);
}

/** The `metadata` of a list answer for a page. */
export function listMetaOf(page: ListPage): JsonObject {
  const meta: JsonObject = { resourceVersion: String(page.rv) };
  if (page.continueToken) meta.continue = page.continueToken;
  if (page.remaining !== undefined) meta.remainingItemCount = page.remaining;
  return meta;
}

/**
 * A stored object's JSON as read at `version` ({@link readDecoder}), its apiVersion that of
 * `version`; undefined when reading changes nothing (the JSON as stored serves).
 */
export function readStored(
  rt: ResourceType,
  version: ResourceVersion,
): ((json: string) => string) | undefined {
  const read = readDecoder(rt, version);
  if (read === undefined) return undefined;
  const av = rewritesApiVersion(rt, version) ? apiVersionOf(rt.group, version.name) : undefined;
  return (json) => {
    const obj = JSON.parse(json) as JsonObject;
    read(obj);
    if (av !== undefined) obj.apiVersion = av;
    return JSON.stringify(obj);
  };
}

/** Serializes a list response without re-serializing stored objects. */
export function listBody(rt: ResourceType, version: ResourceVersion, page: ListPage): string {
  const meta = listMetaOf(page);
  const av = apiVersionOf(rt.group, version.name);
  if (version.conversionError !== undefined && page.items.length > 0)
    throw errors.internal(version.conversionError);
  const read = readStored(rt, version);
  const items = read
    ? page.items.map(read)
    : rewritesApiVersion(rt, version)
      ? page.items.map((j) => rewriteApiVersion(j, av))
      : page.items;
  return `{"kind":${JSON.stringify(rt.listKind)},"apiVersion":${JSON.stringify(av)},"metadata":${JSON.stringify(meta)},"items":[${items.join(',')}]}`;
}

/** A Table response for a list or a single object. */
export function tableBody(
  rt: ResourceType,
  version: ResourceVersion,
  peers: Peers,
  objects: JsonObject[],
  include: IncludeObject,
  rv: string | undefined,
  continueToken?: string,
): JsonObject {
  let table: JsonObject;
  if (rt.crdName !== undefined) {
    table = peers.crd.buildTable(objects, version.printerColumns, { includeObject: include });
  } else {
    const cols = peers.crd.builtinColumns(rt.group, version.name, rt.kind);
    table =
      cols.length > 0
        ? peers.crd.buildTable(objects, cols, { includeObject: include })
        : builtinTable(rt, objects, include);
  }
  const meta: JsonObject = { ...((table.metadata as JsonObject | undefined) ?? {}) };
  if (rv !== undefined) meta.resourceVersion = rv;
  if (continueToken) meta.continue = continueToken;
  table.metadata = meta;
  table.kind = 'Table';
  table.apiVersion = 'meta.k8s.io/v1';
  return table;
}

/** Parameters of a watch. */
export interface WatchParams extends ListParams {
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  timeoutSeconds: number | undefined;
  /** Send objects as `PartialObjectMetadata` of this apiVersion (`meta.k8s.io/v1`); undefined: whole objects. */
  metadataAs?: string | undefined;
  /** Turns each stored object (JSON) into what is sent instead, e.g. a Table (see {@link tableWatchTransform}). */
  transform?: ((json: string) => string) | undefined;
}

/**
 * The objects of a watch asked for `as=Table` (`kubectl get -w`): each a one-row `meta.k8s.io/v1` Table
 * with the object's resourceVersion, the column definitions on the first only (`columnDefinitions: null`
 * after), as kube-apiserver's watch encoder sends them (handlers/watch.go, TableOptions.NoHeaders).
 *
 * @param present - presents a stored object at the watched version.
 */
export function tableWatchTransform(
  rt: ResourceType,
  version: ResourceVersion,
  peers: Peers,
  include: IncludeObject,
  present: (obj: JsonObject) => JsonObject,
): (json: string) => string {
  let headers = true;
  return (json) => {
    const obj = present(JSON.parse(json) as JsonObject);
    const table = tableBody(rt, version, peers, [obj], include, rvOf(obj));
    if (!headers) table.columnDefinitions = null;
    headers = false;
    return JSON.stringify(table);
  };
}

/** Starts a watch stream on `res`; returns once set up (the stream stays open). */
export function startWatch(
  store: Store,
  hub: WatchHub,
  rt: ResourceType,
  version: ResourceVersion,
  p: WatchParams,
  res: ServerResponse,
  bookmarkIntervalMs: number,
): void {
  if (version.conversionError !== undefined) throw errors.internal(version.conversionError);
  const key = storageKey(rt);
  const rvParam = p.resourceVersion ?? '';
  const initial = p.sendInitialEvents;
  validateListOptions(p, initial, true);
  if (initial === true && !p.allowWatchBookmarks) {
    throw errors.invalid(LIST_OPTIONS, [
      forbidden('allowWatchBookmarks', 'sendInitialEvents requires setting allowWatchBookmarks to true'),
    ]);
  }
  const av = rewritesApiVersion(rt, version) ? apiVersionOf(rt.group, version.name) : undefined;
  let replay: { type: string; json: string }[] = [];
  let startRv: number;
  let expired: ApiError | undefined;
  const sendState = initial === true || (initial === undefined && (rvParam === '' || rvParam === '0'));
  if (sendState) {
    startRv = store.currentRv;
    for (const e of store.listJson(key, p.namespace)) {
      if (p.filter && !p.filter(JSON.parse(e.json) as JsonObject)) continue;
      const json =
        p.transform !== undefined
          ? p.transform(e.json)
          : p.metadataAs !== undefined
            ? partialObjectMetadataJson(e.json, p.metadataAs)
            : av
              ? rewriteApiVersion(e.json, av)
              : e.json;
      replay.push({ type: 'ADDED', json });
    }
  } else {
    startRv = rvParam === '' || rvParam === '0' ? store.currentRv : parseRv(rvParam);
    // a resourceVersion ahead of the store (a client that saw a newer server) skips up to it
    const evs = store.eventsSince(key, startRv);
    if (!evs) expired = tooOld(startRv, store.oldestRv);
    else replay = [];
  }
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  const sink = {
    write: (line: string) => res.write(line),
    get buffered() {
      return res.writableLength;
    },
    end: () => {
      res.end();
    },
  };
  if (expired) {
    res.write(
      eventLine('ERROR', {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: expired.message,
        reason: 'Expired',
        code: 410,
      }),
    );
    res.end();
    return;
  }
  const w: Watcher = {
    resource: key,
    namespace: p.namespace,
    filter: p.filter,
    apiVersion: av,
    metadataAs: p.metadataAs,
    transform: p.transform,
    sink,
    lastRv: startRv,
    closed: false,
    // live events wait here until the catch-up below is written
    pending: [],
  };
  // registered in the same tick as the snapshot or history read above: no change falls between
  hub.add(w);
  const catchUp: (string | StoreEvent)[] = replay.map((r) => eventLine(r.type, r.json));
  if (!sendState) catchUp.push(...(store.eventsSince(key, startRv) ?? []));
  void writeCatchUp(
    hub,
    w,
    res,
    catchUp,
    initial === true ? () => bookmarkLine(rt, version, store.currentRv, true, p.metadataAs) : undefined,
  );
  const timers: NodeJS.Timeout[] = [];
  if (p.allowWatchBookmarks) {
    // no bookmark while the catch-up is written: it would carry a resourceVersion ahead of events still
    // to come (kube's cache watcher sends its initial events before anything else)
    const t = setInterval(() => {
      if (w.pending === undefined)
        hub.send(w, bookmarkLine(rt, version, Math.max(store.currentRv, w.lastRv), false, p.metadataAs));
    }, bookmarkIntervalMs);
    t.unref();
    timers.push(t);
  }
  if (p.timeoutSeconds !== undefined && p.timeoutSeconds > 0) {
    const t = setTimeout(() => hub.close(w), p.timeoutSeconds * 1000);
    t.unref();
    timers.push(t);
  }
  w.onClose = () => {
    for (const t of timers) clearTimeout(t);
  };
  const onGone = (): void => hub.close(w);
  res.on('close', onGone);
  res.on('error', onGone);
}

/**
 * Writes a watch's catch-up (initial state or history) and then the live events that queued
 * meanwhile, pacing on the transport so that a large backlog never trips the slow-watcher bound.
 */
async function writeCatchUp(
  hub: WatchHub,
  w: Watcher,
  res: ServerResponse,
  items: (string | StoreEvent)[],
  endBookmark: (() => string) | undefined,
): Promise<void> {
  const highWater = Math.max(64 * 1024, hub.maxBufferedBytes / 2);
  const pace = async (): Promise<void> => {
    while (!w.closed && res.writableLength > highWater) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  };
  for (const item of items) {
    await pace();
    if (w.closed) return;
    if (typeof item === 'string') w.sink.write(item);
    else hub.deliver(w, item);
  }
  if (endBookmark) {
    await pace();
    hub.send(w, endBookmark());
  }
  while (!w.closed && w.pending && w.pending.length > 0) {
    await pace();
    const ev = w.pending.shift();
    if (ev) hub.deliver(w, ev);
  }
  w.pending = undefined;
}

function bookmarkLine(
  rt: ResourceType,
  version: ResourceVersion,
  rv: number,
  initialEnd: boolean,
  metadataAs: string | undefined,
): string {
  const meta: JsonObject = { resourceVersion: String(rv) };
  if (initialEnd) meta.annotations = { 'k8s.io/initial-events-end': 'true' };
  const obj: JsonObject = { kind: rt.kind, apiVersion: apiVersionOf(rt.group, version.name), metadata: meta };
  return eventLine('BOOKMARK', metadataAs !== undefined ? partialObjectMetadata(obj, metadataAs) : obj);
}

/** The metadata.resourceVersion of an object (for table metadata). */
export function rvOf(obj: JsonObject): string | undefined {
  const v = metaOf(obj).resourceVersion;
  return typeof v === 'string' ? v : undefined;
}
