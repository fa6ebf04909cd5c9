import type { KubernetesObject } from '@kubernetes/client-node';
import jsonpatch from 'fast-json-patch';
import type { WebhookDeclaration } from './webhook.decorators.js';
import { AdmissionDeniedError } from './webhook.errors.js';
import type { AdmissionRequest, AdmissionVerdict, Converter, Mutator, Validator } from './webhook.types.js';

/** A webhook provider found in the application, with its declaration. */
export interface DiscoveredWebhook {
  readonly declaration: WebhookDeclaration;
  readonly instance: object;
  /** The provider's class name, for messages. */
  readonly className: string;
}

/** An HTTP answer of the webhook server. */
export interface WebhookAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Where the handler reports what went wrong (a slow or failing handler). */
export interface WebhookEventLog {
  warn(message: string): void;
  error(message: string): void;
}

class MalformedReview extends Error {}
class HandlerTimeout extends Error {}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function badRequest(message: string): WebhookAnswer {
  return {
    status: 400,
    body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'BadRequest', code: 400, message },
  };
}

/**
 * The original's metadata with the converted object's labels and annotations, as kube-apiserver's
 * restoreObjectMeta keeps them (one the converter removed stays removed); a converted object
 * without metadata keeps the original's.
 */
function convertedMetadata(original: KubernetesObject, out: KubernetesObject): Record<string, unknown> {
  const meta: Record<string, unknown> = { ...original.metadata };
  if (!isRecord(out.metadata)) return meta;
  for (const field of ['labels', 'annotations'] as const) {
    const value = out.metadata[field];
    if (value === undefined || value === null) delete meta[field];
    else meta[field] = value;
  }
  return meta;
}

function versionOf(apiVersion: unknown): string {
  const s = typeof apiVersion === 'string' ? apiVersion : '';
  return s.slice(s.indexOf('/') + 1);
}

/**
 * Answers `AdmissionReview` v1 (and v1beta1, in that version) and `ConversionReview` v1 requests for the discovered webhooks: a
 * malformed review gets a 400 with the reason; a handler that throws gets a denial with its message
 * (code 500 unless it threw {@link AdmissionDeniedError}); a handler slower than its
 * `timeoutSeconds` is denied at the deadline and reported, since the API server has given up on it.
 */
export class WebhookReviewHandler {
  private readonly byPath = new Map<string, DiscoveredWebhook>();

  constructor(
    webhooks: readonly DiscoveredWebhook[],
    private readonly log: WebhookEventLog,
  ) {
    for (const w of webhooks) this.byPath.set(w.declaration.path, w);
  }

  /** The served paths. */
  get paths(): string[] {
    return [...this.byPath.keys()];
  }

  /** Answers one review posted to `path` (`body` is the raw text or an already parsed value). */
  async handle(path: string, body: unknown): Promise<WebhookAnswer> {
    const hook = this.byPath.get(path);
    if (!hook) {
      return {
        status: 404,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
          message: `no webhook is served at ${path}; served paths: ${this.paths.join(', ') || 'none'}`,
        },
      };
    }
    let review: Record<string, unknown>;
    try {
      const parsed: unknown =
        typeof body === 'string' || Buffer.isBuffer(body) ? JSON.parse(String(body)) : body;
      review = this.checkReview(hook, parsed);
    } catch (e) {
      return badRequest(
        e instanceof MalformedReview
          ? e.message
          : `malformed review: the body is not JSON (${(e as Error).message})`,
      );
    }
    const request = review.request as Record<string, unknown>;
    if (hook.declaration.type === 'conversion') return this.convert(hook, review, request);
    return this.admit(hook, review, request as unknown as AdmissionRequest);
  }

  private checkReview(hook: DiscoveredWebhook, parsed: unknown): Record<string, unknown> {
    const conversion = hook.declaration.type === 'conversion';
    const want = conversion
      ? 'apiextensions.k8s.io/v1 ConversionReview'
      : 'admission.k8s.io/v1 AdmissionReview';
    if (!isRecord(parsed)) throw new MalformedReview(`malformed review: expected a ${want} object`);
    // kube-apiserver sends the first of the configuration's admissionReviewVersions it knows, and
    // takes the answer in that version: v1beta1 is answered as such, like controller-runtime does
    const gvk = `${String(parsed.apiVersion)} ${String(parsed.kind)}`;
    if (gvk !== want && (conversion || gvk !== 'admission.k8s.io/v1beta1 AdmissionReview')) {
      throw new MalformedReview(
        `malformed review: expected apiVersion and kind ${want}${conversion ? '' : ' (or admission.k8s.io/v1beta1)'}, got ${JSON.stringify(parsed.apiVersion ?? null)} ${JSON.stringify(parsed.kind ?? null)}`,
      );
    }
    const request = parsed.request;
    if (!isRecord(request)) throw new MalformedReview('malformed review: request is missing');
    if (typeof request.uid !== 'string' || request.uid === '')
      throw new MalformedReview('malformed review: request.uid is missing');
    if (conversion) {
      if (typeof request.desiredAPIVersion !== 'string')
        throw new MalformedReview('malformed review: request.desiredAPIVersion is missing');
      if (!Array.isArray(request.objects))
        throw new MalformedReview('malformed review: request.objects must be a list');
    } else if (typeof request.operation !== 'string') {
      throw new MalformedReview('malformed review: request.operation is missing');
    }
    return parsed;
  }

  private timeoutOf(hook: DiscoveredWebhook): number {
    return hook.declaration.type === 'conversion' ? 30 : (hook.declaration.options.timeoutSeconds ?? 10);
  }

  /** Runs `work` within the webhook's timeout; a late handler is reported and cut off. */
  private async withinTimeout<T>(hook: DiscoveredWebhook, work: () => T | Promise<T>): Promise<T> {
    const seconds = this.timeoutOf(hook);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new HandlerTimeout(`did not answer within its timeoutSeconds (${seconds}s)`)),
        seconds * 1000,
      );
      timer.unref();
    });
    try {
      return await Promise.race([Promise.resolve().then(work), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async admit(
    hook: DiscoveredWebhook,
    review: Record<string, unknown>,
    request: AdmissionRequest,
  ): Promise<WebhookAnswer> {
    const decl = hook.declaration;
    const answer = (response: Record<string, unknown>): WebhookAnswer => ({
      status: 200,
      body: { apiVersion: review.apiVersion, kind: review.kind, response: { uid: request.uid, ...response } },
    });
    try {
      if (decl.type === 'mutating') {
        // kube-apiserver sends no object for DELETE (and cannot apply a patch then): the mutator
        // judges the object being deleted, and its changes are dropped
        const withObject = request.object !== null && request.object !== undefined;
        const original = request.object ?? request.oldObject ?? {};
        const copy = structuredClone(original);
        const returned = await this.withinTimeout(hook, () =>
          (hook.instance as Mutator).mutate(
            copy,
            withObject ? { ...request, object: structuredClone(original) } : request,
          ),
        );
        const ops = jsonpatch.compare(original, returned ?? copy);
        if (ops.length > 0 && !withObject) {
          this.log.warn(
            `mutating webhook "${decl.name}" (${hook.className}) changed the object of a ${request.operation} of ${request.resource.resource}/${request.name ?? ''}: the change is dropped, since the API server cannot apply a patch to an operation without an object`,
          );
        }
        if (ops.length === 0 || !withObject) return answer({ allowed: true });
        return answer({
          allowed: true,
          patchType: 'JSONPatch',
          patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
        });
      }
      const verdict = await this.withinTimeout(hook, () => (hook.instance as Validator).validate(request));
      const warnings = (verdict as AdmissionVerdict | undefined)?.warnings;
      return answer(warnings && warnings.length > 0 ? { allowed: true, warnings } : { allowed: true });
    } catch (e) {
      const what = `${decl.type} webhook "${decl.name}" (${hook.className})`;
      if (e instanceof AdmissionDeniedError) {
        const denial = { allowed: false, status: { code: e.status, message: e.message } };
        // kube-apiserver passes a webhook's warnings to the client whether it allows or denies
        return answer(e.warnings.length > 0 ? { ...denial, warnings: [...e.warnings] } : denial);
      }
      if (e instanceof HandlerTimeout) {
        this.log.error(
          `${what} ${e.message} for ${request.operation} ${request.resource.resource}/${request.name ?? ''}; the API server applied its failurePolicy (${decl.type === 'conversion' ? 'Fail' : (decl.options.failurePolicy ?? 'Fail')})`,
        );
        return answer({ allowed: false, status: { code: 504, message: `${decl.name} ${e.message}` } });
      }
      const message = e instanceof Error ? e.message : String(e);
      this.log.warn(`${what} threw, request denied: ${message}`);
      return answer({ allowed: false, status: { code: 500, message } });
    }
  }

  private async convert(
    hook: DiscoveredWebhook,
    review: Record<string, unknown>,
    request: Record<string, unknown>,
  ): Promise<WebhookAnswer> {
    const decl = hook.declaration;
    const converter = hook.instance as Converter;
    const hub = decl.type === 'conversion' ? decl.options.hub : '';
    const desired = String(request.desiredAPIVersion);
    const to = versionOf(desired);
    const answer = (response: Record<string, unknown>): WebhookAnswer => ({
      status: 200,
      body: { apiVersion: review.apiVersion, kind: review.kind, response: { uid: request.uid, ...response } },
    });
    try {
      const objects = request.objects as KubernetesObject[];
      const converted = await this.withinTimeout(hook, () =>
        Promise.all(
          objects.map(async (o) => {
            const from = versionOf(o.apiVersion);
            if (from === to) return o;
            const atHub = from === hub ? o : await converter.toHub(structuredClone(o), from);
            const out = to === hub ? atHub : await converter.fromHub(structuredClone(atHub), to);
            return { ...out, apiVersion: desired, kind: o.kind, metadata: convertedMetadata(o, out) };
          }),
        ),
      );
      return answer({ convertedObjects: converted, result: { status: 'Success' } });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.log.warn(
        `conversion webhook "${decl.name}" (${hook.className}) failed to convert to ${desired}: ${message}`,
      );
      return answer({ convertedObjects: [], result: { status: 'Failure', message } });
    }
  }
}
