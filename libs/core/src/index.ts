/**
 * `@tosdk/core`: the operator runtime.
 *
 * @packageDocumentation
 */

/** The npm name of this package. */
export const PACKAGE_NAME = '@tosdk/core';

export * from './api/resource-type.js';
export * from './api/builtin-types.js';
export * from './api/resource-id.js';
export * from './util/clock.js';
export * from './util/logger.js';
export * from './client/errors.js';
export * from './client/types.js';
export * from './client/kubernetes-client.js';
export * from './operator/leader-election/leader-election-configuration.js';
export * from './operator/leader-election/leader-election-errors.js';
export * from './operator/leader-election/leader-elector.js';
export * from './informer/backoff.js';
export * from './informer/errors.js';
export * from './informer/informer-health.js';
export * from './informer/resource-event-handler.js';
export * from './informer/informer.js';
export * from './events/kubernetes-event.js';
export * from './events/event-errors.js';
export * from './events/event-recorder.js';
