import type { KubernetesResource } from '../api/resource-type.js';
import type { ResourceID } from '../api/resource-id.js';
import { InformerUsageError } from './errors.js';
import type { IndexFunction, InformerOptions, InformerView } from './informer.js';
import { SharedInformers } from './shared-informers.js';
import type { SharedInformerLease } from './shared-informers.js';
import type { InformerHealth, InformerStatus } from './informer-health.js';
import type { ResourceEventHandler } from './resource-event-handler.js';

/** Which namespaces a {@link MultiNamespaceInformer} caches. */
export type WatchedNamespaces = string[] | 'all';

/** Options of a {@link MultiNamespaceInformer}: those of {@link Informer} plus the namespaces. */
export interface MultiNamespaceInformerOptions<T extends KubernetesResource> extends Omit<
  InformerOptions<T>,
  'namespace' | 'name'
> {
  /** Namespaces to cache: a list (one informer each) or `'all'` (one informer). Defaults to `'all'`. */
  namespaces?: WatchedNamespaces;
  /**
   * Where the per-namespace informers come from: with the operator's {@link SharedInformers}, a
   * namespace's informer is shared with every other user of the same selection there (one list and
   * one watch), while handlers, indexes and own writes stay this informer's. Defaults to informers
   * of its own.
   */
  shared?: SharedInformers;
}

const ALL = '*';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SEVERITY: InformerStatus[] = ['synced', 'stopped', 'starting', 'reconnecting', 'failed'];
const STOPPED: InformerHealth = { healthy: false, status: 'stopped', since: 0 };

/** One namespace's informer, as this user holds it. */
class Member<T extends KubernetesResource> {
  private released = false;
  /** Whether its start resolved (a member put in place of one that failed to start has not). */
  started = false;
  constructor(readonly lease: SharedInformerLease<T>) {}
  get view(): InformerView<T> {
    return this.lease.view;
  }
  get name(): string {
    return this.lease.view.name;
  }
  health(): InformerHealth {
    return this.released ? { ...STOPPED, since: this.lease.view.health().since } : this.lease.view.health();
  }
  async release(): Promise<void> {
    this.released = true;
    await this.lease.release();
  }
}

/**
 * One cache over several namespaces (JOSDK's `InformerManager`): one {@link Informer} per
 * namespace, or one for all namespaces, behind the same read API. Handlers and indexes apply to
 * every informer, including those {@link MultiNamespaceInformer.changeNamespaces} adds later.
 * Cluster-scoped kinds always use one informer. With `shared`, each namespace's informer is taken
 * from the operator's {@link SharedInformers}; this informer's handlers, indexes and own writes stay
 * its own, and changing its namespaces lets go of the removed namespaces' informers and takes those of
 * the new ones, leaving every other user's selection as it was.
 *
 * Removing a namespace stops its informer (or lets go of it) and drops its objects from the view
 * without delete events, as JOSDK does (`InformerManager.changeNamespaces` stops the removed
 * sources); adding one lists it, so its objects arrive as adds.
 */
export class MultiNamespaceInformer<T extends KubernetesResource> {
  private readonly informers = new Map<string, Member<T>>();
  private readonly handlers: ResourceEventHandler<T>[] = [];
  private readonly indexers: Array<[string, IndexFunction<T>]> = [];
  private readonly removers = new Map<ResourceEventHandler<T>, Map<Member<T>, () => void>>();
  private readonly shared: SharedInformers;
  private options: MultiNamespaceInformerOptions<T>;
  private watched: WatchedNamespaces;
  private started = false;
  /** Set by stop() until the next start(): a namespace change takes nothing meanwhile. */
  private stopped = false;
  /** The stop under way, if any (a start waits for it). */
  private stopping?: Promise<void>;
  /** The namespace change under way, if any (changes run one after the other). */
  private changing: Promise<void> = Promise.resolve();

  /** @throws InformerUsageError when a namespace is not a valid name or the list is empty. */
  constructor(options: MultiNamespaceInformerOptions<T>) {
    this.options = options;
    this.shared = options.shared ?? new SharedInformers();
    this.watched = normalize(options.namespaces ?? 'all');
    for (const key of this.keysFor(this.watched)) this.informers.set(key, this.create(key));
  }

  /** The namespaces cached now. */
  get namespaces(): WatchedNamespaces {
    return this.watched === 'all' ? 'all' : [...this.watched];
  }

  /**
   * Starts every informer; resolves when all have listed. If one fails to start (failFast), the
   * others are stopped and the first failure is thrown. After {@link MultiNamespaceInformer.stop} it
   * starts afresh (new informers, or new shares of the shared ones) on the namespaces set last, as
   * JOSDK's `InformerManager.start` after `stop` creates its sources again.
   */
  async start(): Promise<void> {
    if (this.stopping) await this.stopping;
    if (this.stopped) {
      this.stopped = false;
      // the informers let go of by stop() cannot start again: new ones, for the namespaces set last
      for (const member of this.informers.values()) {
        for (const perInformer of this.removers.values()) perInformer.delete(member);
      }
      this.informers.clear();
      for (const key of this.keysFor(this.watched)) this.informers.set(key, this.create(key));
    }
    this.started = true;
    try {
      await this.startAll([...this.informers.values()]);
    } catch (error) {
      this.started = false;
      throw error;
    }
  }

  /**
   * Stops every informer (lets go of shared ones: they stop with their last user). Reads keep the
   * last content. Until the next {@link MultiNamespaceInformer.start}, a namespace change only
   * records the namespaces (nothing is taken that nobody would let go of).
   */
  async stop(): Promise<void> {
    this.started = false;
    this.stopped = true;
    const stopping = (async () => {
      // a namespace change under way first: the informers it takes are let go of too
      await this.changing;
      await Promise.all([...this.informers.values()].map((i) => i.release()));
    })();
    this.stopping = stopping;
    try {
      await stopping;
    } finally {
      if (this.stopping === stopping) this.stopping = undefined;
    }
  }

  /**
   * Advanced, for the sharding layer: keeps only objects `admit` accepts (see
   * {@link InformerOptions.admit}). Before {@link MultiNamespaceInformer.start} only; the informers
   * become this informer's own (never shared).
   * @throws InformerUsageError after start.
   */
  restrictTo(admit: (obj: T) => boolean): void {
    if (this.started) throw new InformerUsageError('restrictTo() must be called before start()');
    this.options = { ...this.options, admit };
    for (const [key, member] of [...this.informers]) {
      for (const perInformer of this.removers.values()) perInformer.delete(member);
      void member.release();
      this.informers.set(key, this.create(key));
    }
  }

  /**
   * Advanced, for the sharding layer: {@link Informer.readmit} on every namespace's informer; resolves
   * when each cache reflects what `admit` answers now. A no-op before start.
   * @throws the client's error when a list fails (those caches are unchanged; call again).
   */
  async readmit(): Promise<void> {
    if (!this.started) return;
    await Promise.all([...this.informers.values()].map((m) => m.lease.informer.readmit()));
  }

  /**
   * Changes the namespaces: starts informers for the new ones (resolves when they have listed),
   * stops those of the removed ones (no delete events for their objects). A change made while an
   * earlier one is under way runs after it (as JOSDK's `Controller.changeNamespaces`, which is
   * `synchronized`). When a new namespace fails to start (failFast, e.g. a 403 before the permission
   * is granted), the change rejects and that namespace stays listed but unwatched (unhealthy); calling
   * it again, with that namespace still in the list, starts it.
   * @throws InformerUsageError for an invalid namespace list.
   */
  async changeNamespaces(namespaces: WatchedNamespaces): Promise<void> {
    const next = normalize(namespaces);
    const change = this.changing.then(() => this.applyNamespaces(next));
    this.changing = change.catch(() => undefined);
    await change;
  }

  private async applyNamespaces(next: WatchedNamespaces): Promise<void> {
    if (this.stopped) {
      // after stop nothing is taken (a lease taken now would hold its shared informer for good):
      // the next start() takes the namespaces recorded here
      this.watched = next;
      return;
    }
    const wanted = new Set(this.keysFor(next));
    const removed = [...this.informers.keys()].filter((key) => !wanted.has(key));
    const added = [...wanted].filter((key) => !this.informers.has(key));
    this.watched = next;
    for (const key of added) this.informers.set(key, this.create(key));
    const stopping = removed.map((key) => {
      const informer = this.informers.get(key)!;
      this.informers.delete(key);
      for (const perInformer of this.removers.values()) perInformer.delete(informer);
      return informer.release();
    });
    await Promise.all(stopping);
    // with the new ones, those a failed earlier change left unstarted: a retry of that change starts them
    if (this.started) await this.startAll([...this.informers.values()].filter((i) => !i.started));
  }

  /** Adds a handler to every informer (present and future); returns its remover. */
  addEventHandler(handler: ResourceEventHandler<T>): () => void {
    this.handlers.push(handler);
    const perInformer = new Map<Member<T>, () => void>();
    this.removers.set(handler, perInformer);
    for (const informer of this.informers.values())
      perInformer.set(informer, informer.view.addEventHandler(handler));
    return () => {
      const at = this.handlers.indexOf(handler);
      if (at >= 0) this.handlers.splice(at, 1);
      for (const remove of this.removers.get(handler)?.values() ?? []) remove();
      this.removers.delete(handler);
    };
  }

  /** Adds an index to every informer (present and future). @throws InformerUsageError when it exists. */
  addIndexer(name: string, fn: IndexFunction<T>): void {
    if (this.indexers.some(([n]) => n === name))
      throw new InformerUsageError(`an index named "${name}" exists already`);
    this.indexers.push([name, fn]);
    for (const informer of this.informers.values()) informer.view.addIndexer(name, fn);
  }

  /** The cached object of that ID, if its namespace is watched. */
  get(id: ResourceID): T | undefined {
    return this.informerFor(id.namespace)?.view.get(id);
  }

  /** Cached objects, all or of one namespace. */
  list(namespace?: string): T[] {
    if (namespace !== undefined) return this.informerFor(namespace)?.view.list(namespace) ?? [];
    return [...this.informers.values()].flatMap((i) => i.view.list());
  }

  /** Keys of all cached objects. */
  keys(): string[] {
    return [...this.informers.values()].flatMap((i) => i.view.keys());
  }

  /** Objects of every informer whose index `name` includes `value`. @throws InformerUsageError for an unknown index. */
  byIndex(name: string, value: string): T[] {
    return [...this.informers.values()].flatMap((i) => i.view.byIndex(name, value));
  }

  /** Whether every informer has synced. */
  hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.view.hasSynced());
  }

  /**
   * Whether the events being emitted now for objects of `namespace` (undefined: cluster scoped) come
   * from a list; see {@link Informer.isListing}.
   */
  isListing(namespace: string | undefined): boolean {
    return this.informerFor(namespace)?.view.isListing() ?? false;
  }

  /** The worst health of the informers; the reason names each unhealthy one. */
  health(): InformerHealth {
    const all = [...this.informers.values()].map((i) => [i.name, i.health()] as const);
    const status = all.reduce<InformerStatus>(
      (worst, [, h]) => (SEVERITY.indexOf(h.status) > SEVERITY.indexOf(worst) ? h.status : worst),
      all.length ? 'synced' : 'stopped',
    );
    const unhealthy = all.filter(([, h]) => !h.healthy);
    return {
      healthy: unhealthy.length === 0 && all.length > 0,
      status,
      reason: unhealthy.length
        ? unhealthy.map(([n, h]) => `${n}: ${h.reason ?? h.status}`).join('; ')
        : undefined,
      since: Math.max(0, ...all.map(([, h]) => h.since)),
    };
  }

  /** Health of each informer by name. */
  healthByInformer(): Record<string, InformerHealth> {
    return Object.fromEntries([...this.informers.values()].map((i) => [i.name, i.health()]));
  }

  /** Routes to the informer of the object's namespace; false when that namespace is not watched. See {@link Informer.cacheIfNewer}. */
  cacheIfNewer(obj: T, previousResourceVersion?: string): boolean {
    return (
      this.informerFor(obj.metadata?.namespace)?.view.cacheIfNewer(obj, previousResourceVersion) ?? false
    );
  }

  /**
   * Internal (own writes): lets the watch of the object's namespace deliver `owned` (`written`, an
   * answer of a write by this informer's client, or a copy of it, which the caller caches and never
   * changes) for the event of its version instead of parsing it (see {@link Informer.expectEcho}).
   */
  expectEcho(written: T, owned: T = written): void {
    this.informerFor(written.metadata?.namespace)?.view.expectEcho?.(written, owned);
  }

  private informerFor(namespace: string | undefined): Member<T> | undefined {
    return this.informers.get(ALL) ?? (namespace ? this.informers.get(namespace) : undefined);
  }

  private keysFor(namespaces: WatchedNamespaces): string[] {
    return namespaces === 'all' || !this.options.type.namespaced ? [ALL] : namespaces;
  }

  private create(key: string): Member<T> {
    const { namespaces: _namespaces, shared: _shared, ...options } = this.options;
    const informer = new Member<T>(
      this.shared.acquire<T>({ ...options, namespace: key === ALL ? undefined : key }),
    );
    for (const [name, fn] of this.indexers) informer.view.addIndexer(name, fn);
    for (const handler of this.handlers)
      this.removers.get(handler)?.set(informer, informer.view.addEventHandler(handler));
    return informer;
  }

  private async startAll(informers: Member<T>[]): Promise<void> {
    const results = await Promise.allSettled(informers.map((i) => i.lease.start()));
    results.forEach((r, i) => (informers[i].started = r.status === 'fulfilled'));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await Promise.all(informers.map((i) => i.release()));
      // Released informers cannot restart: put fresh ones in their place so a later start can retry,
      // unless stop() came meanwhile (it made the start fail): what it let go of stays let go of, or
      // the fresh leases would hold their shared informers for good
      if (!this.started) throw failed.reason;
      for (const [key, informer] of this.informers) {
        if (informers.includes(informer)) {
          for (const perInformer of this.removers.values()) perInformer.delete(informer);
          this.informers.set(key, this.create(key));
        }
      }
      throw failed.reason;
    }
  }
}

function normalize(namespaces: WatchedNamespaces): WatchedNamespaces {
  if (namespaces === 'all') return 'all';
  if (!Array.isArray(namespaces) || namespaces.length === 0) {
    throw new InformerUsageError(`namespaces must be 'all' or a non-empty list of names`);
  }
  for (const ns of namespaces) {
    if (typeof ns !== 'string' || !DNS_LABEL.test(ns) || ns.length > 63) {
      throw new InformerUsageError(`"${String(ns)}" is not a valid namespace name`);
    }
  }
  return [...new Set(namespaces)];
}
