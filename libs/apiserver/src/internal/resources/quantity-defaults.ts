import type { JsonObject } from '../../types.js';
import { errors } from '../common/errors.js';
import { isObject } from '../common/json.js';
import { QuantityError, canonicalQuantity } from '../../quantity/quantity.js';

/**
 * Resource quantities of built-in kinds rewritten to their canonical form, as kube-apiserver does
 * when it decodes them (`2000m` → `2`, `1024Mi` → `1Gi`, a JSON number `2` → `"2"`); a value that is
 * not a quantity is a 400, as kube's decoder answers.
 */
function canonical(v: unknown, kind: string): string {
  try {
    // kube's Quantity.UnmarshalJSON parses a string's text, and any other JSON value's raw text
    // (`true`, `{"a":1}`), which is no quantity
    return canonicalQuantity(typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v));
  } catch (err) {
    if (!(err instanceof QuantityError)) throw err;
    throw errors.badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${err.message}`);
  }
}

function canonicalizeList(list: unknown, kind: string): void {
  if (!isObject(list)) return;
  for (const [name, v] of Object.entries(list)) {
    // a null is no value (omitted when the object is written back)
    if (v === null || v === undefined) continue;
    list[name] = canonical(v, kind);
  }
}

/** A `resource.Quantity` field of `holder` (a pointer field: absent or null stays as it is). */
function canonicalizeField(holder: unknown, key: string, kind: string): void {
  if (!isObject(holder)) return;
  const v = holder[key];
  if (v === null || v === undefined) return;
  holder[key] = canonical(v, kind);
}

/** The divisors of downward API items (a downwardAPI volume's, or a projected volume source's). */
function canonicalizeDownwardItems(downwardAPI: unknown, kind: string): void {
  const items = isObject(downwardAPI) ? downwardAPI.items : undefined;
  if (Array.isArray(items))
    for (const item of items) if (isObject(item)) canonicalizeField(item.resourceFieldRef, 'divisor', kind);
}

function canonicalizeRequirements(r: unknown, kind: string): void {
  if (!isObject(r)) return;
  canonicalizeList(r.limits, kind);
  canonicalizeList(r.requests, kind);
}

/**
 * Canonicalizes the quantities of a PodSpec: containers' (init, ephemeral) resources and env
 * resource-field divisors, overhead, pod resources, volumes' emptyDir size limits, downward API
 * divisors (also in projected volumes) and ephemeral volumes' claims.
 */
export function canonicalizePodSpecQuantities(spec: JsonObject, kind: string): void {
  for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
    const cs = spec[key];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isObject(c)) continue;
      canonicalizeRequirements(c.resources, kind);
      // env values from a resource field: their divisor
      if (Array.isArray(c.env))
        for (const e of c.env)
          if (isObject(e) && isObject(e.valueFrom))
            canonicalizeField(e.valueFrom.resourceFieldRef, 'divisor', kind);
    }
  }
  canonicalizeList(spec.overhead, kind);
  canonicalizeRequirements(spec.resources, kind);
  const volumes = spec.volumes;
  if (Array.isArray(volumes))
    for (const v of volumes) {
      if (!isObject(v)) continue;
      canonicalizeField(v.emptyDir, 'sizeLimit', kind);
      canonicalizeDownwardItems(v.downwardAPI, kind);
      const sources = isObject(v.projected) ? v.projected.sources : undefined;
      if (Array.isArray(sources))
        for (const source of sources)
          if (isObject(source)) canonicalizeDownwardItems(source.downwardAPI, kind);
      // generic ephemeral volumes' claim templates
      const claim = isObject(v.ephemeral) ? v.ephemeral.volumeClaimTemplate : undefined;
      if (isObject(claim)) canonicalizeClaimQuantities(claim, kind);
    }
}

/** Canonicalizes a PersistentVolumeClaim spec's (or template's) storage quantities. */
export function canonicalizeClaimQuantities(claim: JsonObject, kind: string): void {
  if (isObject(claim.spec)) canonicalizeRequirements(claim.spec.resources, kind);
  if (isObject(claim.status)) canonicalizeList(claim.status.capacity, kind);
}
