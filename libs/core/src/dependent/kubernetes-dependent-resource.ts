import type { V1OwnerReference } from '@kubernetes/client-node';
import type { Context } from '../api/context.js';
import type { EventSourceContext } from '../api/event-source-context.js';
import { ResourceID } from '../api/resource-id.js';
import type { KubernetesResource, ResourceType } from '../api/resource-type.js';
import { KubernetesApiError } from '../client/errors.js';
import type { EventSource } from '../event/event-source.js';
import { InformerEventSource } from '../event/sources/informer-event-source.js';
import { OwnWrites } from '../event/sources/own-write.js';
import type { OwnWrite } from '../event/sources/own-write.js';
import type { PrimaryToSecondaryMapper, SecondaryToPrimaryMapper } from '../event/sources/mappers.js';
import {
  DEFAULT_PRIMARY_NAME_ANNOTATION,
  DEFAULT_PRIMARY_NAMESPACE_ANNOTATION,
  DEFAULT_PRIMARY_TYPE_ANNOTATION,
  Mappers,
  primaryAnnotations,
  primaryTypeAnnotationValue,
} from '../event/sources/mappers.js';
import { AbstractDependentResource } from './abstract-dependent-resource.js';
import { isBulkDependentResource } from './bulk-dependent-resource.js';
import { traitsOf } from './dependent-resource.js';
import type { DependentTraits, EventSourceProvider } from './dependent-resource.js';
import { DependentResourceError } from './errors.js';
import { clone } from './internal/json.js';
import type { KubernetesDependentOptions } from './kubernetes-dependent-options.js';
import { matchesManagedFields, matchesWholeObject, sanitizeDesired } from './matchers.js';

/**
 * A dependent Kubernetes resource (JOSDK's `KubernetesDependentResource`): give
 * {@link KubernetesDependentResource.desired}; the framework watches the kind with an
 * {@link InformerEventSource}, writes with server-side apply under the controller's field manager,
 * caches each written object at once and does not reconcile again for its own writes.
 *
 * Secondaries are linked to their primary by an owner reference when the dependent is garbage
 * collected (see {@link CRUDKubernetesDependentResource}), else by annotations (which also work
 * across namespaces). A plain `KubernetesDependentResource` is read-only unless `traits` say
 * otherwise.
 *
 * Several dependents of one kind: give each its own informer with a label selector, or share one
 * event source (`useEventSourceWithName`); the secondary of each is then chosen by the desired
 * state's name and namespace, or by {@link KubernetesDependentResource.targetSecondaryResourceID}.
 *
 * @typeParam R - the secondary kind.
 * @typeParam P - the primary kind.
 */
export abstract class KubernetesDependentResource<
  R extends KubernetesResource,
  P extends KubernetesResource = KubernetesResource,
>
  extends AbstractDependentResource<R, P>
  implements EventSourceProvider<P>
{
  readonly resourceType: ResourceType<R>;
  override readonly traits: DependentTraits;
  readonly eventSourceName: string;
  /** The options given. */
  protected readonly options: KubernetesDependentOptions<R>;
  private source: InformerEventSource<R, P> | undefined;
  private controllerFieldManager: string | undefined;

  /** @throws DependentResourceError when `resourceType` is missing. */
  constructor(options: KubernetesDependentOptions<R>, defaultTraits: DependentTraits = {}) {
    super(options);
    if (!options?.resourceType?.kind) {
      throw new DependentResourceError(
        'InvalidDependentConfiguration',
        `dependent ${this.name}: resourceType is required (e.g. ResourceTypes.ConfigMap)`,
        this.name,
      );
    }
    this.options = options;
    this.resourceType = options.resourceType;
    this.traits = Object.freeze({ ...defaultTraits, ...options.traits });
    this.eventSourceName = options.informer?.name ?? this.name;
  }

  /** The desired state of the secondary; namespace defaults to the primary's. */
  protected abstract override desired(primary: P, context: Context<P>): R | Promise<R>;

  /**
   * The ID of this dependent's secondary for a primary, when known without computing the desired
   * state (JOSDK's `targetSecondaryResourceID`). Defaults to undefined (choose by desired state).
   */
  protected targetSecondaryResourceID(_primary: P, _context: Context<P>): ResourceID | undefined {
    return undefined;
  }

  /**
   * Custom mapping between secondaries and primaries, e.g. when primaries name a shared secondary
   * (many-to-one): a secondary-to-primary mapper (typically reading an index added to
   * `context.primaryCache`) and a primary-to-secondary mapper. Defaults to none: owner references,
   * else the primary annotations.
   */
  protected mappers(_context: EventSourceContext<P>):
    | {
        secondaryToPrimaryMapper?: SecondaryToPrimaryMapper<R>;
        primaryToSecondaryMapper?: PrimaryToSecondaryMapper<P>;
      }
    | undefined {
    return undefined;
  }

  eventSource(context: EventSourceContext<P>): EventSource {
    this.controllerFieldManager = context.fieldManager ?? context.controllerName;
    // a stopped informer cannot start again: after deregistration (activation) a new one is made,
    // also when the stopped one was another dependent's that this one shared
    if (this.source && !STOPPED.has(this.source)) return this.source;
    const i = this.options.informer ?? {};
    const keys = this.options.annotationKeys ?? {
      name: DEFAULT_PRIMARY_NAME_ANNOTATION,
      namespace: DEFAULT_PRIMARY_NAMESPACE_ANNOTATION,
    };
    const byOwner = Mappers.fromOwnerReferences<R>(context.primaryResourceType);
    // (the event source drops the namespace of a cluster-scoped primary)
    const byNameAnnotations = Mappers.fromAnnotation<R>(keys.name, keys.namespace);
    // as JOSDK's Mappers.fromMetadata: a secondary annotated with another primary kind is not ours
    const typeKey = this.typeAnnotationKey();
    const ownType = primaryTypeAnnotationValue(context.primaryResourceType);
    const byAnnotation = (s: R): ResourceID[] => {
      const type = typeKey === undefined ? undefined : s.metadata?.annotations?.[typeKey];
      return type !== undefined && type !== ownType ? [] : byNameAnnotations(s);
    };
    const custom = this.mappers(context);
    const source = new InformerEventSource<R, P>(
      {
        name: this.eventSourceName,
        type: this.resourceType,
        secondaryToPrimaryMapper:
          custom?.secondaryToPrimaryMapper ??
          Mappers.indexable((s: R) => {
            const owners = byOwner(s);
            return owners.length > 0 ? owners : byAnnotation(s);
          }),
        primaryToSecondaryMapper: custom?.primaryToSecondaryMapper,
        namespaces: i.namespaces,
        labelSelector: i.labelSelector,
        fieldSelector: i.fieldSelector,
        onAddFilter: i.onAddFilter,
        onUpdateFilter: i.onUpdateFilter,
        onDeleteFilter: i.onDeleteFilter,
        genericFilter: i.genericFilter,
        managedFields: i.managedFields,
        fieldManager: this.options.fieldManager,
      },
      context,
    );
    const stop = source.stop.bind(source);
    source.stop = async () => {
      // reads keep the last cache until a new source replaces it
      STOPPED.add(source);
      await stop();
    };
    this.source = source;
    return source;
  }

  useEventSource(source: EventSource): void {
    if (!(source instanceof InformerEventSource)) {
      throw new DependentResourceError(
        'InvalidDependentConfiguration',
        `dependent ${this.name}: a Kubernetes dependent can only share an InformerEventSource`,
        this.name,
      );
    }
    this.source = source as InformerEventSource<R, P>;
  }

  /** The event source, once created or shared. */
  get informerEventSource(): InformerEventSource<R, P> | undefined {
    return this.source;
  }

  override getSecondaryResource(primary: P, context: Context<P>): R | undefined {
    const id = this.targetSecondaryResourceID(primary, context);
    if (id) return this.requireSource().get(id);
    return super.getSecondaryResource(primary, context);
  }

  protected secondaryResources(primary: P, _context: Context<P>): R[] {
    return this.requireSource().getSecondaryResources(primary);
  }

  protected override alwaysSelectByDesired(): boolean {
    return true;
  }

  protected override isTargetOf(secondary: R, desired: R): boolean {
    const primaryless = desired.metadata ?? {};
    return (
      secondary.metadata?.name === primaryless.name &&
      (primaryless.namespace === undefined || secondary.metadata?.namespace === primaryless.namespace)
    );
  }

  /**
   * Picks the secondary whose name and namespace are those of
   * {@link KubernetesDependentResource.targetSecondaryResourceID}, else of the desired state (as
   * JOSDK does), so dependents of one kind never take each other's objects.
   */
  protected override selectTargetSecondaryResource(
    secondaries: R[],
    primary: P,
    context: Context<P>,
  ): R | undefined {
    if (secondaries.length === 0) return undefined;
    const desired = this.desired(primary, context);
    if (desired instanceof Promise) {
      // an async desired state cannot be awaited here; its rejection is the reconcile's business
      desired.catch(() => undefined);
      if (secondaries.length === 1) return secondaries[0];
      throw new DependentResourceError(
        'AmbiguousDependentSecondary',
        `dependent ${this.name}: ${secondaries.length} ${this.resourceType.kind}s belong to the primary and desired() is async; override targetSecondaryResourceID to choose`,
        this.name,
      );
    }
    const target = this.withDefaults(clone(this.present(desired, 'desired()', primary)), primary);
    return secondaries.find((s) => this.isTargetOf(s, target));
  }

  /** Creates the secondary (server-side apply, or create). */
  async create(desired: R, primary: P, context: Context<P>): Promise<R> {
    const target = this.prepare(desired, primary);
    const id = ResourceID.fromResource(target);
    const client = context.client;
    if (this.options.createOnlyIfMissing === true) {
      // only a create that succeeded made the object; one found existing is someone else's version
      let created = false;
      return this.write(
        id,
        async () => {
          try {
            const made = await client.create(this.resourceType, target, {
              fieldManager: this.fieldManager(context),
            });
            created = true;
            return made;
          } catch (error) {
            if (!(error instanceof KubernetesApiError && error.status === 409)) throw error;
            const existing = await client.get(this.resourceType, id);
            if (!existing) throw error;
            return existing;
          }
        },
        { explains: () => false, certain: () => created },
      );
    }
    if (this.useSSA()) {
      if (this.options.createOnlyIfMissing === false) return this.apply(id, target, context);
      return this.applyNew(id, target, primary, context);
    }
    return this.write(
      id,
      () => client.create(this.resourceType, target, { fieldManager: this.fieldManager(context) }),
      OwnWrites.create(),
    );
  }

  /**
   * Creates with an apply that holds the precondition `resourceVersion: "1"` (JOSDK's default
   * `createResourceOnlyIfNotExistingWithSSA`): kube-apiserver creates a missing object whatever
   * version the apply names, while an existing one (someone else's of that name: ours would be our
   * secondary, updated instead) fails the precondition and stays as it is.
   * @throws DependentResourceError (`SecondaryNameTaken`) when an object of that name exists.
   */
  private async applyNew(id: ResourceID, target: R, primary: P, context: Context<P>): Promise<R> {
    const guarded = { ...target, metadata: { ...target.metadata, resourceVersion: '1' } };
    try {
      return await this.apply(id, guarded, context, target);
    } catch (error) {
      if (!(error instanceof KubernetesApiError && error.status === 409)) throw error;
      throw new DependentResourceError(
        'SecondaryNameTaken',
        `dependent ${this.name}: ${this.resourceType.kind} ${id.key} exists but is not the secondary of primary ${ResourceID.fromResource(primary).key} (no owner reference or primary annotations, or outside the dependent's informer); it is left as it is: delete or rename it, or set createOnlyIfMissing: false to take it over`,
        this.name,
        { cause: error },
      );
    }
  }

  /** Updates the secondary (server-side apply, or an update of the actual object with the desired values). */
  async update(actual: R, desired: R, primary: P, context: Context<P>): Promise<R> {
    const target = this.prepare(desired, primary);
    const id = ResourceID.fromResource(target);
    if (this.useSSA()) return this.apply(id, target, context);
    const merged = mergeForUpdate(actual, target);
    return this.write(
      id,
      () => context.client.update(this.resourceType, merged, { fieldManager: this.fieldManager(context) }),
      OwnWrites.update(merged),
    );
  }

  /**
   * Deletes the secondary when the cache has it (without an event source: by its desired identity;
   * a missing one is fine). A bulk dependent (`BulkDependentResource`) deletes every secondary it has, through
   * its `deleteTargetResource`.
   */
  async delete(primary: P, context: Context<P>): Promise<void> {
    if (isBulkDependentResource<R, P>(this)) return this.deleteAllBulk(this, primary, context);
    if (this.source) {
      const actual = this.getSecondaryResource(primary, context);
      if (!actual) return;
      // the object we saw, not a namesake created since (the client may then repeat the delete)
      const uid = actual.metadata?.uid;
      const options = uid ? { preconditions: { uid } } : {};
      await context.client.delete(this.resourceType, ResourceID.fromResource(actual), options);
      return;
    }
    const id =
      this.targetSecondaryResourceID(primary, context) ??
      ResourceID.fromResource(
        this.withDefaults(
          clone(this.present(await this.desired(primary, context), 'desired()', primary)),
          primary,
        ),
      );
    await context.client.delete(this.resourceType, id);
  }

  /** Compares with the managed-fields matcher under SSA, else the whole-object one; override to customise. */
  protected override matchDesired(actual: R, desired: R, primary: P, context: Context<P>): boolean {
    const target = this.prepare(desired, primary);
    const kind = this.options.matcher ?? (this.useSSA() ? 'managedFields' : 'wholeObject');
    if (kind === 'managedFields') return matchesManagedFields(actual, target, this.fieldManager(context));
    return matchesWholeObject(actual, target, {
      labelsAndAnnotations: this.options.matchLabelsAndAnnotations,
    });
  }

  /** The field manager of writes. */
  protected fieldManager(context: Context<P>): string {
    return (
      this.options.fieldManager ??
      this.source?.fieldManager ??
      this.controllerFieldManager ??
      context.controllerName
    );
  }

  /** Whether writes use server-side apply. */
  protected useSSA(): boolean {
    return this.options.useSSA ?? true;
  }

  /**
   * The object as written: a copy of the desired state with kind, namespace (the primary's by
   * default), the owner reference (garbage collected dependents) or the primary annotations, and
   * the documented sanitizing (a Secret's stringData as data).
   * @throws DependentResourceError when an owner reference would cross namespaces.
   */
  protected prepare(desired: R, primary: P): R {
    const target = sanitizeDesired(this.withDefaults(clone(desired), primary));
    const meta = (target.metadata ??= {});
    const pm = primary.metadata ?? {};
    if (traitsOf(this).garbageCollected) {
      if (pm.namespace && meta.namespace !== pm.namespace) {
        throw new DependentResourceError(
          'DependentOwnerReference',
          `dependent ${this.name}: ${this.resourceType.kind} ${meta.namespace ?? ''}/${meta.name ?? ''} cannot have an owner reference to a primary in namespace ${pm.namespace}; use CRUDNoGCKubernetesDependentResource (annotations) for other namespaces`,
          this.name,
        );
      }
      const refs = (meta.ownerReferences ?? []).filter((r) => r.uid !== pm.uid);
      refs.push({
        apiVersion: primary.apiVersion ?? '',
        kind: primary.kind ?? '',
        name: pm.name!,
        uid: pm.uid!,
      });
      meta.ownerReferences = refs;
    } else {
      const keys = this.options.annotationKeys ?? {
        name: DEFAULT_PRIMARY_NAME_ANNOTATION,
        namespace: DEFAULT_PRIMARY_NAMESPACE_ANNOTATION,
      };
      meta.annotations = { ...meta.annotations, [keys.name]: pm.name! };
      if (keys.namespace && pm.namespace) meta.annotations[keys.namespace] = pm.namespace;
      const type = primaryAnnotations(primary)[DEFAULT_PRIMARY_TYPE_ANNOTATION];
      const typeKey = this.typeAnnotationKey();
      if (type && typeKey) meta.annotations[typeKey] = type;
    }
    return target;
  }

  /** The annotation naming the primary's kind: the default one, or with custom keys their `type` (none when not given). */
  private typeAnnotationKey(): string | undefined {
    const custom = this.options.annotationKeys;
    return custom ? custom.type : DEFAULT_PRIMARY_TYPE_ANNOTATION;
  }

  private withDefaults(desired: R, primary: P): R {
    desired.apiVersion ??= this.resourceType.apiVersion;
    desired.kind ??= this.resourceType.kind;
    const meta = (desired.metadata ??= {});
    if (this.resourceType.namespaced && !meta.namespace) meta.namespace = primary.metadata?.namespace;
    return desired;
  }

  /** Applies `target`; `intent` (defaults to it) is what the write's own event is judged by. */
  private apply(id: ResourceID, target: R, context: Context<P>, intent: R = target): Promise<R> {
    const body = target as R & { metadata: { name: string } };
    return this.write(
      id,
      () =>
        context.client.apply(this.resourceType, body, {
          fieldManager: this.fieldManager(context),
          force: true,
        }),
      OwnWrites.apply(intent),
    );
  }

  /** The result reaches the reconciler (the workflow's result) as its own: the source serves a copy. */
  private write(id: ResourceID, fn: () => Promise<R>, did: OwnWrite<R>): Promise<R> {
    return this.source ? this.source.write(id, fn, did) : fn();
  }

  private requireSource(): InformerEventSource<R, P> {
    if (!this.source) {
      throw new DependentResourceError(
        'DependentNotConfigured',
        `dependent ${this.name}: no event source yet; use it in a managed workflow, or register dependent.eventSource(context) in prepareEventSources`,
        this.name,
      );
    }
    return this.source;
  }
}

/** Informer event sources made by dependents that were stopped (deregistered); never started again. */
const STOPPED = new WeakSet<EventSource>();

/**
 * The actual owner references (others' are kept, as JOSDK's GenericResourceUpdater keeps the actual
 * metadata) with the desired ones put in: one with the uid of an actual one replaces it in place, the
 * others are appended.
 */
function mergeOwnerReferences(
  actual: V1OwnerReference[] | undefined,
  desired: V1OwnerReference[] | undefined,
): V1OwnerReference[] | undefined {
  if (!desired?.length) return actual;
  const byUid = new Map(desired.map((r) => [r.uid, r]));
  const merged = (actual ?? []).map((r) => {
    const replacement = byUid.get(r.uid);
    byUid.delete(r.uid);
    return replacement ?? r;
  });
  return [...merged, ...byUid.values()];
}

/** The actual object with the desired values on top (for update without SSA). */
function mergeForUpdate<R extends KubernetesResource>(actual: R, desired: R): R {
  const merged = { ...clone(actual), ...clone(desired) };
  const am = actual.metadata ?? {};
  const dm = desired.metadata ?? {};
  merged.metadata = {
    ...am,
    labels: { ...am.labels, ...dm.labels },
    annotations: { ...am.annotations, ...dm.annotations },
    ownerReferences: mergeOwnerReferences(am.ownerReferences, dm.ownerReferences),
    resourceVersion: am.resourceVersion,
  };
  delete (merged as { status?: unknown }).status;
  return merged;
}
