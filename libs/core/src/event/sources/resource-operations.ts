import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import type { JsonPatchOperation } from '../../client/types.js';
import { applyEntry, ownsExactlyStatus } from '../../dependent/internal/owned-fields.js';
import { matchesManagedFields } from '../../dependent/matchers.js';
import { NoEventSourceForTypeError } from '../../reconcile/errors.js';
import { cloneResource } from '../../reconcile/internal/clone.js';
import type { ResourceEventSource } from '../event-source.js';
import { EventSourceUsageError } from './errors.js';
import { InformerEventSource } from './informer-event-source.js';
import { OwnWrites } from './own-write.js';
import type { OwnWrite } from './own-write.js';

/** Options of a server-side apply through {@link ResourceOperations}. */
export interface OwnApplyOptions {
  /** Field manager. Defaults to the event source's (the controller's) field manager. */
  fieldManager?: string;
  /** Take over conflicting fields. Defaults to true. */
  force?: boolean;
}

/** Where {@link ResourceOperations} finds what it needs (the controller supplies it). */
export interface ResourceOperationsHost<P extends KubernetesResource> {
  readonly client: KubernetesClient;
  readonly primaryType: ResourceType<P>;
  readonly fieldManager: string;
  /** Puts an own write of a primary into the controller's cache (when `did` explains it). */
  cachePrimary(resource: P, previousResourceVersion: string | undefined, did: OwnWrite<P>): void;
  /**
   * Runs an own write of a primary so that its watch event does not trigger the controller again,
   * and caches the result (the controller's event source). When absent, writes are only cached
   * with {@link ResourceOperationsHost.cachePrimary}.
   */
  writePrimary?(
    id: ResourceID,
    previousResourceVersion: string | undefined,
    write: () => Promise<P>,
    did: OwnWrite<P>,
  ): Promise<P>;
  /** Called before every write is sent; throws to refuse it (e.g. the reconciliation outlived stop). */
  beforeWrite?(): void;
  /** The event sources caching a kind. */
  sourcesFor(type: ResourceType): ReadonlyArray<{ name: string; source: ResourceEventSource }>;
}

type Named = KubernetesResource & { metadata: { name: string } };

/**
 * Whether an intent asks the server nothing but to apply it: one carrying `metadata.resourceVersion`
 * or `metadata.uid` is a precondition the server checks (409 when it does not hold), which only the
 * server can answer, so such an apply is always sent.
 */
function unconditional(intent: KubernetesResource): boolean {
  return !intent.metadata?.resourceVersion && !intent.metadata?.uid;
}

/**
 * Whether a main-resource apply carries a status. Where the kind has no status subresource the main
 * apply writes it (our entry owns `f:status`), and the managed-fields matcher leaves status out, so
 * such an apply is always sent.
 */
function carriesStatus(intent: KubernetesResource): boolean {
  return (intent as { status?: unknown }).status !== undefined;
}

/**
 * Whether an apply through a metadata-only cache concerns metadata alone: the intent has nothing but
 * metadata, and our apply entry on the cached object owns nothing outside it. Anything else (a data
 * key we applied, say) is not in the cached object, so the cache cannot show it is there, or gone.
 */
function onlyMetadata(intent: KubernetesResource, cached: KubernetesResource, fieldManager: string): boolean {
  if (Object.keys(intent).some((k) => k !== 'apiVersion' && k !== 'kind' && k !== 'metadata')) return false;
  const fields = applyEntry(cached, fieldManager)?.fieldsV1 as Record<string, unknown> | undefined;
  return fields !== undefined && Object.keys(fields).every((k) => k === 'f:metadata' || k === '.');
}

function typeOf(resource: KubernetesResource): { group: string; version: string; kind: string } {
  const apiVersion = resource.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  if (!apiVersion || !resource.kind)
    throw new EventSourceUsageError('the resource needs apiVersion and kind to find its event source');
  return {
    group: slash < 0 ? '' : apiVersion.slice(0, slash),
    version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
    kind: resource.kind,
  };
}

/**
 * Writes that update the controller's caches at once (JOSDK 5's `ResourceOperations` /
 * `PrimaryUpdateAndCacheUtils`), from `context.resourceOperations()`.
 *
 * Secondary writes go through the {@link InformerEventSource} caching the kind (its client, so a
 * source of another cluster writes there): the result is readable at once through `get`, `list`,
 * `byIndex` and `context.getSecondaryResources`, and its own event does not reconcile again, while
 * every change by someone else does.
 *
 * Primary writes cache the result in the controller's cache when it holds only our change, so the
 * next reconciliation sees it, and do not trigger the controller again: spec, metadata and status
 * writes alike, generation-aware or not. Every change by someone else still reconciles, including
 * one that lands before or while our write is in flight, during a re-list, and deletes.
 *
 * The rule for both (see `OwnWriteTracker`): the watch event carrying the resourceVersion a write
 * returned is dropped only when we know our request created that version and nothing else is in
 * it: the request proves it (a create; an update or JSON patch conditional on the resourceVersion
 * that returned another version), or the event's transition is exactly what the write makes of the
 * previous object (server-side apply: only the fields and values of the intent changed; merge and
 * JSON patch: the patch applied to the previous object gives the new one; update: the body). A
 * write that changed nothing returns the current version, possibly someone else's change, and that
 * change is reported. When in doubt the event passes: at most one extra reconciliation.
 *
 * Every method resolves with the caller's own copy of the result (the caches keep theirs), so a
 * reconciler may change what it got back without changing what the caches serve.
 */
export class ResourceOperations<P extends KubernetesResource = KubernetesResource> {
  constructor(private readonly host: ResourceOperationsHost<P>) {}

  /**
   * Server-side apply of a secondary (created when absent).
   *
   * Not sent when the event source's cached object proves it would change nothing: the fields our
   * field manager owns by apply hold exactly the intent (the managed-fields matcher of the
   * dependents, JOSDK's `SSABasedGenericKubernetesResourceMatcher`). A copy of the cached object is
   * returned then, and nothing is recorded as our write. Any doubt sends the apply: a precondition in the
   * intent (`metadata.resourceVersion` or `metadata.uid`, which only the server can check), a
   * metadata-only source and an intent or owned fields beyond metadata, an intent carrying a status
   * (the main apply writes it where the kind has no status subresource, before our entry owns it;
   * once it does, the matcher compares it), no cached object, no
   * apply entry of our manager (managedFields pruned, or the object written otherwise), a field we
   * applied that someone else now owns or changed, or an intent that adds or drops a field.
   */
  serverSideApply<R extends KubernetesResource>(
    resource: R,
    options: OwnApplyOptions & { eventSourceName?: string } = {},
  ): Promise<R> {
    const source = this.source<R>(resource, options.eventSourceName);
    const id = ResourceID.fromResource(resource);
    const fieldManager = options.fieldManager ?? source.fieldManager;
    const cached = unconditional(resource) && !carriesStatus(resource) ? source.get(id) : undefined;
    if (
      cached &&
      (!source.metadataOnly || onlyMetadata(resource, cached, fieldManager)) &&
      matchesManagedFields(cached, resource, fieldManager)
    )
      return Promise.resolve(cloneResource(cached)); // a copy, as an answer would be: the cache's own must not be changed
    return this.sourceWrite(
      source,
      id,
      () =>
        source.client.apply(source.resourceType, resource as R & Named, {
          fieldManager,
          force: options.force ?? true,
        }),
      OwnWrites.apply(resource),
    );
  }

  /**
   * Server-side apply of a secondary's status. Not sent when the cached object's status fields that
   * our field manager owns by apply (its managedFields entry of the status subresource) are exactly
   * the intent's status; a copy of the cached object is returned then (see {@link serverSideApply}).
   */
  serverSideApplyStatus<R extends KubernetesResource>(
    resource: R,
    options: OwnApplyOptions & { eventSourceName?: string } = {},
  ): Promise<R> {
    const source = this.source<R>(resource, options.eventSourceName);
    const id = ResourceID.fromResource(resource);
    const fieldManager = options.fieldManager ?? source.fieldManager;
    // a metadata-only cache shows no status, so it proves nothing about one
    const cached = unconditional(resource) && !source.metadataOnly ? source.get(id) : undefined;
    if (cached && ownsExactlyStatus(cached, (resource as { status?: unknown }).status, fieldManager))
      return Promise.resolve(cloneResource(cached));
    return this.sourceWrite(
      source,
      id,
      () =>
        source.client.apply(source.resourceType, resource as R & Named, {
          fieldManager,
          force: options.force ?? true,
          subresource: 'status',
        }),
      OwnWrites.apply(resource, 'status'),
    );
  }

  /** Creates a secondary. */
  create<R extends KubernetesResource>(resource: R, eventSourceName?: string): Promise<R> {
    const source = this.source<R>(resource, eventSourceName);
    return this.sourceWrite(
      source,
      ResourceID.fromResource(resource),
      () => source.client.create(source.resourceType, resource),
      OwnWrites.create(),
    );
  }

  /** Replaces a secondary (PUT; conditional on `metadata.resourceVersion` when set). */
  update<R extends KubernetesResource>(resource: R, eventSourceName?: string): Promise<R> {
    const source = this.source<R>(resource, eventSourceName);
    return this.sourceWrite(
      source,
      ResourceID.fromResource(resource),
      () => source.client.update(source.resourceType, resource),
      OwnWrites.update(resource),
    );
  }

  /** Replaces a secondary's status (PUT on the status subresource). */
  updateStatus<R extends KubernetesResource>(resource: R, eventSourceName?: string): Promise<R> {
    const source = this.source<R>(resource, eventSourceName);
    return this.sourceWrite(
      source,
      ResourceID.fromResource(resource),
      () => source.client.updateStatus(source.resourceType, resource),
      OwnWrites.update(resource, 'status'),
    );
  }

  /** JSON patch (RFC 6902) of a secondary named by `resource`. */
  jsonPatch<R extends KubernetesResource>(
    resource: R,
    operations: JsonPatchOperation[],
    eventSourceName?: string,
  ): Promise<R> {
    return this.patch(
      resource,
      eventSourceName,
      (s, id) => s.client.jsonPatch(s.resourceType, id, operations),
      OwnWrites.jsonPatch(operations),
    );
  }

  /** JSON patch of a secondary's status. */
  jsonPatchStatus<R extends KubernetesResource>(
    resource: R,
    operations: JsonPatchOperation[],
    eventSourceName?: string,
  ): Promise<R> {
    return this.patch(
      resource,
      eventSourceName,
      (s, id) => s.client.jsonPatch(s.resourceType, id, operations, { subresource: 'status' }),
      OwnWrites.jsonPatch(operations),
    );
  }

  /** JSON merge patch (RFC 7386) of a secondary named by `resource`. */
  jsonMergePatch<R extends KubernetesResource>(
    resource: R,
    patch: object,
    eventSourceName?: string,
  ): Promise<R> {
    return this.patch(
      resource,
      eventSourceName,
      (s, id) => s.client.mergePatch(s.resourceType, id, patch),
      OwnWrites.mergePatch(patch),
    );
  }

  /** JSON merge patch of a secondary's status. */
  jsonMergePatchStatus<R extends KubernetesResource>(
    resource: R,
    patch: object,
    eventSourceName?: string,
  ): Promise<R> {
    return this.patch(
      resource,
      eventSourceName,
      (s, id) => s.client.mergePatch(s.resourceType, id, patch, { subresource: 'status' }),
      OwnWrites.mergePatch(patch, 'status'),
    );
  }

  /** Server-side apply of the primary (metadata and spec). */
  serverSideApplyPrimary(resource: P, options: OwnApplyOptions = {}): Promise<P> {
    return this.primary(
      resource,
      () =>
        this.host.client.apply(this.host.primaryType, resource as P & Named, {
          fieldManager: options.fieldManager ?? this.host.fieldManager,
          force: options.force ?? true,
        }),
      OwnWrites.apply(resource),
    );
  }

  /** Server-side apply of the primary's status. */
  serverSideApplyPrimaryStatus(resource: P, options: OwnApplyOptions = {}): Promise<P> {
    return this.primary(
      resource,
      () =>
        this.host.client.apply(this.host.primaryType, resource as P & Named, {
          fieldManager: options.fieldManager ?? this.host.fieldManager,
          force: options.force ?? true,
          subresource: 'status',
        }),
      OwnWrites.apply(resource, 'status'),
    );
  }

  /** Replaces the primary (PUT; conditional on `metadata.resourceVersion` when set). */
  updatePrimary(resource: P): Promise<P> {
    return this.primary(
      resource,
      () => this.host.client.update(this.host.primaryType, resource),
      OwnWrites.update(resource),
    );
  }

  /** Replaces the primary's status. */
  updatePrimaryStatus(resource: P): Promise<P> {
    return this.primary(
      resource,
      () => this.host.client.updateStatus(this.host.primaryType, resource),
      OwnWrites.update(resource, 'status'),
    );
  }

  /** JSON patch of the primary. */
  jsonPatchPrimary(resource: P, operations: JsonPatchOperation[]): Promise<P> {
    return this.primary(
      resource,
      () => this.host.client.jsonPatch(this.host.primaryType, ResourceID.fromResource(resource), operations),
      OwnWrites.jsonPatch(operations),
    );
  }

  /** JSON patch of the primary's status. */
  jsonPatchPrimaryStatus(resource: P, operations: JsonPatchOperation[]): Promise<P> {
    return this.primary(
      resource,
      () =>
        this.host.client.jsonPatch(this.host.primaryType, ResourceID.fromResource(resource), operations, {
          subresource: 'status',
        }),
      OwnWrites.jsonPatch(operations),
    );
  }

  /** JSON merge patch of the primary. */
  jsonMergePatchPrimary(resource: P, patch: object): Promise<P> {
    return this.primary(
      resource,
      () => this.host.client.mergePatch(this.host.primaryType, ResourceID.fromResource(resource), patch),
      OwnWrites.mergePatch(patch),
    );
  }

  /** JSON merge patch of the primary's status. */
  jsonMergePatchPrimaryStatus(resource: P, patch: object): Promise<P> {
    return this.primary(
      resource,
      () =>
        this.host.client.mergePatch(this.host.primaryType, ResourceID.fromResource(resource), patch, {
          subresource: 'status',
        }),
      OwnWrites.mergePatch(patch, 'status'),
    );
  }

  private async primary(resource: P, write: () => Promise<P>, did: OwnWrite<P>): Promise<P> {
    const previous = resource.metadata?.resourceVersion;
    const guarded = (): Promise<P> => {
      this.host.beforeWrite?.();
      return write();
    };
    // the caller gets a copy: the controller's cache may keep the very object as its own write, and
    // a reconciler editing its result must not change what the cache (and the status skip) see
    if (this.host.writePrimary)
      return cloneResource(
        await this.host.writePrimary(ResourceID.fromResource(resource), previous, guarded, did),
      );
    const result = await guarded();
    this.host.cachePrimary(result, previous, did);
    return cloneResource(result);
  }

  private patch<R extends KubernetesResource>(
    resource: R,
    eventSourceName: string | undefined,
    write: (source: InformerEventSource<R>, id: ResourceID) => Promise<R>,
    did: OwnWrite<R>,
  ): Promise<R> {
    const source = this.source<R>(resource, eventSourceName);
    const id = ResourceID.fromResource(resource);
    return this.sourceWrite(source, id, () => write(source, id), did);
  }

  private sourceWrite<R extends KubernetesResource>(
    source: InformerEventSource<R>,
    id: ResourceID,
    write: () => Promise<R>,
    did: OwnWrite<R>,
  ): Promise<R> {
    // the result is the caller's own: the event source serves a copy of it (see its write())
    return source.write(
      id,
      () => {
        this.host.beforeWrite?.();
        return write();
      },
      did,
    );
  }

  private source<R extends KubernetesResource>(
    resource: KubernetesResource,
    name: string | undefined,
  ): InformerEventSource<R> {
    const kind = typeOf(resource);
    const all = this.host.sourcesFor(kind as ResourceType);
    // the common case (one informer caches the kind) builds no filtered lists
    let found =
      name === undefined && all.length === 1 && all[0].source instanceof InformerEventSource
        ? all
        : all.filter((s) => s.source instanceof InformerEventSource);
    if (name !== undefined) found = found.filter((s) => s.name === name);
    const label = `${kind.kind} (${resource.apiVersion})`;
    if (found.length === 0)
      throw new NoEventSourceForTypeError(
        `no InformerEventSource${name ? ` named "${name}"` : ''} caches ${label}; register one in prepareEventSources (or write with the client, without caching)`,
      );
    if (found.length > 1)
      throw new NoEventSourceForTypeError(
        `${found.length} event sources cache ${label} (${found.map((s) => s.name).join(', ')}); pass the event source name`,
      );
    return found[0].source as unknown as InformerEventSource<R>;
  }
}
