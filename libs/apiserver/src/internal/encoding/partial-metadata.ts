import type { JsonObject } from '../../types.js';
import { ApiError } from '../common/errors.js';
import { metaOf } from '../common/json.js';

/** What an `Accept` header asks the answer to be converted to (`as=...;g=meta.k8s.io;v=...`). */
export type Conversion =
  | { readonly as: 'Table' }
  | { readonly as: 'PartialObjectMetadata' | 'PartialObjectMetadataList'; readonly apiVersion: string };

const MEDIA_TYPES = new Set([
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/*',
  '*/*',
]);
const META_VERSIONS = new Set(['v1', 'v1beta1']);

/**
 * Negotiates the answer's conversion as kube-apiserver does: the first clause of `Accept` that this
 * server can serve decides. A clause without `as` means the object itself (undefined); a clause
 * asking for a conversion this server does not offer is skipped. Answers are JSON whatever the
 * media type asked for (see the README's Limits). With no servable clause the object itself is sent.
 */
export function negotiateConversion(accept: string | undefined): Conversion | undefined {
  if (accept === undefined || accept.trim() === '') return undefined;
  for (const clause of accept.split(',')) {
    const [type = '', ...rawParams] = clause.split(';').map((s) => s.trim());
    if (!MEDIA_TYPES.has(type.toLowerCase())) continue;
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const eq = p.indexOf('=');
      if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
    }
    const as = params.get('as');
    if (as === undefined) return undefined;
    const g = params.get('g');
    const v = params.get('v') ?? '';
    if (g !== 'meta.k8s.io' || !META_VERSIONS.has(v)) continue;
    if (as === 'Table') return { as };
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList')
      return { as, apiVersion: `meta.k8s.io/${v}` };
  }
  return undefined;
}

/** kube-apiserver's 406 for a conversion that does not fit the answer (a list asked as one object, ...). */
export function notAcceptable(message: string): ApiError {
  return new ApiError(406, 'NotAcceptable', message);
}

/** The `PartialObjectMetadata` of an object: its kind and apiVersion replaced, its whole metadata kept. */
export function partialObjectMetadata(obj: JsonObject, apiVersion: string): JsonObject {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: metaOf(obj) };
}

/** {@link partialObjectMetadata} of a serialized object, serialized. */
export function partialObjectMetadataJson(json: string, apiVersion: string): string {
  return JSON.stringify(partialObjectMetadata(JSON.parse(json) as JsonObject, apiVersion));
}

/** A `PartialObjectMetadataList` answer of serialized objects with the list's metadata. */
export function partialObjectMetadataListBody(
  items: readonly string[],
  listMeta: JsonObject,
  apiVersion: string,
): string {
  const parts = items.map((j) => partialObjectMetadataJson(j, apiVersion));
  return `{"kind":"PartialObjectMetadataList","apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(listMeta)},"items":[${parts.join(',')}]}`;
}
