/**
 * Conversion of custom resources through a CRD's conversion webhook (`spec.conversion.strategy:
 * Webhook`): one `ConversionReview` (apiextensions.k8s.io/v1) per read or write of a version that is
 * not the storage version, with all objects of a list in one review, checked as kube-apiserver checks
 * the answer (count, apiVersion, kind, same name, namespace and uid, metadata present, and only labels
 * and annotations of metadata may change).
 */
import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../types.js';
import { errors } from '../internal/common/errors.js';
import { isObject, str } from '../internal/common/json.js';
import { postToWebhook, WebhookCallError } from './webhook-call.js';
import type { WebhookClientConfig } from './webhook-configuration.js';

/** kube-apiserver calls conversion webhooks with a 30 second timeout. */
const CONVERSION_TIMEOUT_SECONDS = 30;

/** A failed conversion: the webhook could not be called, refused, or answered something invalid. */
export class ConversionWebhookError extends Error {
  /** Stable error code. */
  readonly code = 'ConversionWebhookFailed';

  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ConversionWebhookError';
  }
}

function gvkOf(obj: JsonObject): string {
  const av = str(obj.apiVersion);
  return `${av}, Kind=${str(obj.kind)}`;
}

function metaOf(obj: JsonObject): JsonObject {
  return isObject(obj.metadata) ? obj.metadata : {};
}

/** A metadata string as Go's unstructured getters read it: "" when absent or not a string. */
function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The Go type (`%T`) a JSON value decodes to in an unstructured object, for kube's texts. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return 'map[string]interface {}';
}

/**
 * Converts `objects` to `desiredAPIVersion` through the webhook; objects already at that version are
 * returned as they are, and nothing is called when all are.
 * @throws ApiError (500, kube's "conversion webhook for G/V, Kind=K failed: ..." text) on failure.
 */
export async function convertThroughWebhook(
  cc: WebhookClientConfig,
  objects: JsonObject[],
  desiredAPIVersion: string,
): Promise<JsonObject[]> {
  const todo = objects.filter((o) => o.apiVersion !== desiredAPIVersion);
  if (todo.length === 0) return objects;
  const from = gvkOf(todo[0]);
  try {
    const converted = await callConversion(cc, todo, desiredAPIVersion);
    let k = 0;
    return objects.map((o) => (o.apiVersion === desiredAPIVersion ? o : converted[k++]));
  } catch (e) {
    const why = e instanceof WebhookCallError ? e.message : (e as Error).message;
    throw errors.internal(`conversion webhook for ${from} failed: ${why}`, e);
  }
}

async function callConversion(
  cc: WebhookClientConfig,
  objects: JsonObject[],
  desiredAPIVersion: string,
): Promise<JsonObject[]> {
  const uid = randomUUID();
  const review = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion, objects },
  };
  const answer = await postToWebhook(cc, review, CONVERSION_TIMEOUT_SECONDS);
  const a = isObject(answer) ? answer : {};
  if (a.apiVersion !== 'apiextensions.k8s.io/v1' || a.kind !== 'ConversionReview') {
    throw new ConversionWebhookError(
      `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${str(a.apiVersion)}, Kind=${str(a.kind)}`,
    );
  }
  const response = isObject(a.response) ? a.response : undefined;
  if (!response) throw new ConversionWebhookError('no response provided');
  if (response.uid !== uid)
    throw new ConversionWebhookError(
      `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`,
    );
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    const message =
      typeof result.message === 'string' && result.message !== '' ? result.message : 'no explanation';
    throw new ConversionWebhookError(`conversion webhook returned failure: ${message}`);
  }
  const out = Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
  if (out.length !== objects.length) {
    throw new ConversionWebhookError(`expected ${objects.length} converted objects, got ${out.length}`);
  }
  return out.map((c: unknown, i: number) => restoreMeta(objects[i], c, desiredAPIVersion, i));
}

/** The converted object with the original's metadata, except labels and annotations (kube's rule). */
function restoreMeta(original: JsonObject, converted: unknown, desired: string, i: number): JsonObject {
  if (!isObject(converted))
    throw new ConversionWebhookError(`invalid converted object at index ${i}: not an object`);
  if (converted.apiVersion !== desired) {
    throw new ConversionWebhookError(
      `invalid converted object at index ${i}: invalid apiVersion ${JSON.stringify(converted.apiVersion ?? '')}, expected ${JSON.stringify(desired)}`,
    );
  }
  if (converted.kind !== original.kind) {
    throw new ConversionWebhookError(
      `invalid converted object at index ${i}: invalid kind ${JSON.stringify(converted.kind ?? '')}, expected ${JSON.stringify(original.kind)}`,
    );
  }
  // kube-apiserver's validateConvertedObject: name, namespace and uid as read from the metadata (""
  // when absent) must be the original's, so an answer without metadata fails here
  const om = metaOf(original);
  const cm = metaOf(converted);
  for (const [key, label] of [
    ['name', 'name'],
    ['namespace', 'namespace'],
    ['uid', 'UID'],
  ] as const) {
    const was = stringOf(om[key]);
    const now = stringOf(cm[key]);
    if (was !== now)
      throw new ConversionWebhookError(
        `invalid converted object at index ${i}: must have the same ${label}: ${was} != ${now}`,
      );
  }
  // then restoreObjectMeta: metadata must be there, an object, with labels and annotations maps of strings
  const invalidMeta = (why: string): ConversionWebhookError =>
    new ConversionWebhookError(`invalid metadata in object at index ${i}: ${why}`);
  if (!('metadata' in converted)) throw invalidMeta('missing metadata in converted object');
  if (!isObject(converted.metadata))
    throw invalidMeta(`invalid metadata of type ${goType(converted.metadata)} in converted object`);
  for (const field of ['labels', 'annotations'] as const) {
    const value = cm[field];
    if (value === undefined || value === null) continue;
    if (!isObject(value))
      throw invalidMeta(`invalid metadata.${field} of type ${goType(value)} in converted object`);
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string')
        throw invalidMeta(
          `metadata.${field}[${k}] must be a string, but is ${goType(v)} in converted object`,
        );
    }
  }
  const meta: JsonObject = { ...om };
  if (cm.labels === undefined || cm.labels === null) delete meta.labels;
  else meta.labels = cm.labels;
  if (cm.annotations === undefined || cm.annotations === null) delete meta.annotations;
  else meta.annotations = cm.annotations;
  return { ...converted, metadata: meta };
}
