/**
 * Patching and server-side apply for the in-memory API server: JSON patch (RFC 6902), merge patch
 * (RFC 7386), Kubernetes strategic merge patch, and server-side apply with `metadata.managedFields`.
 * Every function is pure: inputs are never changed and results are deep copies.
 */
export { PatchError, ApplyConflictError } from './patch-error.js';
export type { PatchErrorCode, PatchErrorStatus, ApplyConflict } from './patch-error.js';
export { applyJsonPatch } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
export { builtinPatchSchema, withObjectMetaSemantics } from './builtin-patch-schema.js';
export { FieldSet, encodeFieldsV1, decodeFieldsV1, formatFieldPath } from './field-set.js';
export type { FieldPath } from './field-set.js';
export { trackUpdate, fieldSetOf } from './managed-fields.js';
export type { TrackUpdateArgs } from './managed-fields.js';
export { serverSideApply } from './server-side-apply.js';
export type { ServerSideApplyArgs } from './server-side-apply.js';
