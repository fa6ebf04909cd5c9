import type { KubernetesClient } from '../../client/kubernetes-client.js';
import { Informer } from '../../informer/informer.js';
import { LeaseType } from '../../operator/leader-election/internal/lease-lock.js';
import type { LeaseJson } from '../../operator/leader-election/internal/lease-lock.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';

/** The client methods the view uses: `list` always, `watch` when the client has it. */
export type MembershipViewClient = Pick<KubernetesClient, 'list'> & Partial<Pick<KubernetesClient, 'watch'>>;

/** Options of a {@link MembershipView}. */
export interface MembershipViewOptions {
  client: MembershipViewClient;
  namespace: string;
  /** The group's label selector (`tosdk.io/shard-group=<name>`). */
  labelSelector: string;
  /** Name of this replica's own Lease: its events are not reported (the replica wrote them). */
  ownLease: string;
  clock: Clock;
  logger: Logger;
  /** Called on every add, update or delete of another member's Lease. */
  onChange: () => void;
  /**
   * Called on every add or update (`deleted` false) and delete (`deleted` true, the last state
   * seen) of this replica's own Lease: someone else may have changed it.
   */
  onOwnChange?: (lease: LeaseJson, deleted: boolean) => void;
  /**
   * A stream silent this long is reconnected. Every member (this one too) renews each period, so a
   * healthy stream is never silent for long; the membership passes its lease duration.
   */
  deadStreamTimeoutMs?: number;
  /** A list of the group with no answer this long is aborted (counts as a failed read). Defaults to no bound. */
  requestTimeoutMs?: number;
}

/**
 * The group's membership Leases as a replica sees them: a watch (an {@link Informer} on the
 * group's label selector, so a join, an acknowledgement or a graceful leave is seen within one watch
 * event), and fresh lists for what a watch cannot prove.
 *
 * A watch cannot prove that a Lease stopped changing: a stalled stream looks exactly like a dead
 * member. So {@link MembershipView.leases} answers from the watch cache only when asked for
 * `cached`; the membership asks for a `fresh` list (a quorum read) before it counts a member dead, at
 * every resync, and whenever the watch is not synced or has not caught up with the last fresh list. When the watch cannot be opened at all (no
 * `watch` permission, a client without `watch`), every read is a list, as before the watch existed.
 */
export class MembershipView {
  private informer: Informer<LeaseJson> | undefined;
  /** resourceVersion of the newest fresh list. */
  private listed: string | undefined;
  /** Lists in flight, aborted by {@link MembershipView.abort}. */
  private readonly listing = new Set<AbortController>();
  /** Why the last list failed; undefined after a list that succeeded. */
  failure: unknown;

  constructor(private readonly o: MembershipViewOptions) {}

  /** Opens the watch; on failure logs a warning and falls back to lists. Never rejects. */
  async start(): Promise<void> {
    const o = this.o;
    if (this.informer || typeof o.client.watch !== 'function') return;
    const informer = new Informer<LeaseJson>({
      // the informer calls only list and watch, which the client has
      client: o.client as KubernetesClient,
      type: LeaseType,
      namespace: o.namespace,
      labelSelector: o.labelSelector,
      clock: o.clock,
      logger: o.logger,
      name: `shard-leases/${o.namespace}`,
      failFast: true,
      deadStreamTimeoutMs: o.deadStreamTimeoutMs,
    });
    const changed = (lease: LeaseJson, deleted = false) => {
      if (lease.metadata?.name !== o.ownLease) o.onChange();
      else o.onOwnChange?.(lease, deleted);
    };
    informer.addEventHandler({
      onAdd: (lease) => changed(lease),
      onUpdate: (_old, lease) => changed(lease),
      onDelete: (lease) => changed(lease, true),
    });
    try {
      await informer.start();
      this.informer = informer;
    } catch (error) {
      await informer.stop().catch(() => undefined);
      o.logger.warn('could not watch the membership leases; reading them by a list every period instead', {
        error: String(error),
      });
    }
  }

  /** Aborts the lists in flight (they answer undefined). */
  abort(): void {
    for (const controller of this.listing) controller.abort();
  }

  /** Aborts the lists in flight and closes the watch. */
  async stop(): Promise<void> {
    this.abort();
    const informer = this.informer;
    this.informer = undefined;
    await informer?.stop();
  }

  /** Whether the watch cache can answer now (opened, synced and currently healthy). */
  watching(): boolean {
    const informer = this.informer;
    return informer !== undefined && informer.hasSynced() && informer.health().healthy;
  }

  /**
   * The group's Leases. From the watch cache when `cached`, the watch is synced, and the cache has
   * seen at least the resourceVersion of the last fresh list (a stalled stream's cache is older than
   * that list: it would bring back leases the list already showed newer); else by a fresh list.
   * @returns the leases and whether they come from a fresh list; undefined when the list failed (logged).
   */
  async leases(cached: boolean): Promise<{ items: LeaseJson[]; fresh: boolean } | undefined> {
    const informer = this.informer;
    if (
      cached &&
      informer &&
      this.watching() &&
      !olderThan(informer.lastSyncResourceVersion(), this.listed)
    ) {
      return { items: informer.list(), fresh: false };
    }
    const controller = new AbortController();
    this.listing.add(controller);
    const limit = this.o.requestTimeoutMs;
    const timer = limit === undefined ? undefined : this.o.clock.setTimeout(() => controller.abort(), limit);
    try {
      const list = await this.o.client.list(LeaseType, {
        namespace: this.o.namespace,
        labelSelector: this.o.labelSelector,
        signal: controller.signal,
      });
      if (!olderThan(list.resourceVersion, this.listed)) this.listed = list.resourceVersion;
      this.failure = undefined;
      return { items: list.items, fresh: true };
    } catch (error) {
      this.failure = error;
      this.o.logger.warn('could not list the membership leases', { error: String(error) });
      return undefined;
    } finally {
      if (timer !== undefined) this.o.clock.clearTimeout(timer);
      this.listing.delete(controller);
    }
  }
}

const DECIMAL = /^[0-9]{1,30}$/;

/**
 * Whether resourceVersion `a` is older than `b`. Kubernetes' are decimal (etcd revisions); opaque
 * ones cannot be ordered, and count as not older (the cache is then trusted as it is).
 */
export function olderThan(a: string, b: string | undefined): boolean {
  if (!b || !DECIMAL.test(a) || !DECIMAL.test(b)) return false;
  return BigInt(a) < BigInt(b);
}
