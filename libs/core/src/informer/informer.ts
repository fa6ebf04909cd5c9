import type { KubernetesResource, ResourceType } from '../api/resource-type.js';
import type { ResourceID } from '../api/resource-id.js';
import type { KubernetesClient } from '../client/kubernetes-client.js';
import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { noopLogger } from '../util/logger.js';
import { ExponentialBackoff } from './backoff.js';
import type { BackoffOptions } from './backoff.js';
import { KubernetesApiError } from '../client/errors.js';
import { InformerUsageError } from './errors.js';
import type { InformerStartError } from './errors.js';
import type { InformerHealth, InformerStatus } from './informer-health.js';
import type { ResourceEventHandler } from './resource-event-handler.js';
import { InformerCache } from './internal/informer-cache.js';
import type { IndexFunction } from './internal/informer-store.js';
import { ListWatchLoop } from './internal/list-watch-loop.js';
import { selectorMatcher } from './internal/selector-match.js';

export type { IndexFunction } from './internal/informer-store.js';

/** Options of an {@link Informer}. */
export interface InformerOptions<T extends KubernetesResource> {
  /** The client to list and watch with. */
  client: KubernetesClient;
  /** The kind to cache. */
  type: ResourceType<T>;
  /** Namespace to cache; undefined caches all namespaces (ignored for cluster-scoped kinds). */
  namespace?: string;
  /** Only objects matching this label selector are cached. Defaults to all. */
  labelSelector?: string;
  /** Only objects matching this field selector are cached. Defaults to all. */
  fieldSelector?: string;
  /** Page size of lists. Defaults to 500. */
  pageSize?: number;
  /**
   * The informer's first list asks for `resourceVersion=0`, as client-go's reflector does:
   * kube-apiserver answers it from its watch cache in one response (it ignores the page size there)
   * instead of paginated consistent reads from etcd. The answer may be a little older than the
   * newest state; the watch from its resourceVersion then brings every later change. Lists after
   * that (a watch history compacted away, 410) are consistent. `false` makes the first list
   * consistent and paginated too. Defaults to true.
   */
  firstListFromCache?: boolean;
  /** Time source. Defaults to {@link systemClock}. */
  clock?: Clock;
  /** Where failures and state changes are logged (each line carries the informer name, kind and namespace). Defaults to no logging. */
  logger?: Logger;
  /** Name in logs and health. Defaults to `<plural>.<group>` plus `/<namespace>` when namespaced. */
  name?: string;
  /** Reconnect backoff. Defaults to 800 ms doubling to 30 s, ±20 % jitter, reset after 2 minutes of health. */
  backoff?: BackoffOptions;
  /**
   * A stream that delivers no event and no bookmark for this long is taken for dead and reconnected
   * (from the last resourceVersion). Defaults to 300,000 ms (5 minutes): the kube-apiserver sends a
   * bookmark to every bookmark-enabled watch about once a minute, so 5 minutes of silence means about
   * 4 missed bookmarks: a half-open connection (a NAT or load balancer dropped it) whose end would
   * never reach us, not a quiet resource. Against servers without periodic bookmarks a quiet stream
   * costs one cheap resume every 5 minutes, never a re-list.
   */
  deadStreamTimeoutMs?: number;
  /** Server-side watch timeout per connection. Defaults to a random value in [300, 600) s per connection, like client-go, so many informers do not reconnect in step. */
  watchTimeoutSeconds?: number;
  /** Applied to every object before it is cached (e.g. drop `metadata.managedFields` to save memory). Defaults to none. */
  transform?: (obj: T) => T;
  /** When true, {@link Informer.start} rejects if the first list fails; when false it resolves and keeps retrying, reporting the failure in {@link Informer.health}. Defaults to true. */
  failFast?: boolean;
  /** Randomness for jitter and watch timeouts (tests fix it). Defaults to `Math.random`. */
  random?: () => number;
  /**
   * Cache metadata only (kube-rs' `metadata_watcher`, controller-runtime's metadata-only watches):
   * lists and watches ask for `PartialObjectMetadata`, so objects carry `apiVersion`
   * (`meta.k8s.io/v1`), `kind` (`PartialObjectMetadata`) and `metadata`, without `data` or `spec`.
   * For secondaries whose reconciler needs names, labels, annotations, owners or versions only
   * (e.g. Secrets): far less memory and traffic. Use `KubernetesResource` (or
   * `PartialObjectMetadata`) as `T`. Defaults to false.
   */
  metadataOnly?: boolean;
  /**
   * Advanced, for the sharding layer: which objects to keep. The cache holds only objects this
   * admits and handlers get events only for them; an update that makes a cached object not admitted
   * removes it with `onDelete(lastCachedObject, true)` (final state unknown: the object still exists
   * on the server). It is called on every event, may read changing state (e.g. a shard ring), and a
   * throw counts as "not admitted" (logged). After what it answers changes, call
   * {@link Informer.readmit}. An informer with `admit` is never shared by `SharedInformers`.
   * Defaults to keeping every object of the selection.
   */
  admit?: (obj: T) => boolean;
}

/**
 * One user's handle on an informer shared through `SharedInformers`: the informer's reads, with this
 * user's own handlers, indexes and own writes ({@link Informer.cacheIfNewer}), which no other user
 * sees. Health, sync state and the list-event flag are the shared informer's.
 */
export interface InformerView<T extends KubernetesResource> {
  /** The shared informer's name. */
  readonly name: string;
  /** See {@link Informer.get}. */
  get(id: ResourceID): T | undefined;
  /** See {@link Informer.list}. */
  list(namespace?: string): T[];
  /** See {@link Informer.keys}. */
  keys(): string[];
  /** See {@link Informer.byIndex} (this user's indexes only). @throws InformerUsageError for an unknown index. */
  byIndex(name: string, value: string): T[];
  /** See {@link Informer.addIndexer}; the index is this user's. @throws InformerUsageError when this user has an index of that name. */
  addIndexer(name: string, fn: IndexFunction<T>): void;
  /** See {@link Informer.addEventHandler}. */
  addEventHandler(handler: ResourceEventHandler<T>): () => void;
  /** See {@link Informer.cacheIfNewer}; the own write is read by this user only. */
  cacheIfNewer(obj: T, previousResourceVersion?: string): boolean;
  /** See {@link Informer.expectEcho}. */
  expectEcho?(answer: T, owned?: T): void;
  /** See {@link Informer.hasSynced}. */
  hasSynced(): boolean;
  /** See {@link Informer.health}. */
  health(): InformerHealth;
  /** See {@link Informer.isListing}. */
  isListing(): boolean;
  /** See {@link Informer.startFailure}. */
  startFailure(): InformerStartError | undefined;
  /** See {@link Informer.lastSyncResourceVersion}. */
  lastSyncResourceVersion(): string;
  /** Removes this user's handlers, indexes and own writes. Idempotent. */
  close(): void;
}

/**
 * A cache of one kind, kept current by list and watch, with event handlers and indexes
 * (client-go's SharedIndexInformer; JOSDK's informer behind an `InformerEventSource`).
 *
 * It lists (paginated, consistent snapshot through continue tokens; a 410 on a continue token
 * restarts the list, and a second one lists in one unpaginated request, as client-go's pager), then watches from the list's resourceVersion with bookmarks, resuming from the
 * last seen resourceVersion after a dropped stream. A 410 (HTTP or `ERROR` event) re-lists and emits
 * the difference as synthetic events; the cache is keyed by namespace/name and uid, so an object
 * deleted and re-created while disconnected is a delete (final state unknown) then an add. A stream
 * the server ends (EOF, `timeoutSeconds`, a connection of an established stream closed or reset) is
 * no failure: the watch resumes at once (only a third quick empty end in a row waits, 100 ms doubling
 * to 1 s). Failures (a watch that cannot be opened, an `ERROR` event, an unparsable line) back off
 * exponentially with jitter; a stream silent beyond `deadStreamTimeoutMs` is reconnected. When the
 * client is closed the informer stops with status `failed`.
 * Every failure is logged and visible in {@link Informer.health}; the informer never stops silently.
 *
 * The engine is a state machine with one step function: `list` (all pages) → `watch` (stream) →
 * (`backoff` →) `watch` or `list` ..., until `stopped`; see {@link InformerStatus} for what
 * {@link Informer.health} reports in each phase.
 *
 * Why our own streaming rather than @kubernetes/client-node 2.x's `Watch`/`makeInformer`: its
 * `Watch` aborts a stream after 30 s without data (it sets no `timeoutSeconds` and asks for no
 * bookmarks, so quiet resources reconnect every 30 s) and drops unparsable lines silently; its
 * `ListWatch` lists in one request (no pagination), never requests bookmarks, gives up on any
 * error but a 410 or a timeout (the informer stops and waits for the user to restart it), backs off
 * without jitter, calls update handlers without the old object, and after a 410 re-list diffs by
 * name only (a delete and re-create is reported as an update; deletes carry no final-state-unknown
 * flag).
 *
 * @typeParam T - the object type of the kind.
 */
export class Informer<T extends KubernetesResource> {
  /** The name in logs and health. */
  readonly name: string;
  private readonly cache: InformerCache<T>;
  private readonly listing: {
    client: KubernetesClient;
    type: ResourceType<T>;
    namespace: string | undefined;
    labelSelector?: string;
    fieldSelector?: string;
    pageSize: number;
    metadataOnly: boolean;
  };
  private readonly loop: ListWatchLoop<T>;
  private readonly clock: Clock;
  private state: InformerHealth;
  private phase: 'new' | 'running' | 'stopped' = 'new';
  private synced = false;

  /** @throws InformerUsageError when an option is out of range. */
  constructor(options: InformerOptions<T>) {
    const { client, type } = options;
    if (!client || !type) throw new InformerUsageError('an informer needs a client and a resource type');
    const pageSize = options.pageSize ?? 500;
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new InformerUsageError(`pageSize must be a positive integer, got ${pageSize}`);
    }
    const deadStreamTimeoutMs = options.deadStreamTimeoutMs ?? 300_000;
    if (!(deadStreamTimeoutMs > 0)) {
      throw new InformerUsageError(`deadStreamTimeoutMs must be > 0, got ${deadStreamTimeoutMs}`);
    }
    if (options.watchTimeoutSeconds !== undefined && !(options.watchTimeoutSeconds >= 1)) {
      throw new InformerUsageError(`watchTimeoutSeconds must be >= 1, got ${options.watchTimeoutSeconds}`);
    }
    const namespace = type.namespaced ? options.namespace || undefined : undefined;
    const qualified = type.group ? `${type.plural}.${type.group}` : type.plural;
    this.name = options.name ?? (namespace ? `${qualified}/${namespace}` : qualified);
    this.clock = options.clock ?? systemClock;
    const random = options.random ?? Math.random;
    const logger = (options.logger ?? noopLogger).child({
      informer: this.name,
      kind: type.kind,
      namespace: namespace ?? '*',
    });
    this.state = { healthy: false, status: 'stopped', since: this.clock.now() };
    const selection = selectorMatcher(options.labelSelector, options.fieldSelector);
    if (selection.unparsable) {
      logger.warn('selector not understood on the client; own writes will not be cached', {
        selector: selection.unparsable,
      });
    }
    this.cache = new InformerCache<T>(logger, options.transform, selection.matches, options.admit);
    this.listing = {
      client,
      type,
      namespace,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      pageSize,
      metadataOnly: options.metadataOnly ?? false,
    };
    this.loop = new ListWatchLoop<T>(
      {
        name: this.name,
        client,
        type,
        namespace,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        pageSize,
        firstListFromCache: options.firstListFromCache ?? true,
        clock: this.clock,
        logger,
        backoff: new ExponentialBackoff(options.backoff, random),
        deadStreamTimeoutMs,
        watchTimeoutSeconds: options.watchTimeoutSeconds,
        random,
        failFast: options.failFast ?? true,
        metadataOnly: options.metadataOnly ?? false,
        echoes: this,
      },
      {
        listed: (items, resourceVersion) => this.cache.replace(items, resourceVersion),
        event: (type, obj) => this.cache.apply(type, obj),
        status: (status, reason) => this.setStatus(status, reason),
      },
    );
  }

  /**
   * Starts listing and watching. Resolves when the first list is in the cache. With `failFast`
   * (the default) a failing first list rejects with an `InformerStartError` (its `cause` is the
   * API or transport error) and the informer stops; without it, `start` resolves after the first
   * attempt and the informer keeps retrying, unhealthy with the reason, until a list succeeds.
   * Calling it again returns the same promise.
   * @throws InformerUsageError when the informer was stopped (create a new one instead).
   */
  start(): Promise<void> {
    if (this.phase === 'stopped') {
      return Promise.reject(new InformerUsageError(`informer ${this.name} was stopped; create a new one`));
    }
    this.phase = 'running';
    return this.loop.start();
  }

  /** Stops the informer: aborts the request or stream in flight; resolves when nothing is left running. The cache keeps its last content. */
  async stop(): Promise<void> {
    this.phase = 'stopped';
    await this.loop.stop();
  }

  /**
   * Registers a handler; objects already cached are replayed to its `onAdd` at once (as client-go
   * does), so a handler added late misses nothing. Returns a function that removes the handler.
   */
  addEventHandler(handler: ResourceEventHandler<T>): () => void {
    return this.cache.addHandler(handler);
  }

  /** The cached object of that ID, if any. */
  get(id: ResourceID): T | undefined {
    return this.cache.main.get(id.key);
  }

  /** Cached objects, all or of one namespace. */
  list(namespace?: string): T[] {
    return this.cache.main.list(namespace);
  }

  /** Keys (`namespace/name` or `name`) of the cached objects. */
  keys(): string[] {
    return this.cache.main.keys();
  }

  /**
   * Adds an index (before or after start; it is filled from the cache at once and kept up to date).
   * A throwing index function is logged and leaves that object out of the index.
   * @throws InformerUsageError when an index of that name exists.
   */
  addIndexer(name: string, fn: IndexFunction<T>): void {
    this.cache.addIndex(name, fn);
  }

  /**
   * Cached objects whose values of index `name` include `value`.
   * @throws InformerUsageError for an unknown index.
   */
  byIndex(name: string, value: string): T[] {
    return this.cache.main.byIndex(name, value);
  }

  /** Whether a complete list has been cached (it stays true through reconnects). */
  hasSynced(): boolean {
    return this.synced;
  }

  /** The informer's health; see {@link InformerStatus}. */
  health(): InformerHealth {
    return { ...this.state };
  }

  /** The resourceVersion of the newest list, event or bookmark seen (`''` before the first list). */
  lastSyncResourceVersion(): string {
    return this.loop.lastResourceVersion;
  }

  /**
   * Puts the result of an own write in the cache so the next read sees it before its watch event
   * arrives. Fires no events. Accepted when:
   * - the object has a name and a resourceVersion, and its uid was not seen deleted;
   * - it matches the informer's `labelSelector` and `fieldSelector` (evaluated on the client; a
   *   write that moved the object out of the selection is refused and drops an earlier own write of
   *   it, since the stream will report it gone; a selector the client cannot parse refuses all); and
   * - nothing is cached under its key (e.g. after a create), or the cached object has the same uid
   *   and an older resourceVersion. resourceVersions are compared as integers when both are decimal
   *   (etcd's); when either is opaque, the write is accepted only if its resourceVersion differs and
   *   the cached one equals `previousResourceVersion` (the version the write was based on, so no newer
   *   event has arrived since; JOSDK's rule). Without `previousResourceVersion` an opaque one is refused.
   *
   * The own write is an overlay over the watched objects (JOSDK's `TemporaryResourceCache`): reads
   * ({@link Informer.get}, {@link Informer.list}, {@link Informer.byIndex}) return it while it is
   * newer than the watched object; it is dropped once a watch event or list reaches its
   * resourceVersion (opaque versions: on the next event of that object), on a delete or a new uid.
   * Events are never suppressed by it: every watch event, older than the overlay or not, is emitted
   * with the previously watched object as `oldObj`, so a change made by someone else before our
   * write (and contained in it) is still reported. The one event that carries exactly the overlay's
   * resourceVersion (the write itself) is reported with the overlay as `oldObj`: both carry the same
   * version, so generation- or finalizer-based filters see no change and a write does not trigger
   * its writer again (any foreign change before it had its own event). A re-list always reports the
   * difference from the watched object.
   * @returns whether the cache took the object.
   */
  cacheIfNewer(obj: T, previousResourceVersion?: string): boolean {
    return this.cache.cacheIfNewer(obj, previousResourceVersion);
  }

  /**
   * Internal (own writes, issue 15 §2): this informer's watch may deliver `owned` for the event of
   * the version `answer` carries instead of parsing it (see `KubernetesClient.expectEcho`; only this
   * informer's watch, never another consumer of the client). `answer` is what a write of this
   * informer's client returned; `owned` is `answer` or a copy of it, unchanged, which the caller
   * caches and nobody changes (the informer's transform must not change objects in place either).
   * Call it right after the write returned.
   */
  expectEcho(answer: T, owned: T = answer): void {
    this.listing.client.expectEcho(answer, owned, this);
  }

  /**
   * Whether the events being emitted now come from a list rather than the watch: a first list, a
   * re-list (after a 410), {@link Informer.readmit}, or the replay of the cache to a handler added
   * late. Own-write attribution treats such events as someone else's change, and a controller queues
   * them behind fresh changes (see `RelistWindow`).
   */
  isListing(): boolean {
    return this.cache.listing;
  }

  /**
   * Why the first list failed, while no list has succeeded yet (the informer keeps retrying when
   * `failFast` is off); undefined once a list succeeded or before the first attempt.
   */
  startFailure(): InformerStartError | undefined {
    return this.loop.unsyncedFailure;
  }

  /**
   * Advanced, for the sharding layer: applies the `admit` predicate as it answers now. Lists afresh
   * (paginated, with the informer's selection), then in one synchronous step removes the cached
   * objects the predicate no longer admits (`onDelete(obj, true)`) and adds the listed objects it
   * admits that the cache lacks (`onAdd`); both count as list events ({@link Informer.isListing}).
   * Objects the cache holds stay as the watch has them, and an object seen deleted is not brought
   * back. Change what `admit` answers before calling this: the watch applies the new answer to every
   * event from then on, and the list, sent afterwards, holds every object the watch delivered before.
   * Nothing is removed before the list returns, so no read finds an object missing that should be
   * cached. A no-op before start and after stop; without `admit` it only adds what is missing.
   * @throws the client's error when the list fails (the cache is then unchanged; call again).
   */
  async readmit(): Promise<void> {
    if (this.phase !== 'running') return;
    const items = await this.listAll();
    if ((this.phase as string) !== 'running') return;
    this.cache.readmit(items);
  }

  /**
   * For `SharedInformers`: opens another user's view of this informer's cache (its own handlers,
   * indexes and own writes over the shared watched objects). Close it when the user is done.
   */
  openView(): InformerView<T> {
    const view = this.cache.openView();
    return {
      name: this.name,
      get: (id) => view.get(id.key),
      list: (namespace) => view.list(namespace),
      keys: () => view.keys(),
      byIndex: (name, value) => view.byIndex(name, value),
      addIndexer: (name, fn) => view.addIndex(name, fn),
      addEventHandler: (handler) => view.addHandler(handler),
      cacheIfNewer: (obj, previousResourceVersion) => view.cacheIfNewer(obj, previousResourceVersion),
      expectEcho: (answer, owned) => this.expectEcho(answer, owned),
      hasSynced: () => this.hasSynced(),
      health: () => this.health(),
      isListing: () => this.isListing(),
      startFailure: () => this.startFailure(),
      lastSyncResourceVersion: () => this.lastSyncResourceVersion(),
      close: () => view.close(),
    };
  }

  private async listAll(): Promise<T[]> {
    const { client, type, namespace, labelSelector, fieldSelector, pageSize, metadataOnly } = this.listing;
    const items: T[] = [];
    let continueToken: string | undefined;
    for (let restarts = 0; ;) {
      try {
        const page = await client.list(type, {
          namespace,
          labelSelector,
          fieldSelector,
          // as the loop's lists: restarted once paginated, then in one unpaginated request
          limit: restarts < 2 ? pageSize : undefined,
          continue: continueToken,
          metadataOnly,
        });
        for (const item of page.items) items.push(item);
        continueToken = page.continue;
        if (!continueToken) return items;
      } catch (error) {
        if (!(continueToken && error instanceof KubernetesApiError && error.isGone() && restarts < 2))
          throw error;
        restarts++;
        items.length = 0;
        continueToken = undefined;
      }
    }
  }

  private setStatus(status: InformerStatus, reason?: string): void {
    if (status === 'synced') this.synced = true;
    if (status === this.state.status && reason === this.state.reason) return;
    this.state = {
      healthy: status === 'synced',
      status,
      reason: status === 'synced' || status === 'stopped' ? undefined : reason,
      since: this.clock.now(),
    };
  }
}
