import type { JsonObject } from '../../types.js';
import { ApiError, errors } from '../common/errors.js';
import { isObject, metaOf, str } from '../common/json.js';
import type { Store } from '../storage/store.js';

/** The object a service account token is bound to: it stops working once the object is gone. */
export interface BoundObject {
  kind: 'Pod' | 'Secret';
  name: string;
  uid: string;
}

const STORAGE: Record<BoundObject['kind'], string> = { Pod: '/pods', Secret: '/secrets' };

/**
 * Checks a TokenRequest's `spec.boundObjectRef` as kube-apiserver's token storage does
 * (pkg/registry/core/serviceaccount/storage/token.go): a core/v1 Pod or Secret of the account's
 * namespace that exists (404 otherwise), a Pod that runs as that service account (400), and the uid
 * the reference names, if any (409). Other kinds are 400. Undefined without a reference.
 */
export function resolveBoundObject(
  store: Store,
  namespace: string,
  serviceAccount: string,
  ref: unknown,
): BoundObject | undefined {
  if (!isObject(ref)) return undefined;
  const kind = str(ref.kind);
  const apiVersion = str(ref.apiVersion);
  const name = str(ref.name);
  if (apiVersion !== 'v1' || (kind !== 'Pod' && kind !== 'Secret')) {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    throw errors.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  }
  const obj = store.get(STORAGE[kind], namespace, name);
  if (obj === undefined)
    throw errors.notFound({ group: '', resource: kind === 'Pod' ? 'pods' : 'secrets', name });
  if (kind === 'Pod') {
    const spec = isObject(obj.spec) ? obj.spec : {};
    if (str(spec.serviceAccountName) !== serviceAccount)
      throw errors.badRequest(
        `cannot bind token for serviceaccount "${serviceAccount}" to pod running with different serviceaccount name.`,
      );
  }
  const uid = str(metaOf(obj).uid);
  const wanted = str(ref.uid);
  if (wanted !== '' && wanted !== uid)
    throw new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${kind} "${name}": the UID in the bound object reference (${wanted}) does not match the UID in record. The object might have been deleted and then recreated`,
      { group: '', kind, name },
    );
  return { kind, name, uid };
}

/** Whether the object a token is bound to still exists with the same uid. */
export function boundObjectAlive(store: Store, namespace: string, bound: BoundObject): boolean {
  const obj: JsonObject | undefined = store.get(STORAGE[bound.kind], namespace, bound.name);
  return obj !== undefined && str(metaOf(obj).uid) === bound.uid;
}
