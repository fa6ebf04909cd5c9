import type { KubernetesResource } from '../api/resource-type.js';
import type { ResourceID } from '../api/resource-id.js';
import { InformerUsageError } from './errors.js';
import { Informer } from './informer.js';
import type { IndexFunction, InformerOptions } from './informer.js';
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
}

const ALL = '*';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SEVERITY: InformerStatus[] = ['synced', 'stopped', 'starting', 'reconnecting', 'failed'];

/**
 * One cache over several namespaces (JOSDK's `InformerManager`): one {@link Informer} per
 * namespace, or one for all namespaces, behind the same read API. Handlers and indexes apply to
 * every informer, including those {@link MultiNamespaceInformer.changeNamespaces} adds later.
 * Cluster-scoped kinds always use one informer.
 *
 * Removing a namespace stops its informer and drops its objects from the view without delete
 * events, as JOSDK does (`InformerManager.changeNamespaces` stops the removed sources); adding one
 * lists it, so its objects arrive as adds.
 */
export class MultiNamespaceInformer<T extends KubernetesResource> {
  private readonly informers = new Map<string, Informer<T>>();
  private readonly handlers: ResourceEventHandler<T>[] = [];
  private readonly indexers: Array<[string, IndexFunction<T>]> = [];
  private readonly removers = new Map<ResourceEventHandler<T>, Map<Informer<T>, () => void>>();
  private watched: WatchedNamespaces;
  private started = false;

  /** @throws InformerUsageError when a namespace is not a valid name or the list is empty. */
  constructor(private readonly options: MultiNamespaceInformerOptions<T>) {
    this.watched = normalize(options.namespaces ?? 'all');
    for (const key of this.keysFor(this.watched)) this.informers.set(key, this.create(key));
  }

  /** The namespaces cached now. */
  get namespaces(): WatchedNamespaces {
    return this.watched === 'all' ? 'all' : [...this.watched];
  }

  /**
   * Starts every informer; resolves when all have listed. If one fails to start (failFast), the
   * others are stopped and the first failure is thrown.
   */
  async start(): Promise<void> {
    this.started = true;
    try {
      await this.startAll([...this.informers.values()]);
    } catch (error) {
      this.started = false;
      throw error;
    }
  }

  /** Stops every informer. */
  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  /**
   * Changes the namespaces: starts informers for the new ones (resolves when they have listed),
   * stops those of the removed ones (no delete events for their objects).
   * @throws InformerUsageError for an invalid namespace list.
   */
  async changeNamespaces(namespaces: WatchedNamespaces): Promise<void> {
    const next = normalize(namespaces);
    const wanted = new Set(this.keysFor(next));
    const removed = [...this.informers.keys()].filter((key) => !wanted.has(key));
    const added = [...wanted].filter((key) => !this.informers.has(key));
    this.watched = next;
    const fresh = added.map((key) => {
      const informer = this.create(key);
      this.informers.set(key, informer);
      return informer;
    });
    const stopping = removed.map((key) => {
      const informer = this.informers.get(key)!;
      this.informers.delete(key);
      for (const perInformer of this.removers.values()) perInformer.delete(informer);
      return informer.stop();
    });
    await Promise.all(stopping);
    if (this.started) await this.startAll(fresh);
  }

  /** Adds a handler to every informer (present and future); returns its remover. */
  addEventHandler(handler: ResourceEventHandler<T>): () => void {
    this.handlers.push(handler);
    const perInformer = new Map<Informer<T>, () => void>();
    this.removers.set(handler, perInformer);
    for (const informer of this.informers.values())
      perInformer.set(informer, informer.addEventHandler(handler));
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
    for (const informer of this.informers.values()) informer.addIndexer(name, fn);
  }

  /** The cached object of that ID, if its namespace is watched. */
  get(id: ResourceID): T | undefined {
    return this.informerFor(id.namespace)?.get(id);
  }

  /** Cached objects, all or of one namespace. */
  list(namespace?: string): T[] {
    if (namespace !== undefined) return this.informerFor(namespace)?.list(namespace) ?? [];
    return [...this.informers.values()].flatMap((i) => i.list());
  }

  /** Keys of all cached objects. */
  keys(): string[] {
    return [...this.informers.values()].flatMap((i) => i.keys());
  }

  /** Objects of every informer whose index `name` includes `value`. @throws InformerUsageError for an unknown index. */
  byIndex(name: string, value: string): T[] {
    return [...this.informers.values()].flatMap((i) => i.byIndex(name, value));
  }

  /** Whether every informer has synced. */
  hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced());
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
    return this.informerFor(obj.metadata?.namespace)?.cacheIfNewer(obj, previousResourceVersion) ?? false;
  }

  private informerFor(namespace: string | undefined): Informer<T> | undefined {
    return this.informers.get(ALL) ?? (namespace ? this.informers.get(namespace) : undefined);
  }

  private keysFor(namespaces: WatchedNamespaces): string[] {
    return namespaces === 'all' || !this.options.type.namespaced ? [ALL] : namespaces;
  }

  private create(key: string): Informer<T> {
    const informer = new Informer<T>({ ...this.options, namespace: key === ALL ? undefined : key });
    for (const [name, fn] of this.indexers) informer.addIndexer(name, fn);
    for (const handler of this.handlers)
      this.removers.get(handler)?.set(informer, informer.addEventHandler(handler));
    return informer;
  }

  private async startAll(informers: Informer<T>[]): Promise<void> {
    const results = await Promise.allSettled(informers.map((i) => i.start()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await Promise.all(informers.map((i) => i.stop()));
      // Stopped informers cannot restart: put fresh ones in their place so a later start can retry.
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
