import type { KubernetesResource } from '../api/resource-type.js';
import type { ResolvedControllerConfiguration } from '../config/controller-configuration.js';
import type { EventSource, EventSourceHealth } from '../event/event-source.js';

/** The handle of a registered controller (JOSDK's `RegisteredController`). */
export interface RegisteredController<P extends KubernetesResource = KubernetesResource> {
  /** The controller's name. */
  readonly name: string;
  /** Its resolved configuration (namespaces reflect the latest `changeNamespaces`). */
  readonly configuration: ResolvedControllerConfiguration<P>;
  /**
   * Watches other namespaces from now on (`[]` or `[WATCH_ALL_NAMESPACES]` for all). Primaries of
   * namespaces no longer watched leave the cache; new ones are reconciled (by the leader only).
   * @throws InvalidControllerConfigurationError for invalid names.
   */
  changeNamespaces(namespaces: string[]): Promise<void>;
  /**
   * Health of this controller's event sources by name (JOSDK's `getControllerHealthInfo()`). Always
   * present on the handles `Operator.register` returns; optional so other implementations of this
   * interface stay valid.
   */
  health?(): Record<string, EventSourceHealth>;
  /**
   * The controller's event sources by name, its own (the primary informer) first, then those of
   * `prepareEventSources` and of its workflow's dependents; read by tools such as `tosdk generate rbac`.
   * Always present on the handles `Operator.register` returns; optional like {@link health}.
   */
  eventSources?(): ReadonlyMap<string, EventSource>;
}
