import type { Context } from '../api/context.js';
import type { EventSourceContext } from '../api/event-source-context.js';
import { ResourceID } from '../api/resource-id.js';
import type { KubernetesResource } from '../api/resource-type.js';
import type { EventSource } from '../event/event-source.js';
import type { ExternalResourceCachingEventSource } from '../event/sources/external-resource-caching-event-source.js';
import { AbstractDependentResource } from './abstract-dependent-resource.js';
import { isBulkDependentResource } from './bulk-dependent-resource.js';
import type { DependentResourceOptions } from './abstract-dependent-resource.js';
import { isDependentResourceWithExplicitState } from './dependent-resource-with-explicit-state.js';
import type { DependentTraits, EventSourceProvider } from './dependent-resource.js';
import { DependentResourceError } from './errors.js';

/** Options of an external dependent. */
export interface ExternalDependentOptions<R> extends DependentResourceOptions {
  /** Name of its event source. Defaults to the dependent's name. */
  eventSourceName?: string;
  /** Identity of an external resource among a primary's. Defaults to the whole value as JSON. */
  idOf?: (resource: R) => string;
}

interface Recent<R> {
  value: R;
  /** What the event source held for that id when the write returned (JSON); the write wins until the source moves on. */
  seen: string | undefined;
}

/**
 * A dependent resource outside Kubernetes whose state an {@link ExternalResourceCachingEventSource}
 * caches (JOSDK's `AbstractExternalDependentResource`). What it creates or updates is put into
 * the event source's cache (`handleRecentResourceCreate` / `handleRecentResourceUpdate`), so the
 * next poll compares with the written state and a resource dropped or changed by someone else
 * before that poll still causes an event; it is served at once (ahead of the next poll) until the
 * event source reports a newer state. With
 * {@link DependentResourceWithExplicitState}, the external id is kept in a Kubernetes resource
 * (ConfigMap or Secret) created after the external resource and deleted after it.
 *
 * @typeParam R - the external resource type.
 * @typeParam P - the primary kind.
 */
export abstract class AbstractExternalDependentResource<R, P extends KubernetesResource = KubernetesResource>
  extends AbstractDependentResource<R, P>
  implements EventSourceProvider<P>
{
  readonly eventSourceName: string;
  protected source: ExternalResourceCachingEventSource<R> | undefined;
  private readonly recent = new Map<string, Map<string, Recent<R>>>();
  private readonly idOf: (resource: R) => string;

  constructor(options: ExternalDependentOptions<R> = {}) {
    super(options);
    this.eventSourceName = options.eventSourceName ?? this.name;
    this.idOf = options.idOf ?? ((r) => JSON.stringify(r));
    // Every external dependent has the `delete` below, which would make each a deleter (a finalizer
    // on every primary, `delete` on a false precondition). As JOSDK, where this class is no Deleter,
    // it is one only when it deletes something: `deleteResource` or `delete` overridden, or a bulk
    // dependent (its `deleteTargetResource`). Read on first use, so methods given as instance
    // fields count; a subclass's own `traits` field replaces this.
    let traits: DependentTraits | undefined;
    Object.defineProperty(this, 'traits', {
      configurable: true,
      enumerable: true,
      get: () => (traits ??= Object.freeze(externalTraits(this))),
    });
  }

  /** Creates the event source that caches the external resources. */
  protected abstract createEventSource(context: EventSourceContext<P>): ExternalResourceCachingEventSource<R>;

  eventSource(context: EventSourceContext<P>): EventSource {
    this.source ??= this.createEventSource(context);
    return this.source;
  }

  useEventSource(source: EventSource): void {
    if (source === this.source) return; // its own (re-registered on activation): not shared
    this.source = source as ExternalResourceCachingEventSource<R>;
    this.shared = true;
  }

  private shared = false;

  /** With a shared event source (several dependents of one kind) the secondary is always chosen by the desired state's id. */
  protected override alwaysSelectByDesired(): boolean {
    return this.shared;
  }

  /** A secondary is this dependent's when its id (`idOf`) is the desired state's. */
  protected override isTargetOf(secondary: R, desired: R): boolean {
    return this.idOf(secondary) === this.idOf(desired);
  }

  /** The cached external resources of a primary, own recent writes included. */
  protected secondaryResources(primary: P, _context: Context<P>): R[] {
    if (!this.source) {
      throw new DependentResourceError(
        'DependentNotConfigured',
        `dependent ${this.name}: no event source yet; use it in a managed workflow, or register dependent.eventSource(context)`,
        this.name,
      );
    }
    const cached = this.source.getSecondaryResources(primary);
    const key = ResourceID.fromResource(primary).key;
    const recent = this.recent.get(key);
    if (!recent?.size) return cached;
    const byId = new Map(cached.map((r) => [this.idOf(r), r]));
    for (const [id, entry] of recent) {
      const now = byId.get(id);
      const nowJson = now === undefined ? undefined : JSON.stringify(now);
      if (nowJson !== entry.seen) {
        recent.delete(id); // the source reported a newer state
        continue;
      }
      byId.set(id, entry.value);
    }
    return [...byId.values()];
  }

  protected override async onCreatedOrUpdated(
    resource: R,
    primary: P,
    context: Context<P>,
    operation: 'created' | 'updated',
    previous?: R,
  ): Promise<void> {
    const primaryId = ResourceID.fromResource(primary);
    // the source compares its next fetch with what was written (JOSDK's handleRecentResource*)
    if (operation === 'created') this.source?.handleRecentResourceCreate?.(primaryId, resource);
    else if (previous !== undefined) this.source?.handleRecentResourceUpdate?.(primaryId, resource, previous);
    const key = primaryId.key;
    const id = this.idOf(resource);
    const now = this.source?.getSecondaryResources(primary).find((r) => this.idOf(r) === id);
    let map = this.recent.get(key);
    if (!map) this.recent.set(key, (map = new Map<string, Recent<R>>()));
    map.set(id, { value: resource, seen: now === undefined ? undefined : JSON.stringify(now) });
    if (
      operation === 'created' &&
      isDependentResourceWithExplicitState<R, P>(this) &&
      !this.stateResourceOf(primary, context)
    ) {
      const state = this.stateResource(primary, resource);
      await context.client.create(this.stateResourceType, state);
    }
  }

  /**
   * The state resource (ConfigMap, Secret) of this dependent for a primary, from the controller's
   * event sources; undefined when none or when the dependent keeps no explicit state.
   */
  protected stateResourceOf(primary: P, context: Context<P>): KubernetesResource | undefined {
    if (!isDependentResourceWithExplicitState<R, P>(this)) return undefined;
    const expected = this.stateResource(primary, undefined);
    const name = expected.metadata?.name;
    return context
      .getSecondaryResources(this.stateResourceType)
      .find(
        (s) =>
          s.metadata?.name === name &&
          s.metadata?.namespace === (expected.metadata?.namespace ?? primary.metadata?.namespace),
      );
  }

  /**
   * Deletes the external resource (through {@link AbstractExternalDependentResource.deleteResource})
   * and then its state resource, if any. A bulk dependent (`BulkDependentResource`) deletes every resource it
   * has through its `deleteTargetResource` (which also removes what state each keeps).
   */
  async delete(primary: P, context: Context<P>): Promise<void> {
    await this.ensureFetched(primary);
    if (isBulkDependentResource<R, P>(this)) {
      await this.deleteAllBulk(this, primary, context);
      this.recent.delete(ResourceID.fromResource(primary).key);
      return;
    }
    const actual = this.getSecondaryResource(primary, context);
    if (actual !== undefined) await this.deleteResource(actual, primary, context);
    this.recent.delete(ResourceID.fromResource(primary).key);
    if (isDependentResourceWithExplicitState<R, P>(this)) {
      const state = this.stateResourceOf(primary, context);
      const uid = state?.metadata?.uid;
      if (state)
        await context.client.delete(
          this.stateResourceType,
          ResourceID.fromResource(state),
          uid ? { preconditions: { uid } } : {},
        );
    }
  }

  /**
   * Makes sure the event source holds the primary's resources before a deletion reads them.
   * Defaults to nothing (the per-resource polling dependent fetches a primary never polled).
   */
  protected ensureFetched(_primary: P): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Deletes one external resource. Defaults to nothing; overriding it makes the dependent a deleter
   * (a workflow deletes it in cleanup, so primaries get a finalizer, and on a false precondition).
   */
  protected deleteResource(_resource: R, _primary: P, _context: Context<P>): Promise<void> {
    return Promise.resolve();
  }
}

/** The traits of an external dependent that declares none, from what it implements. */
function externalTraits(dependent: object): DependentTraits {
  const base = AbstractExternalDependentResource.prototype as unknown as Record<string, unknown>;
  const own = dependent as unknown as Record<string, unknown>;
  return {
    creator: typeof own['create'] === 'function',
    updater: typeof own['update'] === 'function',
    deleter:
      own['deleteResource'] !== base['deleteResource'] ||
      own['delete'] !== base['delete'] ||
      isBulkDependentResource(dependent),
  };
}
