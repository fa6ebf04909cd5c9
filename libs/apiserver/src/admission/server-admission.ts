/**
 * Where admission and conversion webhooks meet the API server's HTTP layer. Every resource request
 * passes {@link ServerAdmission.handle}:
 *
 * - a request at a version that a CRD converts by webhook is run at the storage version and its
 *   body and answer (object, list, watch events) go through the conversion webhook
 *   ({@link handleConvertedVersion}); admission still runs at the requested version, its objects
 *   converted to it, as kube-apiserver admits a write before converting it for storage;
 * - a create, update or patch that admission webhooks may see runs as kube-apiserver orders it:
 *   the write is computed up to its admission point as a dry run, mutating webhooks change the
 *   object, the write is computed again with that object and validated (schema, CEL), validating
 *   webhooks see the result, and only then the write is made, with the same object (started over
 *   when the stored object changed in between);
 * - anything else goes straight to the resource handler, at the cost of one map lookup.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject } from '../types.js';
import type { AuthUser } from '../internal/authz/access-review.js';
import { rbacObjects } from '../internal/authz/access-review.js';
import type { AuthorizationAttributes } from '../internal/common/peers.js';
import type { AdmissionAuthorizer } from './cel-authorizer.js';
import { errors } from '../internal/common/errors.js';
import { reportUnknownFields } from '../internal/common/unknown-fields.js';
import { clone, isObject, metaOf, str } from '../internal/common/json.js';
import { readBody } from '../internal/http/body.js';
import type { ResourceRequestInfo } from '../internal/http/request-info.js';
import { handleResource, parseDeleteOptions } from '../internal/http/resource-handler.js';
import type { HandlerDeps } from '../internal/http/resource-handler.js';
import type { ResourceType, ResourceVersion } from '../internal/resources/resource-type.js';
import { apiVersionOf, storageKey, storageVersion } from '../internal/resources/resource-type.js';
import type { ObjectService, WriteContext } from '../internal/storage/object-service.js';
import type { AdmissionAttributes } from './admission-attributes.js';
import { addWarningHeaders, CapturedResponse, copyHead, replayRequest } from './captured-http.js';
import { handleConvertedVersion } from './converted-version.js';
import type { ResourceDispatch } from './converted-version.js';
import { convertThroughWebhook } from './conversion-webhook.js';
import type { ResolvedWebhook, WebhookClientConfig } from './webhook-configuration.js';
import {
  MUTATING_KEY,
  readClientConfig,
  resolveWebhooks,
  VALIDATING_KEY,
  validateWebhookConfiguration,
} from './webhook-configuration.js';
import { WebhookAdmission } from './webhook-admission.js';
import {
  AdmissionPolicies,
  BINDING_KEY,
  POLICY_KEY,
  validateBinding,
  validatePolicy,
} from './admission-policy.js';
import { ruleMatches } from './webhook-matching.js';
import type { WebhookSource } from './webhook-admission.js';

const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
const WRITES = new Set(['create', 'update', 'patch']);
/** Attempts of an admitted write when the stored object keeps changing under it. */
const MAX_ATTEMPTS = 3;

/** Thrown by the capturing admission point to stop the first dry run there. */
class Captured extends Error {}
/** Thrown when the stored object changed since the webhooks saw it. */
class Stale extends Error {}

type Hook = NonNullable<WriteContext['admission']>;

/** Replaces `obj`'s content by `src`'s, keeping apiVersion, kind, name and namespace (what the write already fixed). */
function replaceContent(obj: JsonObject, src: JsonObject): void {
  const meta = metaOf(obj);
  const keep = { name: meta.name, namespace: meta.namespace, apiVersion: obj.apiVersion, kind: obj.kind };
  for (const k of Object.keys(obj)) if (k !== 'metadata') delete obj[k];
  for (const [k, v] of Object.entries(src)) if (k !== 'metadata') obj[k] = clone(v);
  for (const k of Object.keys(meta)) delete meta[k];
  Object.assign(meta, clone(isObject(src.metadata) ? src.metadata : {}));
  obj.metadata = meta;
  if (keep.name !== undefined) meta.name = keep.name;
  else delete meta.name;
  if (keep.namespace !== undefined) meta.namespace = keep.namespace;
  else delete meta.namespace;
  obj.apiVersion = keep.apiVersion;
  obj.kind = keep.kind;
}

/** Fields present in `before` and gone from `after` (pruned), as dotted paths; nulls excluded. */
function prunedPaths(before: unknown, after: unknown, prefix: string): string[] {
  if (Array.isArray(before) && Array.isArray(after))
    return before.flatMap((b, i) => prunedPaths(b, after[i], `${prefix}[${i}]`));
  if (!isObject(before) || !isObject(after)) return [];
  return Object.entries(before).flatMap(([k, v]) => {
    const path = prefix ? `${prefix}.${k}` : k;
    if (k in after) return prunedPaths(v, after[k], path);
    return v === null ? [] : [path];
  });
}

/**
 * A custom resource as kube-apiserver decodes it before admission: pruned by its schema, defaulted;
 * the pruned fields are a 400 under `fieldValidation=Strict` and warnings under `Warn` (the default).
 * Validation errors are left for the write itself (after the mutating webhooks).
 */
function decodeCustomResource(
  rt: ResourceType,
  version: ResourceVersion,
  obj: JsonObject,
  old: JsonObject | undefined,
  query: URLSearchParams,
  warnings: string[],
): JsonObject {
  const decoded = clone(obj);
  version.admit!(decoded, old === undefined ? 'create' : 'update', old);
  const policy = query.get('fieldValidation') || 'Warn';
  if (policy === 'Ignore') return decoded;
  reportUnknownFields(rt.kind, version.name, prunedPaths(obj, decoded, ''), policy, warnings);
  return decoded;
}

/**
 * A JSON create body that asks for a generated name, with `name` set instead (so the writes after
 * the first dry run store the name the webhooks saw); undefined for any other body.
 */
function withName(body: Buffer, name: string): Buffer | undefined {
  if (name === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || !isObject(parsed.metadata)) return undefined;
  const meta = parsed.metadata;
  if ((typeof meta.name === 'string' && meta.name !== '') || typeof meta.generateName !== 'string')
    return undefined;
  meta.name = name;
  return Buffer.from(JSON.stringify(parsed));
}

function rvOf(obj: JsonObject | undefined): unknown {
  return obj ? metaOf(obj).resourceVersion : undefined;
}

/** Admission and conversion webhooks of one API server. */
export class ServerAdmission implements WebhookSource {
  private readonly chain = new WebhookAdmission(this);
  private readonly policies: AdmissionPolicies;
  private cache: { validating: ResolvedWebhook[]; mutating: ResolvedWebhook[] } | undefined;

  constructor(private readonly deps: HandlerDeps) {
    this.policies = new AdmissionPolicies({
      list: (key) => deps.store.list(key),
      namespaceObject: (name) => deps.store.get('/namespaces', '', name),
      namespaceLabels: (name) => this.namespaceLabels(name),
      equivalentVersions: (group, resource) => this.equivalentVersions(group, resource),
      authorize: this.authorize,
    });
    deps.store.onChange((ev) => {
      if (ev.resource === VALIDATING_KEY || ev.resource === MUTATING_KEY) this.cache = undefined;
      else if (ev.resource === POLICY_KEY || ev.resource === BINDING_KEY) this.policies.invalidate();
    });
  }

  /**
   * Decides a CEL `authorizer` check as the server authorizes requests: `system:masters` may do
   * anything (no reason, as kube's privileged-group authorizer), everything when RBAC is not
   * enforced, else RBAC.
   */
  readonly authorize: AdmissionAuthorizer = (user, check) => {
    if (user.groups.includes('system:masters')) return { allowed: true, reason: '' };
    if (!this.deps.rbacEnabled) return { allowed: true, reason: 'RBAC is not enforced' };
    const attrs: AuthorizationAttributes = {
      user: user.name,
      groups: [...user.groups],
      verb: check.verb,
      apiGroup: check.group ?? '',
      resource: check.resource ?? '',
    };
    if (check.path !== undefined) attrs.nonResourceURL = check.path;
    if (check.subresource) attrs.subresource = check.subresource;
    if (check.namespace) attrs.namespace = check.namespace;
    if (check.name) attrs.name = check.name;
    return this.deps.peers.rbac.authorize(attrs, rbacObjects(this.deps.store));
  };

  /** The configured webhooks of a type, ordered by configuration name, then position. */
  webhooks(type: 'validating' | 'mutating'): readonly ResolvedWebhook[] {
    if (!this.cache) {
      const read = (key: string, t: 'validating' | 'mutating'): ResolvedWebhook[] =>
        this.deps.store
          .list(key)
          .sort((a, b) => String(metaOf(a).name).localeCompare(String(metaOf(b).name)))
          .flatMap((c) => {
            try {
              return resolveWebhooks(c, t);
            } catch {
              return [];
            }
          });
      this.cache = {
        validating: read(VALIDATING_KEY, 'validating'),
        mutating: read(MUTATING_KEY, 'mutating'),
      };
    }
    return this.cache[type];
  }

  /** Whether any admission webhook or bound admission policy is configured. */
  get active(): boolean {
    return this.webhooks('validating').length + this.webhooks('mutating').length > 0 || this.policies.active;
  }

  namespaceLabels(name: string): Record<string, string> | undefined {
    const ns = this.deps.store.get('/namespaces', '', name);
    if (!ns) return undefined;
    const labels = metaOf(ns).labels;
    return isObject(labels) ? (labels as Record<string, string>) : {};
  }

  equivalentVersions(group: string, resource: string): readonly string[] {
    const rt = this.deps.registry.byStorageKey(`${group}/${resource}`);
    return rt ? rt.versions.filter((v) => v.served).map((v) => v.name) : [];
  }

  /**
   * The conversion webhook through which requests at a version of a CRD run: a version other than
   * the storage version, or the storage version while objects may be stored at an older one (they are
   * converted when read, as kube-apiserver converts every object not at the requested version).
   */
  conversionWebhookOf(rt: ResourceType, version: ResourceVersion): WebhookClientConfig | undefined {
    if (version.storage && rt.storedAtOtherVersions !== true) return undefined;
    return this.webhookConversionOf(rt);
  }

  /** The conversion webhook of a CRD whose conversion strategy is `Webhook`; undefined for others. */
  private webhookConversionOf(rt: ResourceType): WebhookClientConfig | undefined {
    if (rt.crdName === undefined || rt.convertedByWebhook !== true) return undefined;
    const crd = this.deps.store.get(CRD_KEY, '', rt.crdName);
    const spec = crd && isObject(crd.spec) ? crd.spec : undefined;
    const conversion = spec && isObject(spec.conversion) ? spec.conversion : undefined;
    if (!conversion || conversion.strategy !== 'Webhook' || !isObject(conversion.webhook)) return undefined;
    return readClientConfig(conversion.webhook.clientConfig);
  }

  /** Converts objects of one kind to `apiVersion` (through the CRD's webhook when it has one). */
  async convert(objects: JsonObject[], apiVersion: string): Promise<JsonObject[]> {
    if (objects.length === 0) return objects;
    const first = objects[0];
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const rt = this.deps.registry.byKind(group, str(first.kind));
    const cc = rt ? this.webhookConversionOf(rt) : undefined;
    if (rt && cc) return convertThroughWebhook(cc, objects, apiVersion);
    return objects.map((o) => ({ ...o, apiVersion }));
  }

  /** Runs one resource request with admission and conversion webhooks. */
  handle: ResourceDispatch = async (req, res, info, query, user) => {
    const resolved = this.deps.registry.resolve(info.group, info.version, info.resource);
    if (resolved) {
      const cc = this.conversionWebhookOf(resolved.rt, resolved.version);
      if (cc !== undefined) {
        // run at the storage version, admitted at the version the client asked for (as kube-apiserver
        // decodes the body at that version and runs admission before converting for storage)
        const requested = resolved.version;
        const dispatch: ResourceDispatch = (rq, rs, at, q, u) => this.admitted(rq, rs, at, q, u, requested);
        return handleConvertedVersion(
          { deps: this.deps, dispatch, convert: (o, av) => convertThroughWebhook(cc, o, av) },
          resolved.rt,
          resolved.version,
          req,
          res,
          info,
          query,
          user,
        );
      }
    }
    return this.admitted(req, res, info, query, user);
  };

  /**
   * A request at a version the server stores directly: admission webhooks when configured.
   * `requested` is the version the client used when the request was moved to the storage version
   * (a version converted by webhook): admission runs at that version, with objects converted to it.
   */
  private async admitted(
    req: IncomingMessage,
    res: ServerResponse,
    info: ResourceRequestInfo,
    query: URLSearchParams,
    user: AuthUser,
    requested?: ResourceVersion,
  ): Promise<void> {
    const resolved = this.deps.registry.resolve(info.group, info.version, info.resource);
    const isConfig = info.group === 'admissionregistration.k8s.io';
    if (!resolved || resolved.rt.virtual || info.subresource === 'scale' || (!this.active && !isConfig))
      return handleResource(this.deps, req, res, info, query, user);
    const { rt } = resolved;
    const version = requested ?? resolved.version;
    if (isConfig) {
      // webhooks and policies never see their own configuration kinds (kube-apiserver exempts them,
      // so a broken webhook cannot lock its configuration); only their validation applies
      if (!WRITES.has(info.verb)) return handleResource(this.deps, req, res, info, query, user);
      const body = await readBody(req);
      return handleResource(
        this.withHook(this.configCheck(rt)),
        replayRequest(req, body),
        res,
        info,
        query,
        user,
      );
    }
    if (info.verb === 'delete' && info.name !== undefined) {
      // the options first (a 400 or 422 before any webhook), then admitted with them, as kube does
      const body = await readBody(req);
      const options = parseDeleteOptions(body, req.headers['content-type'], query);
      const warnings: string[] = [];
      try {
        await this.admitDelete(rt, version, info, query, user, warnings, options);
      } finally {
        addWarningHeaders(res, warnings);
      }
      return handleResource(this.deps, replayRequest(req, body), res, info, query, user);
    }
    if (info.verb === 'deletecollection' && this.active) {
      // as kube-apiserver's DeleteCollection (one worker, its default): the selected objects are
      // deleted one by one in list order, each admitted for DELETE first; the first refusal ends it,
      // and what was deleted before stays deleted. The answer is the list taken before the deletes.
      const body = await readBody(req);
      const listed = new CapturedResponse();
      const text = listed.text();
      const list: ResourceRequestInfo = { ...info, verb: 'list' };
      const listQuery = new URLSearchParams(query);
      listQuery.delete('dryRun');
      await handleResource(
        this.deps,
        replayRequest(req, Buffer.alloc(0), { accept: 'application/json' }),
        listed.asServerResponse(),
        list,
        listQuery,
        user,
      );
      const listBodyText = await text;
      if (listed.statusCode !== 200) {
        // the selection itself was refused (a bad selector or option): that answer, nothing deleted
        copyHead(listed, res, listBodyText);
        res.end(listBodyText);
        return;
      }
      // the delete options after the list options (the list answered them), before any webhook
      const options = parseDeleteOptions(body, req.headers['content-type'], query);
      const parsed: unknown = JSON.parse(listBodyText);
      const items = isObject(parsed) && Array.isArray(parsed.items) ? parsed.items : [];
      const warnings: string[] = [];
      let failed: { response: CapturedResponse; text: string } | undefined;
      try {
        for (const item of items) {
          if (!isObject(item)) continue;
          const m = metaOf(item);
          const one: ResourceRequestInfo = {
            ...info,
            verb: 'delete',
            name: str(m.name),
            namespace: str(m.namespace) || info.namespace,
          };
          await this.admitDelete(rt, version, one, query, user, warnings, options);
          const deleted = new CapturedResponse();
          const answer = deleted.text();
          await handleResource(
            this.deps,
            replayRequest(req, body),
            deleted.asServerResponse(),
            one,
            query,
            user,
          );
          // one gone meanwhile is no error (kube's IsNotFound); any other failure ends the deletes
          if (deleted.statusCode >= 300 && deleted.statusCode !== 404) {
            failed = { response: deleted, text: await answer };
            break;
          }
        }
      } finally {
        addWarningHeaders(res, warnings);
      }
      const answer = failed?.text ?? listBodyText;
      if (failed) copyHead(failed.response, res, answer);
      else
        res.writeHead(200, {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(answer),
        });
      res.end(answer);
      return;
    }
    if (!WRITES.has(info.verb)) return handleResource(this.deps, req, res, info, query, user);
    const body = await readBody(req);
    if (!this.mayMatch(rt, version, info, query, user)) {
      return handleResource(this.deps, replayRequest(req, body), res, info, query, user);
    }
    return this.admitWrite(rt, version, body, req, res, info, query, user);
  }

  /**
   * Whether a webhook's rules can match this write (selectors aside): when none can, the write
   * skips the admission passes. A patch may create (apply), so both operations count.
   */
  private mayMatch(
    rt: ResourceType,
    version: ResourceVersion,
    info: ResourceRequestInfo,
    query: URLSearchParams,
    user: AuthUser,
  ): boolean {
    const base = { ...this.attributes(rt, version, info, query, user), name: info.name ?? '' };
    // a PUT creates the kinds that allow create on update (Lease, Event, Endpoints) and a patch may
    // create (apply): both operations count for them
    const ops = info.verb === 'create' ? ['CREATE'] : ['UPDATE', 'CREATE'];
    const versions = [version.name, ...this.equivalentVersions(rt.group, rt.plural)];
    const candidates = [
      ...this.webhooks('mutating'),
      ...this.webhooks('validating'),
      ...this.policies.rules(),
    ];
    for (const hook of candidates) {
      for (const operation of ops) {
        const attrs = { ...base, operation } as AdmissionAttributes;
        const vs = hook.matchPolicy === 'Equivalent' ? versions : [version.name];
        if (hook.rules.some((r) => vs.some((v) => ruleMatches(r, attrs, v)))) return true;
      }
    }
    return false;
  }

  /** kube-apiserver's validation of a webhook configuration, as an admission point. */
  private configCheck(rt: ResourceType): Hook {
    return (obj, old) => {
      if (rt.group !== 'admissionregistration.k8s.io') return;
      const causes =
        rt.plural === 'validatingadmissionpolicies'
          ? validatePolicy(obj, old)
          : rt.plural === 'validatingadmissionpolicybindings'
            ? validateBinding(obj)
            : validateWebhookConfiguration(
                obj,
                rt.plural === 'mutatingwebhookconfigurations' ? 'mutating' : 'validating',
                old,
              );
      if (causes.length > 0)
        throw errors.invalid(
          { group: rt.group, resource: rt.plural, kind: rt.kind, name: str(metaOf(obj).name) },
          causes,
        );
    };
  }

  /** Handler dependencies whose object service runs `hook` at the admission point of every write. */
  private withHook(hook: Hook, warnings: readonly string[] = []): HandlerDeps {
    const real = this.deps.service;
    const service = Object.create(real) as ObjectService;
    const withCtx = <C extends WriteContext>(ctx: C): C => {
      // the webhooks' warnings join the write's own (the handler sends them as Warning headers)
      if (warnings.length > 0) ctx.warnings?.push(...warnings);
      return { ...ctx, admission: hook, ownsBody: false };
    };
    service.create = (rt, v, ns, body, ctx, managed) => real.create(rt, v, ns, body, withCtx(ctx), managed);
    service.update = (rt, v, ns, name, body, ctx, sub) =>
      real.update(rt, v, ns, name, body, withCtx(ctx), sub);
    service.patch = (rt, v, ns, name, type, patch, ctx, sub) =>
      real.patch(rt, v, ns, name, type, patch, withCtx(ctx), sub);
    return { ...this.deps, service };
  }

  private attributes(
    rt: ResourceType,
    version: ResourceVersion,
    info: ResourceRequestInfo,
    query: URLSearchParams,
    user: AuthUser,
  ): Omit<AdmissionAttributes, 'operation' | 'name'> {
    const attrs: Omit<AdmissionAttributes, 'operation' | 'name'> = {
      group: rt.group,
      version: version.name,
      resource: rt.plural,
      subresource: info.subresource ?? '',
      kind: rt.kind,
      namespaced: rt.namespaced,
      namespace: rt.namespaced ? (info.namespace ?? '') : '',
      dryRun: query.getAll('dryRun').length > 0,
      user: { name: user.name, groups: user.groups },
    };
    if (user.uid) attrs.user.uid = user.uid;
    if (user.extra) attrs.user.extra = user.extra;
    const fm = query.get('fieldManager');
    if (fm) attrs.fieldManager = fm;
    return attrs;
  }

  /**
   * A copy of `obj` at `version` (the request's version, as webhooks see the object, or the storage
   * version, as it is written): converted by the CRD's conversion webhook when it has one.
   */
  private async atVersion(rt: ResourceType, version: ResourceVersion, obj: JsonObject): Promise<JsonObject> {
    const o = clone(obj);
    const apiVersion = apiVersionOf(rt.group, version.name);
    if (o.apiVersion === apiVersion) return o;
    if (this.webhookConversionOf(rt) === undefined) {
      o.apiVersion = apiVersion;
      return o;
    }
    return (await this.convert([o], apiVersion))[0];
  }

  private async admitDelete(
    rt: ResourceType,
    version: ResourceVersion,
    info: ResourceRequestInfo,
    query: URLSearchParams,
    user: AuthUser,
    warnings: string[],
    options: ReturnType<typeof parseDeleteOptions>,
  ): Promise<void> {
    const ns = rt.namespaced ? (info.namespace ?? '') : '';
    const stored = this.deps.store.get(storageKey(rt), ns, info.name!);
    if (!stored) return; // the handler answers 404
    const attrs: AdmissionAttributes = {
      ...this.attributes(rt, version, info, query, user),
      operation: 'DELETE',
      name: info.name!,
      oldObject: await this.atVersion(rt, version, stored),
      // the request's options, body or query (attributes() reads only the query)
      dryRun: options.dryRun,
      deleteOptions: options.options,
    };
    // mutating webhooks see object null and the stored object as oldObject, as kube-apiserver calls
    // them on DELETE; a patch is refused
    await this.chain.mutate(attrs, warnings);
    this.policies.validate(attrs, warnings);
    await this.chain.validate(attrs, warnings);
  }

  private async admitWrite(
    rt: ResourceType,
    version: ResourceVersion,
    body: Buffer,
    req: IncomingMessage,
    res: ServerResponse,
    info: ResourceRequestInfo,
    query: URLSearchParams,
    user: AuthUser,
  ): Promise<void> {
    const dry = new URLSearchParams(query);
    if (!dry.has('dryRun')) dry.append('dryRun', 'All');
    const check = this.configCheck(rt);
    // the warnings of the attempt under way; sent with an error too
    const warnings: string[] = [];
    try {
      return await this.attemptWrites(rt, version, body, req, res, info, query, user, dry, check, warnings);
    } catch (e) {
      addWarningHeaders(res, warnings);
      throw e;
    }
  }

  /** Runs an admitted write, started over (up to {@link MAX_ATTEMPTS}) when the stored object changed. */
  private async attemptWrites(
    rt: ResourceType,
    version: ResourceVersion,
    body: Buffer,
    req: IncomingMessage,
    res: ServerResponse,
    info: ResourceRequestInfo,
    query: URLSearchParams,
    user: AuthUser,
    dry: URLSearchParams,
    check: Hook,
    warnings: string[],
  ): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      warnings.length = 0;
      // 1. the write up to its admission point, as a dry run: the object as it would be stored
      let captured: { obj: JsonObject; old: JsonObject | undefined } | undefined;
      try {
        await handleResource(
          this.withHook((obj, old) => {
            captured = { obj: clone(obj), old: old === undefined ? undefined : clone(old) };
            throw new Captured('captured');
          }),
          replayRequest(req, body),
          new CapturedResponse().asServerResponse(),
          info,
          dry,
          user,
        );
      } catch (e) {
        if (!(e instanceof Captured)) throw e;
      }
      if (!captured)
        return handleResource(this.withHook(check), replayRequest(req, body), res, info, query, user);
      const seen = captured;
      // a custom resource reaches admission decoded: unknown fields pruned (an error under
      // fieldValidation=Strict, a warning under Warn) and the schema's defaults applied
      // (at the version the write runs at: the storage version when the request's was converted)
      const decodedAt = rt.versions.find((v) => v.name === info.version) ?? version;
      if (decodedAt.admit)
        seen.obj = decodeCustomResource(rt, decodedAt, seen.obj, seen.old, query, warnings);
      const attrs: AdmissionAttributes = {
        ...this.attributes(rt, version, info, query, user),
        operation: seen.old === undefined ? 'CREATE' : 'UPDATE',
        name: str(metaOf(seen.obj).name),
        object: await this.atVersion(rt, version, seen.obj),
      };
      if (seen.old) attrs.oldObject = await this.atVersion(rt, version, seen.old);
      // a generated name: mutating webhooks see none (kube-apiserver generates it after them), the
      // validating ones and the store the one generated now
      const generated = info.verb === 'create' ? withName(body, attrs.name) : undefined;
      if (generated) {
        body = generated;
        attrs.name = '';
        delete metaOf(attrs.object!).name;
      }
      // 2. mutating webhooks, in order
      const mutated = (await this.chain.mutate(attrs, warnings)) ?? attrs.object!;
      if (generated) attrs.name = str(metaOf(seen.obj).name);
      // what is written: the object at the storage version (converted back when webhooks changed it)
      const storage = storageVersion(rt);
      const written =
        mutated === attrs.object || version === storage
          ? mutated
          : await this.atVersion(rt, storage, mutated);
      const substitute: Hook = (obj, old) => {
        if (rvOf(old) !== rvOf(seen.old)) throw new Stale('stale');
        replaceContent(obj, mutated === attrs.object ? seen.obj : written);
        check(obj, old);
      };
      try {
        // 3. schema and CEL validation of the mutated object, then the validating webhooks
        const validating = { ...attrs, object: mutated };
        if (this.policies.active || this.chain.matches('validating', validating)) {
          const out = new CapturedResponse();
          const text = out.text();
          await handleResource(
            this.withHook(substitute),
            replayRequest(req, body),
            out.asServerResponse(),
            info,
            dry,
            user,
          );
          const result: unknown = JSON.parse(await text);
          if (isObject(result)) validating.object = await this.atVersion(rt, version, result);
          // kube-apiserver's order: admission policies, then the validating webhooks
          this.policies.validate(validating, warnings);
          await this.chain.validate(validating, warnings);
        }
        // 4. the write itself, with the object the webhooks saw
        return await handleResource(
          this.withHook(substitute, warnings),
          replayRequest(req, body),
          res,
          info,
          query,
          user,
        );
      } catch (e) {
        if (!(e instanceof Stale)) throw e;
      }
    }
    throw errors.modified({ group: rt.group, resource: rt.plural, name: info.name ?? '' });
  }
}
