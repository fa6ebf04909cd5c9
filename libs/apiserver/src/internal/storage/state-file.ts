import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JsonObject } from '../../types.js';
import { isObject, str } from '../common/json.js';
import type { RestoredEntry, Store } from './store.js';

/** A state file that cannot be read (`code` STATE_FILE_INVALID), naming the file. */
export class StateFileError extends Error {
  readonly code = 'STATE_FILE_INVALID';
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(
      `cannot read the API server state file ${path}: ${cause instanceof Error ? cause.message : String(cause)}; fix or delete it to start empty`,
      { cause },
    );
    this.name = 'StateFileError';
  }
}

interface StateDocument {
  kind: 'TosdkApiServerState';
  version: 1;
  resourceVersion: number;
  objects: { resource: string; object: JsonObject }[];
}

/**
 * Reads a state file into the store, keeping each object as it was saved: its resourceVersion, uid,
 * creationTimestamp and everything else. The store's resourceVersion continues above the highest
 * one saved (the file's own or any object's), and everything older counts as compacted, so a client
 * resuming a watch or a paged list from before the restart gets 410 Expired and lists again, while
 * one at the saved current version goes on. The controllers see every object added: namespaces
 * first, then CRDs (their resources get served), then the rest. An object saved without a usable
 * resourceVersion (a hand-edited file) gets a new one above the rest. False when there is no file.
 */
export function loadStateFile(path: string, store: Store): boolean {
  if (!existsSync(path)) return false;
  let doc: StateDocument;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8')) as StateDocument;
    if (doc.kind !== 'TosdkApiServerState' || !Array.isArray(doc.objects))
      throw new Error('not a state file');
  } catch (err) {
    throw new StateFileError(path, err);
  }
  const rank = (r: string): number =>
    r === '/namespaces' ? 0 : r === 'apiextensions.k8s.io/customresourcedefinitions' ? 1 : 2;
  const objects = [...doc.objects].sort((a, b) => rank(a.resource) - rank(b.resource));
  const kept: RestoredEntry[] = [];
  const renumbered: { resource: string; object: JsonObject }[] = [];
  const seen = new Set<string>();
  for (const o of objects) {
    if (typeof o?.resource !== 'string' || !isObject(o.object) || !isObject(o.object.metadata)) continue;
    const meta = o.object.metadata;
    const namespace = str(meta.namespace);
    const name = str(meta.name);
    const id = `${o.resource}|${namespace}/${name}`;
    if (name === '' || seen.has(id)) continue;
    seen.add(id);
    const rv = Number(meta.resourceVersion);
    if (typeof meta.resourceVersion === 'string' && Number.isSafeInteger(rv) && rv > 0)
      kept.push({ resource: o.resource, namespace, name, json: JSON.stringify(o.object), rv });
    else renumbered.push(o);
  }
  const saved = Number.isSafeInteger(doc.resourceVersion) ? doc.resourceVersion : 0;
  store.restore(kept, saved);
  for (const o of renumbered) {
    const meta = o.object.metadata as JsonObject;
    const namespace = str(meta.namespace);
    const name = str(meta.name);
    if (store.getJson(o.resource, namespace, name) !== undefined) continue;
    const rv = store.nextRv();
    meta.resourceVersion = String(rv);
    store.put(o.resource, namespace, name, JSON.stringify(o.object), rv);
  }
  return true;
}

/** Writes every stored object to `path` (atomically: a temporary file renamed over it). */
export function saveStateFile(path: string, store: Store): void {
  const doc: StateDocument = {
    kind: 'TosdkApiServerState',
    version: 1,
    resourceVersion: store.currentRv,
    objects: store.dump().map((e) => ({ resource: e.resource, object: JSON.parse(e.json) as JsonObject })),
  };
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(doc));
  renameSync(tmp, path);
}
