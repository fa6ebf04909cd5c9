import { randomUUID } from 'node:crypto';
import type { JsonObject, ManagedFieldsEntry, StatusCause } from '../../types.js';
import { ApiError, errors } from '../common/errors.js';
import { reportUnknownFields } from '../common/unknown-fields.js';
import { clone, deepEqual, isObject, metaOf, rfc3339, str } from '../common/json.js';
import { checkValueDepth } from '../common/nesting.js';
import {
  generatedName,
  validateLabelsAndAnnotations,
  validateName,
  validateOwnerReferences,
  validateFinalizers,
  validateKubeFinalizerNames,
  customResourceFinalizerWarnings,
  dedupOwnerReferences,
} from './names.js';
import type { Peers } from '../common/peers.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { ResourceType, ResourceVersion } from '../resources/resource-type.js';
import {
  apiVersionOf,
  readDecoder,
  rewritesApiVersion,
  storageKey,
  storageVersion,
} from '../resources/resource-type.js';
import type { Store } from './store.js';
import {
  isNamespaceType,
  keepNamespaceFinalizers,
  namespaceSpecOnCreate,
  validateNamespaceFinalizers,
  validateNamespaceStatus,
} from './namespace-strategy.js';
import { deletionFinalizers, FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../../gc/index.js';
import {
  applyBuiltinDefaults,
  ClusterIpAllocator,
  prepareBuiltinForCreate,
  tracksGeneration,
} from '../resources/builtin-defaults.js';
import type { BuiltinAllocators } from '../resources/builtin-defaults.js';
import { NodePortAllocator, nodePortsOf } from '../resources/service-defaults.js';
import { unknownObjectMetaFields } from '../resources/omitempty.js';
import { validateBuiltinUpdate } from '../resources/builtin-update-validation.js';
import { builtinComponents, unknownBuiltinFields } from '../openapi/builtin-schemas.js';
import {
  applyTypeMessage,
  builtinTypeMismatch,
  goPlusV,
  jsonDecodeMessage,
  strategicPatchMessage,
} from '../openapi/builtin-types.js';

/** Who is writing and how. */
export interface WriteContext {
  user: { name: string; groups: string[] };
  /** `dryRun=All`: validate and answer, store nothing. */
  dryRun?: boolean;
  /** Field manager for managedFields; required for apply. */
  fieldManager?: string;
  /** What to do with unknown fields of custom resources. Defaults to `Warn`, as kube-apiserver. */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /** Collects `Warning` texts for the response (unknown fields under `Warn`). */
  warnings?: string[];
  /**
   * When set, a write that stores an object served in its storage version records here the object it
   * returns and that object's stored JSON, so an HTTP answer need not serialize it again; and
   * `created` when a patch (an apply) created the object (the answer is then 201).
   */
  response?: { object?: JsonObject; json?: string; created?: boolean };
  /**
   * The request body is the service's to change (a fresh parse no caller keeps), so create, update and
   * apply use it without a copy. Default false: the body is copied first.
   */
  ownsBody?: boolean;
  /**
   * The admission point (see `admission/`): called on create and update after defaults and before
   * validation with the object about to be stored and the stored one; it may change `obj` in place
   * (mutating webhooks) or throw. Unset (the default) for writes no webhook sees.
   */
  admission?: (obj: JsonObject, old: JsonObject | undefined) => void;
}

/** The patch content types the server accepts. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** Delete options (body of a DELETE or query parameters). */
export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  gracePeriodSeconds?: number;
}

/** The result of a delete: the object's last state and whether it is gone (or only marked). */
export interface DeleteResult {
  object: JsonObject;
  deleted: boolean;
}

const SERVER_META = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
];

/** Server-owned metadata a patch's live object leaves out (managedFields stay: apply reads them). */
const STRIPPED_FOR_PATCH = new Set(SERVER_META.filter((k) => k !== 'managedFields'));

/**
 * The Kubernetes semantics of reads and writes over the {@link Store}: metadata, validation,
 * generation, status subresource, optimistic concurrency, finalizers, patches, managedFields and
 * dry run. The HTTP layer calls it, and so can in-process controllers (the internal client).
 */
export class ObjectService {
  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
    private readonly peers: Peers,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The OpenAPI components of each built-in kind (its storage version is fixed), looked up once. */
  private readonly components = new WeakMap<ResourceType, ReturnType<typeof builtinComponents>>();

  /** Cluster IPs and node ports of Services. */
  private readonly allocators: BuiltinAllocators = {
    clusterIps: new ClusterIpAllocator(),
    nodePorts: new NodePortAllocator(),
    nodePortsInUse: (namespace, name) => {
      const used = new Set<number>();
      for (const e of this.store.listJson('/services')) {
        const svc = JSON.parse(e.json) as JsonObject;
        const m = metaOf(svc);
        if (m.namespace === namespace && m.name === name) continue;
        for (const p of nodePortsOf(svc)) used.add(p);
      }
      return used;
    },
  };

  /** The stored object of a resource, presented at `version`; 404 when missing. */
  get(rt: ResourceType, version: ResourceVersion, namespace: string, name: string): JsonObject {
    const obj = this.store.get(storageKey(rt), namespace, name);
    if (!obj) throw errors.notFound({ group: rt.group, resource: rt.plural, name });
    return this.present(rt, version, obj);
  }

  /** Rewrites a stored object for a served version (no conversion: apiVersion only). */
  present(rt: ResourceType, version: ResourceVersion, obj: JsonObject): JsonObject {
    if (version.conversionError !== undefined) throw errors.internal(version.conversionError);
    readDecoder(rt, version)?.(obj);
    if (rewritesApiVersion(rt, version)) obj.apiVersion = apiVersionOf(rt.group, version.name);
    return obj;
  }

  private now(): string {
    return rfc3339(this.clock());
  }

  private ref(
    rt: ResourceType,
    name?: string,
  ): { group: string; resource: string; name?: string; kind: string } {
    return name === undefined
      ? { group: rt.group, resource: rt.plural, kind: rt.kind }
      : { group: rt.group, resource: rt.plural, kind: rt.kind, name };
  }

  /**
   * Checks that a namespace exists and accepts new objects. `name` is the name the request gave, or its
   * generateName: kube's NamespaceLifecycle admission runs before a name is generated.
   */
  private checkNamespace(rt: ResourceType, namespace: string, name: string): void {
    if (!rt.namespaced) return;
    const json = this.store.getJson('/namespaces', '', namespace);
    if (json === undefined) throw errors.notFound({ group: '', resource: 'namespaces', name: namespace });
    // parse only a namespace that may be terminating
    const ns = json.includes('"deletionTimestamp"') ? (JSON.parse(json) as JsonObject) : undefined;
    if (ns && isObject(ns.metadata) && ns.metadata.deletionTimestamp !== undefined) {
      const resource = `${rt.plural}${rt.group ? '.' + rt.group : ''}`;
      throw new ApiError(
        403,
        'Forbidden',
        `${name === '' ? resource : `${resource} "${name}"`} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        {
          // as errors.NewForbidden: group, the resource as kind, and the name (omitted when empty)
          ...(name === '' ? {} : { name }),
          group: rt.group,
          kind: rt.plural,
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${namespace} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
    }
  }

  private checkKind(rt: ResourceType, version: ResourceVersion, body: JsonObject): void {
    const want = apiVersionOf(rt.group, version.name);
    if (body.apiVersion !== undefined && body.apiVersion !== want) {
      throw errors.badRequest(
        `the API version in the data (${str(body.apiVersion)}) does not match the expected API version (${want})`,
      );
    }
    if (body.kind !== undefined && body.kind !== rt.kind) {
      throw errors.badRequest(
        `the kind in the data (${str(body.kind)}) does not match the expected kind (${rt.kind})`,
      );
    }
  }

  /** Creates an object (POST). */
  create(
    rt: ResourceType,
    version: ResourceVersion,
    namespace: string,
    body: JsonObject,
    ctx: WriteContext,
    managed?: ManagedFieldsEntry[],
  ): JsonObject {
    if (!isObject(body)) throw errors.badRequest('the request body must be a JSON object');
    this.checkKind(rt, version, body);
    this.refuseMistyped(rt, version, body, 'decode');
    const obj = ctx.ownsBody === true ? body : clone(body);
    const meta = metaOf(obj);
    const bodyNs = meta.namespace;
    if (rt.namespaced) {
      if (bodyNs !== undefined && bodyNs !== '' && bodyNs !== namespace) {
        throw errors.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      meta.namespace = namespace;
    } else delete meta.namespace;
    if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '') {
      throw errors.badRequest('resourceVersion should not be set on objects to be created');
    }
    let name = typeof meta.name === 'string' ? meta.name : '';
    // what kube's admission errors name (admission.NewForbidden): the name, else the generateName
    const requestedName = name || (typeof meta.generateName === 'string' ? meta.generateName : '');
    if (!name) {
      if (typeof meta.generateName === 'string' && meta.generateName !== '') {
        const causes = validateName(
          meta.generateName.replace(/-$/, '') || 'x',
          rt.nameRule,
          'metadata.generateName',
        );
        if (causes.length) throw errors.invalid(this.ref(rt, ''), causes);
        name = generatedName(meta.generateName);
        for (let i = 0; i < 8 && this.store.getJson(storageKey(rt), namespace, name) !== undefined; i++)
          name = generatedName(meta.generateName);
      } else {
        throw errors.invalid(this.ref(rt, ''), [
          {
            reason: 'FieldValueRequired',
            field: 'metadata.name',
            message: 'Required value: name or generateName is required',
          },
        ]);
      }
      meta.name = name;
    }
    const nameCauses = validateName(name, rt.nameRule);
    if (nameCauses.length) throw errors.invalid(this.ref(rt, name), nameCauses);
    this.checkNamespace(rt, namespace, requestedName);
    if (this.store.getJson(storageKey(rt), rt.namespaced ? namespace : '', name) !== undefined) {
      throw errors.alreadyExists(this.ref(rt, name));
    }
    for (const k of SERVER_META) if (k !== 'managedFields') delete meta[k];
    obj.apiVersion = apiVersionOf(rt.group, storageVersion(rt).name);
    obj.kind = rt.kind;
    // nodeStrategy.PrepareForCreate: a Node (a kubelet registering) keeps the status it is created with
    if (version.statusSubresource && !keepsStatusOnCreate(rt)) delete obj.status;
    this.defaultsOnCreate(rt, obj);
    const builtinCauses = applyBuiltinDefaults(rt, obj, undefined, this.allocators);
    this.builtinFieldValidation(rt, obj, ctx);
    if (ctx.admission) ctx.admission(obj, undefined);
    const causes: StatusCause[] = [
      ...builtinCauses,
      ...validateLabelsAndAnnotations(meta),
      ...validateOwnerReferences(meta),
      ...validateFinalizers(meta),
      ...validateKubeFinalizerNames(rt, meta),
    ];
    if (isNamespaceType(rt)) causes.push(...validateNamespaceFinalizers(obj, false));
    if (version.admit) causes.push(...this.admit(rt, version, obj, 'create', undefined, ctx));
    if (
      rt.crdName === undefined &&
      rt.group === 'apiextensions.k8s.io' &&
      rt.kind === 'CustomResourceDefinition'
    ) {
      causes.push(...this.peers.crd.validateCrd(obj));
    }
    if (causes.length) throw errors.invalid(this.ref(rt, name), causes);
    if (rt.crdName !== undefined) ctx.warnings?.push(...customResourceFinalizerWarnings(meta));
    meta.uid = randomUUID();
    meta.creationTimestamp = this.now();
    if (tracksGeneration(rt)) meta.generation = 1;
    else delete meta.generation;
    const now = this.now();
    // an empty list is omitted, as kube-apiserver's output omits it (omitempty)
    if (managed) {
      if (managed.length > 0) meta.managedFields = managed;
      else delete meta.managedFields;
    } else {
      delete meta.managedFields;
      // the creator owns no reset field (kube's field manager ignores them): the status of a kind with
      // a status subresource, a namespace's spec.finalizers; the view shares obj's metadata, which
      // receives the managedFields
      this.track(rt, version, undefined, this.withoutResetFields(rt, version, obj), ctx, undefined, now);
    }
    // what kube's PrepareForCreate generates (a Job's selector), owned by no manager
    prepareBuiltinForCreate(rt, obj);
    if (ctx.dryRun) return this.present(rt, version, obj);
    const rv = this.store.nextRv();
    meta.resourceVersion = str(rv);
    const json = JSON.stringify(obj);
    this.store.put(storageKey(rt), rt.namespaced ? namespace : '', name, json, rv, obj);
    return this.answer(rt, version, obj, json, ctx);
  }

  /**
   * Runs a custom resource's schema admission; unknown fields it prunes are an error under
   * `fieldValidation=Strict` and a warning under `Warn`, as kube-apiserver reports them.
   */
  private admit(
    rt: ResourceType,
    version: ResourceVersion,
    obj: JsonObject,
    mode: 'create' | 'update',
    old: JsonObject | undefined,
    ctx: WriteContext,
  ): StatusCause[] {
    const admit = version.admit;
    if (!admit) return [];
    const policy = ctx.fieldValidation ?? 'Warn';
    // what pruning drops, whatever the value (an unknown field set to null too), as kube-apiserver's
    // prune records every unknown key (pruning/algorithm.go RecordUnknownField)
    const unknown = policy === 'Ignore' ? undefined : version.unknownFields?.(obj);
    const causes = admit(obj, mode, old);
    if (unknown) reportUnknownFields(rt.kind, version.name, unknown, policy, ctx.warnings);
    // stored at the storage version: converted (strategy None: apiVersion only) and coerced with that
    // version's schema, as kube's schemaCoercingConverter prunes, and read back defaulted by it (a
    // field only the request version declares is not stored)
    if (!version.storage && causes.length === 0) storageVersion(rt).decode?.(obj);
    return causes;
  }

  /**
   * Fields of a built-in kind its schema does not declare are dropped, as kube-apiserver's decoder
   * drops them; `fieldValidation=Strict` makes them a 400 and `Warn` (the default) a warning.
   */
  private builtinFieldValidation(rt: ResourceType, obj: JsonObject, ctx: WriteContext): void {
    if (rt.virtual) return;
    const version = storageVersion(rt).name;
    let unknown: string[];
    // a custom resource's metadata is decoded as an ObjectMeta too: its unknown fields go (the CRD's
    // schema prunes the rest of the object in admit)
    if (rt.crdName !== undefined) unknown = unknownObjectMetaFields(obj);
    else {
      const comps = this.componentsOf(rt);
      if (!comps) return;
      unknown = unknownBuiltinFields(obj, comps.schemas, comps.root, true);
    }
    reportUnknownFields(rt.kind, version, unknown, ctx.fieldValidation ?? 'Warn', ctx.warnings);
  }

  /**
   * An apply configuration of a built-in kind with a field its schema does not declare is refused
   * whatever `fieldValidation` says, as kube-apiserver's field manager refuses it when it makes the
   * typed patch object (a 500 with no reason: the error is not a Status there), and so is one with a
   * value of the wrong JSON type (structured-merge-diff's validation: `expected numeric (int or
   * float), got string`). Only the first such field is named; a list item is named by its index (kube
   * names a keyed item by its key).
   */
  private refuseUndeclaredApplyFields(
    rt: ResourceType,
    version: ResourceVersion,
    namespace: string,
    name: string,
    applied: JsonObject,
  ): void {
    if (rt.virtual || rt.crdName !== undefined) return;
    const comps = this.componentsOf(rt);
    if (!comps) return;
    const unknown = unknownBuiltinFields(applied, comps.schemas, comps.root, false);
    // a value of the wrong JSON type: structured-merge-diff's validation of the typed object (S14-BT2)
    const mistyped =
      unknown.length === 0 ? builtinTypeMismatch(applied, comps.schemas, comps.root) : undefined;
    const text =
      unknown.length > 0
        ? `.${unknown[0]}: field not declared in schema`
        : mistyped && applyTypeMessage(mistyped);
    if (text === undefined) return;
    const gvk = `${rt.group}/${version.name}, Kind=${rt.kind}`;
    const where = `${rt.namespaced ? namespace : ''}/${name}`;
    throw new ApiError(500, '', `failed to create typed patch object (${where}; ${gvk}): ${text}`);
  }

  /**
   * A built-in object with a value its Go field cannot take (`replicas: "2"`, an env `value: 8080`) is
   * refused as kube-apiserver's decoder refuses it before any defaulting or validation: a create or
   * update body with 400 (`<Kind> in version "v1" cannot be handled as a <Kind>: json: cannot
   * unmarshal ...`), the object a JSON, merge or strategic merge patch produces with 422 on the
   * field `patch` (kube's patcher wraps the decode error so; a strategic merge patch with the
   * unstructured converter's words).
   */
  private refuseMistyped(
    rt: ResourceType,
    version: ResourceVersion,
    obj: JsonObject,
    how: 'decode' | 'patch' | { strategic: unknown },
  ): void {
    if (rt.virtual || rt.crdName !== undefined) return;
    const comps = this.componentsOf(rt);
    if (!comps) return;
    const m = builtinTypeMismatch(obj, comps.schemas, comps.root);
    if (!m) return;
    if (how === 'decode') {
      throw errors.badRequest(
        `${rt.kind} in version "${version.name}" cannot be handled as a ${rt.kind}: ${jsonDecodeMessage(m)}`,
      );
    }
    // a strategic merge patch: the unstructured converter's error, with the patch printed by %+v
    // (apiserver's applyPatchToObject); a JSON or merge patch: the decode error of the patched JSON
    let value: string;
    let message: string;
    if (how === 'patch') {
      value = JSON.stringify(obj);
      message = jsonDecodeMessage(m);
    } else {
      const converter = strategicPatchMessage(m);
      if (converter === undefined) return;
      value = goPlusV(how.strategic);
      message = converter;
    }
    throw errors.invalid({ group: '', resource: '', kind: '', name: '' }, [
      {
        reason: 'FieldValueInvalid',
        field: 'patch',
        message: `Invalid value: ${JSON.stringify(value)}: ${message}`,
      },
    ]);
  }

  private componentsOf(rt: ResourceType): ReturnType<typeof builtinComponents> {
    let comps = this.components.get(rt);
    if (comps === undefined && !this.components.has(rt)) {
      comps = builtinComponents(rt.group, storageVersion(rt).name, rt.kind);
      this.components.set(rt, comps);
    }
    return comps;
  }

  /** `obj` without the fields its main resource resets (a shallow view: metadata is shared). */
  private withoutResetFields(rt: ResourceType, version: ResourceVersion, obj: JsonObject): JsonObject {
    const namespace = isNamespaceType(rt) && isObject(obj.spec);
    if (!version.statusSubresource && !namespace) return obj;
    const view: JsonObject = { ...obj };
    if (version.statusSubresource) delete view.status;
    if (namespace) {
      const spec: JsonObject = { ...(obj.spec as JsonObject) };
      delete spec.finalizers;
      // a spec that held only the finalizers leaves no field behind (the reset path goes whole)
      if (Object.keys(spec).length > 0) view.spec = spec;
      else delete view.spec;
    }
    return view;
  }

  private defaultsOnCreate(rt: ResourceType, obj: JsonObject): void {
    const meta = metaOf(obj);
    if (isNamespaceType(rt)) {
      obj.spec = namespaceSpecOnCreate(obj);
      obj.status = { phase: 'Active' };
      const labels = isObject(meta.labels) ? meta.labels : {};
      labels['kubernetes.io/metadata.name'] = meta.name;
      meta.labels = labels;
    } else if (rt.group === '' && rt.plural === 'pods') {
      obj.status = { phase: 'Pending', qosClass: 'BestEffort' };
    } else if (rt.group === '' && rt.plural === 'persistentvolumeclaims') {
      obj.status = { phase: 'Pending' };
    } else if (rt.group === '' && rt.plural === 'services') {
      obj.status = { loadBalancer: {} };
    }
  }

  private track(
    rt: ResourceType,
    version: ResourceVersion,
    before: JsonObject | undefined,
    after: JsonObject,
    ctx: WriteContext,
    subresource: string | undefined,
    now: string,
  ): void {
    const patch = this.peers.patch;
    const manager = ctx.fieldManager ?? 'unknown';
    const meta = metaOf(after);
    if (before && isObject(before.metadata) && before.metadata.managedFields !== undefined)
      meta.managedFields = before.metadata.managedFields;
    const args: Parameters<typeof patch.trackUpdate>[0] = {
      before,
      after,
      manager,
      apiVersion: apiVersionOf(rt.group, version.name),
      now,
      schema: version.patchSchema,
      // `before` is a fresh parse of the stored object that no one keeps
      reuseEncoding: true,
    };
    if (subresource !== undefined) args.subresource = subresource;
    const entries = patch.trackUpdate(args);
    if (entries.length) meta.managedFields = entries;
    else delete meta.managedFields;
  }

  /** Replaces an object (PUT), on the main resource or the status subresource. */
  update(
    rt: ResourceType,
    version: ResourceVersion,
    namespace: string,
    name: string,
    body: JsonObject,
    ctx: WriteContext,
    subresource?: string,
  ): JsonObject {
    if (!isObject(body)) throw errors.badRequest('the request body must be a JSON object');
    this.checkKind(rt, version, body);
    this.refuseMistyped(rt, version, body, 'decode');
    const meta = metaOf(body);
    if (meta.name !== undefined && meta.name !== name) {
      throw errors.badRequest(
        `the name of the object (${str(meta.name)}) does not match the name on the URL (${name})`,
      );
    }
    if (
      rt.namespaced &&
      meta.namespace !== undefined &&
      meta.namespace !== '' &&
      meta.namespace !== namespace
    ) {
      throw errors.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    const key = rt.namespaced ? namespace : '';
    const old = this.store.get(storageKey(rt), key, name);
    if (!old) {
      // kinds whose strategy allows create on update (Lease, Event, Endpoints): a PUT creates them
      if (subresource !== undefined || !createsOnUpdate(rt)) throw errors.notFound(this.ref(rt, name));
      if (ctx.response) ctx.response.created = true;
      if (meta.name === undefined) meta.name = name;
      // the store's create-on-update prepares the object for storage: a stale resourceVersion is no error
      delete meta.resourceVersion;
      return this.create(rt, version, namespace, body, ctx);
    }
    // custom resources allow no unconditional update (apiextensions' customResourceStrategy); kube's
    // generic Store.Update names the resource as the kind of this error
    if (
      rt.crdName !== undefined &&
      (typeof meta.resourceVersion !== 'string' || meta.resourceVersion === '')
    ) {
      throw errors.invalid({ group: rt.group, resource: rt.plural, kind: rt.plural, name }, [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.resourceVersion',
          message: 'Invalid value: 0x0: must be specified for an update',
        },
      ]);
    }
    const next = ctx.ownsBody === true ? body : clone(body);
    return this.commitUpdate(rt, version, old, next, ctx, subresource, 'track');
  }

  /** Patches an object; apply creates it when missing. */
  patch(
    rt: ResourceType,
    version: ResourceVersion,
    namespace: string,
    name: string,
    type: PatchType,
    patchBody: unknown,
    ctx: WriteContext & { force?: boolean },
    subresource?: string,
  ): JsonObject {
    const patchMod = this.peers.patch;
    const key = rt.namespaced ? namespace : '';
    const stored = this.store.get(storageKey(rt), key, name);
    if (type === 'apply') {
      if (!ctx.fieldManager)
        throw errors.badRequest('PATCH requests with apply content type must specify fieldManager');
      if (!isObject(patchBody)) throw errors.badRequest('the apply patch must be a YAML or JSON object');
      this.checkKind(rt, version, patchBody);
      if (patchBody.apiVersion === undefined || patchBody.kind === undefined) {
        throw errors.badRequest('apiVersion and kind must be set in the applied object');
      }
      // structured-merge-diff's Apply takes no managedFields in a configuration (an object read back
      // and applied as is); a null is no value
      if (isObject(patchBody.metadata) && patchBody.metadata.managedFields != null)
        throw errors.badRequest('metadata.managedFields must be nil');
      this.refuseUndeclaredApplyFields(rt, version, namespace, name, patchBody);
      const applied = ctx.ownsBody === true ? patchBody : clone(patchBody);
      const am = metaOf(applied);
      if (am.name !== undefined && am.name !== name) {
        throw errors.badRequest(
          `the name of the object (${str(am.name)}) does not match the name on the URL (${name})`,
        );
      }
      const precondition =
        typeof am.resourceVersion === 'string' && am.resourceVersion !== '' ? am.resourceVersion : undefined;
      for (const k of SERVER_META) delete am[k];
      am.name = name;
      if (rt.namespaced) am.namespace = namespace;
      const now = this.now();
      // a fresh parse no one else holds: copied only when presenting rewrites it for another version
      const presented = stored ? this.present(rt, version, this.ownCopy(version, stored)) : undefined;
      if (
        stored &&
        precondition !== undefined &&
        precondition !== (stored.metadata as JsonObject).resourceVersion
      ) {
        throw errors.modified(this.ref(rt, name));
      }
      const live = presented ? this.stripForPatch(presented) : undefined;
      // the field set is the configuration's as sent, empties and nulls included, as kube-apiserver's
      // structured-merge-diff computes it (an applied `data: {}` owns `f:data`); the merged object is
      // decoded (nulls, omitempty) with the defaults in commitUpdate or create
      const args: Parameters<typeof patchMod.serverSideApply>[0] = {
        live,
        applied,
        manager: ctx.fieldManager,
        force: ctx.force === true,
        apiVersion: apiVersionOf(rt.group, version.name),
        now,
        schema: version.patchSchema,
        // `live` is a fresh parse of the stored object that no one keeps
        reuseEncoding: true,
      };
      if (subresource !== undefined) args.subresource = subresource;
      // with a status subresource the main resource neither changes nor owns status fields
      else if (version.statusSubresource) args.ignoreStatus = true;
      const result = patchMod.serverSideApply(args);
      if (!stored) {
        if (subresource !== undefined) throw errors.notFound(this.ref(rt, name));
        if (ctx.response) ctx.response.created = true;
        const managed = (metaOf(result).managedFields ?? undefined) as ManagedFieldsEntry[] | undefined;
        return this.create(rt, version, namespace, result, ctx, managed ?? []);
      }
      this.restoreServerMeta(result, stored);
      return this.commitUpdate(rt, version, stored, result, ctx, subresource, 'preset');
    }
    if (!stored) throw errors.notFound(this.ref(rt, name));
    // every patch engine works on its own deep copy of the target
    const presented = this.present(rt, version, this.ownCopy(version, stored));
    let result: JsonObject;
    if (type === 'json') {
      result = jsonPatched(() => patchMod.applyJsonPatch(presented, patchBody));
      // add/copy/move can nest a value under a deep path, deeper than the parsed body was
      checkValueDepth(result, 'the object the JSON patch produces');
    } else if (type === 'merge') result = patchMod.applyMergePatch(presented, patchBody);
    else {
      if (!rt.strategicMerge) throw strategicUnsupported();
      result = patchMod.applyStrategicMergePatch(presented, patchBody, version.patchSchema);
    }
    if (!isObject(result)) throw errors.badRequest('the patch did not produce an object');
    this.refuseMistyped(rt, version, result, type === 'strategic' ? { strategic: patchBody } : 'patch');
    if (isObject(result.metadata)) {
      const warning = dedupOwnerReferences(result.metadata, true);
      if (warning !== undefined) (ctx.warnings ??= []).push(warning);
    }
    // as kube's patch handler (checkName, EnsureObjectNamespaceMatchesRequestNamespace): a patch does
    // not rename or move the object
    const rm = isObject(result.metadata) ? result.metadata : {};
    const patchedName = typeof rm.name === 'string' ? rm.name : '';
    if (patchedName !== name)
      throw errors.badRequest(
        `the name of the object (${patchedName}) does not match the name on the URL (${name})`,
      );
    if (
      rt.namespaced &&
      typeof rm.namespace === 'string' &&
      rm.namespace !== '' &&
      rm.namespace !== namespace
    )
      throw errors.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    return this.commitUpdate(rt, version, stored, result, ctx, subresource, 'track');
  }

  /** `stored` itself when presenting it changes nothing, else a copy that presenting may rewrite. */
  private ownCopy(version: ResourceVersion, stored: JsonObject): JsonObject {
    return version.storage ? stored : clone(stored);
  }

  /** The live object for apply without server-owned metadata (shallow: apply deep-copies its live). */
  private stripForPatch(obj: JsonObject): JsonObject {
    const o: JsonObject = { ...obj };
    // built by adding keys: deleting them from a spread copy would leave a slow dictionary-mode object
    const from = metaOf(obj);
    const m: JsonObject = {};
    for (const k of Object.keys(from)) {
      if (STRIPPED_FOR_PATCH.has(k)) continue;
      // an own `__proto__` key (JSON.parse makes one) stays a data property, as the spread kept it
      if (k === '__proto__')
        Object.defineProperty(m, k, { value: from[k], enumerable: true, writable: true, configurable: true });
      else m[k] = from[k];
    }
    o.metadata = m;
    return o;
  }

  private restoreServerMeta(obj: JsonObject, from: JsonObject): void {
    const m = metaOf(obj);
    const f = metaOf(from);
    for (const k of SERVER_META) if (k !== 'managedFields' && f[k] !== undefined) m[k] = f[k];
  }

  /**
   * The common end of update, patch and apply: server-owned metadata, preconditions, the status
   * subresource, finalizer rules, admission, generation, managedFields, the no-op check, commit.
   */
  commitUpdate(
    rt: ResourceType,
    version: ResourceVersion,
    old: JsonObject,
    next: JsonObject,
    ctx: WriteContext,
    subresource: string | undefined,
    managed: 'track' | 'preset',
  ): JsonObject {
    const om = metaOf(old);
    const name = str(om.name);
    const nm = metaOf(next);
    if (typeof nm.uid === 'string' && nm.uid !== '' && nm.uid !== om.uid) {
      throw errors.conflict(
        this.ref(rt, name),
        `Precondition failed: UID in precondition: ${nm.uid}, UID in object meta: ${str(om.uid)}`,
      );
    }
    if (
      typeof nm.resourceVersion === 'string' &&
      nm.resourceVersion !== '' &&
      nm.resourceVersion !== om.resourceVersion
    ) {
      throw errors.modified(this.ref(rt, name));
    }
    let obj: JsonObject;
    if (subresource === 'status') {
      obj = clone(old);
      if (next.status === undefined) delete obj.status;
      else obj.status = next.status;
      if (nm.managedFields !== undefined && managed === 'preset')
        metaOf(obj).managedFields = nm.managedFields;
    } else {
      obj = next;
      if (version.statusSubresource) {
        if (old.status === undefined) delete obj.status;
        else obj.status = clone(old.status);
      }
      // a namespace's spec.finalizers change only through its finalize subresource
      if (isNamespaceType(rt) && subresource !== 'finalize') keepNamespaceFinalizers(obj, old);
    }
    const m = metaOf(obj);
    m.name = om.name;
    if (rt.namespaced) m.namespace = om.namespace;
    else delete m.namespace;
    m.uid = om.uid;
    m.creationTimestamp = om.creationTimestamp;
    delete m.selfLink;
    delete m.generateName;
    if (om.generateName !== undefined) m.generateName = om.generateName;
    obj.apiVersion = apiVersionOf(rt.group, storageVersion(rt).name);
    obj.kind = rt.kind;
    const causes: StatusCause[] = [];
    if (om.deletionTimestamp !== undefined) {
      m.deletionTimestamp = om.deletionTimestamp;
      m.deletionGracePeriodSeconds = om.deletionGracePeriodSeconds;
      const before = new Set(Array.isArray(om.finalizers) ? (om.finalizers as string[]) : []);
      const added = (Array.isArray(m.finalizers) ? (m.finalizers as string[]) : []).filter(
        (f) => !before.has(f),
      );
      if (added.length) {
        causes.push({
          reason: 'FieldValueForbidden',
          field: 'metadata.finalizers',
          message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((a) => JSON.stringify(a)).join(', ')}}`,
        });
      }
    } else {
      delete m.deletionTimestamp;
      delete m.deletionGracePeriodSeconds;
    }
    if (isNamespaceType(rt)) {
      const labels = isObject(m.labels) ? m.labels : {};
      labels['kubernetes.io/metadata.name'] = om.name;
      m.labels = labels;
    }
    if (ctx.admission) ctx.admission(obj, old);
    // decoded (and defaulted) before validation, as create does and kube decodes a body first
    causes.push(...applyBuiltinDefaults(rt, obj, old, this.allocators));
    // immutable fields of built-in kinds (a status write keeps the stored spec)
    if (subresource === undefined) causes.push(...validateBuiltinUpdate(rt, obj, old));
    if (subresource === 'finalize') causes.push(...validateNamespaceFinalizers(obj, true));
    if (subresource === 'status' && isNamespaceType(rt))
      causes.push(...validateNamespaceStatus(obj, m.deletionTimestamp !== undefined));
    causes.push(
      ...validateLabelsAndAnnotations(m),
      ...validateOwnerReferences(m),
      ...validateFinalizers(m),
      ...validateKubeFinalizerNames(rt, m),
    );
    this.builtinFieldValidation(rt, obj, ctx);
    if (version.admit) causes.push(...this.admit(rt, version, obj, 'update', old, ctx));
    if (rt.crdName === undefined && rt.group === 'apiextensions.k8s.io' && subresource === undefined) {
      causes.push(...this.peers.crd.validateCrd(obj, old));
    }
    if (causes.length) throw errors.invalid(this.ref(rt, name), causes);
    if (rt.crdName !== undefined && subresource === undefined)
      ctx.warnings?.push(...customResourceFinalizerWarnings(m, om));
    if (tracksGeneration(rt)) {
      const oldGen = typeof om.generation === 'number' ? om.generation : 1;
      m.generation = specChanged(old, obj, version.statusSubresource) ? oldGen + 1 : oldGen;
    } else delete m.generation;
    const now = this.now();
    if (managed === 'track') this.track(rt, version, old, obj, ctx, subresource, now);
    m.resourceVersion = om.resourceVersion;
    if (sameObject(old, obj)) return this.present(rt, version, old);
    const finalizers = Array.isArray(m.finalizers) ? m.finalizers : [];
    const k = rt.namespaced ? str(om.namespace) : '';
    // kube's ShouldDeleteDuringUpdate; for namespaces (ShouldDeleteNamespaceDuringUpdate) spec.finalizers
    // must be empty too: the namespace stays Terminating until its content is gone
    const spec = isObject(obj.spec) ? obj.spec : undefined;
    const held = isNamespaceType(rt) && Array.isArray(spec?.finalizers) && spec.finalizers.length > 0;
    if (m.deletionTimestamp !== undefined && finalizers.length === 0 && !held) {
      if (ctx.dryRun) return this.present(rt, version, obj);
      const rv = this.store.nextRv();
      m.resourceVersion = str(rv);
      // kube's deleteWithoutFinalizers never stores the update: watchers get the last stored object
      // (finalizers and all) at the revision of the deletion; the caller gets its update
      const last = clone(old);
      metaOf(last).resourceVersion = str(rv);
      this.store.remove(storageKey(rt), k, name, JSON.stringify(last), rv);
      return this.present(rt, version, obj);
    }
    if (ctx.dryRun) return this.present(rt, version, obj);
    const rv = this.store.nextRv();
    m.resourceVersion = str(rv);
    const json = JSON.stringify(obj);
    this.store.put(storageKey(rt), k, name, json, rv, obj);
    return this.answer(rt, version, obj, json, ctx);
  }

  /** Presents a just stored object; records its JSON for the response when that is what is served. */
  private answer(
    rt: ResourceType,
    version: ResourceVersion,
    obj: JsonObject,
    json: string,
    ctx: WriteContext,
  ): JsonObject {
    const out = this.present(rt, version, obj);
    if (ctx.response && version.storage && version.conversionError === undefined) {
      ctx.response.object = out;
      ctx.response.json = json;
    }
    return out;
  }

  /** Deletes an object: marks it when it has finalizers, removes it otherwise. */
  delete(
    rt: ResourceType,
    version: ResourceVersion,
    namespace: string,
    name: string,
    opts: DeleteOptions,
    ctx: WriteContext,
  ): DeleteResult {
    if (isNamespaceType(rt) && IMMORTAL_NAMESPACES.has(name)) {
      // kube's NamespaceLifecycle admission, before the object is looked up (dry run included)
      throw errors.forbidden(`namespaces "${name}" is forbidden: this namespace may not be deleted`, {
        group: '',
        resource: 'namespaces',
        name,
      });
    }
    const k = rt.namespaced ? namespace : '';
    const old = this.store.get(storageKey(rt), k, name);
    if (!old) throw errors.notFound(this.ref(rt, name));
    const om = metaOf(old);
    const pre = opts.preconditions;
    if (isNamespaceType(rt)) {
      // the namespace registry's own Delete checks them first, in the storage layer's words
      if (pre?.uid !== undefined && pre.uid !== om.uid)
        throw errors.conflict(
          this.ref(rt, name),
          `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${str(om.uid)}`,
        );
      if (pre?.resourceVersion !== undefined && pre.resourceVersion !== om.resourceVersion)
        throw errors.conflict(
          this.ref(rt, name),
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${str(om.resourceVersion)}`,
        );
    }
    // kube's rest.BeforeDelete: the conflict names the group and the kind (not the resource)
    const byKind = { group: rt.group, resource: rt.kind, name };
    if (pre?.uid !== undefined && pre.uid !== om.uid) {
      throw errors.conflict(
        byKind,
        `the UID in the precondition (${pre.uid}) does not match the UID in record (${str(om.uid)}). The object might have been deleted and then recreated`,
      );
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== om.resourceVersion) {
      throw errors.conflict(
        byKind,
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${str(om.resourceVersion)}). The object might have been modified`,
      );
    }
    const obj = clone(old);
    const m = metaOf(obj);
    const finalizers = Array.isArray(m.finalizers) ? [...(m.finalizers as string[])] : [];
    const policy = opts.propagationPolicy;
    const terminatingNamespace = isNamespaceType(rt) && m.deletionTimestamp !== undefined;
    // the CRD registry's own first DELETE sets no collector finalizer (etcd.go REST.Delete)
    const firstCrdDelete =
      rt.crdName === undefined && rt.group === 'apiextensions.k8s.io' && m.deletionTimestamp === undefined;
    if (
      rt.crdName === undefined &&
      rt.plural === 'events' &&
      (rt.group === '' || rt.group === 'events.k8s.io')
    ) {
      // the event strategy's garbage collection policy is Unsupported: a DELETE sets neither collector
      // finalizer (and drops one already there), whatever the options
      const kept = finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
      finalizers.length = 0;
      finalizers.push(...kept);
    } else if (
      !terminatingNamespace &&
      !firstCrdDelete &&
      (m.deletionTimestamp === undefined || opts.propagationPolicy !== undefined)
    ) {
      // as kube's store.Delete, a propagationPolicy applies to an object already being deleted too (no kind
      // here has a graceful deletion pending); without one, the object's own orphan or foregroundDeletion
      // finalizer stays (for namespaces too: the namespace registry's shouldHaveOrphanFinalizer); a
      // terminating namespace is answered as it is (its registry does so while spec.finalizers remain)
      const opt: { propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' } = {};
      if (policy !== undefined) opt.propagationPolicy = policy;
      const next = deletionFinalizers(finalizers, opt);
      finalizers.length = 0;
      finalizers.push(...next);
    }
    const isNamespace = isNamespaceType(rt);
    const isCrd = rt.crdName === undefined && rt.group === 'apiextensions.k8s.io';
    const spec = isObject(obj.spec) ? obj.spec : undefined;
    const specFinalizers =
      isNamespace && Array.isArray(spec?.finalizers) ? (spec.finalizers as string[]) : [];
    if (finalizers.length > 0 || specFinalizers.length > 0 || isNamespace || isCrd) {
      if (m.deletionTimestamp !== undefined) {
        const before = Array.isArray(m.finalizers) ? (m.finalizers as string[]) : [];
        if (finalizers.length === before.length && finalizers.every((f) => before.includes(f)))
          return { object: this.present(rt, version, old), deleted: false };
        if (finalizers.length === 0 && !isNamespace && !isCrd) {
          if (ctx.dryRun) return { object: this.present(rt, version, obj), deleted: true };
          delete m.finalizers;
          const rv = this.store.nextRv();
          m.resourceVersion = str(rv);
          this.store.remove(storageKey(rt), k, name, JSON.stringify(obj), rv);
          return { object: this.present(rt, version, obj), deleted: true };
        }
      } else if (isCrd) {
        // the CRD registry's Delete (etcd.go): the timestamp, the cleanup finalizer and a Terminating
        // condition, in one update that leaves the grace period and the generation alone
        m.deletionTimestamp = this.now();
        if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) finalizers.push(CRD_CLEANUP_FINALIZER);
        obj.status = withTerminatingCondition(obj.status, this.now());
      } else {
        m.deletionTimestamp = this.now();
        // kube's markAsDeleting sets a zero grace period; the namespace registry's Delete sets none
        if (!isNamespace) m.deletionGracePeriodSeconds = 0;
        // as kube's BeforeDelete: only objects that carry a generation get it bumped
        if (typeof m.generation === 'number') m.generation += 1;
      }
      if (finalizers.length) m.finalizers = finalizers;
      else delete m.finalizers;
      if (isNamespace) obj.status = { ...(isObject(obj.status) ? obj.status : {}), phase: 'Terminating' };
      if (ctx.dryRun) return { object: this.present(rt, version, obj), deleted: false };
      const rv = this.store.nextRv();
      m.resourceVersion = str(rv);
      this.store.put(storageKey(rt), k, name, JSON.stringify(obj), rv);
      return { object: this.present(rt, version, obj), deleted: false };
    }
    if (ctx.dryRun) return { object: this.present(rt, version, obj), deleted: true };
    const rv = this.store.nextRv();
    m.resourceVersion = str(rv);
    this.store.remove(storageKey(rt), k, name, JSON.stringify(obj), rv);
    return { object: this.present(rt, version, obj), deleted: true };
  }

  /** Removes an object that is marked for deletion and has no finalizers left (controllers). */
  finishDeletion(rt: ResourceType, namespace: string, name: string): void {
    const k = rt.namespaced ? namespace : '';
    const obj = this.store.get(storageKey(rt), k, name);
    if (!obj) return;
    const rv = this.store.nextRv();
    metaOf(obj).resourceVersion = str(rv);
    this.store.remove(storageKey(rt), k, name, JSON.stringify(obj), rv);
  }

  /** The registry this service writes through. */
  get resources(): ResourceRegistry {
    return this.registry;
  }
}

/** The finalizer the CRD registry puts on a CRD it deletes (its instances go first). */
const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/**
 * A CRD status with the Terminating condition its registry's Delete sets (InstanceDeletionPending),
 * as SetCRDCondition sets one: the transition time moves only with the status.
 */
function withTerminatingCondition(status: unknown, now: string): JsonObject {
  const st = isObject(status) ? status : {};
  const conditions = Array.isArray(st.conditions) ? st.conditions.filter(isObject) : [];
  const have = conditions.find((c) => c.type === 'Terminating');
  const condition = {
    type: 'Terminating',
    status: 'True',
    lastTransitionTime: have?.status === 'True' ? have.lastTransitionTime : now,
    reason: 'InstanceDeletionPending',
    message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
  };
  return {
    ...st,
    conditions: have ? conditions.map((c) => (c === have ? condition : c)) : [...conditions, condition],
  };
}

/** Namespaces kube-apiserver's NamespaceLifecycle admission never lets anyone delete. */
const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/**
 * Whether a PUT of a missing object creates it: the kinds whose kube-apiserver strategy has
 * `AllowCreateOnUpdate() true` (coordination Lease, core and events.k8s.io Event, Endpoints).
 */
function createsOnUpdate(rt: ResourceType): boolean {
  if (rt.crdName !== undefined) return false;
  if (rt.group === 'coordination.k8s.io') return rt.plural === 'leases';
  if (rt.group === 'events.k8s.io') return rt.plural === 'events';
  return rt.group === '' && (rt.plural === 'events' || rt.plural === 'endpoints');
}

function strategicUnsupported(): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  );
}

function withoutMeta(obj: JsonObject, dropStatus: boolean): JsonObject {
  const o: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'metadata' || k === 'apiVersion' || k === 'kind' || (dropStatus && k === 'status')) continue;
    o[k] = v;
  }
  return o;
}

function specChanged(old: JsonObject, next: JsonObject, hasStatus: boolean): boolean {
  return !deepEqual(withoutMeta(old, hasStatus), withoutMeta(next, hasStatus));
}

/**
 * `deepEqual(a, b)` ignoring the key `skip` (and keys holding undefined), without building copies;
 * `fields` decides the other keys (deepEqual, or a caller's comparison for a nested level).
 */
function equalExcept(
  a: JsonObject,
  b: JsonObject,
  skip: string,
  fields: (key: string, x: unknown, y: unknown) => boolean,
): boolean {
  let na = 0;
  for (const k in a) {
    if (k === skip || !Object.hasOwn(a, k)) continue;
    const v = a[k];
    if (v === undefined) continue;
    na++;
    if (!Object.hasOwn(b, k) || !fields(k, v, b[k])) return false;
  }
  let nb = 0;
  for (const k in b) if (k !== skip && Object.hasOwn(b, k) && b[k] !== undefined) nb++;
  return na === nb;
}

function deepEqualField(_key: string, x: unknown, y: unknown): boolean {
  return deepEqual(x, y);
}

/** managedFields entries equal apart from their `time`. */
function sameManagedFields(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return deepEqual(a, b);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x: unknown = a[i];
    const y: unknown = b[i];
    if (isObject(x) && isObject(y)) {
      if (!equalExcept(x, y, 'time', deepEqualField)) return false;
    } else if (isObject(x) || isObject(y) || !deepEqual(x, y)) return false;
  }
  return true;
}

/** Equal apart from managedFields timestamps (a write that changes nothing). */
function sameObject(a: JsonObject, b: JsonObject): boolean {
  const am = metaOf(a);
  const bm = metaOf(b);
  // everything but metadata first: where a write changes something, it is there most often
  if (!equalExcept(a, b, 'metadata', deepEqualField)) return false;
  if (!equalExcept(am, bm, 'managedFields', deepEqualField)) return false;
  return sameManagedFields(am.managedFields, bm.managedFields);
}

/**
 * A JSON patch applied as kube's patch handler applies it: a patch that does not decode is a 400 with
 * the reason, and one that fails on the object (a failed `test`, a missing path) is a 422 Invalid
 * with the generic message of `NewGenericServerResponse`, which drops the library's text.
 */
function jsonPatched(apply: () => JsonObject): JsonObject {
  try {
    return apply();
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (error instanceof Error && error.name === 'PatchError' && status === 422)
      throw new ApiError(
        422,
        'Invalid',
        'the server rejected our request due to an error in our request',
        {},
        error,
      );
    throw error;
  }
}

/** Kinds whose create keeps the status sent (kube's strategies of every other kind reset it). */
function keepsStatusOnCreate(rt: ResourceType): boolean {
  return rt.crdName === undefined && rt.group === '' && rt.plural === 'nodes';
}
