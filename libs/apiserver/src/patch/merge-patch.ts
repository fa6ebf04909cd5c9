/**
 * RFC 7386 JSON merge patch (`application/merge-patch+json`).
 */
import type { JsonObject } from '../types.js';
import { PatchError } from './patch-error.js';
import { cloneJson, isJsonObject, jsonTypeName } from './internal/json-value.js';

/**
 * Applies an RFC 7386 merge patch to `target` and returns the patched copy; `target` is not changed.
 * Objects merge key by key, `null` deletes a key, arrays and scalars replace the old value whole.
 *
 * kube-apiserver answers 400 BadRequest when the patch is not a JSON object (`jsonpatch.ErrBadJSONPatch`);
 * RFC 7386 would let a non-object patch replace the whole document, which cannot be a Kubernetes object.
 *
 * @param target - the object to patch.
 * @param patch - the parsed request body; must be a JSON object.
 * @returns the patched object (a deep copy).
 * @throws {@link PatchError} `NotAnObject` (400) when `patch` is not an object.
 */
export function applyMergePatch(target: JsonObject, patch: unknown): JsonObject {
  if (!isJsonObject(patch)) {
    throw new PatchError(
      'NotAnObject',
      400,
      `a merge patch must be a JSON object, not ${jsonTypeName(patch)}`,
    );
  }
  return mergeInto(cloneJson(target), patch);
}

/** Merges `patch` into `out` (a copy the caller owns: the target is copied once, not once per level). */
function mergeInto(out: JsonObject, patch: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
    } else if (isJsonObject(value)) {
      const current = out[key];
      out[key] = mergeInto(isJsonObject(current) ? current : {}, value);
    } else {
      out[key] = cloneJson(value);
    }
  }
  return out;
}
