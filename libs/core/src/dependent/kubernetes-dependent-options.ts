import type { KubernetesResource, ResourceType } from '../api/resource-type.js';
import type { ManagedFieldsPolicy } from '../cache/managed-fields.js';
import type { InformerNamespaces } from '../event/sources/informer-event-source.js';
import type { DependentResourceOptions } from './abstract-dependent-resource.js';
import type { DependentTraits } from './dependent-resource.js';

/** The informer of a Kubernetes dependent (JOSDK's `@Informer` of `@KubernetesDependent`). */
export interface DependentInformerOptions<R extends KubernetesResource> {
  /** Name of the event source. Defaults to the dependent's name. */
  name?: string;
  /** Only secondaries matching this label selector are cached (also how several dependents of a kind keep apart). Defaults to all. */
  labelSelector?: string;
  /** Only secondaries matching this field selector are cached. Defaults to all. */
  fieldSelector?: string;
  /** Namespaces to watch. Defaults to `'sameAsController'`. */
  namespaces?: InformerNamespaces;
  /** An added secondary triggers only when this accepts it. Defaults to accept. */
  onAddFilter?: (obj: R) => boolean;
  /** An updated secondary triggers only when this accepts it. Defaults to accept. */
  onUpdateFilter?: (newObj: R, oldObj: R) => boolean;
  /** A deleted secondary triggers only when this accepts it. Defaults to accept. */
  onDeleteFilter?: (obj: R, finalStateUnknown: boolean) => boolean;
  /** Every event triggers only when this accepts the object too. Defaults to accept. */
  genericFilter?: (obj: R) => boolean;
  /** What the cache keeps of managedFields. Defaults to `keepOwn` (what the managed-fields matcher needs). */
  managedFields?: ManagedFieldsPolicy;
}

/** How a secondary is written. */
export type DependentMatcherKind = 'managedFields' | 'wholeObject';

/**
 * Configuration of a Kubernetes dependent (JOSDK's `@KubernetesDependent`), passed to its
 * constructor.
 *
 * @typeParam R - the secondary kind.
 */
export interface KubernetesDependentOptions<R extends KubernetesResource> extends DependentResourceOptions {
  /** The secondary kind. Required. */
  resourceType: ResourceType<R>;
  /** The informer. Defaults to one on the controller's namespaces with no selector. */
  informer?: DependentInformerOptions<R>;
  /** Write with server-side apply (else create and update). Defaults to true. */
  useSSA?: boolean;
  /**
   * What a create does when an object of that name exists that is not this dependent's secondary.
   * Unset (the default, as JOSDK's default `createResourceOnlyIfNotExistingWithSSA`): with SSA the
   * create is an apply holding `resourceVersion: "1"`, which such an object fails, so it is left as
   * it is and the reconciliation fails with a `DependentResourceError` (`SecondaryNameTaken`).
   * `true`: a plain create; such an object is left as it is and taken as the result, without error.
   * `false`: a forced apply takes such an object over (JOSDK's `createResourceOnlyIfNotExistingWithSSA
   * = false`). Without SSA a create is a plain create, which fails on such an object.
   */
  createOnlyIfMissing?: boolean;
  /** How actual and desired are compared. Defaults to `managedFields` with SSA, `wholeObject` without. */
  matcher?: DependentMatcherKind;
  /**
   * With the whole-object matcher, require the desired labels and annotations on the object (others'
   * entries are fine), as JOSDK's `GenericKubernetesResourceMatcher`; false ignores them, so a change
   * of only labels or annotations is never written. Defaults to true.
   */
  matchLabelsAndAnnotations?: boolean;
  /**
   * Annotation keys naming the primary on secondaries that carry no owner reference. Defaults to
   * `tosdk.io/primary-name` and `tosdk.io/primary-namespace` plus the primary's kind under
   * `tosdk.io/primary-type` (`DEFAULT_PRIMARY_TYPE_ANNOTATION`), so a secondary never maps to a
   * primary of another kind with the same name. With custom keys the kind is written (and checked) only when `type` names
   * its key.
   */
  annotationKeys?: { name: string; namespace?: string; type?: string };
  /** Field manager of the writes. Defaults to the controller's. */
  fieldManager?: string;
  /** What the framework may do. Defaults to the class's (read-only for a plain `KubernetesDependentResource`). */
  traits?: DependentTraits;
}
