/**
 * `@tosdk/core`: the operator runtime.
 *
 * @packageDocumentation
 */

/** The npm name of this package. */
export const PACKAGE_NAME = '@tosdk/core';
