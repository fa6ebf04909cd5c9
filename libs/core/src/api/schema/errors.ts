/**
 * Thrown when a custom resource declaration cannot become a CRD Kubernetes would accept: a schema
 * that is not structural, two storage versions, versions that disagree on names or scope. The
 * message names the kind and the field.
 */
export class InvalidResourceDefinitionError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidResourceDefinition';
  constructor(
    /** The CRD the problem is in, e.g. `webpages.sample.tosdk.io`. */
    readonly crd: string,
    /** The field, e.g. `spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.html`. */
    readonly field: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`CRD ${crd}: ${field}: ${message}`, options);
    this.name = 'InvalidResourceDefinitionError';
  }
}
