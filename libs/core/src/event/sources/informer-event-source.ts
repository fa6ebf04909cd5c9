import type { EventSourceContext, PrimaryResourceCache } from '../../api/event-source-context.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import { resourceTypeName } from '../../api/resource-type.js';
import { BoundedResourceCache } from '../../cache/bounded-resource-cache.js';
import { managedFieldsTransform } from '../../cache/managed-fields.js';
import type { ManagedFieldsPolicy } from '../../cache/managed-fields.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import type { IndexFunction } from '../../informer/informer.js';
import { cacheKey } from '../../informer/internal/informer-store.js';
import { compareResourceVersions } from '../../informer/internal/resource-version.js';
import { cloneResource } from '../../reconcile/internal/clone.js';
import { selectorMatcher } from '../../informer/internal/selector-match.js';
import { MultiNamespaceInformer } from '../../informer/multi-namespace-informer.js';
import type { Clock } from '../../util/clock.js';
import type { EventSourceHealth, ResourceEventSource } from '../event-source.js';
import { AbstractEventSource, errorMessage } from './abstract-event-source.js';
import type { EventSourceOptions } from './abstract-event-source.js';
import {
  EventSourceUsageError,
  InformerEventSourceStartError,
  MissingPrimaryToSecondaryMapperError,
} from './errors.js';
import { PrimaryIndex, sameOwners } from './internal/primary-index.js';
import { forPrimaryType } from './internal/typed-mapper.js';
import { isIndexableMapper, Mappers } from './mappers.js';
import type { PrimaryToSecondaryMapper, SecondaryToPrimaryMapper } from './mappers.js';
import { OwnWriteTracker } from './own-write-tracker.js';
import { RelistWindow } from './relist-window.js';
import type { HeldEvent } from './own-write-tracker.js';
import { OwnWrites } from './own-write.js';
import type { OwnWrite } from './own-write.js';

/** The index of secondaries by the keys of their primaries (from an indexable mapper). */
export const PRIMARY_INDEX = 'tosdk.io/primary';

/** Which namespaces an {@link InformerEventSource} watches. */
export type InformerNamespaces = readonly string[] | 'all' | 'sameAsController';

/** Options of an {@link InformerEventSource}. */
export interface InformerEventSourceOptions<
  R extends KubernetesResource,
  P extends KubernetesResource,
> extends EventSourceOptions {
  /** The secondary kind (typed, or any kind declared with `defineResource` for untyped use). */
  type: ResourceType<R>;
  /** Maps a secondary to its primaries. Defaults to {@link Mappers.fromOwnerReferences} of the controller's primary kind. */
  secondaryToPrimaryMapper?: SecondaryToPrimaryMapper<R>;
  /** Maps a primary to its secondaries (many-to-one, many-to-many). Defaults to none (the index of an indexable mapper is used). */
  primaryToSecondaryMapper?: PrimaryToSecondaryMapper<P>;
  /** Namespaces to watch: a list, `'all'`, or `'sameAsController'`. Defaults to `'sameAsController'`. */
  namespaces?: InformerNamespaces;
  /** Whether to follow the controller's `changeNamespaces`. Defaults to true with `'sameAsController'`, else false. */
  followControllerNamespaceChanges?: boolean;
  /** Only secondaries matching this label selector are cached. Defaults to all. */
  labelSelector?: string;
  /** Only secondaries matching this field selector are cached. Defaults to all. */
  fieldSelector?: string;
  /** An added secondary triggers only when this accepts it. Defaults to accept. */
  onAddFilter?: (obj: R) => boolean;
  /** An updated secondary triggers only when this accepts it. Defaults to accept. */
  onUpdateFilter?: (newObj: R, oldObj: R) => boolean;
  /** A deleted secondary triggers only when this accepts it. Defaults to accept. */
  onDeleteFilter?: (obj: R, finalStateUnknown: boolean) => boolean;
  /** Every event triggers only when this accepts the object too. Defaults to accept. */
  genericFilter?: (obj: R) => boolean;
  /** The client to watch with, e.g. one of another cluster. Defaults to the controller's. */
  client?: KubernetesClient;
  /** Extra indexes on the secondaries (read with `byIndex`). Defaults to none. */
  indexers?: Record<string, IndexFunction<R>>;
  /**
   * What the cache keeps of `metadata.managedFields`. Defaults to `keepOwn` (only the entries of
   * `fieldManager`; see `managedFieldsTransform` for why that is safe). In an operator, `keepOwn`
   * for a controller's field manager keeps the entries of every controller's manager, so that
   * sources of several controllers share one cache (see `SharedInformers.managedFieldsTransform`).
   */
  managedFields?: ManagedFieldsPolicy;
  /** The field manager used for own writes and kept by `keepOwn`. Defaults to the controller's field manager. */
  fieldManager?: string;
  /**
   * Keep full objects only while used: those not read or written for `ttlMs` are evicted (the
   * informer keeps their metadata for events and mapping) and fetched again on demand with
   * {@link InformerEventSource.fetch}. Defaults to off (everything cached). Secondaries only: the
   * controller's primary cache is never bounded (see `ControllerEventSource` for why).
   */
  boundedCache?: { ttlMs: number; max?: number };
  /** Whether events of primaries that are not in the controller's cache are dropped (logged at debug). Defaults to true. */
  skipUnknownPrimaries?: boolean;
  /**
   * Whether `start` rejects when the first list fails (the informer keeps retrying either way).
   * Defaults to true: the operator's `stopOnInformerErrorDuringStartup` then decides whether that
   * stops the start or only marks the source unhealthy until a list succeeds.
   */
  failFast?: boolean;
  /**
   * Cache metadata only (see `InformerOptions.metadataOnly`): the source lists and watches
   * `PartialObjectMetadata`, so cached secondaries carry `metadata` only (names, labels,
   * annotations, owners, versions), without `data` or `spec`: far less memory for secondaries whose
   * reconciler needs no more (e.g. Secrets it only checks exist). Use `KubernetesResource` as `R`.
   * Mapping (owner references, labels, annotations) works as usual; an own write's result is read
   * back whole until its event replaces it. Sources with the same setting share an informer.
   * Defaults to false.
   */
  metadataOnly?: boolean;
}

/**
 * Watches secondary Kubernetes resources and triggers the primaries they map to (JOSDK's
 * `InformerEventSource`), with a cache readable through {@link InformerEventSource.get}, `list`,
 * `byIndex`, `keys` and the context's `getSecondaryResource(s)`.
 *
 * Own writes (through {@link InformerEventSource.write} or the context's resource operations) give
 * read-after-write and do not trigger the controller; every change by someone else still does:
 * - The written object is served by `get`, `list`, `byIndex` and `getSecondaryResources` at once,
 *   until the informer holds that version or a newer one (numeric resourceVersions); with opaque
 *   resourceVersions, until the informer's next event of that object.
 * - A watch event is suppressed only when its resourceVersion is one an own write returned and we
 *   know our request created that version with nothing else in it (see `OwnWriteTracker`): a write
 *   that changed nothing gets the current version back, which may carry someone else's change, and
 *   that change triggers. Events that arrive while the write is in flight are held and judged when
 *   it returns; a change that landed before, during or after the write triggers.
 * - Events of a re-list always trigger (a re-list can merge a foreign change into the version of
 *   our write): at most one extra reconciliation after a re-list, never a lost one.
 * - Deletes always trigger. A failed write suppresses nothing.
 */
export class InformerEventSource<
  R extends KubernetesResource,
  P extends KubernetesResource = KubernetesResource,
>
  extends AbstractEventSource
  implements ResourceEventSource<R, P>
{
  readonly resourceType: ResourceType<R>;
  /** The client this source watches and writes with. */
  readonly client: KubernetesClient;
  /** The field manager of own server-side applies. */
  readonly fieldManager: string;
  /** Whether the cache holds metadata only (`metadataOnly`): a cached object shows no spec, data or status. */
  readonly metadataOnly: boolean;
  private readonly informer: MultiNamespaceInformer<R>;
  private readonly s2p: SecondaryToPrimaryMapper<R>;
  private readonly p2s?: PrimaryToSecondaryMapper<P>;
  private readonly indexed: boolean;
  /** PRIMARY_INDEX, kept by this source's event handler (see PrimaryIndex for why not the informer's). */
  private readonly primaryIndex?: PrimaryIndex;
  /** Whether the mapper is the default one (owner references): an update keeping them needs no index work. */
  private readonly ownerMapped: boolean;
  private readonly follow: boolean;
  private readonly primaries: PrimaryResourceCache<P> | undefined;
  private readonly indexers: Record<string, IndexFunction<R>>;
  private readonly own = new OwnWriteTracker<R>();
  private readonly hot?: BoundedResourceCache<R>;
  private unsubscribe?: () => void;
  private mapperFailures = 0;
  /** Whether any event filter is configured. */
  private readonly filtered: boolean;
  /** Under a bounded cache with an update filter: the whole version an update replaced, until its event. */
  private readonly previous = new Map<string, R>();
  /** Under a bounded cache with filters: the whole objects of an event, for its filters. */
  private readonly fullViews = new WeakMap<HeldEvent<R>, FilterView<R>>();
  private readonly label: string;
  /** Whether an object is in the informer's label/field selection (no event comes for others). */
  private readonly inSelection: (obj: R) => boolean;

  /** @throws EventSourceUsageError for a missing type or an invalid namespace list. */
  constructor(
    private readonly o: InformerEventSourceOptions<R, P>,
    context: EventSourceContext<P>,
  ) {
    super({ ...o, logger: o.logger ?? context.logger });
    if (!o?.type) throw new EventSourceUsageError('an InformerEventSource needs a resource type');
    this.resourceType = o.type;
    this.label = `${this.name ?? 'InformerEventSource'}(${resourceTypeName(o.type)})`;
    this.inSelection = selectorMatcher(o.labelSelector, o.fieldSelector).matches;
    this.client = o.client ?? context.client;
    this.fieldManager = o.fieldManager ?? context.fieldManager ?? context.controllerName;
    this.metadataOnly = o.metadataOnly ?? false;
    const mapper = o.secondaryToPrimaryMapper
      ? forPrimaryType(o.secondaryToPrimaryMapper, context.primaryResourceType)
      : Mappers.fromOwnerReferences<R>(context.primaryResourceType);
    // the owner-reference mapper names a cluster-scoped primary without a namespace already
    this.s2p =
      o.secondaryToPrimaryMapper && context.primaryResourceType.namespaced === false
        ? withoutNamespaces(mapper)
        : mapper;
    this.p2s = o.primaryToSecondaryMapper;
    this.ownerMapped = !o.secondaryToPrimaryMapper;
    this.indexed = !this.p2s && isIndexableMapper(this.s2p);
    const nsOption = o.namespaces ?? 'sameAsController';
    this.follow = o.followControllerNamespaceChanges ?? nsOption === 'sameAsController';
    this.primaries = (o.skipUnknownPrimaries ?? true) ? context.primaryCache : undefined;
    this.indexers = o.indexers ?? {};
    const namespaces = nsOption === 'sameAsController' ? [...context.namespaces] : nsOption;
    const clock: Clock | undefined = context.clock;
    const shared = context.sharedInformers;
    const policy = o.managedFields ?? 'keepOwn';
    // one function per policy from the operator's shared informers, so pruning does not prevent sharing
    const prune = shared
      ? shared.managedFieldsTransform<R>(policy, this.fieldManager)
      : managedFieldsTransform<R>(policy, [this.fieldManager]);
    if (o.boundedCache) {
      this.hot = new BoundedResourceCache<R>({
        ttlMs: o.boundedCache.ttlMs,
        max: o.boundedCache.max,
        clock,
        fetch: (key) =>
          this.client.get(o.type, ResourceID.fromKey(key)).then((r) => (r && prune ? prune(r) : r)),
      });
    }
    const hot = this.hot;
    this.filtered = Boolean(o.onAddFilter || o.onUpdateFilter || o.onDeleteFilter || o.genericFilter);
    // an update filter compares the whole versions: the one replaced is kept until its event
    const previous = o.onUpdateFilter && hot ? this.previous : undefined;
    // without a bounded cache the transform is the pruner itself, one function per policy, so
    // sources with the same policy share an informer
    const transform = !hot
      ? prune
      : (obj: R): R => {
          const pruned = prune ? prune(obj) : obj;
          if (!hot) return pruned;
          const key = cacheKey(pruned);
          if (key) {
            const before = previous ? hot.get(key) : undefined;
            if (before && before.metadata?.resourceVersion !== pruned.metadata?.resourceVersion)
              previous!.set(key, before);
            hot.set(key, pruned);
          }
          return skeleton(pruned);
        };
    try {
      this.informer = new MultiNamespaceInformer<R>({
        client: this.client,
        shared,
        type: o.type,
        namespaces: namespaces === 'all' || namespaces.length === 0 ? 'all' : [...namespaces],
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
        metadataOnly: this.metadataOnly,
        clock,
        logger: this.logger,
        transform,
        // start() decides; the informer itself keeps retrying so a lenient operator recovers
        failFast: false,
      });
    } catch (error) {
      throw new EventSourceUsageError(`${this.label}: ${errorMessage(error)}`, { cause: error });
    }
    if (this.indexed) this.primaryIndex = new PrimaryIndex();
    for (const [name, fn] of Object.entries(this.indexers)) this.informer.addIndexer(name, fn);
  }

  override async start(): Promise<void> {
    await super.start();
    if (!this.unsubscribe) {
      const index = this.primaryIndex;
      // the index first, so that what an event triggers reads it up to date (the handler replays
      // what is cached as adds)
      index?.clear();
      this.unsubscribe = this.informer.addEventHandler({
        onAdd: (obj) => {
          if (index) this.indexAdd(index, obj);
          this.onEvent({ kind: 'add', obj });
        },
        onUpdate: (oldObj, obj) => {
          if (index) this.indexUpdate(index, oldObj, obj);
          this.onEvent({ kind: 'update', oldObj, obj });
        },
        onDelete: (obj, finalStateUnknown) => {
          if (index) this.indexRemove(index, obj);
          this.onEvent({ kind: 'delete', obj, finalStateUnknown });
        },
      });
    }
    await this.informer.start();
    const h = this.informer.health();
    if (h.status === 'failed' && (this.o.failFast ?? true)) {
      throw new InformerEventSourceStartError(
        `${this.label}: the first list failed (${h.reason ?? 'unknown reason'}); retrying in the background`,
      );
    }
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.informer.stop();
    this.own.clear();
    this.previous.clear();
  }

  override health(): EventSourceHealth {
    if (!this.isRunning()) return { healthy: false, status: 'stopped' };
    const h = this.informer.health();
    return { healthy: h.healthy, status: h.status, reason: h.reason };
  }

  /** Whether the cache holds a complete list. */
  hasSynced(): boolean {
    return this.informer.hasSynced();
  }

  /** Whether an own write of `id` is in flight or its event has not arrived yet (for tests and diagnostics). */
  hasPendingOwnWrite(id: ResourceID): boolean {
    return !this.own.isIdle(id.key);
  }

  /** How many events were dropped because the secondary-to-primary mapper threw. */
  get mapperFailureCount(): number {
    return this.mapperFailures;
  }

  followsControllerNamespaces(): boolean {
    return this.follow;
  }

  /** Watches other namespaces (`[]` for all): lists the new ones, drops the removed ones. */
  async changeNamespaces(namespaces: readonly string[]): Promise<void> {
    this.own.clear();
    await this.informer.changeNamespaces(namespaces.length === 0 ? 'all' : [...namespaces]);
    // a dropped namespace's objects leave without delete events
    const index = this.primaryIndex;
    if (index && this.unsubscribe) {
      index.clear();
      for (const obj of this.informer.list()) this.indexAdd(index, obj);
    }
  }

  /** The namespaces watched now. */
  get namespaces(): readonly string[] | 'all' {
    return this.informer.namespaces;
  }

  /** The cached secondary (an own write ahead of the informer included). With a bounded cache, undefined when evicted: use {@link fetch}. */
  get(id: ResourceID): R | undefined {
    const mine = this.own.get(id.key);
    if (mine) return this.full(mine);
    const cached = this.informer.get(id);
    return cached ? this.full(cached) : undefined;
  }

  /** The cached secondary, fetched from the API server when the bounded cache evicted it. */
  async fetch(id: ResourceID): Promise<R | undefined> {
    const mine = this.own.get(id.key);
    if (mine) return mine;
    if (!this.hot) return this.informer.get(id);
    if (!this.informer.get(id)) return undefined;
    return this.hot.fetch(id.key);
  }

  /** Cached secondaries, all or of one namespace, own writes included. */
  list(namespace?: string): R[] {
    return this.overlay(
      this.informer.list(namespace),
      (obj) => namespace === undefined || obj.metadata?.namespace === namespace,
    );
  }

  /** Keys (`namespace/name`) of the cached secondaries. */
  keys(): string[] {
    const keys = new Set(this.informer.keys());
    for (const [key] of this.own.entries()) keys.add(key);
    return [...keys];
  }

  /**
   * Cached secondaries whose index `name` (from `indexers`, or {@link PRIMARY_INDEX}) includes `value`, own writes included.
   * @throws InformerUsageError for an unknown index.
   */
  byIndex(name: string, value: string): R[] {
    if (name === PRIMARY_INDEX && this.primaryIndex) {
      return this.overlay(this.byPrimary(this.primaryIndex, value), (obj) => this.mapsTo(obj, value));
    }
    const fn = this.indexers[name];
    return this.overlay(this.informer.byIndex(name, value), (obj) => safeIndex(fn, obj).includes(value));
  }

  /**
   * The secondaries of a primary: through `primaryToSecondaryMapper`, else the index of an
   * indexable secondary-to-primary mapper.
   * @throws MissingPrimaryToSecondaryMapperError when the mapper is custom code not marked indexable and no primary-to-secondary mapper is configured.
   */
  getSecondaryResources(primary: P): R[] {
    if (this.p2s) {
      const out: R[] = [];
      for (const id of this.p2s(primary)) {
        const found = this.get(id);
        if (found) out.push(found);
      }
      return out;
    }
    if (!this.indexed) {
      throw new MissingPrimaryToSecondaryMapperError(
        `${this.label}: cannot find the secondaries of ${ResourceID.fromResource(primary).key}: the secondary-to-primary mapper is custom code (it may read other state, e.g. which primaries reference a secondary), so secondaries are not indexed by primary; configure primaryToSecondaryMapper, wrap a mapper that reads only the secondary with Mappers.indexable, or read the cache with get/list/byIndex`,
        this.name ?? 'InformerEventSource',
      );
    }
    return this.byIndex(PRIMARY_INDEX, ResourceID.fromResource(primary).key);
  }

  /**
   * Like {@link getSecondaryResources}, but with a bounded cache it fetches the secondaries that
   * were evicted (they are cached again, so they are hot for the next reads).
   * @throws MissingPrimaryToSecondaryMapperError as {@link getSecondaryResources}.
   */
  async fetchSecondaryResources(primary: P): Promise<R[]> {
    if (!this.hot) return this.getSecondaryResources(primary);
    let ids: ResourceID[];
    if (this.p2s) ids = this.p2s(primary);
    else {
      this.getSecondaryResources(primary); // same checks and errors
      ids = this.byPrimary(this.primaryIndex!, ResourceID.fromResource(primary).key).map((skeletonOf) =>
        ResourceID.fromResource(skeletonOf),
      );
    }
    const out: R[] = [];
    for (const found of await Promise.all(ids.map((id) => this.fetch(id)))) if (found) out.push(found);
    return out;
  }

  /**
   * Runs an own write of one secondary and caches its result (see the class comment for the
   * guarantee). `write` must return the object as the server returned it; `did` says what it did
   * (e.g. `OwnWrites.apply(intent)`), and defaults to unknown: then its event is never suppressed.
   * A result outside the watched namespaces or the label/field selectors is not cached (no event
   * would ever replace or drop it). The result is the caller's: what the source serves is a copy.
   */
  async write(id: ResourceID, write: () => Promise<R>, did: OwnWrite<R> = OwnWrites.unknown()): Promise<R> {
    this.own.begin(id.key);
    let result: R | undefined;
    // what is served is a copy (one for the bounded cache and the tracker): the result is the caller's
    let served: R | undefined;
    try {
      result = await write();
      if (this.hot) this.hot.set(id.key, (served = cloneResource(result)));
      return result;
    } finally {
      // a result the informer does not watch gets no event that would ever replace or drop it:
      // not kept (it would be served, deleted or not, for as long as the process runs)
      const now = this.informer.get(id);
      const kept = result && this.watches(result) ? (served ?? servable(result, now)) : undefined;
      // a copy kept to serve (the answer came before its watch event): the event can be that copy
      // instead of a parse of the same text (never with a bounded cache, whose informer keeps skeletons)
      if (result && kept && kept !== result && !this.hot) this.informer.expectEcho(result, kept);
      const foreign = this.own.end(id.key, kept, now, did);
      for (const held of foreign) this.propagate(held);
    }
  }

  private readonly relists = new RelistWindow((namespace) => this.informer.isListing(namespace));
  private admit: ((obj: R) => boolean) | undefined;

  /**
   * Advanced, for the sharding layer: caches only the secondaries `admit` accepts (e.g. those whose
   * primaries this replica owns; see {@link InformerEventSource.primaryIdsOf}). This source's
   * informers become its own (never shared with other sources). `admit` is called on every event
   * and may read changing state; after what it answers changes, call
   * {@link InformerEventSource.readmit}. A secondary that stops being admitted leaves the cache with
   * a delete event (mapped to its primaries as any delete). See `InformerOptions.admit`.
   * @throws EventSourceUsageError after start.
   */
  restrictTo(admit: (obj: R) => boolean): void {
    if (this.isRunning() || this.unsubscribe) {
      throw new EventSourceUsageError(`${this.label}: restrictTo() must be called before start()`);
    }
    this.admit = admit;
    this.informer.restrictTo(admit);
  }

  /**
   * Advanced, for the sharding layer: re-applies the `restrictTo` predicate as it answers now (see
   * `Informer.readmit`): lists afresh, then drops the secondaries no longer admitted and adds those
   * newly admitted, in one step. Resolves when the cache reflects the predicate. A no-op before start.
   * @throws the client's error when a list fails (the cache is then unchanged; call again).
   */
  async readmit(): Promise<void> {
    await this.informer.readmit();
  }

  /**
   * The primaries a secondary maps to (the secondary-to-primary mapper's answer); `[]` when the
   * mapper throws (logged). For the sharding layer's `admit`.
   */
  primaryIdsOf(obj: R): ResourceID[] {
    try {
      const ids = this.s2p(obj);
      return Array.isArray(ids) ? ids.filter((id) => id instanceof ResourceID) : [];
    } catch (error) {
      this.logger.error('the secondary-to-primary mapper threw', {
        secondary: cacheKey(obj),
        kind: this.resourceType.kind,
        error: errorMessage(error),
      });
      return [];
    }
  }

  private watches(obj: R): boolean {
    const namespaces = this.informer.namespaces;
    const namespace = obj.metadata?.namespace;
    if (namespace && namespaces !== 'all' && !namespaces.includes(namespace)) return false;
    if (this.admit && !safeAdmit(this.admit, obj)) return false;
    return this.inSelection(obj);
  }

  private onEvent(plain: HeldEvent<R>): void {
    const key = cacheKey(plain.obj);
    if (!key) return;
    const relisted = this.relists.covers(plain.obj.metadata?.namespace);
    // a bounded cache reports metadata skeletons: their data cannot explain a transition
    const event = relisted || this.hot ? { ...plain, relisted, opaque: Boolean(this.hot) } : plain;
    if (this.hot && this.filtered) this.fullViews.set(event, this.fullView(this.hot, key, event));
    if (event.kind === 'delete') {
      this.hot?.delete(key);
      this.previous.delete(key);
    }
    const verdict = this.own.onEvent(key, event);
    if (verdict === 'foreign') this.propagate(event);
  }

  /**
   * What the filters of an event get under a bounded cache: the whole objects the event's skeletons
   * stand for (the filters may read data or spec), each when the cache still holds that version.
   */
  private fullView(hot: BoundedResourceCache<R>, key: string, event: HeldEvent<R>): FilterView<R> {
    const current = hot.get(key);
    const obj = current && sameVersion(current, event.obj) ? current : event.obj;
    if (event.kind !== 'update') return { obj };
    const before = this.previous.get(key);
    this.previous.delete(key);
    const oldObj = before && event.oldObj && sameVersion(before, event.oldObj) ? before : event.oldObj;
    return { obj, oldObj };
  }

  private propagate(event: HeldEvent<R>): void {
    const { obj, oldObj } = this.fullViews.get(event) ?? event;
    try {
      const o = this.o;
      const accepted =
        event.kind === 'add'
          ? (o.onAddFilter?.(obj) ?? true)
          : event.kind === 'update'
            ? (o.onUpdateFilter?.(obj, oldObj!) ?? true)
            : (o.onDeleteFilter?.(obj, event.finalStateUnknown ?? false) ?? true);
      if (!accepted || !(o.genericFilter?.(obj) ?? true)) return;
    } catch (error) {
      this.logger.error('an event filter threw; event dropped', {
        secondary: cacheKey(obj),
        error: errorMessage(error),
      });
      return;
    }
    const ids = new Map<string, ResourceID>();
    for (const source of oldObj ? [oldObj, obj] : [obj]) {
      let mapped: ResourceID[];
      try {
        mapped = this.s2p(source);
        if (!Array.isArray(mapped)) throw new TypeError(`the mapper returned ${typeof mapped}, not an array`);
      } catch (error) {
        this.mapperFailures++;
        this.logger.error('the secondary-to-primary mapper threw; event dropped', {
          secondary: cacheKey(source),
          kind: this.resourceType.kind,
          error: errorMessage(error),
        });
        return;
      }
      for (const id of mapped) if (id instanceof ResourceID) ids.set(id.key, id);
    }
    for (const id of ids.values()) {
      if (this.primaries && !this.primaries.get(id)) {
        this.logger.debug('secondary maps to a primary that is not cached (gone, or not watched); no event', {
          secondary: cacheKey(obj),
          primary: id.key,
        });
        continue;
      }
      this.emit(id);
    }
  }

  /** The keys of the primaries `obj` maps to, for the index (`[]` when the mapper throws: its events log that). */
  private primaryKeys(obj: R): string[] {
    let ids: unknown;
    try {
      ids = this.s2p(obj);
    } catch {
      return [];
    }
    const keys: string[] = [];
    if (Array.isArray(ids)) for (const id of ids) if (id instanceof ResourceID) keys.push(id.key);
    return keys;
  }

  private mapsTo(obj: R, primaryKey: string): boolean {
    return this.primaryKeys(obj).includes(primaryKey);
  }

  private indexAdd(index: PrimaryIndex, obj: R): void {
    const key = cacheKey(obj);
    if (key) index.add(key, this.primaryKeys(obj));
  }

  private indexUpdate(index: PrimaryIndex, oldObj: R, obj: R): void {
    if (this.ownerMapped && sameOwners(oldObj, obj)) return;
    const key = cacheKey(obj);
    if (key) index.update(key, this.primaryKeys(oldObj), this.primaryKeys(obj));
  }

  private indexRemove(index: PrimaryIndex, obj: R): void {
    const key = cacheKey(obj);
    if (key) index.remove(key, this.primaryKeys(obj));
  }

  /** The cached secondaries indexed under `primaryKey` that still map to it (stale entries are dropped). */
  private byPrimary(index: PrimaryIndex, primaryKey: string): R[] {
    const out: R[] = [];
    // a secondary named like its primary is not in the index: looked up by that key
    const sameKey = this.informer.get(ResourceID.fromKey(primaryKey));
    if (sameKey && this.mapsTo(sameKey, primaryKey)) out.push(sameKey);
    for (const key of index.keysOf(primaryKey)) {
      const obj = this.informer.get(ResourceID.fromKey(key));
      if (obj && this.mapsTo(obj, primaryKey)) out.push(obj);
      else index.drop(primaryKey, key);
    }
    return out;
  }

  private full(obj: R): R | undefined {
    if (!this.hot) return obj;
    const key = cacheKey(obj);
    return key ? this.hot.get(key) : undefined;
  }

  private overlay(fromInformer: R[], matches: (obj: R) => boolean): R[] {
    const out: R[] = [];
    const seen = new Set<string>();
    for (const obj of fromInformer) {
      const key = cacheKey(obj)!;
      seen.add(key);
      const mine = this.own.get(key);
      if (mine) {
        if (matches(mine)) out.push(mine);
        continue;
      }
      const full = this.full(obj);
      if (full) out.push(full);
    }
    for (const [key, mine] of this.own.entries()) if (!seen.has(key) && matches(mine)) out.push(mine);
    return out;
  }
}

/**
 * A cluster-scoped primary has no namespace: the IDs a mapper names it by lose theirs. The annotation
 * and label mappers name the secondary's namespace when it carries no namespace annotation, which is
 * how `primaryAnnotations` marks a cluster-scoped primary (JOSDK's mappers answer no namespace
 * there). Indexable mappers stay indexable.
 */
function withoutNamespaces<R extends KubernetesResource>(
  mapper: SecondaryToPrimaryMapper<R>,
): SecondaryToPrimaryMapper<R> {
  const clusterScoped: SecondaryToPrimaryMapper<R> = (secondary) => {
    const ids = mapper(secondary);
    if (!Array.isArray(ids)) return ids;
    return ids.map((id) => (id instanceof ResourceID && id.namespace ? new ResourceID(id.name) : id));
  };
  return isIndexableMapper(mapper) ? Mappers.indexable(clusterScoped) : clusterScoped;
}

/** The objects event filters see. */
interface FilterView<R> {
  readonly obj: R;
  readonly oldObj?: R;
}

function sameVersion(a: KubernetesResource, b: KubernetesResource): boolean {
  const version = a.metadata?.resourceVersion;
  return version !== undefined && version === b.metadata?.resourceVersion;
}

function safeAdmit<R>(admit: (obj: R) => boolean, obj: R): boolean {
  try {
    return admit(obj);
  } catch {
    return false;
  }
}

function safeIndex<R>(fn: IndexFunction<R> | undefined, obj: R): string[] {
  if (!fn) return [];
  try {
    return fn(obj);
  } catch {
    return [];
  }
}

/**
 * The result of an own write as the tracker may keep it to serve: a copy, unless the informer has
 * that version already (usual: the watch event tends to come before the answer), when nothing of it
 * is served and the copy is saved.
 */
function servable<R extends KubernetesResource>(result: R, informer: R | undefined): R {
  const version = result.metadata?.resourceVersion;
  const seen = informer?.metadata?.resourceVersion;
  if (version !== undefined && seen !== undefined) {
    const order = compareResourceVersions(seen, version);
    if (seen === version || (order !== undefined && order >= 0)) return result;
  }
  return cloneResource(result);
}

/** What the informer keeps of an object under a bounded cache: its metadata (for events and mapping). */
function skeleton<R extends KubernetesResource>(obj: R): R {
  const m = obj.metadata ?? {};
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      generation: m.generation,
      labels: m.labels,
      annotations: m.annotations,
      ownerReferences: m.ownerReferences,
      deletionTimestamp: m.deletionTimestamp,
    },
  } as R;
}
