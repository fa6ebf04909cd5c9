import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import { bindableToPrimaryType } from './internal/typed-mapper.js';

/**
 * Maps a secondary resource to the primaries it concerns (JOSDK's `SecondaryToPrimaryMapper`).
 * An empty result means the event is irrelevant: nothing is reconciled. A mapper that throws is
 * logged with the event source and the secondary, and the event is dropped.
 */
export type SecondaryToPrimaryMapper<R extends KubernetesResource = KubernetesResource> = (
  secondary: R,
) => ResourceID[];

/**
 * Maps a primary to the IDs of its secondaries (JOSDK's `PrimaryToSecondaryMapper`): needed for
 * many-to-one and many-to-many relations, where the primary names its secondaries.
 */
export type PrimaryToSecondaryMapper<P extends KubernetesResource = KubernetesResource> = (
  primary: P,
) => ResourceID[];

const INDEXABLE = Symbol.for('tosdk.mapper.indexable');

/** Default annotation naming the primary of a secondary (ours; JOSDK uses `io.javaoperatorsdk/primary-name`). */
export const DEFAULT_PRIMARY_NAME_ANNOTATION = 'tosdk.io/primary-name';
/** Default annotation naming the primary's namespace (ours; JOSDK uses `io.javaoperatorsdk/primary-namespace`). */
export const DEFAULT_PRIMARY_NAMESPACE_ANNOTATION = 'tosdk.io/primary-namespace';
/**
 * Default annotation naming the kind of a secondary's primary (`<Kind>.<group>`, e.g.
 * `Widget.test.tosdk.io`, or `Secret` for the core group), written by {@link primaryAnnotations} and
 * by Kubernetes dependents that map by annotations (ours; JOSDK uses `io.javaoperatorsdk/primary-type`).
 * A secondary annotated with another kind maps to no primary; one without it (written before) maps
 * by name and namespace.
 */
export const DEFAULT_PRIMARY_TYPE_ANNOTATION = 'tosdk.io/primary-type';

/** The value of {@link DEFAULT_PRIMARY_TYPE_ANNOTATION} for a kind: `<Kind>.<group>`, or `<Kind>` for the core group. */
export function primaryTypeAnnotationValue(type: { kind: string; group: string }): string {
  return type.group ? `${type.kind}.${type.group}` : type.kind;
}

/**
 * Whether a mapper depends on the secondary alone (so the event source can index secondaries by
 * primary with it). The built-in {@link Mappers} are; custom code is only when wrapped with
 * {@link Mappers.indexable}.
 */
export function isIndexableMapper(mapper: SecondaryToPrimaryMapper<never>): boolean {
  return (mapper as unknown as Record<symbol, unknown>)[INDEXABLE] === true;
}

function markIndexable<R extends KubernetesResource>(
  fn: SecondaryToPrimaryMapper<R>,
): SecondaryToPrimaryMapper<R> {
  Object.defineProperty(fn, INDEXABLE, { value: true });
  return fn;
}

function groupOf(apiVersion: string | undefined): string {
  if (!apiVersion) return '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function fromKeys<R extends KubernetesResource>(
  where: 'annotations' | 'labels',
  nameKey: string,
  namespaceKey: string | undefined,
  primaryType?: string,
): SecondaryToPrimaryMapper<R> {
  if (!nameKey) throw new TypeError(`the ${where} key of the primary's name must not be empty`);
  return markIndexable((secondary: R) => {
    const values = secondary.metadata?.[where];
    const name = values?.[nameKey];
    if (!name) return [];
    if (primaryType !== undefined) {
      const type = secondary.metadata?.annotations?.[DEFAULT_PRIMARY_TYPE_ANNOTATION];
      if (type !== undefined && type !== primaryType) return [];
    }
    const namespace = (namespaceKey ? values?.[namespaceKey] : undefined) || secondary.metadata?.namespace;
    return [new ResourceID(name, namespace || undefined)];
  });
}

/**
 * The built-in secondary-to-primary mappers (JOSDK's `Mappers`). Each depends on the secondary
 * alone, so the event source also uses it to find a primary's secondaries.
 */
export const Mappers = Object.freeze({
  /**
   * The owners of kind `primaryType` in `metadata.ownerReferences` (any version of its group): the
   * default. A namespaced primary is looked up in the secondary's namespace; references to other
   * kinds are ignored.
   */
  fromOwnerReferences<R extends KubernetesResource>(primaryType: ResourceType): SecondaryToPrimaryMapper<R> {
    return markIndexable((secondary: R) => {
      const refs = secondary.metadata?.ownerReferences;
      if (!refs?.length) return [];
      const namespace = primaryType.namespaced ? secondary.metadata?.namespace || undefined : undefined;
      const ids: ResourceID[] = [];
      for (const ref of refs) {
        if (ref.kind === primaryType.kind && groupOf(ref.apiVersion) === primaryType.group && ref.name)
          ids.push(new ResourceID(ref.name, namespace));
      }
      return ids;
    });
  },
  /**
   * The primary named by annotations on the secondary (works across namespaces and clusters).
   * @param nameKey - annotation holding the primary's name.
   * @param namespaceKey - annotation holding its namespace; when absent or unset, the secondary's namespace
   *   (an `InformerEventSource` of a cluster-scoped primary kind drops the namespace).
   */
  fromAnnotation<R extends KubernetesResource>(
    nameKey: string,
    namespaceKey?: string,
  ): SecondaryToPrimaryMapper<R> {
    return fromKeys<R>('annotations', nameKey, namespaceKey);
  },
  /**
   * {@link Mappers.fromAnnotation} with `tosdk.io/primary-name` and `tosdk.io/primary-namespace`
   * (what {@link primaryAnnotations} writes), for primaries of one kind: a secondary whose
   * `tosdk.io/primary-type` annotation names another kind maps to nothing (as JOSDK's). The kind is
   * `primaryType`, else that of the controller of the `InformerEventSource` given this mapper.
   */
  fromDefaultAnnotations<R extends KubernetesResource>(
    primaryType?: Pick<ResourceType, 'kind' | 'group'>,
  ): SecondaryToPrimaryMapper<R> {
    const typed = (type: Pick<ResourceType, 'kind' | 'group'> | undefined) =>
      fromKeys<R>(
        'annotations',
        DEFAULT_PRIMARY_NAME_ANNOTATION,
        DEFAULT_PRIMARY_NAMESPACE_ANNOTATION,
        type ? primaryTypeAnnotationValue(type) : undefined,
      );
    return primaryType ? typed(primaryType) : bindableToPrimaryType(typed(undefined), typed);
  },
  /**
   * The primary named by labels on the secondary.
   * @param nameKey - label holding the primary's name.
   * @param namespaceKey - label holding its namespace; when absent or unset, the secondary's namespace
   *   (an `InformerEventSource` of a cluster-scoped primary kind drops the namespace).
   */
  fromLabel<R extends KubernetesResource>(
    nameKey: string,
    namespaceKey?: string,
  ): SecondaryToPrimaryMapper<R> {
    return fromKeys<R>('labels', nameKey, namespaceKey);
  },
  /**
   * The primary of the same name and namespace as the secondary (for secondaries named after their
   * primary).
   */
  fromSameName<R extends KubernetesResource>(): SecondaryToPrimaryMapper<R> {
    return markIndexable((secondary: R) =>
      secondary.metadata?.name ? [ResourceID.fromResource(secondary)] : [],
    );
  },
  /**
   * Declares custom code as depending on the secondary alone, so the event source may index
   * secondaries by primary with it (a mapper reading other caches must not be marked).
   */
  indexable<R extends KubernetesResource>(mapper: SecondaryToPrimaryMapper<R>): SecondaryToPrimaryMapper<R> {
    const wrapped: SecondaryToPrimaryMapper<R> = (secondary) => mapper(secondary);
    return markIndexable(wrapped);
  },
});

/**
 * Annotations that make {@link Mappers.fromDefaultAnnotations} map a secondary to `primary`: its
 * name, its namespace (none for a cluster-scoped primary) and, when `primary` has `kind` and
 * `apiVersion`, its kind (so controllers of other kinds do not take the secondary for theirs).
 */
export function primaryAnnotations(primary: KubernetesResource): Record<string, string> {
  const id = ResourceID.fromResource(primary);
  const annotations: Record<string, string> = { [DEFAULT_PRIMARY_NAME_ANNOTATION]: id.name };
  if (id.namespace) annotations[DEFAULT_PRIMARY_NAMESPACE_ANNOTATION] = id.namespace;
  if (primary.kind && primary.apiVersion)
    annotations[DEFAULT_PRIMARY_TYPE_ANNOTATION] = primaryTypeAnnotationValue({
      kind: primary.kind,
      group: groupOf(primary.apiVersion),
    });
  return annotations;
}
