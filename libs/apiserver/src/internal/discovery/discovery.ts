import type { JsonObject } from '../../types.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { ResourceType } from '../resources/resource-type.js';
import { isNamespaceType } from '../storage/namespace-strategy.js';

/** The version this server reports (kubectl 1.32 era). */
export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0+tosdk',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'n/a (node)',
  compiler: 'tosdk',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

/** `/api`: the core versions. */
export function apiVersions(serverAddress: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(name: string, versions: string[]): JsonObject {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

/** `/apis`: every named group. */
export function apiGroupList(reg: ResourceRegistry): JsonObject {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: reg
      .groups()
      .filter((g) => g.name !== '')
      .map((g) => groupEntry(g.name, g.versions)),
  };
}

/** `/apis/{group}`, or undefined when the group is not served. */
export function apiGroup(reg: ResourceRegistry, group: string): JsonObject | undefined {
  const g = reg.groups().find((x) => x.name === group && group !== '');
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g.name, g.versions) } : undefined;
}

/** core/v1 ServiceAccount, whose `token` subresource answers TokenRequests. */
function isServiceAccountType(rt: ResourceType): boolean {
  return rt.group === '' && rt.plural === 'serviceaccounts';
}

function subresourceVerbs(): string[] {
  return ['get', 'patch', 'update'];
}

function resourceEntries(rt: ResourceType, hasStatus: boolean, scale: boolean): JsonObject[] {
  const main: JsonObject = {
    name: rt.plural,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: [...rt.verbs],
  };
  if (rt.shortNames.length) main.shortNames = [...rt.shortNames];
  if (rt.categories.length) main.categories = [...rt.categories];
  const out = [main];
  if (scale) {
    out.push({
      name: `${rt.plural}/scale`,
      singularName: '',
      namespaced: rt.namespaced,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: subresourceVerbs(),
    });
  }
  // a Namespace's finalize subresource (PUT only), before status as kube-apiserver lists it
  if (isNamespaceType(rt)) {
    out.push({
      name: `${rt.plural}/finalize`,
      singularName: '',
      namespaced: rt.namespaced,
      kind: rt.kind,
      verbs: ['update'],
    });
  }
  if (isServiceAccountType(rt)) {
    out.push({
      name: `${rt.plural}/token`,
      singularName: '',
      namespaced: rt.namespaced,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
  }
  if (hasStatus) {
    out.push({
      name: `${rt.plural}/status`,
      singularName: '',
      namespaced: rt.namespaced,
      kind: rt.kind,
      verbs: subresourceVerbs(),
    });
  }
  return out;
}

/** `/api/v1` or `/apis/{group}/{version}`, or undefined when not served. */
export function apiResourceList(
  reg: ResourceRegistry,
  group: string,
  version: string,
): JsonObject | undefined {
  const rs = reg.inGroupVersion(group, version);
  if (rs.length === 0) return undefined;
  const resources: JsonObject[] = [];
  for (const { rt, version: v } of rs)
    resources.push(...resourceEntries(rt, v.statusSubresource, v.scale !== undefined));
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

/** Aggregated discovery (`apidiscovery.k8s.io/v2`) for `/api` (core) or `/apis` (named groups). */
export function aggregatedDiscovery(reg: ResourceRegistry, core: boolean, apiVersion: string): JsonObject {
  const groups = reg.groups().filter((g) => (g.name === '') === core);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion,
    metadata: {},
    items: groups.map((g) => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        freshness: 'Current',
        resources: reg.inGroupVersion(g.name, v).map(({ rt, version: rv }) => {
          const r: JsonObject = {
            resource: rt.plural,
            responseKind: { group: rt.group, version: v, kind: rt.kind },
            scope: rt.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: rt.singular,
            verbs: [...rt.verbs],
          };
          if (rt.shortNames.length) r.shortNames = [...rt.shortNames];
          if (rt.categories.length) r.categories = [...rt.categories];
          const subs: JsonObject[] = [];
          if (rv.scale) {
            subs.push({
              subresource: 'scale',
              responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
              verbs: subresourceVerbs(),
            });
          }
          if (isNamespaceType(rt)) {
            subs.push({
              subresource: 'finalize',
              responseKind: { group: rt.group, version: v, kind: rt.kind },
              verbs: ['update'],
            });
          }
          if (isServiceAccountType(rt)) {
            subs.push({
              subresource: 'token',
              responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
              verbs: ['create'],
            });
          }
          if (rv.statusSubresource) {
            subs.push({
              subresource: 'status',
              responseKind: { group: rt.group, version: v, kind: rt.kind },
              verbs: subresourceVerbs(),
            });
          }
          if (subs.length) r.subresources = subs;
          return r;
        }),
      })),
    })),
  };
}
