import type { JsonObject } from '../../types.js';
import { isObject, metaOf, rfc3339, str } from '../common/json.js';
import type { ObjectService, WriteContext } from '../storage/object-service.js';
import type { NameConflict } from '../../crd/index.js';
import type { CompiledCrd, Peers } from '../common/peers.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { ResourceType } from '../resources/resource-type.js';
import { storageKey, storageVersion } from '../resources/resource-type.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, planGarbageCollection } from '../../gc/index.js';
import type { Store, StoreEvent } from '../storage/store.js';
import { terminationConditions } from './namespace-conditions.js';
import { NAMESPACE_FINALIZER, namespaceFinalizers } from '../storage/namespace-strategy.js';
import { ownerRefInvalidNamespaceEvent } from './gc-events.js';

const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
const CRD_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
/** Storage keys the garbage collector ignores, as kube-controller-manager's DefaultIgnoredResources. */
const GC_IGNORED = new Set(['/events', 'events.k8s.io/events']);
const SYSTEM: WriteContext = {
  user: { name: 'system:apiserver', groups: ['system:masters'] },
  fieldManager: 'kube-apiserver',
};

/**
 * Turns a compiled CRD into a served resource; `storedVersions` is the CRD's `status.storedVersions`
 * (versions objects may be stored at).
 */
export function crdResource(
  crdName: string,
  c: CompiledCrd,
  conversionWebhook: boolean,
  storedVersions: readonly string[] = [],
): ResourceType {
  const rt: ResourceType = {
    group: c.group,
    preferredVersion: c.versions.find((v) => v.served)?.name ?? c.storageVersion,
    versions: c.versions.map((v) => {
      const rv: ResourceType['versions'][number] = {
        name: v.name,
        served: v.served,
        storage: v.name === c.storageVersion,
        statusSubresource: v.statusSubresource,
        admit: (o, mode, old) => v.admit(o, mode, old ? { old } : undefined),
        unknownFields: (o) => v.unknownFields(o),
        decode: (o) => v.decode(o),
        coerce: (o) => v.coerce(o),
        patchSchema: v.patchSchema,
        selectableFields: v.selectableFields,
        fieldValue: (o, f) => v.fieldValue(o, f),
        printerColumns: v.printerColumns,
      };
      if (v.scaleSubresource) rv.scale = v.scaleSubresource;
      if (v.deprecated === true && v.deprecationWarning !== undefined)
        rv.deprecationWarning = v.deprecationWarning;
      if (conversionWebhook && v.name !== c.storageVersion) {
        rv.conversionError = `conversion webhook for ${c.group}/${c.storageVersion}, Kind=${c.names.kind} failed: the conversion webhook of this CRD cannot be called by the in-memory API server`;
      }
      return rv;
    }),
    kind: c.names.kind,
    listKind: c.names.listKind,
    plural: c.names.plural,
    singular: c.names.singular,
    shortNames: c.names.shortNames,
    categories: c.names.categories,
    namespaced: c.scope === 'Namespaced',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    nameRule: 'subdomain',
    crdName,
    strategicMerge: false,
  };
  if (storedVersions.some((v) => v !== c.storageVersion)) rt.storedAtOtherVersions = true;
  if (conversionWebhook) rt.convertedByWebhook = true;
  return rt;
}

/**
 * The server's own controllers: CRD serving and status, namespace termination, and garbage
 * collection by owner references. Resource registration is synchronous (a CRD's resources are
 * served at once); every write is deferred to a macrotask so watch events keep commit order.
 */
export class Controllers {
  private readonly unsubscribe: () => void;
  private readonly queue = new Map<string, () => void>();
  /** Uids of the objects whose ownerReferences name each owner uid. */
  private readonly dependents = new Map<string, Set<string>>();
  /** Where each stored object is, by uid. */
  private readonly located = new Map<string, { resource: string; namespace: string; name: string }>();
  /** Uids whose ownership component the garbage collector has to look at. */
  private readonly dirty = new Set<string>();
  /** Uids of objects being deleted in the foreground (waiting on their dependents). */
  private readonly foregroundOwners = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
  private disposed = false;

  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
    private readonly service: ObjectService,
    private readonly peers: Peers,
  ) {
    this.unsubscribe = store.onChange((ev, object) => this.onEvent(ev, object));
  }

  dispose(): void {
    this.disposed = true;
    this.unsubscribe();
    if (this.scheduled) clearImmediate(this.scheduled);
  }

  private enqueue(key: string, fn: () => void): void {
    if (this.disposed) return;
    this.queue.set(key, fn);
    this.scheduled ??= setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = undefined;
    const jobs = [...this.queue.values()];
    this.queue.clear();
    for (const j of jobs) {
      try {
        j();
      } catch {
        // a controller step that fails (e.g. a conflict) is retried on the next event
      }
    }
  }

  private onEvent(ev: StoreEvent, object: JsonObject | undefined): void {
    if (ev.resource === CRD_KEY) this.onCrd(ev);
    // most updates concern no controller: skip them without parsing (creates are parsed for their uid);
    // the writer's parsed object, when passed, answers for the new state without scanning its JSON
    if (ev.type === 'MODIFIED' && !(ev.prevJson?.includes('"ownerReferences"') ?? false)) {
      const m = object !== undefined && isObject(object.metadata) ? object.metadata : undefined;
      if (
        m !== undefined
          ? m.ownerReferences === undefined && m.deletionTimestamp === undefined
          : !ev.json.includes('"ownerReferences"') && !ev.json.includes('"deletionTimestamp"')
      )
        return;
    }
    // read only: the writer's parsed object when it passed one, else a parse of the stored JSON
    const obj = object ?? (JSON.parse(ev.json) as JsonObject);
    const meta = isObject(obj.metadata) ? obj.metadata : {};
    this.indexUids(ev, meta);
    // a new object that names no owner and is not being deleted gives the collector nothing but its
    // uid (what gcRelevant and indexOwners would find, without their lists): most creates
    if (ev.type === 'ADDED' && meta.ownerReferences === undefined && meta.deletionTimestamp === undefined)
      return;
    // the collector watches no events (graph_builder.go ignoredResources): an Event is never its dependent
    if (!GC_IGNORED.has(ev.resource)) this.indexForCollector(ev, obj, meta);
    if (ev.type === 'DELETED') {
      if (ev.namespace) this.enqueue(`ns/${ev.namespace}`, () => this.terminateNamespace(ev.namespace));
      const rt = this.registry.byStorageKey(ev.resource);
      if (rt?.crdName) {
        const crdName = rt.crdName;
        this.enqueue(`crd/${crdName}`, () => this.reconcileCrd(crdName));
      }
    } else if (meta.deletionTimestamp !== undefined && ev.resource === '/namespaces') {
      this.enqueue(`ns/${ev.name}`, () => this.terminateNamespace(ev.name));
    }
  }

  /** Indexes an event's ownership and wakes the collector when it may have work. */
  private indexForCollector(ev: StoreEvent, obj: JsonObject, meta: JsonObject): void {
    if (ev.type !== 'DELETED') this.reportInvalidNamespaceOwner(ev, obj, meta);
    this.indexOwners(ev, meta);
    if (this.gcRelevant(ev, meta)) {
      // the object, and its owners before and after (one it stopped naming may be waiting on it)
      this.dirty.add(str(meta.uid));
      const prev = ev.prevJson === undefined ? {} : metaOf(JSON.parse(ev.prevJson) as JsonObject);
      for (const m of [meta, prev])
        if (Array.isArray(m.ownerReferences))
          for (const r of m.ownerReferences as unknown[]) if (isObject(r)) this.dirty.add(str(r.uid));
      this.enqueue('gc', () => this.collectGarbage());
    }
  }

  // ---- CRDs ----

  private onCrd(ev: StoreEvent): void {
    const crd = JSON.parse(ev.json) as JsonObject;
    const name = ev.name;
    if (ev.type === 'DELETED') {
      this.unserve(crd);
      return;
    }
    const compiled = this.compile(crd);
    if (compiled && metaOf(crd).deletionTimestamp === undefined && this.conflictOf(crd) === undefined) {
      const spec = isObject(crd.spec) ? crd.spec : {};
      const webhook = isObject(spec.conversion) && spec.conversion.strategy === 'Webhook';
      const prevCrd = ev.prevJson ? (JSON.parse(ev.prevJson) as JsonObject) : undefined;
      const prev = prevCrd ? this.compile(prevCrd) : undefined;
      if (prev && (prev.group !== compiled.group || prev.names.plural !== compiled.names.plural))
        this.registry.remove(prev.group, prev.names.plural);
      const status = isObject(crd.status) ? crd.status : {};
      const stored = Array.isArray(status.storedVersions)
        ? status.storedVersions.filter((v): v is string => typeof v === 'string')
        : [];
      const served = crdResource(name, compiled, webhook, stored);
      // objects stored under other schemas are decoded on read from now on (only then: a decode per
      // object on every read is the cost of it)
      const before = this.registry.byStorageKey(storageKey(served));
      if (before?.crdName === name && (before.decodeOnRead === true || schemasChanged(prevCrd, crd)))
        served.decodeOnRead = true;
      this.registry.add(served);
    }
    this.enqueue(`crd/${name}`, () => this.reconcileCrd(name));
  }

  /** A names conflict with another CRD of the same group (that CRD keeps its names). */
  private conflictOf(crd: JsonObject): NameConflict | undefined {
    const others = this.store
      .list(CRD_KEY)
      .filter(
        (o) =>
          metaOf(o).name !== metaOf(crd).name && isObject(o.status) && o.status.acceptedNames !== undefined,
      );
    return this.peers.crd.findNameConflict(crd, others);
  }

  private compile(crd: JsonObject): CompiledCrd | undefined {
    try {
      return this.peers.crd.compileCrd(crd);
    } catch {
      return undefined;
    }
  }

  private unserve(crd: JsonObject): void {
    const c = this.compile(crd);
    const spec = isObject(crd.spec) ? crd.spec : {};
    const group = c?.group ?? str(spec.group ?? '');
    const plural = c?.names.plural ?? str((isObject(spec.names) ? spec.names.plural : '') ?? '');
    const rt = this.registry.byStorageKey(`${group}/${plural}`);
    if (rt?.crdName === metaOf(crd).name) {
      this.registry.remove(group, plural);
      this.store.dropResource(`${group}/${plural}`);
    }
  }

  private crdType(): { rt: ResourceType; version: ResourceType['versions'][number] } {
    const r = this.registry.resolve('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    return { rt: r.rt, version: r.version };
  }

  /** Sets the Terminating condition of a CRD being deleted (as SetCRDCondition: the time moves with the status). */
  private markCrdTerminating(name: string): void {
    const live = this.store.get(CRD_KEY, '', name);
    if (!live) return;
    const status = isObject(live.status) ? live.status : {};
    const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
    const wanted = {
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionInProgress',
      message: 'CustomResource deletion is in progress',
    };
    const have = conditions.find((c) => c.type === 'Terminating');
    if (
      have &&
      have.status === wanted.status &&
      have.reason === wanted.reason &&
      have.message === wanted.message
    )
      return;
    const at = have && have.status === wanted.status ? have.lastTransitionTime : rfc3339(new Date());
    const condition = {
      type: wanted.type,
      status: wanted.status,
      lastTransitionTime: at,
      reason: wanted.reason,
      message: wanted.message,
    };
    const next = have ? conditions.map((c) => (c === have ? condition : c)) : [...conditions, condition];
    const { rt, version } = this.crdType();
    this.service.commitUpdate(
      rt,
      version,
      live,
      { ...live, status: { ...status, conditions: next } },
      SYSTEM,
      'status',
      'track',
    );
  }

  private reconcileCrd(name: string): void {
    const crd = this.store.get(CRD_KEY, '', name);
    if (!crd) return;
    const { rt, version } = this.crdType();
    const meta = metaOf(crd);
    const fins = Array.isArray(meta.finalizers) ? (meta.finalizers as string[]) : [];
    const compiled = this.compile(crd);
    if (meta.deletionTimestamp !== undefined) {
      if (!fins.includes(CRD_FINALIZER)) return;
      // crd_finalizer.go: Terminating True while the instances go; the update that removes the finalizer
      // (and so the CRD) is not stored, so this is the condition the CRD is last seen with
      this.markCrdTerminating(name);
      const served = compiled
        ? this.registry.byStorageKey(`${compiled.group}/${compiled.names.plural}`)
        : undefined;
      if (served && served.crdName === name) {
        const sv = served.versions.find((v) => v.storage) ?? served.versions[0];
        const left = this.store.list(storageKey(served));
        for (const o of left) {
          const m = metaOf(o);
          if (m.deletionTimestamp === undefined)
            this.service.delete(served, sv, str(m.namespace ?? ''), str(m.name), {}, SYSTEM);
        }
        if (this.store.count(storageKey(served)) > 0) return;
      }
      const live = this.store.get(CRD_KEY, '', name);
      if (!live) return;
      const lm = metaOf(live);
      const next = { ...live, metadata: { ...lm, finalizers: fins.filter((f) => f !== CRD_FINALIZER) } };
      this.service.commitUpdate(rt, version, live, next, SYSTEM, undefined, 'track');
      return;
    }
    if (!compiled) return;
    if (!fins.includes(CRD_FINALIZER)) {
      meta.finalizers = [...fins, CRD_FINALIZER];
      this.service.commitUpdate(
        rt,
        version,
        this.store.get(CRD_KEY, '', name)!,
        crd,
        SYSTEM,
        undefined,
        'track',
      );
    }
    const fresh = this.store.get(CRD_KEY, '', name)!;
    const now = rfc3339(new Date());
    const conflict = this.conflictOf(fresh);
    const next = {
      ...fresh,
      status: this.peers.crd.crdStatus(fresh, now, conflict),
    };
    this.service.commitUpdate(rt, version, fresh, next, SYSTEM, 'status', 'track');
  }

  // ---- namespaces ----

  private terminateNamespace(name: string): void {
    const ns = this.store.get('/namespaces', '', name);
    if (!ns || metaOf(ns).deletionTimestamp === undefined) return;
    // as the namespace controller's deleteAllContent: delete what is there, then count what the deletes
    // left (objects held by finalizers), per resource and per finalizer, for the status conditions
    const resources = new Map<string, number>();
    const finalizers = new Map<string, number>();
    for (const rt of this.registry.all()) {
      if (!rt.namespaced || rt.virtual) continue;
      const sv = rt.versions.find((v) => v.storage) ?? rt.versions[0];
      for (const o of this.store.list(storageKey(rt), name)) {
        const m = metaOf(o);
        if (m.deletionTimestamp === undefined) this.service.delete(rt, sv, name, str(m.name), {}, SYSTEM);
      }
      const left = this.store.list(storageKey(rt), name);
      if (left.length === 0) continue;
      resources.set(`${rt.plural}.${rt.group}`, left.length);
      for (const o of left) {
        const fins = metaOf(o).finalizers;
        if (Array.isArray(fins))
          for (const f of fins) if (typeof f === 'string') finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
      }
    }
    const nsType = this.registry.resolve('', 'v1', 'namespaces')!;
    const live = this.store.get('/namespaces', '', name);
    if (!live) return;
    const conditions = terminationConditions(live.status, { resources, finalizers }, rfc3339(new Date()));
    if (conditions) {
      const status = isObject(live.status) ? live.status : {};
      this.service.commitUpdate(
        nsType.rt,
        nsType.version,
        live,
        { ...live, status: { ...status, conditions } },
        SYSTEM,
        'status',
        'track',
      );
    }
    // objects still held leave with DELETED events that re-run this
    if (resources.size > 0) return;
    const current = this.store.get('/namespaces', '', name);
    if (!current) return;
    const specFinalizers = namespaceFinalizers(current);
    if (specFinalizers.includes(NAMESPACE_FINALIZER)) {
      // the namespace controller's finalizeNamespace: takes its own finalizer out through the finalize
      // subresource; the update deletes the namespace when no other finalizer (spec or metadata) is left
      this.service.commitUpdate(
        nsType.rt,
        nsType.version,
        current,
        {
          ...current,
          spec: { finalizers: specFinalizers.filter((f) => f !== NAMESPACE_FINALIZER) },
        },
        SYSTEM,
        'finalize',
        'track',
      );
      return;
    }
    const m = metaOf(current);
    const fins = Array.isArray(m.finalizers) ? m.finalizers : [];
    if (fins.length > 0 || specFinalizers.length > 0) return;
    this.service.finishDeletion(nsType.rt, '', name);
  }

  // ---- garbage collection ----

  /** Whether an event may give the garbage collector work (cheap checks, no full scan). */
  /**
   * Whether an event may give the garbage collector work, from indexes kept up to date by every
   * event, so that plain writes never cost a scan of the store:
   * an owner that goes away with dependents; an object deleted with `orphan` or
   * `foregroundDeletion`; a dependent of a gone owner; a dependent that goes away or changes its
   * references while an owner waits on it in the foreground.
   */
  private gcRelevant(ev: StoreEvent, meta: JsonObject): boolean {
    const uid = str(meta.uid);
    if (ev.type === 'DELETED' && (this.dependents.get(uid)?.size ?? 0) > 0) return true;
    const fins = Array.isArray(meta.finalizers) ? (meta.finalizers as unknown[]) : [];
    if (
      meta.deletionTimestamp !== undefined &&
      (fins.includes(FOREGROUND_FINALIZER) || fins.includes(ORPHAN_FINALIZER))
    )
      return true;
    const owners = (m: JsonObject): string[] =>
      Array.isArray(m.ownerReferences)
        ? (m.ownerReferences as unknown[]).filter(isObject).map((r) => str(r.uid))
        : [];
    const now = owners(meta);
    const before = ev.prevJson === undefined ? [] : owners(metaOf(JSON.parse(ev.prevJson) as JsonObject));
    if ([...now, ...before].some((o) => this.foregroundOwners.has(o))) return true;
    return (
      ev.type !== 'DELETED' &&
      meta.deletionTimestamp === undefined &&
      (now.some((o) => !this.located.has(o)) || this.misreferences(meta))
    );
  }

  /**
   * kube's graph builder (addDependentToOwners) on the references an object gains: up to the first that
   * names a stored object at other coordinates, a namespaced owner of another namespace than the
   * dependent's gets an OwnerRefInvalidNamespace warning event (reportInvalidNamespaceOwnerRef).
   */
  private reportInvalidNamespaceOwner(ev: StoreEvent, obj: JsonObject, meta: JsonObject): void {
    if (!Array.isArray(meta.ownerReferences)) return;
    const before = new Set<string>();
    if (ev.prevJson !== undefined) {
      const prev = metaOf(JSON.parse(ev.prevJson) as JsonObject).ownerReferences;
      if (Array.isArray(prev)) for (const r of prev as unknown[]) if (isObject(r)) before.add(str(r.uid));
    }
    const namespace = str(meta.namespace ?? '');
    for (const r of meta.ownerReferences as unknown[]) {
      if (!isObject(r) || before.has(str(r.uid))) continue;
      const at = this.located.get(str(r.uid));
      if (!at) continue;
      if (at.namespace !== '' && at.namespace !== namespace) {
        const event = ownerRefInvalidNamespaceEvent(
          {
            apiVersion: str(obj.apiVersion),
            kind: str(obj.kind),
            namespace,
            name: str(meta.name),
            uid: str(meta.uid),
          },
          r,
          new Date(),
        );
        this.enqueue(`gc-event/${str(meta.uid)}/${str(r.uid)}`, () => this.record(event));
        return;
      }
      if (this.misreferences({ namespace, ownerReferences: [r] })) return;
    }
  }

  /** Creates an event the server's controllers record (a namespace being terminated refuses it). */
  private record(event: JsonObject): void {
    const events = this.registry.resolve('', 'v1', 'events');
    if (!events) return;
    const ns = str(metaOf(event).namespace);
    this.service.create(events.rt, events.version, ns, event, SYSTEM);
  }

  /**
   * Whether an ownerReference carries the uid of a stored object but other coordinates (kind, group,
   * name) or, for a namespaced owner, another namespace than the dependent's: kube's graph builder
   * (addDependentToOwners) sends such a dependent to the collector at once, which finds the reference
   * dangling.
   */
  private misreferences(meta: JsonObject): boolean {
    if (!Array.isArray(meta.ownerReferences)) return false;
    const namespace = str(meta.namespace ?? '');
    return (meta.ownerReferences as unknown[]).some((r) => {
      if (!isObject(r)) return false;
      const at = this.located.get(str(r.uid));
      const rt = at ? this.registry.byStorageKey(at.resource) : undefined;
      if (!at || !rt) return false;
      const apiVersion = str(r.apiVersion);
      const slash = apiVersion.lastIndexOf('/');
      const group = slash < 0 ? '' : apiVersion.slice(0, slash);
      if (rt.kind !== r.kind || rt.group !== group || at.name !== r.name) return true;
      return rt.namespaced && at.namespace !== namespace;
    });
  }

  /** Keeps the sets of live uids and of owners being deleted in the foreground. */
  private indexUids(ev: StoreEvent, meta: JsonObject): void {
    const uid = str(meta.uid);
    if (!uid) return;
    if (ev.type === 'DELETED') {
      this.located.delete(uid);
      this.foregroundOwners.delete(uid);
      return;
    }
    this.located.set(uid, { resource: ev.resource, namespace: ev.namespace, name: ev.name });
    const fins = Array.isArray(meta.finalizers) ? (meta.finalizers as unknown[]) : [];
    if (meta.deletionTimestamp !== undefined && fins.includes(FOREGROUND_FINALIZER))
      this.foregroundOwners.add(uid);
    else this.foregroundOwners.delete(uid);
  }

  /** Keeps the dependents of each owner uid, so deletes of non-owners cost nothing. */
  private indexOwners(ev: StoreEvent, meta: JsonObject): void {
    const self = str(meta.uid);
    const refs = (m: JsonObject): string[] =>
      Array.isArray(m.ownerReferences)
        ? (m.ownerReferences as unknown[]).filter(isObject).map((r) => str(r.uid))
        : [];
    if (ev.prevJson !== undefined) {
      for (const owner of refs(metaOf(JSON.parse(ev.prevJson) as JsonObject))) {
        const set = this.dependents.get(owner);
        set?.delete(self);
        if (set?.size === 0) this.dependents.delete(owner);
      }
    }
    if (ev.type === 'DELETED') return;
    for (const owner of refs(meta)) {
      let set = this.dependents.get(owner);
      if (!set) this.dependents.set(owner, (set = new Set()));
      set.add(self);
    }
  }

  /**
   * The ownership component of the dirty uids: every object linked to them through ownerReferences,
   * in either direction. The collector's decisions about an object depend only on its owners and
   * dependents, so it runs on this component instead of the whole store.
   */
  private dirtyComponent(): {
    objects: JsonObject[];
    where: Map<string, { rt: ResourceType; namespace: string; name: string }>;
  } {
    const seen = new Set<string>();
    const todo = [...this.dirty];
    this.dirty.clear();
    const objects: JsonObject[] = [];
    const where = new Map<string, { rt: ResourceType; namespace: string; name: string }>();
    while (todo.length > 0) {
      const uid = todo.pop()!;
      if (seen.has(uid)) continue;
      seen.add(uid);
      for (const d of this.dependents.get(uid) ?? []) todo.push(d);
      const at = this.located.get(uid);
      const rt = at ? this.registry.byStorageKey(at.resource) : undefined;
      const o = at && rt && !rt.virtual ? this.store.get(at.resource, at.namespace, at.name) : undefined;
      if (!at || !rt || !o || metaOf(o).uid !== uid) continue;
      objects.push(o);
      where.set(uid, { rt, namespace: at.namespace, name: at.name });
      const refs = metaOf(o).ownerReferences;
      if (Array.isArray(refs)) for (const r of refs) if (isObject(r)) todo.push(str(r.uid));
    }
    return { objects, where };
  }

  /** Whether an ownerReference's apiVersion and kind name a served resource (kube's REST mapping). */
  private serves(apiVersion: string, kind: string): boolean {
    const slash = apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    const rt = this.registry.byKind(group, kind);
    return rt !== undefined && rt.versions.some((v) => v.name === version && v.served);
  }

  /** Whether an ownerReference's apiVersion and kind name a namespaced resource (undefined: not served). */
  private namespacedKind(apiVersion: string, kind: string): boolean | undefined {
    const slash = apiVersion.lastIndexOf('/');
    return this.registry.byKind(slash < 0 ? '' : apiVersion.slice(0, slash), kind)?.namespaced;
  }

  /** Runs the garbage collection planner over the dirty ownership component and carries out its writes. */
  private collectGarbage(): void {
    const { objects, where } = this.dirtyComponent();
    if (objects.length === 0) return;
    const plan = planGarbageCollection(objects, undefined, {
      resolvable: (av, kind) => this.serves(av, kind),
      namespaced: (av, kind) => this.namespacedKind(av, kind),
    });
    for (const w of plan.writes) {
      const at = where.get(w.uid);
      // an Event reached as another object's owner is still never collected
      if (!at || GC_IGNORED.has(storageKey(at.rt))) continue;
      const sv = storageVersion(at.rt);
      const live = this.store.get(storageKey(at.rt), at.namespace, at.name);
      if (!live || metaOf(live).uid !== w.uid) continue;
      try {
        if (w.op === 'remove') {
          this.service.delete(at.rt, sv, at.namespace, at.name, { propagationPolicy: 'Background' }, SYSTEM);
        } else if (w.op === 'markDeleting') {
          const policy = w.finalizers.includes(FOREGROUND_FINALIZER)
            ? 'Foreground'
            : w.finalizers.includes(ORPHAN_FINALIZER)
              ? 'Orphan'
              : 'Background';
          this.service.delete(at.rt, sv, at.namespace, at.name, { propagationPolicy: policy }, SYSTEM);
        } else if (w.op === 'setFinalizers') {
          const next = { ...live, metadata: { ...metaOf(live), finalizers: w.finalizers } };
          if (w.finalizers.length === 0) delete (next.metadata as JsonObject).finalizers;
          this.service.commitUpdate(at.rt, sv, live, next, SYSTEM, undefined, 'track');
        } else {
          const next = { ...live, metadata: { ...metaOf(live), ownerReferences: w.ownerReferences } };
          if (w.ownerReferences.length === 0) delete (next.metadata as JsonObject).ownerReferences;
          this.service.commitUpdate(at.rt, sv, live, next, SYSTEM, undefined, 'track');
        }
      } catch {
        // a write that fails (the object changed meanwhile) is planned again on the next event
      }
    }
  }
}

/** Whether the versions' schemas of a CRD differ from those of its previous state. */
function schemasChanged(prevCrd: JsonObject | undefined, crd: JsonObject): boolean {
  if (prevCrd === undefined) return false;
  const schemas = (c: JsonObject): string => {
    const versions = isObject(c.spec) && Array.isArray(c.spec.versions) ? c.spec.versions : [];
    return JSON.stringify(versions.map((v: unknown) => (isObject(v) ? [v.name, v.schema] : null)));
  };
  return schemas(prevCrd) !== schemas(crd);
}
