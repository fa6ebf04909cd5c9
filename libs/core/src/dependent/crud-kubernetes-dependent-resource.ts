import type { KubernetesResource } from '../api/resource-type.js';
import type { KubernetesDependentOptions } from './kubernetes-dependent-options.js';
import { KubernetesDependentResource } from './kubernetes-dependent-resource.js';

/**
 * A Kubernetes dependent that is created, updated and garbage collected through an owner
 * reference to its primary (JOSDK's `CRUDKubernetesDependentResource`: Creator, Updater,
 * GarbageCollected). Workflows delete it only when a reconcile precondition turns false.
 */
export abstract class CRUDKubernetesDependentResource<
  R extends KubernetesResource,
  P extends KubernetesResource = KubernetesResource,
> extends KubernetesDependentResource<R, P> {
  constructor(options: KubernetesDependentOptions<R>) {
    super(options, { creator: true, updater: true, deleter: true, garbageCollected: true });
  }
}

/**
 * A Kubernetes dependent that is created, updated and deleted by the workflow, without owner
 * reference (JOSDK's `CRUDNoGCKubernetesDependentResource`: Creator, Updater, Deleter). Use it when
 * deletion order matters (with {@link KubernetesResourceDeletedCondition}) or the secondary lives
 * in another namespace; the primary then gets a finalizer.
 */
export abstract class CRUDNoGCKubernetesDependentResource<
  R extends KubernetesResource,
  P extends KubernetesResource = KubernetesResource,
> extends KubernetesDependentResource<R, P> {
  constructor(options: KubernetesDependentOptions<R>) {
    super(options, { creator: true, updater: true, deleter: true });
  }
}
