import type { AuthorizationAttributes, Peers } from '../common/peers.js';
import type { ResourceRequestInfo } from '../http/request-info.js';
import type { AuthUser } from './access-review.js';

/**
 * The authorization attributes of a resource request, as kube-apiserver's RequestInfoFactory gives
 * them to the authorizer:
 * - a request on a Namespace object itself (`/api/v1/namespaces/foo`) carries `namespace: 'foo'`;
 * - a list or watch whose field selector requires `metadata.name=<name>` (what an informer of one
 *   object sends) carries that name, so a rule with `resourceNames` allows it.
 */
export function requestAttributes(
  info: ResourceRequestInfo,
  query: URLSearchParams,
  user: AuthUser,
  peers: Peers,
): AuthorizationAttributes {
  const attrs: AuthorizationAttributes = {
    user: user.name,
    groups: user.groups,
    verb: info.verb,
    apiGroup: info.group,
    resource: info.resource,
  };
  if (info.subresource) attrs.subresource = info.subresource;
  if (info.namespace) attrs.namespace = info.namespace;
  else if (info.group === '' && info.resource === 'namespaces' && info.name) attrs.namespace = info.name;
  if (info.name) attrs.name = info.name;
  else if (info.verb === 'list' || info.verb === 'watch') {
    const name = selectedName(query.get('fieldSelector'), peers);
    if (name !== undefined) attrs.name = name;
  }
  return attrs;
}

/**
 * The name a field selector requires exactly (`metadata.name=x` or `==`), when it is a valid path
 * segment: the name kube-apiserver's RequestInfo gives a list or watch of one object.
 */
export function selectedName(selector: string | null, peers: Peers): string | undefined {
  if (!selector) return undefined;
  let reqs;
  try {
    reqs = peers.selectors.parseFieldSelector(selector);
  } catch {
    return undefined; // the list itself answers the bad selector
  }
  const exact = reqs.find((r) => r.field === 'metadata.name' && r.op === '=');
  if (exact === undefined) return undefined;
  const name = exact.value;
  if (name === '.' || name === '..' || name.includes('/') || name.includes('%')) return undefined;
  return name;
}
