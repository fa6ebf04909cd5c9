/**
 * `@tosdk/nestjs/testing`: the mock-operator test module (JOSDK's Spring Boot test support): an
 * in-process API server, CRDs from files, a namespace per test, an admin client and `waitFor` helpers.
 * Loads without its optional peers: `createOperatorTestingModule` needs `@nestjs/testing`, the
 * in-process server needs `@tosdk/apiserver` (dev dependencies); `loadCrds`, `applyCrds` and
 * `waitFor` need neither.
 *
 * @packageDocumentation
 */

/** The npm name of this entry point. */
export const TESTING_ENTRY_POINT = '@tosdk/nestjs/testing';

export { createOperatorTestingModule } from './create-operator-testing-module.js';
export type {
  OperatorTestingContext,
  OperatorTestingModuleOptions,
} from './create-operator-testing-module.js';
export { OperatorTestEnvironment, USE_EXISTING_CLUSTER_VARIABLE } from './operator-test-environment.js';
export type { OperatorTestEnvironmentOptions } from './operator-test-environment.js';
export { applyCrds, CrdLoadError, CustomResourceDefinitionType, loadCrds } from './crd-loader.js';
export type { CrdSource } from './crd-loader.js';
export { InvalidWaitForOptionsError, waitFor, WaitForAbortedError, WaitForTimeoutError } from './wait-for.js';
export type { WaitForOptions } from './wait-for.js';
export { MissingPeerDependencyError } from './optional-peer.js';
export { NamespaceRestrictionOverrider } from './namespace-restriction.overrider.js';
