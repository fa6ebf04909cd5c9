/**
 * `@tosdk/nestjs`: the NestJS integration of tosdk.
 *
 * @packageDocumentation
 */

/** The npm name of this package. */
export const PACKAGE_NAME = '@tosdk/nestjs';
