import { MultiNamespaceInformer, ResourceID } from '@tosdk/core';
import type {
  EventHandler,
  EventSourceContext,
  EventSourceHealth,
  KubernetesResource,
  ResourceEventSource,
  ResourceType,
} from '@tosdk/core';
import type { WebPage } from '../webpage.resource.js';
import { WebPage as WebPageType } from '../webpage.resource.js';
import { SECONDARY_SELECTOR } from '../webpage-names.js';

/**
 * The low-level flavour's own event source (what JOSDK's `InformerEventSource` does for it): an
 * informer on one secondary kind, restricted to the objects the operator labelled, that reconciles
 * the WebPage named by each object's controller owner reference, and serves the context's
 * secondary lookups from its cache.
 */
export class OwnedResourceEventSource<R extends KubernetesResource> implements ResourceEventSource<
  R,
  WebPage
> {
  private handler: EventHandler | undefined;
  private readonly informer: MultiNamespaceInformer<R>;

  constructor(
    /** The secondary kind. */
    readonly resourceType: ResourceType<R>,
    context: EventSourceContext<WebPage>,
    /** Name among the controller's event sources. Defaults to the kind's plural. */
    readonly name: string = resourceType.plural,
  ) {
    this.informer = new MultiNamespaceInformer<R>({
      client: context.client,
      type: resourceType,
      namespaces: context.namespaces.length > 0 ? [...context.namespaces] : 'all',
      labelSelector: SECONDARY_SELECTOR,
      logger: context.logger,
      clock: context.clock,
    });
    this.informer.addEventHandler({
      onAdd: (obj) => this.emit(obj),
      onUpdate: (_old, obj) => this.emit(obj),
      onDelete: (obj) => this.emit(obj),
    });
  }

  /** Every WebPage reads its secondaries before the first reconcile. */
  readonly startPriority = 'resourceStateLoader' as const;

  setEventHandler(handler: EventHandler): void {
    this.handler = handler;
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  health(): EventSourceHealth {
    const h = this.informer.health();
    return { healthy: h.healthy, status: h.status, ...(h.reason ? { reason: h.reason } : {}) };
  }

  /** The source watches the controller's namespaces, also after they change at run time. */
  followsControllerNamespaces(): boolean {
    return true;
  }

  /** Watches other namespaces (`[]` for all), as the controller now does. */
  changeNamespaces(namespaces: readonly string[]): Promise<void> {
    return this.informer.changeNamespaces(namespaces.length > 0 ? [...namespaces] : 'all');
  }

  /** The cached objects of this kind that the page owns. */
  getSecondaryResources(primary: WebPage): R[] {
    const uid = primary.metadata?.uid;
    return this.informer
      .list(primary.metadata?.namespace)
      .filter((obj) =>
        obj.metadata?.ownerReferences?.some((ref) => ref.controller === true && ref.uid === uid),
      );
  }

  /**
   * Puts the result of an own write into the cache at once (unless the cache already has a newer
   * version), so the next reconcile reads it even before the watch event arrives.
   */
  cacheOwnWrite(obj: R): void {
    this.informer.cacheIfNewer(obj);
  }

  private emit(obj: R): void {
    const owner = obj.metadata?.ownerReferences?.find(
      (ref) =>
        ref.controller === true && ref.kind === WebPageType.kind && ref.apiVersion === WebPageType.apiVersion,
    );
    if (!owner || !this.handler) return;
    this.handler.handleEvent({ resourceId: new ResourceID(owner.name, obj.metadata?.namespace) });
  }
}
