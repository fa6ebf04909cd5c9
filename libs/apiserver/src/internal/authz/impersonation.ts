import { ApiError, errors } from '../common/errors.js';
import type { AuthorizationAttributes, Peers } from '../common/peers.js';
import type { Store } from '../storage/store.js';
import { isSuperUser, rbacObjects } from './access-review.js';
import type { AuthUser } from './access-review.js';

/**
 * User impersonation as kube-apiserver's impersonation filter applies it after authentication
 * (`kubectl --as`, `--as-group`, `--as-uid`): the request then runs as the impersonated user, once the
 * requester may `impersonate` each thing asked for.
 */

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const AUTHENTICATION_GROUP = 'authentication.k8s.io';
const EXTRA_PREFIX = 'impersonate-extra-';

/** One thing the requester asks to act as, with the attributes of its `impersonate` check. */
interface Wanted {
  attrs: Omit<AuthorizationAttributes, 'user' | 'groups'>;
  /** How kube's error names it (`ServiceAccount "ns/op"`). */
  label: string;
}

function first(v: string[] | undefined): string {
  return v?.[0] ?? '';
}

/** `system:serviceaccount:<ns>:<name>` split as kube's `serviceaccount.SplitUsername` does. */
function splitServiceAccount(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

function decodeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Whether a request carries any `Impersonate-*` header (what {@link actingUser} reads). */
export function impersonates(headers: NodeJS.Dict<string | string[]>): boolean {
  for (const name in headers) if (name.startsWith('impersonate-')) return true;
  return false;
}

/**
 * The user a request acts as: the authenticated requester, or the user its `Impersonate-User`,
 * `Impersonate-Group`, `Impersonate-Uid` and `Impersonate-Extra-*` headers name. With RBAC enforced
 * the requester needs `impersonate` on each (`users`, `serviceaccounts` in their namespace, `groups`,
 * `uids.authentication.k8s.io`, `userextras.authentication.k8s.io/<key>`), else a 403 names the first
 * one refused. Groups, a uid or extras without a user are a 500, as in kube-apiserver.
 *
 * @param headers - the request's headers, repeated ones as lists (`IncomingMessage.headersDistinct`).
 */
export function actingUser(
  headers: NodeJS.Dict<string[]>,
  requester: AuthUser,
  deps: { store: Store; peers: Peers; rbacEnabled: boolean },
): AuthUser {
  const wanted: Wanted[] = [];
  const userName = first(headers['impersonate-user']);
  const sa = userName ? splitServiceAccount(userName) : undefined;
  if (sa) {
    wanted.push({
      attrs: { verb: 'impersonate', apiGroup: '', resource: 'serviceaccounts', ...sa },
      label: `ServiceAccount ${JSON.stringify(`${sa.namespace}/${sa.name}`)}`,
    });
  } else if (userName) {
    wanted.push({
      attrs: { verb: 'impersonate', apiGroup: '', resource: 'users', name: userName },
      label: `User ${JSON.stringify(userName)}`,
    });
  }
  const groups = headers['impersonate-group'] ?? [];
  for (const g of groups) {
    wanted.push({
      attrs: { verb: 'impersonate', apiGroup: '', resource: 'groups', name: g },
      label: `Group ${JSON.stringify(g)}`,
    });
  }
  const extra = new Map<string, string[]>();
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    const key = decodeExtraKey(header.slice(EXTRA_PREFIX.length));
    for (const value of values ?? []) {
      extra.set(key, [...(extra.get(key) ?? []), value]);
      wanted.push({
        attrs: {
          verb: 'impersonate',
          apiGroup: AUTHENTICATION_GROUP,
          resource: 'userextras',
          subresource: key,
          name: value,
        },
        label: `UserExtra ${JSON.stringify(`${key}=${value}`)}`,
      });
    }
  }
  const uid = first(headers['impersonate-uid']);
  if (uid) {
    wanted.push({
      attrs: { verb: 'impersonate', apiGroup: AUTHENTICATION_GROUP, resource: 'uids', name: uid },
      label: `UID ${JSON.stringify(uid)}`,
    });
  }
  if (wanted.length === 0) return requester;
  if (!userName) {
    throw errors.internal(
      `requested [${wanted.map((w) => w.label).join(' ')}] without impersonating a user: set Impersonate-User too`,
    );
  }

  if (deps.rbacEnabled && !isSuperUser(requester)) {
    const rbac = rbacObjects(deps.store);
    for (const w of wanted) {
      const attrs: AuthorizationAttributes = { user: requester.name, groups: requester.groups, ...w.attrs };
      const d = deps.peers.rbac.authorize(attrs, rbac);
      if (!d.allowed) {
        throw new ApiError(403, 'Forbidden', deps.peers.rbac.forbiddenMessage(attrs, d.reason), {
          group: attrs.apiGroup,
          kind: attrs.resource,
          name: attrs.name ?? '',
        });
      }
    }
  }

  // the groups named are the authority; a service account without them gets its fixed groups
  const acting: string[] =
    groups.length > 0
      ? [...groups]
      : sa
        ? ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`]
        : [];
  if (userName === 'system:anonymous') {
    if (!acting.includes('system:unauthenticated')) acting.push('system:unauthenticated');
  } else if (!acting.includes('system:authenticated') && !acting.includes('system:unauthenticated')) {
    acting.push('system:authenticated');
  }
  const acted: AuthUser = { name: userName, groups: acting };
  if (uid) acted.uid = uid;
  if (extra.size > 0) acted.extra = Object.fromEntries(extra);
  return acted;
}
