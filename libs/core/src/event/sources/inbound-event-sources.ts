import type { ResourceID } from '../../api/resource-id.js';
import { AbstractEventSource } from './abstract-event-source.js';
import type { EventSourceOptions } from './abstract-event-source.js';
import { ExternalResourceCachingEventSource } from './external-resource-caching-event-source.js';
import type { ExternalResourceCachingOptions } from './external-resource-caching-event-source.js';

/**
 * Triggers primaries from pushes of the outside world, e.g. a webhook handler or a message
 * consumer (JOSDK's `SimpleInboundEventSource`); caches nothing.
 */
export class SimpleInboundEventSource extends AbstractEventSource {
  constructor(options: EventSourceOptions = {}) {
    super(options);
  }

  /** Reconciles a primary (dropped, with a debug line, when the source is not running). */
  propagateEvent(primary: ResourceID): void {
    if (!this.isRunning()) {
      this.logger.debug('inbound event while not running; dropped', { primary: primary.key });
      return;
    }
    this.emit(primary);
  }
}

/**
 * Caches resources pushed from outside per primary and triggers the primary when they change
 * (JOSDK's `CachingInboundEventSource`); read them with `getSecondaryResources(primary)`. Pushes
 * while the source is not running (before start, after stop or deregistration) are dropped.
 */
export class CachingInboundEventSource<R> extends ExternalResourceCachingEventSource<R> {
  constructor(options: ExternalResourceCachingOptions<R> = {}) {
    super(options);
  }

  /** A resource of a primary was created or changed; reconciles the primary when it differs from the cached one. */
  handleResourceEvent(primary: ResourceID, resource: R): void {
    this.handleResource(primary, resource);
  }

  /** A resource of a primary is gone (all of them when `resource` is omitted); reconciles the primary when something was cached. */
  handleResourceDeleteEvent(primary: ResourceID, resource?: R): void {
    this.handleDelete(primary, resource === undefined ? undefined : this.resourceId(resource));
  }

  /** Replaces all resources of a primary; reconciles it when the set changed. */
  handleResourcesEvent(primary: ResourceID, resources: Iterable<R>): void {
    this.handleResources(primary, resources);
  }
}
