import type { ResourceID } from '../../../api/resource-id.js';
import type { KubernetesResource, ResourceType } from '../../../api/resource-type.js';

/** `SecondaryToPrimaryMapper` (not imported: mappers.ts imports this module). */
type SecondaryToPrimaryMapper<R extends KubernetesResource> = (secondary: R) => ResourceID[];

const FOR_PRIMARY_TYPE = Symbol.for('tosdk.mapper.forPrimaryType');

type Binder<R extends KubernetesResource> = (
  type: Pick<ResourceType, 'kind' | 'group'>,
) => SecondaryToPrimaryMapper<R>;

/** Marks a mapper that reads a primary-type annotation once it knows the primary kind (`bind` makes that mapper). */
export function bindableToPrimaryType<R extends KubernetesResource>(
  mapper: SecondaryToPrimaryMapper<R>,
  bind: Binder<R>,
): SecondaryToPrimaryMapper<R> {
  Object.defineProperty(mapper, FOR_PRIMARY_TYPE, { value: bind });
  return mapper;
}

/** The mapper for a primary kind: the bound one for a mapper marked by {@link bindableToPrimaryType}, else the mapper itself. */
export function forPrimaryType<R extends KubernetesResource>(
  mapper: SecondaryToPrimaryMapper<R>,
  type: Pick<ResourceType, 'kind' | 'group'>,
): SecondaryToPrimaryMapper<R> {
  const bind = (mapper as unknown as Record<symbol, unknown>)[FOR_PRIMARY_TYPE];
  return typeof bind === 'function' ? (bind as Binder<R>)(type) : mapper;
}
