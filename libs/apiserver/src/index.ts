/**
 * `@tosdk/apiserver`: an in-memory Kubernetes API server that kubectl and client libraries accept.
 *
 * @packageDocumentation
 */

/** The npm name of this package. */
export const PACKAGE_NAME = '@tosdk/apiserver';

export { KubeApiServer } from './server.js';
export type { ApiUser, KubeApiServerOptions } from './options.js';
export { ApiServerOptionsError } from './options.js';
export { RequestAccounting } from './request-log.js';
export type { RequestRecord, RequestFilter } from './request-log.js';
export { FaultInjector } from './faults.js';
export type { FailureSpec, FaultMatch, LatencySpec, RateFailureSpec, RateFault } from './faults.js';
export { ApiError } from './internal/common/errors.js';
export type { InternalClient } from './internal/storage/internal-client.js';
export type { StoreEvent, ChangeType } from './internal/storage/store.js';
export type { JsonObject, StatusCause, ManagedFieldsEntry, PatchSchema, ListInfo } from './types.js';
