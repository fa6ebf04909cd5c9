import type { KubernetesClient } from '../../client/kubernetes-client.js';

/**
 * Tells which namespaces an informer is re-listing: between the last page of a list and the next
 * watch, events come from the list, not from the watch. A re-list may merge a foreign change into
 * the version an own write returned (the watch events in between were compacted away), so
 * own-write attribution treats such events as someone else's.
 *
 * Give the informer the client returned by {@link RelistWindow.wrap}, or build the window with a
 * probe of the informer; ask {@link RelistWindow.covers} when an event arrives.
 */
export class RelistWindow {
  private readonly listing = new Set<string>();

  /**
   * @param probe - asks the informer itself (e.g. `MultiNamespaceInformer.isListing`) instead of
   * watching a wrapped client; needed for shared informers, whose client no single user wraps.
   */
  constructor(private readonly probe?: (namespace: string | undefined) => boolean) {}

  /** A client that records list ends and watch starts (all other calls go to `client`). */
  wrap(client: KubernetesClient): KubernetesClient {
    const listing = this.listing;
    const proxy = Object.create(client) as KubernetesClient;
    proxy.list = async (type, options) => {
      const page = await client.list(type, options);
      if (!page.continue) listing.add(options?.namespace ?? '');
      return page;
    };
    proxy.watch = (type, options) => {
      listing.delete(options?.namespace ?? '');
      return client.watch(type, options);
    };
    return proxy;
  }

  /** Whether an event of an object in `namespace` (undefined: cluster scoped) comes from a list. */
  covers(namespace: string | undefined): boolean {
    if (this.probe) return this.probe(namespace);
    return this.listing.has('') || this.listing.has(namespace ?? '');
  }
}
