import type { KubernetesResource } from '../../api/resource-type.js';
import { deepEqual as jsonEqual } from '../../dependent/internal/json.js';

/**
 * What an own write did, so that the event carrying the resourceVersion it returned can be judged
 * exactly (see {@link OwnWriteTracker}). A write that returns resourceVersion `r` did not
 * necessarily create `r`: a write that changes nothing (a merge patch with the values the object
 * already has, an apply of fields that already hold those values) gets the object's current
 * version back, which may be someone else's change. The event carrying `r` is therefore suppressed
 * only when one of these proves that `r` holds nothing but our change:
 * - {@link OwnWrite.certain}: the request itself proves it (a create that succeeded; a write
 *   conditional on resourceVersion `v` that returned another version `r`, since the server applied
 *   it to `v` and created `r`);
 * - {@link OwnWrite.explains}: the event's transition (the informer's previous object → the object
 *   at `r`) is exactly what this write makes of the previous object, all server-maintained fields
 *   ignored ({@link comparable}). A change by someone else (a spec, label or data change, a
 *   deletion mark) is never explained, unless it set exactly the paths and values our write sets,
 *   in which case the object is what our write alone would have made it and nothing is lost.
 * When neither holds, the event is someone else's: at most one extra reconciliation, never a lost one.
 */
export interface OwnWrite<R extends KubernetesResource = KubernetesResource> {
  /** Whether `before` → `after` is exactly this write's effect on `before` (undefined: the object was absent). */
  explains(before: R | undefined, after: R): boolean;
  /** Whether the request proves that it created `result` (default: it does not). */
  certain?(result: R): boolean;
}

type Obj = Record<string, unknown>;

/** Metadata the server maintains, which no write sets: left out of every comparison. */
const SERVER_MAINTAINED = new Set([
  'resourceVersion',
  'managedFields',
  'generation',
  'creationTimestamp',
  'uid',
  'selfLink',
]);

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep equality of JSON values (members holding `undefined` count as absent): the dependents' `deepEqual`. */
export { jsonEqual };

/** The object without the metadata the server maintains (resourceVersion, managedFields, generation, ...). */
export function comparable(obj: unknown): Obj {
  if (!isObject(obj)) return {};
  const out: Obj = { ...obj };
  const source = obj.metadata;
  if (isObject(source)) {
    // built without `delete`, which would turn the copy into a slow dictionary-mode object
    const metadata: Obj = {};
    for (const key in source) {
      if (!Object.prototype.hasOwnProperty.call(source, key) || SERVER_MAINTAINED.has(key)) continue;
      if (key === '__proto__') Object.defineProperty(metadata, key, { value: source[key], enumerable: true });
      else metadata[key] = source[key];
    }
    out.metadata = metadata;
  }
  return out;
}

/** RFC 7386: `patch` merged into `target` (a copy; `null` removes, arrays replace). */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Obj = isObject(target) ? { ...target } : {};
  for (const key in patch) {
    if (!hasOwn(patch, key)) continue;
    const value = patch[key];
    if (value === undefined) continue;
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

/**
 * Whether `comparable(applyMergePatch(target, patch))` equals `comparable(after)` (see
 * {@link jsonEqual}), computed without copying the objects: every status patch is judged this way,
 * and the copies were a measurable share of an operator's allocations (issue 15 §2). Only the
 * metadata (small) is built as `comparable` builds it.
 */
export function mergePatchGives(target: unknown, patch: unknown, after: unknown): boolean {
  if (!isObject(patch)) return jsonEqual(comparable(patch), comparable(after));
  const t = isObject(target) ? target : {};
  const a = isObject(after) ? after : {};
  const meta = patch.metadata;
  const mergedMeta =
    meta === undefined ? t.metadata : meta === null ? undefined : applyMergePatch(t.metadata, meta);
  if (!metadataEqual(mergedMeta, a.metadata)) return false;
  return patchedEquals(t, patch, a, 'metadata');
}

/** A metadata value as {@link comparable} leaves it. */
function metadataView(value: unknown): unknown {
  return isObject(value) ? comparable({ metadata: value }).metadata : value;
}

/**
 * Whether `jsonEqual(metadataView(x), metadataView(y))`, without building the views: the members
 * the server maintains are skipped on both sides while walking (two objects fewer per judgement,
 * and no copy of their other members).
 */
function metadataEqual(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (!isObject(x) || !isObject(y)) return jsonEqual(metadataView(x), metadataView(y));
  // a view's members are the object's own ones but these; a member it lacks reads as the object does
  let defined = 0;
  for (const key in x) {
    if (!hasOwn(x, key) || SERVER_MAINTAINED.has(key)) continue;
    const value = x[key];
    if (value === undefined) continue;
    defined++;
    if (!jsonEqual(value, y[key])) return false;
  }
  for (const key in y) {
    if (!hasOwn(y, key) || SERVER_MAINTAINED.has(key) || y[key] === undefined) continue;
    if (--defined < 0) return false;
  }
  return defined === 0;
}

/** Whether `applyMergePatch(target, patch)` equals `after` (an object patch), member `skip` left out. */
function patchedEquals(target: Obj, patch: Obj, after: Obj, skip?: string): boolean {
  for (const key in patch) {
    if (!hasOwn(patch, key) || key === skip) continue;
    const value = patch[key];
    if (value === undefined) continue;
    if (value === null) {
      if (after[key] !== undefined) return false;
    } else if (!isObject(value)) {
      if (!jsonEqual(value, after[key])) return false;
    } else {
      const next = after[key];
      const base = target[key];
      if (!isObject(next) || !patchedEquals(isObject(base) ? base : {}, value, next)) return false;
    }
  }
  // members the patch leaves alone keep the target's value
  for (const key in target) {
    if (!hasOwn(target, key) || key === skip || patched(patch, key)) continue;
    if (!jsonEqual(target[key], after[key])) return false;
  }
  // and the result has no other member
  for (const key in after) {
    if (!hasOwn(after, key) || key === skip || after[key] === undefined) continue;
    if (!patched(patch, key) && !hasOwn(target, key)) return false;
  }
  return true;
}

function patched(patch: Obj, key: string): boolean {
  return hasOwn(patch, key) && patch[key] !== undefined;
}

function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** One RFC 6902 operation. */
interface PatchOp {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new Error(`bad JSON pointer ${path}`);
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function copyJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** RFC 6902 applied to a copy of `doc`; throws where the server would refuse (a failed `test`, a missing path). */
export function applyJsonPatch(doc: unknown, ops: readonly PatchOp[]): unknown {
  let root: unknown = copyJson(doc) ?? {};
  const get = (tokens: string[]): unknown => {
    let at: unknown = root;
    for (const t of tokens) {
      if (Array.isArray(at)) at = at[Number(t)];
      else if (isObject(at)) at = at[t];
      else return undefined;
    }
    return at;
  };
  const parentOf = (tokens: string[]): unknown => {
    const parent = get(tokens.slice(0, -1));
    if (!Array.isArray(parent) && !isObject(parent)) throw new Error('missing parent');
    return parent;
  };
  const remove = (tokens: string[]): unknown => {
    const parent = parentOf(tokens);
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent)) {
      const i = Number(last);
      if (!(i >= 0 && i < parent.length)) throw new Error('no such index');
      return parent.splice(i, 1)[0];
    }
    const o = parent as Obj;
    if (!(last in o)) throw new Error('no such member');
    const value = o[last];
    delete o[last];
    return value;
  };
  const add = (tokens: string[], value: unknown): void => {
    if (tokens.length === 0) {
      root = value;
      return;
    }
    const parent = parentOf(tokens);
    const last = tokens[tokens.length - 1];
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (!(i >= 0 && i <= parent.length)) throw new Error('bad index');
      parent.splice(i, 0, value);
    } else (parent as Obj)[last] = value;
  };
  for (const op of ops) {
    const tokens = pointer(op.path);
    switch (op.op) {
      case 'add':
        add(tokens, copyJson(op.value));
        break;
      case 'remove':
        remove(tokens);
        break;
      case 'replace':
        remove(tokens);
        add(tokens, copyJson(op.value));
        break;
      case 'move':
        add(tokens, remove(pointer(op.from ?? '')));
        break;
      case 'copy':
        add(tokens, copyJson(get(pointer(op.from ?? ''))));
        break;
      case 'test':
        if (!jsonEqual(get(tokens), op.value)) throw new Error('test failed');
        break;
      default:
        throw new Error(`unknown op ${op.op}`);
    }
  }
  return root;
}

/**
 * Whether `before` → `after` changes only what an apply of `intent` sets, to the values it sets:
 * equal subtrees are fine; objects are walked member by member; any other difference must equal the
 * intent's value there, or (lists merged by SSA, e.g. finalizers) keep every item that is not ours
 * in its order and hold every item of ours. A field removed (even one we owned before) is not
 * explained.
 */
function explainedByIntent(before: unknown, after: unknown, intent: unknown): boolean {
  if (jsonEqual(before, after)) return true;
  if (intent === undefined || after === undefined) return false;
  if (isObject(after) && isObject(intent) && (before === undefined || isObject(before))) {
    const b: Obj = before ?? {};
    // every key of either side, without building their union
    for (const key of Object.keys(after))
      if (!explainedByIntent(b[key], after[key], intent[key])) return false;
    for (const key of Object.keys(b)) {
      if (Object.prototype.hasOwnProperty.call(after, key)) continue;
      if (!explainedByIntent(b[key], undefined, intent[key])) return false;
    }
    return true;
  }
  if (jsonEqual(after, intent)) return true;
  if (Array.isArray(after) && Array.isArray(intent) && (before === undefined || Array.isArray(before))) {
    const ours = (x: unknown): boolean => intent.some((i) => jsonEqual(i, x));
    if (!intent.every((i) => after.some((x) => jsonEqual(x, i)))) return false;
    return jsonEqual(
      after.filter((x) => !ours(x)),
      (before ?? []).filter((x) => !ours(x)),
    );
  }
  return false;
}

/**
 * `explainedByIntent(comparable(before), comparable(after), intent)` without the copies: the top
 * level and the metadata are walked with the members the server maintains skipped (every apply's
 * event is judged this way).
 */
function explainedComparable(before: unknown, after: unknown, intent: Obj): boolean {
  // comparable() of anything else is {}
  const b: Obj = isObject(before) ? before : {};
  const a: Obj = isObject(after) ? after : {};
  if (comparableEqual(b, a)) return true;
  // both sides and the intent are objects here, as comparable() makes them
  for (const key in a) {
    if (!hasOwn(a, key)) continue;
    if (!explainedMember(key, b[key], a[key], intent[key])) return false;
  }
  for (const key in b) {
    if (!hasOwn(b, key) || hasOwn(a, key)) continue;
    if (!explainedMember(key, b[key], undefined, intent[key])) return false;
  }
  return true;
}

function explainedMember(key: string, before: unknown, after: unknown, intent: unknown): boolean {
  return key === 'metadata'
    ? explainedMetadata(before, after, intent)
    : explainedByIntent(before, after, intent);
}

/** `explainedByIntent(metadataView(before), metadataView(after), intent)`, without the views where it can. */
function explainedMetadata(before: unknown, after: unknown, intent: unknown): boolean {
  if (!isObject(after) || !isObject(intent) || (before !== undefined && !isObject(before)))
    return explainedByIntent(metadataView(before), metadataView(after), intent);
  if (metadataEqual(before, after)) return true;
  const b: Obj = before ?? {};
  for (const key in after) {
    if (!hasOwn(after, key) || SERVER_MAINTAINED.has(key)) continue;
    if (!explainedByIntent(b[key], after[key], intent[key])) return false;
  }
  for (const key in b) {
    if (!hasOwn(b, key) || SERVER_MAINTAINED.has(key) || hasOwn(after, key)) continue;
    if (!explainedByIntent(b[key], undefined, intent[key])) return false;
  }
  return true;
}

/** `jsonEqual(comparable(x), comparable(y))` for objects, without the copies. */
function comparableEqual(x: Obj, y: Obj): boolean {
  if (x === y) return true;
  let defined = 0;
  for (const key in x) {
    if (!hasOwn(x, key)) continue;
    const value = x[key];
    if (value === undefined) continue;
    defined++;
    if (!(key === 'metadata' ? metadataEqual(value, y[key]) : jsonEqual(value, y[key]))) return false;
  }
  for (const key in y) {
    if (!hasOwn(y, key) || y[key] === undefined) continue;
    if (--defined < 0) return false;
  }
  return defined === 0;
}

function versionOf(obj: KubernetesResource | undefined): string | undefined {
  return obj?.metadata?.resourceVersion;
}

/** A write conditional on `resourceVersion` (optimistic locking): proves itself when it returned another version. */
function locked<R extends KubernetesResource>(written: KubernetesResource, write: OwnWrite<R>): OwnWrite<R> {
  const at = versionOf(written);
  if (!at) return write;
  return {
    explains: (before, after) => write.explains(before, after),
    certain: (result) => versionOf(result) !== undefined && versionOf(result) !== at,
  };
}

/** Own writes of every kind, as {@link OwnWrite}s. */
export const OwnWrites = {
  /** A create: a create that succeeded made the object. */
  create<R extends KubernetesResource>(): OwnWrite<R> {
    return { explains: (before) => before === undefined, certain: () => true };
  },

  /** A server-side apply of `intent` (`subresource: 'status'`: only its status counts). */
  apply<R extends KubernetesResource>(intent: KubernetesResource, subresource?: string): OwnWrite<R> {
    const i = intent as Obj;
    const meta = isObject(i.metadata) ? i.metadata : {};
    const wanted = comparable(
      subresource === 'status'
        ? {
            apiVersion: i.apiVersion,
            kind: i.kind,
            metadata: { name: meta.name, namespace: meta.namespace },
            status: i.status,
          }
        : intent,
    );
    return {
      explains: (before, after) => explainedComparable(before, after, wanted),
    };
  },

  /** A JSON merge patch (`subresource: 'status'`: only its status member counts). */
  mergePatch<R extends KubernetesResource>(patch: object, subresource?: string): OwnWrite<R> {
    const effective = subresource === 'status' ? { status: (patch as Obj).status } : patch;
    return {
      explains: (before, after) => before !== undefined && mergePatchGives(before, effective, after),
    };
  },

  /** A JSON patch; proves itself when it tests `/metadata/resourceVersion` and returned another version. */
  jsonPatch<R extends KubernetesResource>(operations: readonly PatchOp[]): OwnWrite<R> {
    const explains = (before: R | undefined, after: R): boolean => {
      if (before === undefined) return false;
      try {
        const expected = applyJsonPatch(
          comparable(before),
          operations.filter((o) => o.path !== '/metadata/resourceVersion'),
        );
        return jsonEqual(comparable(expected), comparable(after));
      } catch {
        return false;
      }
    };
    const test = operations.find((o) => o.op === 'test' && o.path === '/metadata/resourceVersion');
    const at = typeof test?.value === 'string' ? test.value : undefined;
    if (!at) return { explains };
    return { explains, certain: (result) => versionOf(result) !== undefined && versionOf(result) !== at };
  },

  /** A replace (PUT) with `body` (`subresource: 'status'`: only its status counts); conditional when the body carries a resourceVersion. */
  update<R extends KubernetesResource>(body: KubernetesResource, subresource?: string): OwnWrite<R> {
    const write: OwnWrite<R> = {
      explains: (before, after) => {
        if (before === undefined) return false;
        const b = before as unknown as Obj;
        const expected: Obj =
          subresource === 'status'
            ? { ...b, status: (body as Obj).status }
            : { ...(body as Obj), status: (body as Obj).status ?? b.status };
        return jsonEqual(comparable(expected), comparable(after));
      },
    };
    return locked(body, write);
  },

  /** A write whose effect is unknown: never suppresses its event. */
  unknown<R extends KubernetesResource>(): OwnWrite<R> {
    return { explains: () => false };
  },
};
