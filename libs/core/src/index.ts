/**
 * `@tosdk/core`: the operator runtime.
 *
 * @packageDocumentation
 */

/** The npm name of this package. */
export const PACKAGE_NAME = '@tosdk/core';

export * from './api/resource-type.js';
export * from './api/rbac-rules.js';
export * from './api/schema/resource-definition.js';
export * from './api/schema/errors.js';
export * from './api/schema/k8s-types.js';
export * from './api/schema/structural-schema.js';
export * from './api/schema/custom-resource-definition.js';
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
export * from './api/controls.js';
export * from './api/context.js';
export * from './api/reconciler.js';
export * from './event/event.js';
export * from './event/event-source.js';
export * from './config/retry.js';
export * from './config/rate-limiter.js';
export * from './config/event-filters.js';
export * from './config/namespaces.js';
export * from './config/controller-configuration.js';
export * from './config/operator-configuration.js';
export * from './reconcile/errors.js';
export * from './metrics/metrics.js';
export { currentResourceContext } from './logging/resource-context.js';
export type { ResourceContext } from './logging/resource-context.js';
export { resourceContextLogger } from './logging/context-logger.js';
export * from './operator/errors.js';
export * from './operator/runtime-info.js';
export * from './operator/registered-controller.js';
export * from './operator/operator.js';
export * from './operator/operator-leader-election.js';
export * from './informer/multi-namespace-informer.js';
export * from './event/sources/errors.js';
export * from './event/sources/mappers.js';
export * from './event/sources/abstract-event-source.js';
export * from './event/sources/informer-event-source.js';
export * from './event/sources/external-resource-caching-event-source.js';
export * from './event/sources/polling-event-source.js';
export * from './event/sources/per-resource-polling-event-source.js';
export * from './event/sources/inbound-event-sources.js';
export * from './event/sources/resource-operations.js';
export * from './cache/managed-fields.js';
export * from './cache/bounded-resource-cache.js';
export * from './dependent/dependent-resource.js';
export * from './dependent/errors.js';
export * from './dependent/abstract-dependent-resource.js';
export * from './dependent/bulk-dependent-resource.js';
export * from './dependent/kubernetes-dependent-options.js';
export * from './dependent/kubernetes-dependent-resource.js';
export * from './dependent/crud-kubernetes-dependent-resource.js';
export * from './dependent/generic-kubernetes-dependent-resource.js';
export * from './dependent/matchers.js';
export * from './workflow/condition.js';
export * from './workflow/errors.js';
export * from './workflow/workflow-result.js';
export * from './workflow/workflow.js';
export * from './workflow/workflow-builder.js';
export * from './workflow/managed-workflow.js';
export * from './dependent/abstract-external-dependent-resource.js';
export * from './dependent/dependent-resource-with-explicit-state.js';
export * from './dependent/polling-dependent-resource.js';
export * from './workflow/kubernetes-resource-deleted-condition.js';
export * from './workflow/crd-present-activation-condition.js';
