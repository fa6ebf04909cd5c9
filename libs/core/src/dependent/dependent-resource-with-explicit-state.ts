import type { KubernetesResource, ResourceType } from '../api/resource-type.js';

/**
 * An external dependent whose id is kept in a Kubernetes resource, usually a ConfigMap or a Secret
 * (JOSDK's `DependentResourceWithExplicitState`). After creating the external resource the
 * framework creates {@link DependentResourceWithExplicitState.stateResource}; after deleting it,
 * the state resource goes too. Register an event source for the state kind (so the context can
 * read it), and pick the external resource by the stored id in `selectTargetSecondaryResource`.
 *
 * @typeParam R - the external resource type.
 * @typeParam P - the primary kind.
 * @typeParam S - the state resource kind.
 */
export interface DependentResourceWithExplicitState<
  R,
  P extends KubernetesResource,
  S extends KubernetesResource,
> {
  /** The state resource's kind. */
  readonly stateResourceType: ResourceType<S>;
  /**
   * The state resource of a primary: with `resource` (just created) the full object to store; with
   * `undefined` only its identity (name, namespace) is read.
   */
  stateResource(primary: P, resource: R | undefined): S;
}

/** Whether a dependent keeps explicit state. */
export function isDependentResourceWithExplicitState<R, P extends KubernetesResource>(
  value: unknown,
): value is DependentResourceWithExplicitState<R, P, KubernetesResource> {
  const v = value as Partial<DependentResourceWithExplicitState<R, P, KubernetesResource>>;
  return typeof v?.stateResource === 'function' && typeof v.stateResourceType === 'object';
}
