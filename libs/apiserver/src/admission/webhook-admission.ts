/**
 * The admission webhook chain of kube-apiserver: mutating webhooks one after another (with
 * `reinvocationPolicy: IfNeeded` handled as kube does), validating webhooks in parallel, failure
 * policies, timeouts, dry run against `sideEffects`, and kube's texts for denials and failures.
 */
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../types.js';
import { ApiError, errors } from '../internal/common/errors.js';
import { clone, deepEqual, isObject, str } from '../internal/common/json.js';
import { applyJsonPatch } from '../patch/index.js';
import type { AdmissionAttributes } from './admission-attributes.js';
import { operationOptions, userInfoOf } from './admission-attributes.js';
import { postToWebhook, WebhookCallError } from './webhook-call.js';
import type { ResolvedWebhook } from './webhook-configuration.js';
import { matchWebhook } from './webhook-matching.js';
import type { MatchContext } from './webhook-matching.js';
import { evaluateMatchConditions } from './match-conditions.js';
import { requestVariable } from './admission-cel.js';
import { authorizerVariable, withAuthorizer } from './cel-authorizer.js';
import type { AdmissionAuthorizer } from './cel-authorizer.js';
import { toCel } from '../crd/internal/cel/values.js';

/** Converts objects to another version of their resource (`apiVersion` as `group/version`). */
export type ObjectConverter = (objects: JsonObject[], apiVersion: string) => Promise<JsonObject[]>;

/** What the chain reads from the server. */
export interface WebhookSource extends MatchContext {
  /** The webhooks of a type, ordered by configuration name, then by position. */
  webhooks(type: 'validating' | 'mutating'): readonly ResolvedWebhook[];
  /** Converts objects for webhooks matched through `matchPolicy: Equivalent`. */
  convert: ObjectConverter;
  /** Decides the `authorizer` checks of match conditions. */
  authorize: AdmissionAuthorizer;
}

/** Something wrong with a webhook's answer (kube: "received invalid webhook response"). */
class InvalidResponse extends Error {}
/** A mutating webhook's patch that is not a JSON patch (kube: "received undecodable patch"). */
class UndecodablePatch extends Error {}

function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** kube-apiserver's status for a webhook that said no. */
export function deniedError(name: string, result: unknown): ApiError {
  const r = isObject(result) ? result : {};
  const deniedBy = `admission webhook ${JSON.stringify(name)} denied the request`;
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const message =
    typeof r.message === 'string' && r.message !== ''
      ? `${deniedBy}: ${r.message}`
      : typeof r.reason === 'string' && r.reason !== ''
        ? `${deniedBy}: ${r.reason}`
        : `${deniedBy} without explanation`;
  const details = isObject(r.details) ? (r.details as ConstructorParameters<typeof ApiError>[3]) : undefined;
  return new ApiError(code, typeof r.reason === 'string' ? r.reason : '', message, details);
}

function callFailed(hook: ResolvedWebhook, err: unknown): ApiError {
  const reason =
    err instanceof WebhookCallError
      ? `failed to call webhook: ${err.message}`
      : err instanceof InvalidResponse
        ? `received invalid webhook response: ${err.message}`
        : err instanceof UndecodablePatch
          ? `received undecodable patch in webhook response: ${err.message}`
          : `failed to call webhook: ${err instanceof Error ? err.message : String(err)}`;
  return errors.internal(`failed calling webhook ${JSON.stringify(hook.name)}: ${reason}`, err);
}

/** The admission chain over the webhook configurations a {@link WebhookSource} holds. */
export class WebhookAdmission {
  constructor(private readonly source: WebhookSource) {}

  /** The webhooks of `type` called for a request, each with the version it is called at. */
  matching(
    type: 'validating' | 'mutating',
    attrs: AdmissionAttributes,
  ): { hook: ResolvedWebhook; version: string }[] {
    const out: { hook: ResolvedWebhook; version: string }[] = [];
    for (const hook of this.source.webhooks(type)) {
      const version = matchWebhook(hook, attrs, this.source);
      if (version !== undefined) out.push({ hook, version });
    }
    return out;
  }

  /** Whether any webhook of `type` is called for the request. */
  matches(type: 'validating' | 'mutating', attrs: AdmissionAttributes): boolean {
    return this.matching(type, attrs).length > 0;
  }

  /**
   * Runs the mutating webhooks in order and returns the object they leave; webhooks with
   * `reinvocationPolicy: IfNeeded` are called once more when a later webhook changed the object.
   * Each webhook's `matchConditions` see the object as the webhooks before it left it, and are
   * evaluated again for the second round, as kube-apiserver's mutating dispatcher does.
   * @throws ApiError on a denial, on a failed call under `failurePolicy: Fail`, or on a condition
   * that fails to evaluate under `failurePolicy: Fail`.
   */
  async mutate(attrs: AdmissionAttributes, warnings?: string[]): Promise<JsonObject | undefined> {
    const hooks = this.matching('mutating', attrs);
    if (hooks.length === 0) return attrs.object;
    // no object on DELETE: the webhooks see object null, and may not patch
    let object = attrs.object;
    const called: boolean[] = hooks.map(() => false);
    const changedAfter: boolean[] = hooks.map(() => false);
    for (let i = 0; i < hooks.length; i++) {
      const { hook, version } = hooks[i];
      if (!(await this.conditionsAllow(hook, version, { ...attrs, object }))) continue;
      called[i] = true;
      const next = await this.callMutating(hook, version, { ...attrs, object }, warnings);
      if (!deepEqual(next, object)) {
        for (let j = 0; j < i; j++) if (called[j]) changedAfter[j] = true;
        object = next;
      }
    }
    const again = (i: number): boolean => hooks[i].hook.reinvocationPolicy === 'IfNeeded' && changedAfter[i];
    if (!hooks.some((_, i) => again(i))) return object;
    for (let i = 0; i < hooks.length; i++) {
      const { hook, version } = hooks[i];
      // the conditions first (an error fails the request even for a webhook not called again)
      if (!(await this.conditionsAllow(hook, version, { ...attrs, object })) || !again(i)) continue;
      object = await this.callMutating(hook, version, { ...attrs, object }, warnings);
    }
    return object;
  }

  /**
   * Calls the validating webhooks in parallel, once their `matchConditions` (evaluated in order,
   * before any call) allow them.
   * @throws ApiError with the first denial or failure in configuration order.
   */
  async validate(attrs: AdmissionAttributes, warnings?: string[]): Promise<void> {
    const hooks: { hook: ResolvedWebhook; version: string }[] = [];
    for (const m of this.matching('validating', attrs))
      if (await this.conditionsAllow(m.hook, m.version, attrs)) hooks.push(m);
    if (hooks.length === 0) return;
    const results = await Promise.all(
      hooks.map(({ hook, version }) =>
        this.call(hook, version, attrs, warnings).then(
          () => undefined,
          (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
        ),
      ),
    );
    const first = results.find((r) => r !== undefined);
    if (first !== undefined) throw first;
  }

  /**
   * Whether a matched webhook's `matchConditions` let it be called (kube-apiserver's ShouldCallHook):
   * all true calls it, any false skips it; an evaluation error skips it under `failurePolicy: Ignore`.
   * The conditions see the objects at the webhook's version.
   * @throws ApiError 403 (`<resource> "<name>" is forbidden: <error>`) on an evaluation error under
   * `failurePolicy: Fail`.
   */
  private async conditionsAllow(
    hook: ResolvedWebhook,
    version: string,
    attrs: AdmissionAttributes,
  ): Promise<boolean> {
    if (hook.matchConditions.length === 0) return true;
    const { object, oldObject } = await this.versioned(version, attrs);
    const vars = {
      object: object === undefined ? null : toCel(object, undefined),
      oldObject: oldObject === undefined ? null : toCel(oldObject, undefined),
      request: requestVariable(attrs, version, operationOptions(attrs)),
      // kube-apiserver gives webhook conditions no namespace object
      namespaceObject: null,
      authorizer: authorizerVariable(attrs),
    };
    const outcome = withAuthorizer(this.source.authorize, () =>
      evaluateMatchConditions(hook.matchConditions, vars),
    );
    if ('error' in outcome) {
      if (hook.failurePolicy === 'Ignore') return false;
      const resource = attrs.group ? `${attrs.resource}.${attrs.group}` : attrs.resource;
      const subject = attrs.name === '' ? resource : `${resource} ${JSON.stringify(attrs.name)}`;
      const ref = {
        group: attrs.group,
        resource: attrs.resource,
        ...(attrs.name === '' ? {} : { name: attrs.name }),
      };
      throw errors.forbidden(`${subject} is forbidden: ${outcome.error}`, ref);
    }
    return outcome.matches;
  }

  /** The request's objects at `version` (converted when a webhook matched another version). */
  private async versioned(
    version: string,
    attrs: AdmissionAttributes,
  ): Promise<{ object: JsonObject | undefined; oldObject: JsonObject | undefined }> {
    let object = attrs.object;
    let oldObject = attrs.oldObject;
    if (version !== attrs.version) {
      const target = apiVersionOf(attrs.group, version);
      if (object) object = (await this.source.convert([clone(object)], target))[0];
      if (oldObject) oldObject = (await this.source.convert([clone(oldObject)], target))[0];
    }
    return { object, oldObject };
  }

  private async callMutating(
    hook: ResolvedWebhook,
    version: string,
    attrs: AdmissionAttributes,
    warnings: string[] | undefined,
  ): Promise<JsonObject | undefined> {
    const object = attrs.object;
    const response = await this.call(hook, version, attrs, warnings);
    if (response === undefined || response.patch === undefined) return object;
    // a patch of the wrong type or that cannot be decoded is an error calling the webhook: its
    // failure policy applies (kube-apiserver's ErrCallingWebhook)
    let ops: unknown[];
    try {
      if (response.patchType !== 'JSONPatch')
        throw new InvalidResponse(
          `expected patchType "JSONPatch", got ${JSON.stringify(response.patchType ?? '')}`,
        );
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(str(response.patch), 'base64').toString('utf8'));
      } catch (e) {
        throw new UndecodablePatch((e as Error).message);
      }
      if (!Array.isArray(decoded)) throw new UndecodablePatch('a JSON patch is an array of operations');
      ops = decoded;
    } catch (e) {
      if (hook.failurePolicy === 'Ignore') return object;
      throw callFailed(hook, e);
    }
    if (ops.length === 0) return object;
    if (object === undefined) {
      throw errors.internal(
        `admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`,
      );
    }
    // a patch that does not apply is an internal error whatever the failure policy, as kube-apiserver
    // answers it (only errors calling the webhook fail open)
    try {
      // the patch addresses the object at the webhook's version; convert there and back when they differ
      const requestApiVersion = apiVersionOf(attrs.group, attrs.version);
      const hookApiVersion = apiVersionOf(attrs.group, version);
      const target =
        version === attrs.version
          ? clone(object)
          : (await this.source.convert([clone(object)], hookApiVersion))[0];
      const patched = applyJsonPatch(target, ops);
      return version === attrs.version
        ? patched
        : (await this.source.convert([patched], requestApiVersion))[0];
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw errors.internal(e instanceof Error ? e.message : String(e), e);
    }
  }

  /** Calls one webhook; undefined when its failure is ignored. */
  private async call(
    hook: ResolvedWebhook,
    version: string,
    attrs: AdmissionAttributes,
    warnings: string[] | undefined,
  ): Promise<JsonObject | undefined> {
    if (attrs.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') {
      throw errors.badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
    }
    let response: JsonObject;
    try {
      const uid = randomUUID();
      const review = await this.review(uid, version, attrs);
      const answer = await postToWebhook(hook.clientConfig, review, hook.timeoutSeconds);
      response = checkResponse(answer, uid, hook.type);
    } catch (e) {
      if (hook.failurePolicy === 'Ignore') return undefined;
      throw callFailed(hook, e);
    }
    if (Array.isArray(response.warnings) && warnings)
      for (const w of response.warnings) if (typeof w === 'string') warnings.push(w);
    if (response.allowed !== true) throw deniedError(hook.name, response.status);
    return response;
  }

  private async review(uid: string, version: string, attrs: AdmissionAttributes): Promise<JsonObject> {
    const requestKind = { group: attrs.group, version: attrs.version, kind: attrs.kind };
    const requestResource = { group: attrs.group, version: attrs.version, resource: attrs.resource };
    const { object, oldObject } = await this.versioned(version, attrs);
    const request: JsonObject = {
      uid,
      kind: { ...requestKind, version },
      resource: { ...requestResource, version },
      requestKind,
      requestResource,
      name: attrs.name,
      operation: attrs.operation,
      userInfo: userInfoOf(attrs.user),
      object: object ?? null,
      oldObject: oldObject ?? null,
      dryRun: attrs.dryRun,
      options: operationOptions(attrs),
    };
    if (attrs.namespace !== '') request.namespace = attrs.namespace;
    if (attrs.subresource !== '') {
      request.subResource = attrs.subresource;
      request.requestSubResource = attrs.subresource;
    }
    return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
  }
}

function checkResponse(answer: unknown, uid: string, type: 'validating' | 'mutating'): JsonObject {
  const a = isObject(answer) ? answer : {};
  if (a.apiVersion !== 'admission.k8s.io/v1' || a.kind !== 'AdmissionReview') {
    throw new InvalidResponse(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${str(a.apiVersion)}, Kind=${str(a.kind)}`,
    );
  }
  if (!isObject(a.response)) throw new InvalidResponse('webhook response was absent');
  const response = a.response;
  if (response.uid !== uid)
    throw new InvalidResponse(
      `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`,
    );
  if (type === 'validating' && (response.patch !== undefined || response.patchType !== undefined))
    throw new InvalidResponse('validating webhook may not return a patch');
  return response;
}
