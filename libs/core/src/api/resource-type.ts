import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';
import type { Static, TSchema } from '@sinclair/typebox';
import type {
  ResourceDefinition,
  ResourceNamesOptions,
  ResourceSchemaOptions,
  ResourceVersionOptions,
} from './schema/resource-definition.js';
import { defaultPlural } from './plural.js';

/**
 * A Kubernetes object as tosdk handles it: `apiVersion`, `kind`, `metadata`, and whatever the kind adds.
 * Spec and status are typed by the resource's declaration (see {@link defineResource}).
 */
export interface KubernetesResource extends KubernetesObject {
  metadata?: V1ObjectMeta;
}

/**
 * The shape of a custom resource with a typed spec and status.
 *
 * @typeParam Spec - the type of `.spec`.
 * @typeParam Status - the type of `.status`.
 */
export interface CustomResource<Spec = unknown, Status = unknown> extends KubernetesResource {
  spec?: Spec;
  status?: Status;
}

/** Whether objects of a kind live in a namespace or at the cluster scope. */
export type ResourceScope = 'Namespaced' | 'Cluster';

/**
 * Declares one kind once: where it is served and what its objects look like. Passed wherever tosdk
 * needs to know a kind (controllers, event sources, dependents, the client).
 *
 * @typeParam T - the TypeScript type of the kind's objects.
 */
export interface ResourceType<T extends KubernetesResource = KubernetesResource> {
  /** API group; empty string for the core group (ConfigMap, Pod, ...). */
  readonly group: string;
  /** API version within the group, e.g. `v1`. */
  readonly version: string;
  /** `group/version`, or just `version` for the core group. */
  readonly apiVersion: string;
  /** Kind, e.g. `WebPage`. */
  readonly kind: string;
  /** Lower-case plural used in URLs, e.g. `webpages`. */
  readonly plural: string;
  /** Whether objects are namespaced. */
  readonly namespaced: boolean;
  /** Phantom field carrying the object type; never set at run time. */
  readonly __type?: T;
  /**
   * The CRD data of a kind declared with a schema ({@link defineResource} with `schema`); absent for
   * kinds declared without one (built-in kinds, or custom kinds whose CRD is written by hand).
   */
  readonly definition?: ResourceDefinition;
}

/** Options of {@link defineResource}. */
export interface ResourceTypeOptions {
  /** API group; `''` for the core group. */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Kind, e.g. `WebPage`. */
  kind: string;
  /** URL plural. Defaults to {@link defaultPlural} of the kind (`WebPage` → `webpages`, `NetworkPolicy` → `networkpolicies`). */
  plural?: string;
  /** Scope. Defaults to `Namespaced`. */
  scope?: ResourceScope;
}

/**
 * Options of {@link defineResource} for a custom resource declared with its schema: the object type,
 * the CRD and the runtime declaration come from this one value.
 *
 * @typeParam Spec - the TypeBox schema of `.spec`.
 * @typeParam Status - the TypeBox schema of `.status`.
 */
export interface CustomResourceTypeOptions<Spec extends TSchema, Status extends TSchema>
  extends ResourceTypeOptions, ResourceVersionOptions, ResourceNamesOptions {
  /** The schemas of spec and status (TypeBox), with the object's description and CEL rules. */
  schema: ResourceSchemaOptions<Spec, Status>;
}

/** The object type of a kind declared with schemas `Spec` and `Status`. */
export type CustomResourceOf<Spec extends TSchema, Status extends TSchema> = CustomResource<
  Static<Spec>,
  TSchema extends Status ? never : Static<Status>
>;

/** Thrown when a resource declaration is not valid. */
export class InvalidResourceTypeError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidResourceType';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidResourceTypeError';
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Declares a custom kind with its schema: the object type is inferred from the TypeBox schemas and
 * the CRD is generated from the same value (`tosdk generate crds`, {@link customResourceDefinitions}).
 *
 * ```ts
 * import { Type } from '@sinclair/typebox';
 * import { defineResource } from '@tosdk/core';
 *
 * export const WebPage = defineResource({
 *   group: 'sample.tosdk.io', version: 'v1', kind: 'WebPage', shortNames: ['wp'],
 *   schema: {
 *     spec: Type.Object({ html: Type.String({ minLength: 1 }), exposed: Type.Optional(Type.Boolean()) }),
 *     status: Type.Object({ ready: Type.Optional(Type.Boolean()) }),
 *   },
 * });
 * export type WebPage = ResourceOf<typeof WebPage>;
 * ```
 *
 * @throws InvalidResourceTypeError when the version, kind or plural is not valid.
 */
export function defineResource<Spec extends TSchema, Status extends TSchema = TSchema>(
  options: CustomResourceTypeOptions<Spec, Status>,
): ResourceType<CustomResourceOf<Spec, Status>>;
/**
 * Declares a kind by its coordinates only (a built-in kind, or a custom kind whose CRD is written by
 * hand). Example:
 *
 * ```ts
 * interface WebPageSpec { html: string; exposed?: boolean }
 * interface WebPageStatus { ready?: boolean }
 * type WebPage = CustomResource<WebPageSpec, WebPageStatus>;
 * const WebPage = defineResource<WebPage>({ group: 'sample.tosdk.io', version: 'v1', kind: 'WebPage' });
 * ```
 *
 * @throws InvalidResourceTypeError when the version, kind or plural is not valid.
 */
export function defineResource<T extends KubernetesResource>(options: ResourceTypeOptions): ResourceType<T>;
export function defineResource(
  options: ResourceTypeOptions | CustomResourceTypeOptions<TSchema, TSchema>,
): ResourceType {
  const { group, version, kind } = options;
  if (!version || !DNS_LABEL.test(version)) {
    throw new InvalidResourceTypeError(
      `resource version "${version}" of kind "${kind}" must be a DNS label such as "v1"`,
    );
  }
  if (!kind || !/^[A-Za-z][A-Za-z0-9]*$/.test(kind)) {
    throw new InvalidResourceTypeError(
      `resource kind "${kind}" must be alphanumeric and start with a letter`,
    );
  }
  const plural = options.plural ?? defaultPlural(kind);
  if (!DNS_LABEL.test(plural)) {
    throw new InvalidResourceTypeError(
      `resource plural "${plural}" of kind "${kind}" must be a lower-case DNS label`,
    );
  }
  const type: ResourceType = {
    group,
    version,
    apiVersion: group ? `${group}/${version}` : version,
    kind,
    plural,
    namespaced: (options.scope ?? 'Namespaced') === 'Namespaced',
  };
  if (!('schema' in options) || options.schema === undefined) return Object.freeze(type);
  if (!group) {
    throw new InvalidResourceTypeError(
      `custom resource kind "${kind}" needs an API group such as "example.com" (the core group is for built-in kinds)`,
    );
  }
  const o = options;
  const definition: ResourceDefinition = Object.freeze({
    schema: o.schema,
    version: Object.freeze({
      served: o.served,
      storage: o.storage,
      deprecated: o.deprecated,
      printerColumns: o.printerColumns,
      statusSubresource: o.statusSubresource,
      scale: o.scale,
    }),
    names: Object.freeze({
      singular: o.singular,
      shortNames: o.shortNames,
      categories: o.categories,
      conversion: o.conversion,
    }),
  });
  return Object.freeze({ ...type, definition });
}

/** The object type of a resource type: `ResourceOf<typeof WebPage>`. */
export type ResourceOf<R> = R extends ResourceType<infer T> ? T : never;

/** A short human-readable name of a kind, e.g. `webpages.sample.tosdk.io/v1`. */
export function resourceTypeName(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.group}/${type.version}` : `${type.plural}/${type.version}`;
}
