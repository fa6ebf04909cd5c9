// Helpers of the RBAC proof tests (test/rbac-proof*.e2e-spec.ts): apply generated RBAC, collect what
// the operator's identity did from the API server's request log, and show each granted permission
// needed by removing it and asking the server's authorizer about a logged request.
import { expect } from '@jest/globals';
import { defineResource, KubernetesApiError, ResourceID, ResourceTypes } from '@tosdk/core';
import type { KubernetesClient, KubernetesResource, ResourceType } from '@tosdk/core';
import type { Manifest } from '@tosdk/cli';
import type { KubeApiServer, RequestRecord } from '@tosdk/apiserver';

const rbacType = (kind: string, cluster: boolean) =>
  defineResource<KubernetesResource>({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind,
    scope: cluster ? 'Cluster' : 'Namespaced',
  });
/** RBAC kinds by name. */
export const RbacTypes: Record<string, ResourceType> = {
  ClusterRole: rbacType('ClusterRole', true),
  ClusterRoleBinding: rbacType('ClusterRoleBinding', true),
  Role: rbacType('Role', false),
  RoleBinding: rbacType('RoleBinding', false),
  ServiceAccount: ResourceTypes.ServiceAccount,
  Namespace: ResourceTypes.Namespace,
};

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** One verb on one resource granted by one role (cluster-wide when `namespace` is undefined). */
export interface Permission {
  role: { kind: string; name: string; namespace?: string };
  group: string;
  resource: string;
  verb: string;
  resourceNames?: string[];
}

/** A request the operator made, as the authorizer sees it. */
export interface Need {
  group: string;
  resource: string;
  subresource?: string;
  verb: string;
  namespace?: string;
  name?: string;
}

const label = (p: Permission) =>
  `${p.role.kind} ${p.role.namespace ? `${p.role.namespace}/` : ''}${p.role.name}: ${p.verb} ${p.group || 'core'}/${p.resource}${p.resourceNames ? ` [${p.resourceNames.join(',')}]` : ''}`;

const ignoreConflict = (e: unknown) => {
  if (!(e instanceof KubernetesApiError && e.status === 409)) throw e;
};

/** kube-apiserver's `system:basic-user` (SelfSubjectAccessReview for every authenticated user), unless the server has it. */
export async function bootstrapBasicUser(admin: KubernetesClient): Promise<void> {
  await admin
    .create(RbacTypes.ClusterRole, {
      metadata: { name: 'system:basic-user' },
      rules: [
        {
          apiGroups: ['authorization.k8s.io'],
          resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
          verbs: ['create'],
        },
      ],
    } as KubernetesResource)
    .catch(ignoreConflict);
  await admin
    .create(RbacTypes.ClusterRoleBinding, {
      metadata: { name: 'system:basic-user' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:basic-user' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }],
    } as KubernetesResource)
    .catch(ignoreConflict);
}

/**
 * Creates the generated objects (ServiceAccount, roles, bindings; namespaces first if missing).
 */
export async function applyManifests(admin: KubernetesClient, manifests: Manifest[]): Promise<void> {
  for (const m of manifests) {
    const type = RbacTypes[m.kind];
    if (!type) throw new Error(`no resource type for ${m.kind}`);
    if (m.metadata.namespace) {
      await admin
        .create(ResourceTypes.Namespace, { metadata: { name: m.metadata.namespace } })
        .catch(ignoreConflict);
    }
    await admin.create(type, JSON.parse(JSON.stringify(m)) as KubernetesResource);
  }
}

/** Every permission the roles grant, one verb on one resource each. */
export function permissionsOf(manifests: Manifest[]): Permission[] {
  const out: Permission[] = [];
  for (const m of manifests.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole')) {
    for (const rule of m['rules'] as Rule[]) {
      for (const group of rule.apiGroups)
        for (const resource of rule.resources)
          for (const verb of rule.verbs)
            out.push({
              role: { kind: m.kind, name: m.metadata.name, namespace: m.metadata.namespace },
              group,
              resource,
              verb,
              ...(rule.resourceNames ? { resourceNames: rule.resourceNames } : {}),
            });
    }
  }
  return out;
}

/**
 * What the user's successful requests needed, from the server's log. A server-side apply that
 * created its object (201) needs `create` as well as `patch` (kube-apiserver authorizes both).
 */
export function needsOf(server: KubeApiServer, user: string): Need[] {
  const records = server.requests.log.filter(
    (r: RequestRecord) =>
      r.user === user &&
      r.resource !== '' &&
      r.resource !== 'selfsubjectaccessreviews' &&
      r.code !== 401 &&
      r.code !== 403,
  );
  const needs: Need[] = [];
  const seen = new Set<string>();
  const add = (n: Need) => {
    const key = JSON.stringify(n);
    if (!seen.has(key)) needs.push(n);
    seen.add(key);
  };
  for (const r of records) {
    const base = {
      group: r.group,
      resource: r.resource,
      ...(r.subresource ? { subresource: r.subresource } : {}),
      ...(r.namespace ? { namespace: r.namespace } : {}),
      ...(r.name ? { name: r.name } : {}),
    };
    add({ ...base, verb: r.verb });
    if (r.verb === 'patch' && r.code === 201) add({ ...base, verb: 'create' });
  }
  return needs;
}

/** The user's requests the server refused with 403, as `verb group/resource[/sub] in namespace`. */
export function forbiddenOf(server: KubeApiServer, user: string): string[] {
  return server.requests.log
    .filter((r) => r.user === user && r.code === 403)
    .map(
      (r) =>
        `${r.verb} ${r.group || 'core'}/${r.resource}${r.subresource ? `/${r.subresource}` : ''} in ${r.namespace ?? '(cluster)'}`,
    );
}

function covers(p: Permission, n: Need): boolean {
  const resource = n.subresource ? `${n.resource}/${n.subresource}` : n.resource;
  return (
    p.group === n.group &&
    p.resource === resource &&
    p.verb === n.verb &&
    (p.role.namespace === undefined || p.role.namespace === n.namespace) &&
    (!p.resourceNames || (n.name !== undefined && p.resourceNames.includes(n.name)))
  );
}

/**
 * A permission granted for a choice the reconciler makes at run time, which the configuration cannot
 * show: `patch` on a controller's primary kind (`UpdateControl.patchResource`). A run need not
 * exercise it.
 */
export interface RuntimeChoice {
  group: string;
  resource: string;
  verb: string;
}

/**
 * The proof: every permission granted covers a request the operator made (none is unused), and with
 * that one permission removed from its role the server's authorizer denies that request (no other
 * rule grants it). A permission of `runtimeChoices` the run did not exercise is checked the same way
 * on the request it stands for (its verb on its resource in its role's namespace). Each role is
 * restored after its check.
 */
export async function proveEveryPermissionNeeded(
  admin: KubernetesClient,
  operatorClient: KubernetesClient,
  manifests: Manifest[],
  needs: Need[],
  runtimeChoices: RuntimeChoice[] = [],
): Promise<void> {
  const permissions = permissionsOf(manifests);
  const standsFor = (p: Permission): Need | undefined =>
    runtimeChoices.some((c) => c.group === p.group && c.resource === p.resource && c.verb === p.verb)
      ? {
          group: p.group,
          resource: p.resource,
          verb: p.verb,
          ...(p.role.namespace ? { namespace: p.role.namespace } : {}),
        }
      : undefined;
  const unused = permissions.filter((p) => !needs.some((n) => covers(p, n)) && !standsFor(p)).map(label);
  expect(unused).toEqual([]);
  for (const p of permissions) {
    const need = needs.find((n) => covers(p, n)) ?? standsFor(p)!;
    const type = RbacTypes[p.role.kind];
    const id = new ResourceID(p.role.name, p.role.namespace);
    const original = (await admin.get(type, id)) as KubernetesResource & { rules: Rule[] };
    const without = permissions
      .filter(
        (q) =>
          q.role.kind === p.role.kind && q.role.name === p.role.name && q.role.namespace === p.role.namespace,
      )
      .filter((q) => q !== p)
      .map((q) => ({
        apiGroups: [q.group],
        resources: [q.resource],
        verbs: [q.verb],
        ...(q.resourceNames ? { resourceNames: q.resourceNames } : {}),
      }));
    await admin.mergePatch(type, id, { rules: without });
    try {
      const review = await operatorClient.selfSubjectAccessReview({
        verb: need.verb,
        group: need.group,
        resource: need.resource,
        subresource: need.subresource,
        namespace: need.namespace,
        name: need.name,
      });
      expect([label(p), review.allowed]).toEqual([label(p), false]);
    } finally {
      await admin.mergePatch(type, id, { rules: original.rules });
    }
  }
}
