import type { JsonObject } from '../../types.js';
import { errors } from '../common/errors.js';
import { clone, isObject, metaOf } from '../common/json.js';
import type { ObjectService, PatchType, WriteContext } from './object-service.js';
import type { Peers } from '../common/peers.js';
import type { ResourceType, ResourceVersion, ScalePaths } from '../resources/resource-type.js';
import { labelSelectorFromObject, selectorToString } from '../../selectors/index.js';

function segments(path: string): string[] {
  return path
    .replace(/^\./, '')
    .split('.')
    .filter((s) => s !== '');
}

function read(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const s of segments(path)) {
    if (!isObject(cur)) return undefined;
    cur = cur[s];
  }
  return cur;
}

function write(obj: JsonObject, path: string, value: unknown): void {
  const segs = segments(path);
  let cur = obj;
  for (const s of segs.slice(0, -1)) {
    if (!isObject(cur[s])) cur[s] = {};
    cur = cur[s] as JsonObject;
  }
  const last = segs.at(-1);
  if (last !== undefined) cur[last] = value;
}

/**
 * A label selector object as the string form a Scale reports, as kube writes it
 * (`LabelSelectorAsSelector(...).String()`: requirements sorted by key, set values sorted); a custom
 * resource's labelSelectorPath holds that string already.
 */
function selectorString(sel: unknown): string {
  if (typeof sel === 'string') return sel;
  if (!isObject(sel)) return '';
  try {
    return selectorToString(labelSelectorFromObject(sel));
  } catch {
    // not a selector kube would have stored (validation refuses it first): nothing to report
    return '';
  }
}

/** A label map as `labels.SelectorFromSet(...).String()` writes it: `k=v` sorted by key, comma-joined. */
function labelSetString(set: unknown): string {
  if (!isObject(set)) return '';
  return Object.keys(set)
    .sort()
    .map((k) => `${k}=${typeof set[k] === 'string' ? set[k] : ''}`)
    .join(',');
}

/** The `autoscaling/v1` Scale of an object. */
export function scaleOf(obj: JsonObject, paths: ScalePaths): JsonObject {
  const m = metaOf(obj);
  const meta: JsonObject = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'])
    if (m[k] !== undefined) meta[k] = m[k];
  const replicas = read(obj, paths.specReplicasPath);
  const status: JsonObject = {
    replicas:
      typeof read(obj, paths.statusReplicasPath) === 'number' ? read(obj, paths.statusReplicasPath) : 0,
  };
  if (paths.labelSelectorPath) {
    const raw = read(obj, paths.labelSelectorPath);
    const sel = paths.selectorIsLabelSet === true ? labelSetString(raw) : selectorString(raw);
    if (sel) status.selector = sel;
  }
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: meta,
    spec: typeof replicas === 'number' ? { replicas } : {},
    status,
  };
}

/**
 * Writes a Scale (PUT) or a patch of it: the new `spec.replicas` goes to the object's replicas
 * path, with the Scale's resourceVersion as a precondition when it has one.
 */
export function writeScale(
  service: ObjectService,
  peers: Peers,
  rt: ResourceType,
  version: ResourceVersion,
  namespace: string,
  name: string,
  paths: ScalePaths,
  change: { put: JsonObject } | { patch: unknown; type: PatchType },
  ctx: WriteContext,
): JsonObject {
  const live = service.get(rt, version, namespace, name);
  const current = scaleOf(live, paths);
  let next: JsonObject;
  if ('put' in change) next = change.put;
  else if (change.type === 'json') next = peers.patch.applyJsonPatch(clone(current), change.patch);
  else if (change.type === 'merge' || change.type === 'strategic')
    next = peers.patch.applyMergePatch(clone(current), change.patch);
  else throw errors.unsupportedMediaType('application/apply-patch+yaml');
  const spec = isObject(next.spec) ? next.spec : {};
  const replicas = spec.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw errors.invalid({ group: 'autoscaling', resource: 'scale', kind: 'Scale', name }, [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.replicas',
        message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
      },
    ]);
  }
  const updated = clone(live);
  write(updated, paths.specReplicasPath, replicas);
  const rv = isObject(next.metadata) ? next.metadata.resourceVersion : undefined;
  if (typeof rv === 'string' && rv !== '') metaOf(updated).resourceVersion = rv;
  const stored = service.update(rt, version, namespace, name, updated, ctx);
  return scaleOf(stored, paths);
}
