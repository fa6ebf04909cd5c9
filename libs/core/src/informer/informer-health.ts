/**
 * Where an informer is:
 * - `stopped`: not started, or stopped.
 * - `starting`: the first list is running.
 * - `synced`: the cache holds a complete list and the watch is connected (or being resumed after a clean end).
 * - `reconnecting`: the cache was complete but the stream broke; it is being re-established (the cache may be stale).
 * - `failed`: the first list failed (with `failFast` the informer gave up; without it, it keeps retrying).
 */
export type InformerStatus = 'stopped' | 'starting' | 'synced' | 'reconnecting' | 'failed';

/** The health of an informer, for runtime info and health checks. */
export interface InformerHealth {
  /** True only when `status` is `synced`. */
  healthy: boolean;
  /** See {@link InformerStatus}. */
  status: InformerStatus;
  /** Why the informer is not healthy (the last failure), if it is not. */
  reason?: string;
  /** Clock time (ms) of the last status change. */
  since: number;
}
