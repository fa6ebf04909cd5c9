import type { KubernetesClient } from '../client/kubernetes-client.js';
import type { SharedInformers } from '../informer/shared-informers.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { ResourceID } from './resource-id.js';
import type { KubernetesResource, ResourceType } from './resource-type.js';

// A leaf of the api types (it imports no Context): `context.ts` and `reconciler.ts` both use it.

/** What {@link Reconciler.prepareEventSources} gets (JOSDK's `EventSourceContext`). */
export interface EventSourceContext<P extends KubernetesResource = KubernetesResource> {
  /** The primary kind of the controller. */
  readonly primaryResourceType: ResourceType<P>;
  /** The operator's client. */
  readonly client: KubernetesClient;
  /** The controller's name. */
  readonly controllerName: string;
  /** The namespaces the controller watches (`[]` for all). */
  readonly namespaces: readonly string[];
  /** The controller's cache of primaries (for mapping secondaries to primaries). */
  readonly primaryCache: PrimaryResourceCache<P>;
  /** The controller's logger (lines carry the controller name). Defaults to no logging. */
  readonly logger?: Logger;
  /** The operator's clock. Defaults to the system clock. */
  readonly clock?: Clock;
  /** The controller's field manager (whose managedFields entries caches keep). Defaults to the controller name. */
  readonly fieldManager?: string;
  /**
   * The operator's shared informers: an `InformerEventSource` made with this context takes its
   * informers from here, so sources and controllers watching the same selection share one watch
   * and one cache. Absent outside an operator (the source then has informers of its own).
   */
  readonly sharedInformers?: SharedInformers;
}

/** Read access to a controller's cached primaries. */
export interface PrimaryResourceCache<P extends KubernetesResource = KubernetesResource> {
  /** The cached primary, if any. */
  get(id: ResourceID): P | undefined;
  /** The cached primaries, of one namespace or all. */
  list(namespace?: string): P[];
  /**
   * Adds an index on primaries (e.g. by the name of a secondary they reference), filled at once and
   * kept current. Absent when the primary cache has no indexes.
   */
  addIndexer?(name: string, fn: (primary: P) => string[]): void;
  /** Cached primaries whose index `name` includes `value`. Absent when the cache has no indexes. */
  byIndex?(name: string, value: string): P[];
}
