/**
 * Kubernetes garbage collection (ownerReferences, propagation policies) as a pure planner.
 *
 * @packageDocumentation
 */
export { planGarbageCollection, deletionFinalizers } from './planner.js';
export { GarbageCollectionError } from './gc-error.js';
export type { GarbageCollectionErrorCode } from './gc-error.js';
export { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './types.js';
export type { GcDeletion, GcOptions, GcPlan, GcWrite, PropagationPolicy } from './types.js';
