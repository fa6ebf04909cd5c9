import type { Context } from '../api/context.js';
import type { KubernetesResource } from '../api/resource-type.js';
import type { DependentResource } from '../dependent/dependent-resource.js';
import type { Condition } from './condition.js';

/**
 * A delete postcondition that holds once the dependent's secondary is gone from the cache (JOSDK's
 * `KubernetesResourceDeletedCondition`): deletion of what the dependent depends on waits for it,
 * e.g. while finalizers on the secondary hold it. Use it with a dependent that is not garbage
 * collected (`CRUDNoGCKubernetesDependentResource`). The deletion event reconciles again.
 */
export class KubernetesResourceDeletedCondition<
  P extends KubernetesResource = KubernetesResource,
> implements Condition<unknown, P> {
  isMet(dependent: DependentResource<unknown, P>, primary: P, context: Context<P>): boolean {
    return dependent.getSecondaryResource(primary, context) === undefined;
  }
}
