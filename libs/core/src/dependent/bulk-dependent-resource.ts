import type { Context } from '../api/context.js';
import type { KubernetesResource } from '../api/resource-type.js';

/**
 * A dependent managing a varying number of secondaries (JOSDK's `BulkDependentResource`): the
 * desired ones by key; the framework creates the missing, updates those that do not match and (for
 * deleters) deletes those no longer desired. Implemented by a class extending
 * {@link AbstractDependentResource} (or a Kubernetes one).
 *
 * @typeParam R - the secondary's type.
 * @typeParam P - the primary kind.
 */
export interface BulkDependentResource<R, P extends KubernetesResource = KubernetesResource> {
  /** The desired secondaries by key. Not called for a read-only bulk dependent (no creator, updater or deleter traits). */
  desiredResources(primary: P, context: Context<P>): Map<string, R> | Promise<Map<string, R>>;
  /** The actual secondaries by the same keys. */
  getSecondaryResources(primary: P, context: Context<P>): Map<string, R>;
  /** Deletes one secondary that is no longer desired (and, on cleanup, every one). */
  deleteTargetResource(primary: P, resource: R, key: string, context: Context<P>): Promise<void>;
  /** Compares one actual secondary with its desired state. Defaults to the dependent's usual matching. */
  matchBulk?(actual: R, desired: R, primary: P, context: Context<P>): boolean | Promise<boolean>;
}

/** Whether a dependent is a {@link BulkDependentResource}. */
export function isBulkDependentResource<R, P extends KubernetesResource>(
  value: unknown,
): value is BulkDependentResource<R, P> {
  const v = value as Partial<BulkDependentResource<R, P>>;
  return (
    typeof v?.desiredResources === 'function' &&
    typeof v.getSecondaryResources === 'function' &&
    typeof v.deleteTargetResource === 'function'
  );
}
