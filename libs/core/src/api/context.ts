import type { KubernetesClient } from '../client/kubernetes-client.js';
import type { Logger } from '../util/logger.js';
import type { KubernetesResource, ResourceType } from './resource-type.js';

/** Where a reconciliation stands in its retry cycle (JOSDK's `RetryInfo`). */
export interface RetryInfo {
  /** Retries scheduled since the last success; 0 after the first failure. */
  readonly attemptCount: number;
  /** Whether no retry follows if this attempt fails too. */
  readonly isLastAttempt: boolean;
}

/**
 * Publishes Kubernetes Events about a resource (`kubectl describe` shows them). Repeated events are
 * aggregated by count. The operator's recorder is the one of `@tosdk/core`'s events module.
 */
export interface ResourceEventRecorder {
  /** A `Normal` event. */
  normal(resource: KubernetesResource, reason: string, message: string): Promise<void>;
  /** A `Warning` event. */
  warning(resource: KubernetesResource, reason: string, message: string): Promise<void>;
}

/**
 * What a reconciler gets besides its resource (JOSDK's `Context`): retry state, the client, the
 * controller's caches of secondary resources and a logger bound to the resource.
 */
export interface Context<P extends KubernetesResource = KubernetesResource> {
  /** The retry state; undefined on a first try (no failure since the last success). */
  getRetryInfo(): RetryInfo | undefined;
  /** Whether this is the last attempt before retries run out (false on a first try with retries configured). */
  isLastAttempt(): boolean;
  /**
   * Whether another event for this resource arrived meanwhile, so another reconciliation follows at
   * once; a reconciler can skip expensive work that would be redone.
   */
  isNextReconciliationImminent(): boolean;
  /** The operator's client. */
  readonly client: KubernetesClient;
  /** The primary resource as passed to the reconciler. */
  getPrimaryResource(): P;
  /** A logger whose lines carry the resource context (kind, name, namespace, resourceVersion, ...). */
  readonly logger: Logger;
  /** Publishes Kubernetes Events (about the primary, typically). */
  readonly eventRecorder: ResourceEventRecorder;
  /** The name of the controller running this reconciliation. */
  readonly controllerName: string;
  /**
   * The one secondary resource of a kind for this primary, from the controller's event sources.
   * @param eventSourceName - which source to read when several cache the kind.
   * @throws AmbiguousSecondaryResourceError when several match, NoEventSourceForTypeError when no
   *   source caches the kind (or several do and no name is given).
   */
  getSecondaryResource<R extends KubernetesResource>(
    type: ResourceType<R>,
    eventSourceName?: string,
  ): R | undefined;
  /** All secondary resources of a kind for this primary, from every event source caching the kind. */
  getSecondaryResources<R extends KubernetesResource>(type: ResourceType<R>): R[];
}
