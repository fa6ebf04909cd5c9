/**
 * `@tosdk/apiserver`: an in-memory Kubernetes API server.
 *
 * @packageDocumentation
 */

/** The npm name of this package. */
export const PACKAGE_NAME = '@tosdk/apiserver';
