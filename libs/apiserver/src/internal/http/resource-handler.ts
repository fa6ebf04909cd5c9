import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject, StatusCause } from '../../types.js';
import { mediaType, parseBody, readBody } from './body.js';
import { decodeProtobuf } from '../encoding/protobuf.js';
import type { ServiceAccountTokens } from '../authz/service-account-tokens.js';
import { answerPodStream, isPodStream } from './pod-streams.js';
import { reviewToken } from '../authz/token-review.js';
import { scaleOf, writeScale } from '../storage/scale.js';
import { ApiError, errors, PageNotFound } from '../common/errors.js';
import { buildFilter } from '../watch/filter.js';
import { dedupOwnerReferences } from '../storage/names.js';
import { isObject, metaOf } from '../common/json.js';
import type { ListParams, WatchParams } from '../watch/list-watch.js';
import {
  listBody,
  listMetaOf,
  listPage,
  readStored,
  rvOf,
  startWatch,
  tableBody,
  tableWatchTransform,
  validateListOptions,
} from '../watch/list-watch.js';
import {
  negotiateConversion,
  notAcceptable,
  partialObjectMetadata,
  partialObjectMetadataListBody,
} from '../encoding/partial-metadata.js';
import type { DeleteOptions, ObjectService, PatchType, WriteContext } from '../storage/object-service.js';
import type { Peers } from '../common/peers.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { ResourceType, ResourceVersion } from '../resources/resource-type.js';
import type { ResourceRequestInfo } from './request-info.js';
import { parseBool } from './request-info.js';
import type { Store } from '../storage/store.js';
import type { IncludeObject } from '../encoding/table.js';
import type { WatchHub } from '../watch/watch-hub.js';
import { reviewAccess, reviewRules, reviewSelf, reviewSubjectAccess } from '../authz/access-review.js';
import type { AuthUser } from '../authz/access-review.js';
import { isNamespaceType } from '../storage/namespace-strategy.js';

/** What the resource handler needs from the server. */
export interface HandlerDeps {
  store: Store;
  registry: ResourceRegistry;
  service: ObjectService;
  hub: WatchHub;
  peers: Peers;
  bookmarkIntervalMs: number;
  rbacEnabled: boolean;
  /** Issues service account tokens (TokenRequest); without it `serviceaccounts/token` is 404. */
  serviceAccountTokens?: ServiceAccountTokens;
  /** Authenticates a TokenReview's token for its audiences; without it every review is unauthenticated. */
  reviewToken?: (
    token: string,
    audiences: readonly string[],
  ) => { user: AuthUser; audiences: string[] } | undefined;
}

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** Core kinds whose kube-apiserver store answers a DELETE with the deleted object (ReturnDeletedObject). */
const RETURNS_DELETED = new Set(['pods', 'services', 'serviceaccounts', 'persistentvolumeclaims']);

const BODY_TYPES = new Set(['', 'application/json', 'application/yaml', '*/*']);
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** Writes a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: JsonObject | string): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function wantsTable(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return /as=Table/.test(accept);
}

/** The `PartialObjectMetadata` apiVersion an `Accept` header asks for; 406 when it does not fit the answer. */
function metadataAs(req: IncomingMessage, rt: ResourceType, list: boolean): string | undefined {
  const c = negotiateConversion(req.headers.accept);
  if (c === undefined || c.as === 'Table') return undefined;
  if (list && c.as === 'PartialObjectMetadata')
    throw notAcceptable(
      `you requested PartialObjectMetadata, but the requested object is a list (${rt.listKind})`,
    );
  if (!list && c.as === 'PartialObjectMetadataList')
    throw notAcceptable(
      `you requested PartialObjectMetadataList, but the requested object is not a list (${rt.kind})`,
    );
  return c.apiVersion;
}

function includeObject(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw errors.badRequest(
    `includeObject: Unsupported value: ${JSON.stringify(v)}: supported values: "None", "Metadata", "Object"`,
  );
}

/** Go's `%#v` of a `[]string`, as kube-apiserver prints a bad dryRun value. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** kube's ValidateDryRun: every value is "All" (an empty value too is refused). */
function dryRunCauses(values: readonly string[]): StatusCause[] {
  if (values.every((v) => v === 'All')) return [];
  return [
    {
      reason: 'FieldValueNotSupported',
      field: 'dryRun',
      message: `Unsupported value: ${goStringSlice(values)}: supported values: "All"`,
    },
  ];
}

/** kube's ValidateFieldValidation: "", Ignore, Warn or Strict. */
function fieldValidationCauses(value: string | null): StatusCause[] {
  if (value === null || value === '' || value === 'Ignore' || value === 'Warn' || value === 'Strict')
    return [];
  return [
    {
      reason: 'FieldValueNotSupported',
      field: 'fieldValidation',
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: "", "Ignore", "Strict", "Warn"`,
    },
  ];
}

/** Answers a write with the object it returned, reusing the stored JSON the service recorded for it. */
function sendWritten(res: ServerResponse, status: number, obj: JsonObject, ctx: WriteContext): void {
  const r = ctx.response;
  sendJson(res, status, r?.object === obj && r.json !== undefined ? r.json : obj);
}

/**
 * The write context of a create, update or patch, from its query options, validated as kube's
 * ValidateCreateOptions, ValidateUpdateOptions and ValidatePatchOptions do: every problem answered
 * at once as a 422 of `kind` (fieldManager, dryRun, fieldValidation, after `leading`: the patch
 * type's own checks), before the body is read.
 */
function writeOptions(
  user: AuthUser,
  req: IncomingMessage,
  q: URLSearchParams,
  kind: Exclude<OptionsKind, 'DeleteOptions'>,
  leading: StatusCause[] = [],
  fieldManagerRequired = false,
): WriteContext {
  const dryRun = q.getAll('dryRun');
  const fieldValidation = q.get('fieldValidation');
  const causes = [
    ...leading,
    ...fieldManagerCauses(q.get('fieldManager')),
    ...dryRunCauses(dryRun),
    ...fieldValidationCauses(fieldValidation),
  ];
  if (causes.length > 0) throw invalidOptions(kind, causes);
  const ctx = writeContext(user, dryRun.length > 0);
  if (fieldValidation === 'Ignore' || fieldValidation === 'Warn' || fieldValidation === 'Strict')
    ctx.fieldValidation = fieldValidation;
  const fm = fieldManagerOf(req, q, fieldManagerRequired);
  if (fm !== undefined) ctx.fieldManager = fm;
  return ctx;
}

/** A write context: user, dry run and a warnings sink. */
function writeContext(user: AuthUser, dryRun: boolean): WriteContext {
  return {
    user: { name: user.name, groups: user.groups },
    dryRun,
    warnings: [],
    response: {},
  };
}

/** Sets the `Warning` headers a write collected, after any the request already has (a deprecated version's). */
function setWarnings(res: ServerResponse, ctx: WriteContext): void {
  if (ctx.warnings && ctx.warnings.length > 0) {
    const prior = res.getHeader('Warning');
    res.setHeader('Warning', [
      ...(prior === undefined ? [] : Array.isArray(prior) ? prior : [String(prior)]),
      ...ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    ]);
  }
}

/** The options kinds whose validation errors kube-apiserver answers as `<Kind>.meta.k8s.io "" is invalid`. */
type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/** A 422 Invalid of a write's options (kube's ValidateCreateOptions, ValidateUpdateOptions, ValidatePatchOptions, ValidateDeleteOptions). */
function invalidOptions(kind: OptionsKind, causes: StatusCause[]): ApiError {
  return errors.invalid({ group: 'meta.k8s.io', resource: kind, kind, name: '' }, causes);
}

/** What Go's unicode.IsPrint accepts: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** kube's ValidateFieldManager: at most 128 bytes, every character printable. */
function fieldManagerCauses(fm: string | null): StatusCause[] {
  if (fm === null) return [];
  const causes: StatusCause[] = [];
  if (Buffer.byteLength(fm) > 128) {
    causes.push({
      reason: 'FieldValueTooLong',
      field: 'fieldManager',
      message: 'Too long: may not be more than 128 bytes',
    });
  }
  // printable ASCII (nearly every field manager) needs no look at each character
  if (PRINTABLE_ASCII.test(fm)) return causes;
  // Go ranges over the bytes of the string: a character's position is its byte offset
  let position = 0;
  for (const ch of fm) {
    if (!PRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'fieldManager',
        message: `Invalid value: ${JSON.stringify(fm)}: invalid character U+${code} (at position ${position})`,
      });
    }
    position += Buffer.byteLength(ch);
  }
  return causes;
}

/** The write's field manager: the query's (validated by {@link writeOptions}), else the user agent's name unless one is required. */
function fieldManagerOf(req: IncomingMessage, q: URLSearchParams, required: boolean): string | undefined {
  const fm = q.get('fieldManager');
  if (fm !== null && fm !== '') return fm;
  if (required) return undefined;
  const ua = req.headers['user-agent'] ?? '';
  const prefix = ua.split('/')[0]?.trim() ?? '';
  return prefix ? prefix.slice(0, 128) : 'unknown';
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v))
    throw errors.badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be an integer`);
  return Number(v);
}

function boolParam(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  const b = parseBool(v);
  if (b !== undefined) return b;
  throw errors.badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be a boolean`);
}

/**
 * Whether a CRD's Terminating condition is true (set when it is deleted, until its instances are gone):
 * apiextensions' crdHandler (serveResource) then refuses to create its custom resources.
 */
function crdTerminating(store: Store, crdName: string): boolean {
  // the stored text first: a create parses the (possibly large) CRD only once one is terminating
  const json = store.getJson('apiextensions.k8s.io/customresourcedefinitions', '', crdName);
  if (json === undefined || !json.includes('"Terminating"')) return false;
  const crd = JSON.parse(json) as JsonObject;
  const status = isObject(crd.status) ? crd.status : undefined;
  const conditions = Array.isArray(status?.conditions) ? status.conditions : [];
  return conditions.some((c) => isObject(c) && c.type === 'Terminating' && c.status === 'True');
}

/** Drops repeated ownerReferences from a create or update body, with kube's warning. */
function noteDuplicateOwners(body: JsonObject, ctx: WriteContext): void {
  if (!isObject(body) || !isObject(body.metadata)) return;
  const warning = dedupOwnerReferences(body.metadata, false);
  if (warning !== undefined) (ctx.warnings ??= []).push(warning);
}

/** Handles one request on a resource path. */
export async function handleResource(
  deps: HandlerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
  query: URLSearchParams,
  user: AuthUser,
): Promise<void> {
  const resolved = deps.registry.resolve(info.group, info.version, info.resource);
  if (!resolved) {
    // a built-in group version's handler (go-restful) answers an unknown resource with a Status;
    // anything else (a CRD's group or version, an unknown group) falls to the NotFound handler
    const builtinGroupVersion = deps.registry
      .inGroupVersion(info.group, info.version)
      .some((r) => r.rt.crdName === undefined);
    if (!builtinGroupVersion) throw new PageNotFound();
    throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  }
  const { rt, version } = resolved;
  // a deprecated CRD version warns on every request at it (customresource_handler.go ServeHTTP)
  if (version.deprecationWarning !== undefined)
    res.setHeader('Warning', [`299 - ${JSON.stringify(version.deprecationWarning)}`]);
  if (isPodStream(info)) return answerPodStream(deps.store, req, res, info, query);
  if (
    info.subresource === 'token' &&
    rt.group === '' &&
    rt.plural === 'serviceaccounts' &&
    deps.serviceAccountTokens
  )
    return requestToken(deps.serviceAccountTokens, req, res, info);
  const scalePaths = info.subresource === 'scale' ? version.scale : undefined;
  // a namespace's finalize subresource (kube's FinalizeREST) takes only a PUT
  const finalize = info.subresource === 'finalize' && isNamespaceType(rt);
  if (
    info.subresource !== undefined &&
    !(info.subresource === 'status' && version.statusSubresource) &&
    scalePaths === undefined &&
    !finalize
  ) {
    throw errors.notFound({ group: info.group, resource: `${info.resource}/${info.subresource}` });
  }
  if (
    info.subresource !== undefined &&
    !(finalize ? ['update'] : ['get', 'update', 'patch']).includes(info.verb)
  )
    throw errors.methodNotAllowed();
  if (!rt.verbs.includes(info.verb) && info.subresource === undefined) throw errors.methodNotAllowed();
  if ((info.verb === 'update' || info.verb === 'patch') && info.name === undefined)
    throw errors.methodNotAllowed();
  if (info.verb === 'create' && info.name !== undefined) throw errors.methodNotAllowed();
  if (rt.namespaced && info.namespace === undefined && !['list', 'watch'].includes(info.verb)) {
    if (info.verb === 'create' || info.verb === 'deletecollection' || info.name !== undefined) {
      throw errors.notFound({ group: info.group, resource: info.resource });
    }
  }
  if (!rt.namespaced && info.namespace !== undefined)
    throw errors.notFound({ group: info.group, resource: info.resource });
  const namespace = rt.namespaced ? (info.namespace ?? '') : '';
  switch (info.verb) {
    case 'get': {
      if (scalePaths)
        return sendJson(res, 200, scaleOf(deps.service.get(rt, version, namespace, info.name!), scalePaths));
      const obj = deps.service.get(rt, version, namespace, info.name!);
      if (wantsTable(req))
        return sendJson(res, 200, tableBody(rt, version, deps.peers, [obj], includeObject(query), rvOf(obj)));
      const asMeta = metadataAs(req, rt, false);
      if (asMeta !== undefined) return sendJson(res, 200, partialObjectMetadata(obj, asMeta));
      return sendJson(res, 200, obj);
    }
    case 'list': {
      const params = listParams(deps, rt, version, query, info.namespace);
      validateListOptions(params, boolParam(query, 'sendInitialEvents'), false);
      const page = listPage(deps.store, rt, params);
      if (wantsTable(req)) {
        const objs = page.items.map((j) => deps.service.present(rt, version, JSON.parse(j) as JsonObject));
        return sendJson(
          res,
          200,
          tableBody(rt, version, deps.peers, objs, includeObject(query), String(page.rv), page.continueToken),
        );
      }
      const asMeta = metadataAs(req, rt, true);
      if (asMeta !== undefined)
        return sendJson(res, 200, partialObjectMetadataListBody(page.items, listMetaOf(page), asMeta));
      return sendJson(res, 200, listBody(rt, version, page));
    }
    case 'watch': {
      const params: WatchParams = {
        ...listParams(deps, rt, version, query, info.namespace),
        allowWatchBookmarks: boolParam(query, 'allowWatchBookmarks') === true,
        sendInitialEvents: boolParam(query, 'sendInitialEvents'),
        timeoutSeconds: intParam(query, 'timeoutSeconds'),
        metadataAs: wantsTable(req) ? undefined : metadataAs(req, rt, false),
      };
      if (wantsTable(req))
        params.transform = tableWatchTransform(rt, version, deps.peers, includeObject(query), (o) =>
          deps.service.present(rt, version, o),
        );
      else if (params.metadataAs === undefined) params.transform = readStored(rt, version);
      if (info.name !== undefined) {
        const byName = buildFilter(rt, version, deps.peers, undefined, `metadata.name=${info.name}`);
        const prev = params.filter;
        params.filter = prev ? (o) => byName!(o) && prev(o) : byName;
      }
      startWatch(deps.store, deps.hub, rt, version, params, res, deps.bookmarkIntervalMs);
      return;
    }
    case 'create': {
      if (rt.crdName !== undefined && crdTerminating(deps.store, rt.crdName)) {
        throw new ApiError(
          405,
          'MethodNotAllowed',
          'create not allowed while custom resource definition is terminating',
          { group: rt.group, kind: rt.plural },
        );
      }
      const ctx = writeOptions(user, req, query, 'CreateOptions');
      const body = await objectBody(req);
      if (rt.virtual) return sendJson(res, 201, virtualCreate(deps, rt, version, body, user, namespace));
      ctx.ownsBody = true;
      noteDuplicateOwners(body, ctx);
      const obj = deps.service.create(rt, version, namespace, body, ctx);
      setWarnings(res, ctx);
      return sendWritten(res, 201, obj, ctx);
    }
    case 'update': {
      const ctx = writeOptions(user, req, query, 'UpdateOptions');
      const body = await objectBody(req);
      if (scalePaths) {
        return sendJson(
          res,
          200,
          writeScale(
            deps.service,
            deps.peers,
            rt,
            version,
            namespace,
            info.name!,
            scalePaths,
            { put: body },
            ctx,
          ),
        );
      }
      ctx.ownsBody = true;
      noteDuplicateOwners(body, ctx);
      const obj = deps.service.update(rt, version, namespace, info.name!, body, ctx, info.subresource);
      setWarnings(res, ctx);
      // 201 when the PUT created the object (kinds that allow create on update)
      return sendWritten(res, ctx.response?.created === true ? 201 : 200, obj, ctx);
    }
    case 'patch': {
      const media = mediaType(req.headers['content-type']);
      const type = PATCH_TYPES[media];
      // as kube-apiserver: strategic merge is not a patch type of custom resources, whether or not
      // the object exists (415 before the body is read or the object looked up)
      if (!type || (type === 'strategic' && !rt.strategicMerge)) {
        const accepted = rt.strategicMerge
          ? 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json'
          : 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';
        throw Object.assign(errors.unsupportedMediaType(media), {
          message: `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
        });
      }
      // kube's ValidatePatchOptions, before the body is read
      const force = boolParam(query, 'force');
      const optionCauses: StatusCause[] = [];
      if (force !== undefined && type !== 'apply')
        optionCauses.push({
          reason: 'FieldValueForbidden',
          field: 'force',
          message: 'Forbidden: may not be specified for non-apply patch',
        });
      if (type === 'apply' && (query.get('fieldManager') ?? '') === '')
        optionCauses.push({
          reason: 'FieldValueRequired',
          field: 'fieldManager',
          message: 'Required value: is required for apply patch',
        });
      const ctx: WriteContext & { force?: boolean } = {
        ...writeOptions(user, req, query, 'PatchOptions', optionCauses, type === 'apply'),
        force: force === true,
      };
      const buf = await readBody(req);
      const patch = parseBody(buf, media);
      if (scalePaths) {
        const scale = writeScale(
          deps.service,
          deps.peers,
          rt,
          version,
          namespace,
          info.name!,
          scalePaths,
          { patch, type },
          ctx,
        );
        return sendJson(res, 200, scale);
      }
      ctx.ownsBody = true;
      const obj = deps.service.patch(rt, version, namespace, info.name!, type, patch, ctx, info.subresource);
      setWarnings(res, ctx);
      // 201 when the patch (an apply) created the object
      return sendWritten(res, ctx.response?.created === true ? 201 : 200, obj, ctx);
    }
    case 'delete': {
      const opts = await deleteOptions(req, query);
      const ctx = writeContext(user, opts.dryRun);
      const r = deps.service.delete(rt, version, namespace, info.name!, storeDeleteOptions(rt, opts), ctx);
      // kube's DeleteResource: 202 when the object stays (finalizers) and orphanDependents=false was asked
      if (!r.deleted) return sendJson(res, opts.orphanDependents === false ? 202 : 200, r.object);
      // the deleted object itself where kube's store sets ReturnDeletedObject (custom resources, pods,
      // services, service accounts, persistent volume claims); a Status for the others
      if (rt.crdName !== undefined || (rt.group === '' && RETURNS_DELETED.has(rt.plural)))
        return sendJson(res, 200, r.object);
      const m = metaOf(r.object);
      return sendJson(res, 200, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: m.name, group: rt.group, kind: rt.plural, uid: m.uid },
      });
    }
    case 'deletecollection': {
      // kube's order: the list options, then the delete options
      const params = listParams(deps, rt, version, query, info.namespace);
      validateListOptions(params, boolParam(query, 'sendInitialEvents'), false);
      const opts = await deleteOptions(req, query);
      const page = listPage(deps.store, rt, { ...params, limit: undefined, continueToken: undefined });
      const ctx = writeContext(user, opts.dryRun);
      for (const j of page.items) {
        const o = JSON.parse(j) as JsonObject;
        const m = metaOf(o);
        try {
          deps.service.delete(
            rt,
            version,
            rt.namespaced ? String(m.namespace) : '',
            String(m.name),
            storeDeleteOptions(rt, opts),
            ctx,
          );
        } catch (e) {
          if ((e as { status?: number }).status !== 404) throw e;
        }
      }
      // as kube's store.DeleteCollection: the list as it was taken, before the deletes
      return sendJson(
        res,
        200,
        listBody(rt, version, {
          items: page.items,
          rv: page.rv,
          continueToken: undefined,
          remaining: undefined,
        }),
      );
    }
    default:
      throw errors.methodNotAllowed();
  }
}

function listParams(
  deps: HandlerDeps,
  rt: ResourceType,
  version: ResourceVersion,
  q: URLSearchParams,
  namespace: string | undefined,
): ListParams {
  // kube-apiserver treats a limit of 0 or below as no limit (limit=-1 lists everything)
  const given = intParam(q, 'limit');
  const limit = given !== undefined && given > 0 ? given : undefined;
  return {
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
    limit,
    continueToken: q.get('continue') || undefined,
    filter: buildFilter(
      rt,
      version,
      deps.peers,
      q.get('labelSelector') ?? undefined,
      q.get('fieldSelector') ?? undefined,
    ),
    namespace: rt.namespaced ? namespace : undefined,
  };
}

async function objectBody(req: IncomingMessage): Promise<JsonObject> {
  const media = mediaType(req.headers['content-type']);
  if (media === PROTOBUF) return decodeProtobuf(await readBody(req));
  if (!BODY_TYPES.has(media)) throw errors.unsupportedMediaType(media);
  const buf = await readBody(req);
  const body = parseBody(buf, media);
  if (!isObject(body)) throw errors.badRequest('the body of the request must be a JSON or YAML object');
  return body;
}

/** Go's json name of a decoded JSON value's type, as in its unmarshal errors. */
function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'number' : `number ${value}`;
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'string' ? 'string' : 'object';
}

/** The 400 of a DeleteOptions body field of the wrong type, worded as kube's JSON decoder words it. */
function deleteOptionsTypeError(field: string, goType: string, value: unknown): ApiError {
  return errors.badRequest(
    `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field DeleteOptions.${field} of type ${goType}`,
  );
}

/**
 * The options the store deletes with: `orphanDependents: false` overrides the object's `orphan` and
 * `foregroundDeletion` finalizers as Background does (kube's shouldOrphanDependents and
 * shouldDeleteDependentsInForeground give a set orphanDependents precedence), and asks for Foreground
 * of a namespace (the namespace registry's shouldHaveDeleteDependentsFinalizer).
 */
function storeDeleteOptions(
  rt: ResourceType,
  opts: { options: DeleteOptions; orphanDependents?: boolean },
): DeleteOptions {
  if (opts.orphanDependents !== false) return opts.options;
  const namespace = isNamespaceType(rt);
  return { ...opts.options, propagationPolicy: namespace ? 'Foreground' : 'Background' };
}

/**
 * A DELETE's options as kube-apiserver takes them (endpoints/handlers/delete.go): from the body
 * when it has one (the query is then not read), from the query otherwise. A field that does not
 * decode is a 400; then ValidateDeleteOptions: every problem at once as a 422 `DeleteOptions`.
 */
async function deleteOptions(
  req: IncomingMessage,
  q: URLSearchParams,
): Promise<{ options: DeleteOptions; dryRun: boolean; orphanDependents?: boolean }> {
  return parseDeleteOptions(await readBody(req), req.headers['content-type'], q);
}

/**
 * {@link deleteOptions} of a body already read (the admission path reads it to admit the DELETE
 * with its options). `orphanDependents` is that deprecated option, present only when the request set it
 * (`true` also reads as propagationPolicy Orphan). Throws the 400 or 422 kube-apiserver answers.
 */
export function parseDeleteOptions(
  buf: Buffer,
  contentType: string | undefined,
  q: URLSearchParams,
): { options: DeleteOptions; dryRun: boolean; orphanDependents?: boolean } {
  let policy: string | undefined;
  let orphanDependents: boolean | undefined;
  let grace: number | undefined;
  let dryRun: string[];
  const options: DeleteOptions = {};
  if (buf.length > 0 && buf.toString('utf8').trim() !== '') {
    const media = mediaType(contentType);
    if (!BODY_TYPES.has(media)) throw errors.unsupportedMediaType(media);
    const body = parseBody(buf, media);
    if (!isObject(body)) throw errors.badRequest('DeleteOptions must be an object');
    const {
      propagationPolicy,
      orphanDependents: orphan,
      gracePeriodSeconds,
      dryRun: dry,
      preconditions,
    } = body;
    if (propagationPolicy !== undefined && propagationPolicy !== null) {
      if (typeof propagationPolicy !== 'string')
        throw deleteOptionsTypeError('propagationPolicy', 'v1.DeletionPropagation', propagationPolicy);
      policy = propagationPolicy;
    }
    if (orphan !== undefined && orphan !== null) {
      if (typeof orphan !== 'boolean') throw deleteOptionsTypeError('orphanDependents', 'bool', orphan);
      orphanDependents = orphan;
    }
    if (gracePeriodSeconds !== undefined && gracePeriodSeconds !== null) {
      if (typeof gracePeriodSeconds !== 'number' || !Number.isSafeInteger(gracePeriodSeconds))
        throw deleteOptionsTypeError('gracePeriodSeconds', 'int64', gracePeriodSeconds);
      grace = gracePeriodSeconds;
    }
    if (dry === undefined || dry === null) dryRun = [];
    else if (Array.isArray(dry) && dry.every((v): v is string => typeof v === 'string')) dryRun = dry;
    else
      throw deleteOptionsTypeError(
        'dryRun',
        '[]string',
        Array.isArray(dry) ? dry.find((v) => typeof v !== 'string') : dry,
      );
    if (isObject(preconditions)) {
      const pre: { uid?: string; resourceVersion?: string } = {};
      if (typeof preconditions.uid === 'string') pre.uid = preconditions.uid;
      if (typeof preconditions.resourceVersion === 'string')
        pre.resourceVersion = preconditions.resourceVersion;
      options.preconditions = pre;
    }
  } else {
    policy = q.get('propagationPolicy') ?? undefined;
    orphanDependents = boolParam(q, 'orphanDependents');
    grace = intParam(q, 'gracePeriodSeconds');
    dryRun = q.getAll('dryRun');
  }
  const causes: StatusCause[] = [];
  if (orphanDependents !== undefined && policy !== undefined)
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'propagationPolicy',
      message: `Invalid value: ${JSON.stringify(policy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  if (policy !== undefined && policy !== 'Background' && policy !== 'Foreground' && policy !== 'Orphan')
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'propagationPolicy',
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    });
  causes.push(...dryRunCauses(dryRun));
  if (causes.length > 0) throw invalidOptions('DeleteOptions', causes);
  if (policy !== undefined) options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  else if (orphanDependents === true) options.propagationPolicy = 'Orphan';
  if (grace !== undefined) options.gracePeriodSeconds = grace;
  return orphanDependents === undefined
    ? { options, dryRun: dryRun.length > 0 }
    : { options, dryRun: dryRun.length > 0, orphanDependents };
}

/** `POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token` (TokenRequest, `kubectl create token`). */
async function requestToken(
  tokens: ServiceAccountTokens,
  req: IncomingMessage,
  res: ServerResponse,
  info: ResourceRequestInfo,
): Promise<void> {
  if (info.verb !== 'create' || info.name === undefined || info.namespace === undefined)
    throw errors.methodNotAllowed();
  const body = await objectBody(req);
  sendJson(res, 201, tokens.issue(info.namespace, info.name, body));
}

function virtualCreate(
  deps: HandlerDeps,
  rt: ResourceType,
  version: ResourceVersion,
  body: JsonObject,
  user: AuthUser,
  namespace: string,
): JsonObject {
  if (rt.plural === 'selfsubjectaccessreviews')
    return reviewAccess(deps.store, deps.peers, deps.rbacEnabled, rt, version, body, user);
  if (rt.plural === 'selfsubjectreviews') return reviewSelf(rt, version, body, user);
  if (rt.plural === 'tokenreviews') return reviewToken(rt, version, body, deps.reviewToken);
  if (rt.plural === 'subjectaccessreviews')
    return reviewSubjectAccess(deps.store, deps.peers, deps.rbacEnabled, rt, version, body);
  if (rt.plural === 'localsubjectaccessreviews')
    return reviewSubjectAccess(deps.store, deps.peers, deps.rbacEnabled, rt, version, body, namespace);
  return reviewRules(deps.store, deps.peers, deps.rbacEnabled, rt, version, body, user);
}
