/**
 * Kubernetes' CEL authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go) for admission
 * expressions: `authorizer.group(g).resource(r).subresource(s).namespace(ns).name(n).check(verb)`,
 * `fieldSelector(s)`, `labelSelector(s)` (accepted; RBAC ignores them),
 * `authorizer.path(p).check(verb)`, `authorizer.serviceAccount(ns, name)`,
 * `authorizer.requestResource` (the request's own resource), and the decision's `allowed()`,
 * `reason()`, `errored()`, `error()`. Checks are decided by this server's authorizer (RBAC, with
 * `system:masters` allowed) for the request's user.
 *
 * Values are CEL maps under a reserved key holding their state as JSON; the check itself asks the
 * authorizer installed by {@link withAuthorizer} around the (synchronous) evaluation.
 */
import { CelScalar, celEnv, celError, celMap, celMethod, isCelMap, mapType } from '@bufbuild/cel';
import type { CelEnv, CelFunc, CelInput, CelMap, CelValue } from '@bufbuild/cel';
import { kubernetesFunctions } from '../crd/internal/cel/environment.js';
import type { AdmissionAttributes } from './admission-attributes.js';

/** What a check asks: a resource (group, resource, ...) or a non-resource path, and the verb. */
export interface AuthorizerCheck {
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
}

/** The user a check is made for. */
export interface AuthorizerUser {
  name: string;
  groups: readonly string[];
}

/** Decides a check for a user (this server's RBAC authorizer). */
export type AdmissionAuthorizer = (
  user: AuthorizerUser,
  check: AuthorizerCheck,
) => {
  allowed: boolean;
  reason: string;
};

type State =
  | { t: 'authorizer'; user: AuthorizerUser }
  | { t: 'group'; user: AuthorizerUser; group: string }
  | {
      t: 'resource';
      user: AuthorizerUser;
      group: string;
      resource: string;
      subresource?: string;
      namespace?: string;
      name?: string;
      fieldSelector?: string;
      labelSelector?: string;
    }
  | { t: 'path'; user: AuthorizerUser; path: string }
  | { t: 'decision'; allowed: boolean; reason: string; error: string };

const KEY = '\u0000k8s.authorizer';
const T = mapType(CelScalar.STRING, CelScalar.DYN);

/** The names the library adds (methods), for the check of undeclared functions. */
export const AUTHORIZER_FUNCTIONS = [
  'path',
  'group',
  'serviceAccount',
  'resource',
  'subresource',
  'namespace',
  'name',
  'fieldSelector',
  'labelSelector',
  'check',
  'allowed',
  'reason',
  'errored',
  'error',
];

let current: AdmissionAuthorizer | undefined;

/** Runs `fn` (a synchronous evaluation) with `authorizer` deciding the checks it makes. */
export function withAuthorizer<R>(authorizer: AdmissionAuthorizer, fn: () => R): R {
  const previous = current;
  current = authorizer;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

function wrap(state: State, extra?: Record<string, CelInput>): CelMap {
  const entries = new Map<string, CelInput>([[KEY, JSON.stringify(state)]]);
  for (const [k, v] of Object.entries(extra ?? {})) entries.set(k, v);
  return celMap(entries);
}

function stateOf<K extends State['t']>(v: CelValue, kind: K, fn: string): Extract<State, { t: K }> {
  const raw = isCelMap(v) ? v.get(KEY) : undefined;
  const state = typeof raw === 'string' ? (JSON.parse(raw) as State) : undefined;
  if (!state || state.t !== kind) throw celError(`no such overload: ${fn}`);
  return state as Extract<State, { t: K }>;
}

function resourceValue(state: Extract<State, { t: 'resource' }>): CelMap {
  return wrap(state);
}

function decide(user: AuthorizerUser, check: AuthorizerCheck): CelMap {
  if (!current) return wrap({ t: 'decision', allowed: false, reason: '', error: 'no authorizer available' });
  const d = current(user, check);
  return wrap({ t: 'decision', allowed: d.allowed, reason: d.reason, error: '' });
}

/**
 * The `authorizer` variable for a request by `attrs.user`; its `requestResource` is the request's
 * group, resource, subresource, namespace and name.
 */
export function authorizerVariable(attrs: AdmissionAttributes): CelMap {
  const user: AuthorizerUser = { name: attrs.user.name, groups: [...attrs.user.groups] };
  const requestResource: Extract<State, { t: 'resource' }> = {
    t: 'resource',
    user,
    group: attrs.group,
    resource: attrs.resource,
  };
  if (attrs.subresource !== '') requestResource.subresource = attrs.subresource;
  if (attrs.namespace !== '') requestResource.namespace = attrs.namespace;
  if (attrs.name !== '') requestResource.name = attrs.name;
  return wrap({ t: 'authorizer', user }, { requestResource: resourceValue(requestResource) });
}

function authorizerFunctions(): CelFunc[] {
  const S = CelScalar.STRING;
  return [
    celMethod('path', T, [S], T, function (this: CelValue, path: string) {
      const a = stateOf(this, 'authorizer', 'path');
      return wrap({ t: 'path', user: a.user, path });
    }),
    celMethod('group', T, [S], T, function (this: CelValue, group: string) {
      const a = stateOf(this, 'authorizer', 'group');
      return wrap({ t: 'group', user: a.user, group });
    }),
    celMethod('serviceAccount', T, [S, S], T, function (this: CelValue, namespace: string, name: string) {
      stateOf(this, 'authorizer', 'serviceAccount');
      // kube's serviceaccount.UserInfo: the account's user name and its two groups
      const user: AuthorizerUser = {
        name: `system:serviceaccount:${namespace}:${name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
      };
      return wrap({ t: 'authorizer', user });
    }),
    celMethod('resource', T, [S], T, function (this: CelValue, resource: string) {
      const g = stateOf(this, 'group', 'resource');
      return resourceValue({ t: 'resource', user: g.user, group: g.group, resource });
    }),
    // fieldSelector and labelSelector narrow the check; RBAC (this server's authorizer) ignores them
    ...(['subresource', 'namespace', 'name', 'fieldSelector', 'labelSelector'] as const).map((field) =>
      celMethod(field, T, [S], T, function (this: CelValue, value: string) {
        const r = stateOf(this, 'resource', field);
        return resourceValue({ ...r, [field]: value });
      }),
    ),
    celMethod('check', T, [S], T, function (this: CelValue, verb: string) {
      const raw = isCelMap(this) ? this.get(KEY) : undefined;
      const kind = typeof raw === 'string' ? (JSON.parse(raw) as State).t : undefined;
      if (kind === 'path') {
        const p = stateOf(this, 'path', 'check');
        return decide(p.user, { verb, path: p.path });
      }
      const r = stateOf(this, 'resource', 'check');
      const check: AuthorizerCheck = { verb, group: r.group, resource: r.resource };
      if (r.subresource !== undefined) check.subresource = r.subresource;
      if (r.namespace !== undefined) check.namespace = r.namespace;
      if (r.name !== undefined) check.name = r.name;
      return decide(r.user, check);
    }),
    celMethod('allowed', T, [], CelScalar.BOOL, function (this: CelValue) {
      return stateOf(this, 'decision', 'allowed').allowed;
    }),
    celMethod('reason', T, [], S, function (this: CelValue) {
      return stateOf(this, 'decision', 'reason').reason;
    }),
    celMethod('errored', T, [], CelScalar.BOOL, function (this: CelValue) {
      return stateOf(this, 'decision', 'errored').error !== '';
    }),
    celMethod('error', T, [], S, function (this: CelValue) {
      return stateOf(this, 'decision', 'error').error;
    }),
  ];
}

let env: CelEnv | undefined;

/** The environment admission expressions run in: the CRD rules' one and the authorizer library. */
export function admissionCelEnv(): CelEnv {
  env ??= celEnv({ funcs: [...kubernetesFunctions(), ...authorizerFunctions()] });
  return env;
}
