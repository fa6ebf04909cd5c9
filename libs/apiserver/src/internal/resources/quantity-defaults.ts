import type { JsonObject } from '../../types.js';
import { errors } from '../common/errors.js';
import { isObject } from '../common/json.js';
import { QuantityError, canonicalQuantity } from '../../quantity/quantity.js';

/**
 * Resource quantities of built-in kinds rewritten to their canonical form, as kube-apiserver does
 * when it decodes them (`2000m` → `2`, `1024Mi` → `1Gi`, a JSON number `2` → `"2"`); a value that is
 * not a quantity is a 400, as kube's decoder answers.
 */
function canonicalizeList(list: unknown, kind: string): void {
  if (!isObject(list)) return;
  for (const [name, v] of Object.entries(list)) {
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    try {
      list[name] = canonicalQuantity(String(v));
    } catch (err) {
      if (!(err instanceof QuantityError)) throw err;
      throw errors.badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: ${err.message}`);
    }
  }
}

function canonicalizeRequirements(r: unknown, kind: string): void {
  if (!isObject(r)) return;
  canonicalizeList(r.limits, kind);
  canonicalizeList(r.requests, kind);
}

/** Canonicalizes the quantities of a PodSpec (containers, init and ephemeral containers, overhead, pod resources, ephemeral volumes' claims). */
export function canonicalizePodSpecQuantities(spec: JsonObject, kind: string): void {
  for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
    const cs = spec[key];
    if (Array.isArray(cs)) for (const c of cs) if (isObject(c)) canonicalizeRequirements(c.resources, kind);
  }
  canonicalizeList(spec.overhead, kind);
  canonicalizeRequirements(spec.resources, kind);
  // generic ephemeral volumes' claim templates
  const volumes = spec.volumes;
  if (Array.isArray(volumes))
    for (const v of volumes) {
      const claim = isObject(v) && isObject(v.ephemeral) ? v.ephemeral.volumeClaimTemplate : undefined;
      if (isObject(claim)) canonicalizeClaimQuantities(claim, kind);
    }
}

/** Canonicalizes a PersistentVolumeClaim spec's (or template's) storage quantities. */
export function canonicalizeClaimQuantities(claim: JsonObject, kind: string): void {
  if (isObject(claim.spec)) canonicalizeRequirements(claim.spec.resources, kind);
  if (isObject(claim.status)) canonicalizeList(claim.status.capacity, kind);
}
