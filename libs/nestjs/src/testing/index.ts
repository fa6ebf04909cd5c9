/**
 * `@tosdk/nestjs/testing`: the mock-operator test module.
 *
 * @packageDocumentation
 */

/** The npm name of this entry point. */
export const TESTING_ENTRY_POINT = '@tosdk/nestjs/testing';
