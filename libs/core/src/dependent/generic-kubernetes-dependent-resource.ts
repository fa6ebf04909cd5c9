import type { KubernetesResource } from '../api/resource-type.js';
import type { DependentTraits } from './dependent-resource.js';
import type { KubernetesDependentOptions } from './kubernetes-dependent-options.js';
import { KubernetesDependentResource } from './kubernetes-dependent-resource.js';

/**
 * A Kubernetes dependent of a kind without a TypeScript model (JOSDK's
 * `GenericKubernetesDependentResource`): objects are plain {@link KubernetesResource}s and the kind
 * is any `defineResource(...)` declaration. Traits default to create, update and garbage collection.
 */
export abstract class GenericKubernetesDependentResource<
  P extends KubernetesResource = KubernetesResource,
> extends KubernetesDependentResource<KubernetesResource, P> {
  constructor(
    options: KubernetesDependentOptions<KubernetesResource>,
    traits: DependentTraits = { creator: true, updater: true, deleter: true, garbageCollected: true },
  ) {
    super(options, traits);
  }
}
