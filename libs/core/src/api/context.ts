import type { KubernetesClient } from '../client/kubernetes-client.js';
import type { Logger } from '../util/logger.js';
import type { EventSource } from '../event/event-source.js';
import type { WorkflowCleanupResult, WorkflowReconcileResult } from '../workflow/workflow-result.js';
import type { EventSourceContext } from './event-source-context.js';
import type { ResourceOperations } from '../event/sources/resource-operations.js';
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
   * Undefined too when no source caches the kind but a dependent of the managed workflow manages it
   * (its source is registered only while its activation condition holds).
   * @throws AmbiguousSecondaryResourceError when several match, NoEventSourceForTypeError when no
   *   source caches the kind and no workflow dependent manages it (or several do and no name is given).
   */
  getSecondaryResource<R extends KubernetesResource>(
    type: ResourceType<R>,
    eventSourceName?: string,
  ): R | undefined;
  /**
   * All secondary resources of a kind for this primary, from every event source caching the kind;
   * an object several sources cache is returned once, in the newest version they hold (of one
   * version, a whole copy rather than a `metadataOnly` source's). `[]` when
   * none caches the kind but a workflow dependent manages it (see {@link getSecondaryResource}).
   * @throws NoEventSourceForTypeError when no source caches the kind and no workflow dependent manages it.
   */
  getSecondaryResources<R extends KubernetesResource>(type: ResourceType<R>): R[];
  /** The managed workflow of the controller and its results in this run (JOSDK's `managedWorkflowAndDependentResourceContext()`). */
  managedWorkflowAndDependentResourceContext(): ManagedWorkflowAndDependentResourceContext<P>;
  /** The controller's event sources, with dynamic registration (JOSDK's `eventSourceRetriever()`). */
  eventSourceRetriever(): EventSourceRetriever<P>;
  /**
   * Writes of the primary, its status and secondaries (server-side apply, update, JSON patch, JSON
   * merge patch) that update the controller's caches at once and do not re-trigger the controller
   * with their own events (JOSDK 5's `resourceOperations()`); see `ResourceOperations`.
   */
  resourceOperations(): ResourceOperations<P>;
}

/**
 * Access to a controller's managed workflow from a reconciliation (JOSDK's
 * `ManagedWorkflowAndDependentResourceContext`).
 */
export interface ManagedWorkflowAndDependentResourceContext<
  P extends KubernetesResource = KubernetesResource,
> {
  /**
   * Reconciles the managed workflow now; for workflows declared with `explicitInvocation`. Returns
   * the result (also kept for {@link getWorkflowReconcileResult}).
   * @throws AggregatedOperatorError when dependents failed, unless the workflow handles errors in the reconciler.
   * @throws WorkflowUsageError when the controller has no managed workflow, or its workflow is not
   *   declared with `explicitInvocation` (the framework runs it then; as JOSDK's IllegalStateException).
   */
  reconcileManagedWorkflow(): Promise<WorkflowReconcileResult>;
  /**
   * Cleans up the managed workflow now; for explicit invocation from a Cleaner's `cleanup`. A
   * workflow with no dependent it deletes itself (only garbage-collected or read-only ones) has
   * nothing to clean up: it is not run and the result is empty (as JOSDK's).
   * @throws AggregatedOperatorError when dependents failed, unless the workflow handles errors in the reconciler.
   * @throws WorkflowUsageError when the controller has no managed workflow, or its workflow is not
   *   declared with `explicitInvocation`.
   */
  cleanupManagedWorkflow(): Promise<WorkflowCleanupResult>;
  /** The result of this run's workflow reconciliation; undefined when it has not run. */
  getWorkflowReconcileResult(): WorkflowReconcileResult | undefined;
  /** The result of this run's workflow cleanup; undefined when it has not run. */
  getWorkflowCleanupResult(): WorkflowCleanupResult | undefined;
  /** The secondary managed by the named dependent of the managed workflow; undefined when absent. */
  getSecondaryResource<R>(dependentName: string): R | undefined;
  /** Per-run values shared between dependents and the reconciler (JOSDK's `put`/`get`). */
  put(key: string, value: unknown): void;
  /** A value stored with {@link put}. */
  get<T>(key: string): T | undefined;
  /** The primary of this run. */
  readonly primary: P;
}

/**
 * The controller's event sources (JOSDK's `EventSourceRetriever`), including dynamic registration:
 * workflows register the informer of a dependent with an activation condition only while active.
 */
export interface EventSourceRetriever<P extends KubernetesResource = KubernetesResource> {
  /** What creating an event source for this controller needs. */
  readonly eventSourceContext: EventSourceContext<P>;
  /** The event source registered under a name. */
  getEventSource(name: string): EventSource | undefined;
  /**
   * Registers and starts an event source unless one of that name is registered; resolves (with the
   * registered source) once it is started. `create` is called only when it is not registered.
   */
  dynamicallyRegisterEventSource(name: string, create: () => EventSource): Promise<EventSource>;
  /** Stops and removes a registered event source; resolves at once when none has that name. */
  dynamicallyDeregisterEventSource(name: string): Promise<void>;
}
