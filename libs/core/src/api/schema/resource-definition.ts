import type { TSchema } from '@sinclair/typebox';

/**
 * One additional printer column of a CRD version (what `kubectl get` shows).
 * See Kubernetes' `CustomResourceColumnDefinition`.
 */
export interface PrinterColumn {
  /** Column header, e.g. `Ready`. */
  name: string;
  /** OpenAPI type of the value: `integer`, `number`, `string`, `boolean` or `date`. */
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  /** JSON path of the value in the object, e.g. `.status.ready`. */
  jsonPath: string;
  /** Format of the value, e.g. `int32` or `byte`. Defaults to none. */
  format?: string;
  /** What the column shows. Defaults to none. */
  description?: string;
  /** 0 shows the column always, higher only with `-o wide`. Defaults to 0. */
  priority?: number;
}

/** The scale subresource of a CRD version (`kubectl scale`, HorizontalPodAutoscaler). */
export interface ScaleSubresourceDefinition {
  /** JSON path of the desired replicas, e.g. `.spec.replicas`. */
  specReplicasPath: string;
  /** JSON path of the observed replicas, e.g. `.status.replicas`. */
  statusReplicasPath: string;
  /** JSON path of the label selector in serialized form. Defaults to none. */
  labelSelectorPath?: string;
}

/** A CEL validation rule (`x-kubernetes-validations` entry). */
export interface ValidationRule {
  /** The CEL expression; `self` is the value it sits on, `oldSelf` the previous value (transition rules). */
  rule: string;
  /** The message returned when the rule is false. Defaults to Kubernetes' generic message. */
  message?: string;
  /** A CEL expression that computes the message. Defaults to none. */
  messageExpression?: string;
  /** Reason returned with the failure, e.g. `FieldValueInvalid`. Defaults to `FieldValueInvalid`. */
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  /** Field path the failure is reported on, relative to the schema node. Defaults to the node. */
  fieldPath?: string;
  /** Whether the rule also applies to updates when the old value is absent. Defaults to false. */
  optionalOldSelf?: boolean;
}

/**
 * The schema part of a custom resource declaration: TypeBox schemas of `.spec` and `.status`
 * (their static types become the object type) and what the CRD says about the version.
 *
 * @typeParam Spec - the TypeBox schema of `.spec`.
 * @typeParam Status - the TypeBox schema of `.status`.
 */
export interface ResourceSchemaOptions<Spec extends TSchema = TSchema, Status extends TSchema = TSchema> {
  /** The schema of `.spec`, e.g. `Type.Object({ html: Type.String() })`. */
  spec: Spec;
  /** The schema of `.status`. Defaults to none (no `.status`, no status subresource). */
  status?: Status;
  /** Whether objects must have a `.spec`. Defaults to true. */
  specRequired?: boolean;
  /** Description of the whole object (the root of the openAPIV3Schema). Defaults to none. */
  description?: string;
  /** CEL rules on the whole object (`self` is the object). Defaults to none. */
  validations?: ValidationRule[];
}

/** What the CRD says about one version besides its schema. */
export interface ResourceVersionOptions {
  /** Whether this version is served. Defaults to true. */
  served?: boolean;
  /** Whether objects are stored in this version; exactly one version of a kind is. Defaults to true when the kind has one version. */
  storage?: boolean;
  /** Deprecated: `true`, or the warning clients get. Defaults to false. */
  deprecated?: boolean | string;
  /** Columns of `kubectl get`. Defaults to none (kubectl shows Name and Age). */
  printerColumns?: PrinterColumn[];
  /** Status subresource. Defaults to true when a status schema is given. */
  statusSubresource?: boolean;
  /** Scale subresource. Defaults to none. */
  scale?: ScaleSubresourceDefinition;
}

/**
 * How the API server converts between versions (`spec.conversion` of the CRD). `None` changes only
 * `apiVersion`; `Webhook` calls a conversion webhook.
 */
export type ConversionDefinition =
  | { strategy: 'None' }
  | {
      strategy: 'Webhook';
      webhook: {
        /** ConversionReview versions the webhook understands, e.g. `['v1']`. */
        conversionReviewVersions: string[];
        /** Where the webhook is: a Service in the cluster or a URL, and the CA bundle to trust. */
        clientConfig: {
          service?: { name: string; namespace: string; path?: string; port?: number };
          url?: string;
          caBundle?: string;
        };
      };
    };

/** What the CRD says about the kind (the same for all its versions). */
export interface ResourceNamesOptions {
  /** Singular name. Defaults to the kind lower-cased. */
  singular?: string;
  /** Short names for kubectl, e.g. `['wp']`. Defaults to none. */
  shortNames?: string[];
  /** Categories, e.g. `['all']`. Defaults to none. */
  categories?: string[];
  /** Conversion between versions; give every version of the kind the same value. Defaults to none (Kubernetes' `None`). */
  conversion?: ConversionDefinition;
}

/**
 * The CRD data a schema-carrying {@link ResourceType} holds (see {@link defineResource}); read by
 * {@link customResourceDefinitions}.
 */
export interface ResourceDefinition {
  /** The schema of spec and status. */
  readonly schema: ResourceSchemaOptions;
  /** Version settings. */
  readonly version: Readonly<ResourceVersionOptions>;
  /** Names settings. */
  readonly names: Readonly<ResourceNamesOptions>;
}
