import type { JsonObject } from '../../types.js';
import { errors } from '../common/errors.js';
import { clone, isObject, metaOf, rfc3339 } from '../common/json.js';
import type { ResourceType, ResourceVersion } from '../resources/resource-type.js';
import type { AuthUser } from './access-review.js';
import { TOKEN_ISSUER } from './service-account-tokens.js';

/** Authenticates a token for audiences: the user and the audiences it was accepted for. */
export type TokenAuthenticator = (
  token: string,
  audiences: readonly string[],
) => { user: AuthUser; audiences: string[] } | undefined;

/**
 * TokenReview (`POST /apis/authentication.k8s.io/v1/tokenreviews`), as kube-apiserver's tokenreview
 * storage answers it: 400 without `spec.token`; the token is checked for `spec.audiences` (the API
 * server's own when none are named); for an accepted token `status.authenticated: true`, the user
 * (username, uid, groups, extra) and the audiences it was accepted for. Reviews are not stored.
 */
export function reviewToken(
  rt: ResourceType,
  version: ResourceVersion,
  body: JsonObject,
  authenticate: TokenAuthenticator | undefined,
): JsonObject {
  const spec = isObject(body.spec) ? body.spec : {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (token === '') throw errors.badRequest('token is required for TokenReview in authentication');
  const requested =
    Array.isArray(spec.audiences) && spec.audiences.length > 0
      ? spec.audiences.filter((a): a is string => typeof a === 'string')
      : [TOKEN_ISSUER];
  const result = authenticate?.(token, requested);
  // authenticated is omitempty in Go: absent when false; user is always present
  const status: JsonObject = { user: {} };
  if (result !== undefined) {
    status.authenticated = true;
    const user: JsonObject = { username: result.user.name };
    if (result.user.uid) user.uid = result.user.uid;
    user.groups = [...result.user.groups];
    if (result.user.extra && Object.keys(result.user.extra).length > 0) user.extra = clone(result.user.extra);
    status.user = user;
    status.audiences = result.audiences;
  }
  const out = clone(body);
  out.apiVersion = rt.group === '' ? version.name : `${rt.group}/${version.name}`;
  out.kind = rt.kind;
  metaOf(out).creationTimestamp = rfc3339(new Date());
  out.status = status;
  return out;
}
