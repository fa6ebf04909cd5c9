import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { ResolvedControllerConfiguration } from '../../config/controller-configuration.js';
import type { Logger } from '../../util/logger.js';
import { ReconcilePriority } from '../event.js';
import type { EventHandler, ResourceEvent } from '../event.js';
import type { EventSource, EventSourceHealth } from '../event-source.js';
import { OwnWriteTracker } from '../sources/own-write-tracker.js';
import type { HeldEvent } from '../sources/own-write-tracker.js';
import type { OwnWrite } from '../sources/own-write.js';
import type { RelistWindow } from '../sources/relist-window.js';

/** Handlers an informer calls (the informer module's `ResourceEventHandler`). */
export interface InformerEventHandler<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T, finalStateUnknown: boolean): void;
}

/** What the controller needs of the informer on its primaries. */
export interface PrimaryInformer<P extends KubernetesResource> {
  start(): Promise<void>;
  stop(): Promise<void>;
  addEventHandler(handler: InformerEventHandler<P>): () => void;
  get(id: ResourceID): P | undefined;
  list(namespace?: string): P[];
  hasSynced(): boolean;
  health(): EventSourceHealth;
  cacheIfNewer(obj: P, previousResourceVersion?: string): boolean;
  /**
   * Lets the watch deliver `written` (an own write's answer, now cached and never changed) for the
   * event of its version instead of parsing it (see `KubernetesClient.expectEcho`). Optional.
   */
  expectEcho?(written: P): void;
  changeNamespaces?(namespaces: string[] | 'all'): Promise<void>;
  /** Adds an index on primaries (secondary-to-primary mapping through an index). */
  addIndexer?(name: string, fn: (obj: P) => string[]): void;
  /** Primaries whose index `name` includes `value`. */
  byIndex?(name: string, value: string): P[];
}

/** The name under which a controller's own event source is registered. */
export const CONTROLLER_EVENT_SOURCE_NAME = 'ControllerResourceEventSource';

/**
 * JOSDK's `onUpdateFinalizerNeededAndApplied`: an update passes unless both objects carry our
 * finalizer, i.e. when it was just added or removed, and also while it is missing (so any change
 * of a resource whose finalizer could not be added yet reconciles, and the next pass adds it).
 */
function finalizerNeededOrChanged(
  newR: KubernetesResource,
  oldR: KubernetesResource,
  finalizer: string,
): boolean {
  const had = oldR.metadata?.finalizers?.includes(finalizer) ?? false;
  const has = newR.metadata?.finalizers?.includes(finalizer) ?? false;
  return !had || !has;
}

/** The transition into deletion (JOSDK: a marked resource's status may still be written, e.g. by its cleanup). */
function markedForDeletion(newR: KubernetesResource, oldR: KubernetesResource): boolean {
  return !oldR.metadata?.deletionTimestamp && Boolean(newR.metadata?.deletionTimestamp);
}

function generationIncreased(newR: KubernetesResource, oldR: KubernetesResource): boolean {
  const next = newR.metadata?.generation;
  if (next === undefined || next === null) return true;
  const prev = oldR.metadata?.generation;
  return prev === undefined || prev === null || next > prev;
}

/**
 * The event source of a controller's primaries (JOSDK's `ControllerEventSource`): an informer whose
 * events pass the controller's filters before they reach the event processor.
 *
 * Update filtering with the default filters on: an update reconciles when the generation grew
 * (or the kind has none, or generation awareness is off), the controller's finalizer was added or
 * removed or is missing (JOSDK's `onUpdateFinalizerNeededAndApplied`), or the resource entered
 * deletion (the old object not marked, the new one marked, as JOSDK's `onUpdateMarkedForDeletion`);
 * then the user's update and generic filters must accept it too. With the default filters off, only
 * the user's filters decide. So an update of a resource already marked for deletion (a status
 * written by its cleanup, anybody's label change) does not call `cleanup` again; it does when its
 * generation grew, our finalizer was added or removed, or generation awareness is off, as in JOSDK.
 *
 * Own writes through `context.resourceOperations()`'s primary operations
 * ({@link ControllerEventSource.write}) do not trigger the controller again when we know our request
 * created the version the event carries (the rule of `OwnWriteTracker`): events arriving while the
 * write is in flight are held and judged when it returns; events of a (re-)list and deletes always
 * pass to the filters. The framework's own writes (finalizer add and removal, `UpdateControl`
 * patches) are not tracked (JOSDK's "cache only"): their results are cached with
 * {@link ControllerEventSource.cacheOwnWrite} when they hold only our change, and the informer then
 * reports their event against the cached write, so the filters see no change. Where JOSDK's event
 * of such a write would have reconciled (the finalizer add; a resource patch that grew the
 * generation, see {@link ControllerEventSource.ownWriteReconciles}), the dispatcher reconciles right
 * away instead. A write that changed nothing is not sent by the
 * dispatcher; one that returned someone else's change is not cached, so that change reconciles.
 *
 * No bounded cache for primaries (unlike `InformerEventSource`'s `boundedCache`, JOSDK offers one
 * for the primary informer too). It is not offered here because the primary cache is read
 * synchronously as the truth about which primaries exist, and an evicted primary would be taken for
 * a deleted one: the event processor drops an event (and the resource's state) when `get` finds no
 * primary; secondary events of primaries not cached are skipped (`skipUnknownPrimaries`); a restart
 * of processing queues `list()`. The update filters (generation, finalizer, deletion mark) and the
 * user's `onUpdateFilter`/`genericFilter` receive the previous object, which a skeleton kept for an
 * evicted primary (as the secondaries' bounded cache keeps) cannot give them in full; indexers on
 * primaries (ES-08) and the read-after-write overlay need whole objects too. Making these paths
 * fetch on a miss means an asynchronous submit racing the primary's delete event, for a saving that
 * the docs (004) themselves limit: every primary is reconciled at start and then at least every
 * `maxReconciliationIntervalMs` (10 h), so primaries only cool down between those. Secondaries,
 * usually the bulk of the memory, can be bounded with `boundedCache`.
 */
export class ControllerEventSource<P extends KubernetesResource> implements EventSource {
  readonly name = CONTROLLER_EVENT_SOURCE_NAME;
  private handler: EventHandler | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly own = new OwnWriteTracker<P>();
  /** Primaries whose last write was not sent as no change on the cache (see {@link skippedWrite}). */
  private readonly skipped = new Set<string>();

  /**
   * @param relists tells which events come from a (re-)list of `informer` (it must list with the
   * client this window wrapped); without it every event counts as a watch event.
   */
  constructor(
    readonly informer: PrimaryInformer<P>,
    private readonly config: ResolvedControllerConfiguration<P>,
    private readonly usesFinalizer: boolean,
    private readonly logger: Logger,
    private readonly relists?: RelistWindow,
  ) {}

  setEventHandler(handler: EventHandler): void {
    this.handler = handler;
  }

  async start(): Promise<void> {
    this.unsubscribe ??= this.informer.addEventHandler({
      onAdd: (obj) => this.arrive({ kind: 'add', obj }),
      onUpdate: (oldObj, obj) => this.arrive({ kind: 'update', oldObj, obj }),
      onDelete: (obj, finalStateUnknown) => this.arrive({ kind: 'delete', obj, finalStateUnknown }),
    });
    await this.informer.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.informer.stop();
    this.own.clear();
    this.skipped.clear();
  }

  /**
   * Runs an own write of the primary `id`: its watch event does not reach the event processor when
   * we know our request created that version (see `OwnWriteTracker`), every other change does.
   * `write` must return the object as the server returned it; `did` says what it did. The result is
   * cached for the next reconciliation only when it holds nothing but our change to what the cache
   * had (else the cache waits for the events, which carry the other change). A failed write
   * suppresses nothing.
   */
  async write(
    id: ResourceID,
    previousResourceVersion: string | undefined,
    write: () => Promise<P>,
    did: OwnWrite<P>,
  ): Promise<P> {
    this.own.begin(id.key);
    let result: P | undefined;
    try {
      result = await write();
      return result;
    } finally {
      // judged against the informer's copy before ours is cached over it
      const cached = this.informer.get(id);
      const foreign = this.own.end(id.key, result, cached, did);
      if (result) this.cacheOwnWrite(result, previousResourceVersion, cached, did);
      for (const held of foreign) this.dispatch(held);
    }
  }

  /**
   * Caches the result of an own write that the event source does not filter (the framework's
   * finalizer writes and `UpdateControl` patches, JOSDK's "cache only") when it holds nothing but
   * our change to what the cache has now: the informer then reports the event of that version
   * against our write (so filters see no change), which is right only for such a write. A result
   * carrying someone else's change too (a write that changed nothing returns the current version)
   * is not cached: its event passes the filters against the previous object as any foreign change.
   * @returns whether the cache took it.
   */
  cacheOwnWrite(
    result: P,
    previousResourceVersion: string | undefined,
    cached: P | undefined,
    did: OwnWrite<P>,
  ): boolean {
    const id = ResourceID.fromResource(result);
    // a write was sent: nothing skipped is owed any more
    if (this.skipped.size > 0) this.skipped.delete(id.key);
    const current = cached ?? this.informer.get(id);
    if (current?.metadata?.resourceVersion === result.metadata?.resourceVersion) return false;
    if (!(did.certain?.(result) ?? false) && !did.explains(current, result)) return false;
    if (!this.informer.cacheIfNewer(result, previousResourceVersion)) return false;
    // the cache keeps the very answer and the watch has not brought its version yet: its event
    // can be that object instead of a parse of the same text
    this.informer.expectEcho?.(result);
    return true;
  }

  /**
   * A write of the primary `id` (an `UpdateControl` status or resource patch) was not sent because
   * `judgedOn`, the cached primary, already held it. The cache may lag the server: if someone else
   * changed the object meanwhile, the write was needed, and when that change arrives the default
   * filters could drop it (a status-only change under generation awareness), leaving their change
   * where the reconciler's last word was ours. So a skipped write suppresses nothing: the next update
   * of `id` reconciles even where the default filters would drop it (once; the user's filters still
   * apply), and if the cache already holds another version than the one judged on, `id` reconciles now.
   */
  skippedWrite(id: ResourceID, judgedOn: P | undefined): void {
    const now = this.informer.get(id);
    if (!now) return;
    if (judgedOn && now.metadata?.resourceVersion !== judgedOn.metadata?.resourceVersion) {
      this.guard(() => this.emit('UPDATED', now));
      return;
    }
    this.skipped.add(id.key);
  }

  /** Whether an own write of `id` is in flight or its event has not arrived yet (for tests and diagnostics). */
  hasPendingOwnWrite(id: ResourceID): boolean {
    return !this.own.isIdle(id.key);
  }

  health(): EventSourceHealth {
    return this.informer.health();
  }

  /** The cached primary. */
  get(id: ResourceID): P | undefined {
    return this.informer.get(id);
  }

  /** Puts an own write into the cache unless the cache already has something newer. */
  cacheIfNewer(resource: P, previousResourceVersion?: string): boolean {
    return this.informer.cacheIfNewer(resource, previousResourceVersion);
  }

  /**
   * Changes the informer's namespaces. Primaries of namespaces no longer watched leave the cache
   * without informer events, so they are reported deleted here: the event processor drops their state.
   */
  async changeNamespaces(namespaces: readonly string[]): Promise<void> {
    if (!this.informer.changeNamespaces) return;
    this.own.clear();
    this.skipped.clear();
    const before = this.informer.list();
    await this.informer.changeNamespaces(namespaces.length === 0 ? 'all' : [...namespaces]);
    for (const obj of before) {
      const id = ResourceID.fromResource(obj);
      if (this.informer.get(id) === undefined)
        this.handler?.handleEvent({ resourceId: id, action: 'DELETED', resource: obj } as ResourceEvent<P>);
    }
  }

  /**
   * Whether an update passes the filters (exposed for tests of the rules); with `owed` (a skipped
   * write of this primary, see {@link skippedWrite}) the default filters let it through.
   */
  acceptsUpdate(newR: P, oldR: P, owed = false): boolean {
    const c = this.config;
    if (c.useDefaultEventFilters && !owed && !this.passesDefaults(newR, oldR)) return false;
    return (c.onUpdateFilter?.(newR, oldR) ?? true) && (c.genericFilter?.(newR) ?? true);
  }

  /**
   * Whether the framework's own write `written` of a primary (an `UpdateControl` resource patch),
   * cached over `before` (the cached primary it was written on), must reconcile again. JOSDK does
   * not filter the event of such a write (its "cache only" mode): the informer reports it against
   * the previous object, so a spec change (a grown generation) passes the default filters and
   * reconciles. Here the cached write is the previous object of that event, where the default
   * filters see no change; so the dispatcher asks for the follow-up itself when the update from
   * `before` to `written` passes the filters and the event, as it will be reported, would not.
   */
  ownWriteReconciles(written: P, before: P): boolean {
    if (!this.config.useDefaultEventFilters || this.passesDefaults(written, written)) return false;
    return this.acceptsUpdate(written, before);
  }

  /**
   * JOSDK's internal update filters: our finalizer added, removed or missing, the generation grew
   * (or awareness is off), marked for deletion.
   */
  private passesDefaults(newR: P, oldR: P): boolean {
    const c = this.config;
    return (
      (this.usesFinalizer && finalizerNeededOrChanged(newR, oldR, c.finalizerName)) ||
      !c.generationAware ||
      generationIncreased(newR, oldR) ||
      markedForDeletion(newR, oldR)
    );
  }

  private arrive(plain: HeldEvent<P>): void {
    const meta = plain.obj.metadata;
    if (!meta?.name) return this.dispatch(plain);
    const key = meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
    const relisted = this.relists?.covers(meta.namespace) ?? false;
    const event = relisted ? { ...plain, relisted } : plain;
    const verdict = this.own.onEvent(key, event);
    if (verdict === 'foreign') this.dispatch(event);
  }

  private dispatch(event: HeldEvent<P>): void {
    this.guard(() => {
      // what a list reports is the backlog (an initial list, a re-list): after what changes
      const priority = event.relisted ? ReconcilePriority.LOW : undefined;
      if (event.kind === 'add') this.onAdd(event.obj, priority);
      else if (event.kind === 'update') this.onUpdate(event.oldObj ?? event.obj, event.obj, priority);
      else this.onDelete(event.obj, event.finalStateUnknown ?? false);
    });
  }

  private onAdd(obj: P, priority?: number): void {
    const c = this.config;
    if (!(c.onAddFilter?.(obj) ?? true) || !(c.genericFilter?.(obj) ?? true)) return;
    this.emit('ADDED', obj, priority);
  }

  private onUpdate(oldObj: P, newObj: P, priority?: number): void {
    const owed = this.skipped.size > 0 && this.skipped.delete(ResourceID.fromResource(newObj).key);
    if (this.acceptsUpdate(newObj, oldObj, owed)) this.emit('UPDATED', newObj, priority);
  }

  private onDelete(obj: P, finalStateUnknown: boolean): void {
    if (this.skipped.size > 0) this.skipped.delete(ResourceID.fromResource(obj).key);
    const c = this.config;
    if (!(c.onDeleteFilter?.(obj, finalStateUnknown) ?? true) || !(c.genericFilter?.(obj) ?? true)) return;
    this.emit('DELETED', obj);
  }

  private emit(action: ResourceEvent['action'], resource: P, priority?: number): void {
    const event: ResourceEvent<P> =
      priority === undefined
        ? { resourceId: ResourceID.fromResource(resource), action, resource }
        : { resourceId: ResourceID.fromResource(resource), action, resource, priority };
    this.handler?.handleEvent(event);
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.logger.error('an event filter or handler threw; event dropped', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
