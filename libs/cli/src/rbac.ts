import type { RbacRule, ResourceType } from '@tosdk/core';
import type { TosdkConfig } from './config.js';
import type { AppModel, Namespaces } from './introspect.js';

/** A Kubernetes object as generated (plain JSON). */
export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
} & Record<string, unknown>;

const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const CLUSTER = '';
/** Built-in kinds without a status subresource (a custom kind declared without a schema is assumed to have one). */
const NO_STATUS = new Set([
  'ConfigMap',
  'Secret',
  'ServiceAccount',
  'Event',
  'Lease',
  'Endpoints',
  'EndpointSlice',
  'Role',
  'RoleBinding',
  'ClusterRole',
  'ClusterRoleBinding',
  'PriorityClass',
  'StorageClass',
]);

/**
 * Built-in cluster-scoped resources (`group|plural`): an `@RbacRules` rule on them goes to the
 * ClusterRole, since a Role cannot grant them.
 */
const CLUSTER_SCOPED = new Set([
  '|nodes',
  '|namespaces',
  '|persistentvolumes',
  '|componentstatuses',
  'rbac.authorization.k8s.io|clusterroles',
  'rbac.authorization.k8s.io|clusterrolebindings',
  'apiextensions.k8s.io|customresourcedefinitions',
  'apiregistration.k8s.io|apiservices',
  'admissionregistration.k8s.io|mutatingwebhookconfigurations',
  'admissionregistration.k8s.io|validatingwebhookconfigurations',
  'admissionregistration.k8s.io|validatingadmissionpolicies',
  'admissionregistration.k8s.io|validatingadmissionpolicybindings',
  'storage.k8s.io|storageclasses',
  'storage.k8s.io|csidrivers',
  'storage.k8s.io|csinodes',
  'storage.k8s.io|volumeattachments',
  'scheduling.k8s.io|priorityclasses',
  'node.k8s.io|runtimeclasses',
  'networking.k8s.io|ingressclasses',
  'certificates.k8s.io|certificatesigningrequests',
  'authentication.k8s.io|tokenreviews',
  'authorization.k8s.io|subjectaccessreviews',
  'authorization.k8s.io|selfsubjectaccessreviews',
  'authorization.k8s.io|selfsubjectrulesreviews',
  'flowcontrol.apiserver.k8s.io|flowschemas',
  'flowcontrol.apiserver.k8s.io|prioritylevelconfigurations',
]);

/** Permissions by scope (`''` for the cluster, else a namespace), then by `group|resource|names`. */
export class Grants {
  readonly byScope = new Map<string, Map<string, Set<string>>>();

  add(
    where: Namespaces | 'cluster',
    group: string,
    resource: string,
    verbs: string[],
    names: string[] = [],
  ): void {
    const scopes = where === 'cluster' || where === 'all' ? [CLUSTER] : where;
    for (const scope of scopes) {
      const rules = this.byScope.get(scope) ?? new Map<string, Set<string>>();
      this.byScope.set(scope, rules);
      const key = `${group}|${resource}|${[...names].sort().join(',')}`;
      const set = rules.get(key) ?? new Set<string>();
      for (const v of verbs) set.add(v);
      rules.set(key, set);
    }
  }

  addType(where: Namespaces, type: ResourceType, verbs: string[], subresource?: string): void {
    const resource = subresource ? `${type.plural}/${subresource}` : type.plural;
    this.add(type.namespaced ? where : 'cluster', type.group, resource, verbs);
  }

  /** Drops namespace grants the cluster scope already holds, and empty scopes. */
  normalize(): void {
    const cluster = this.byScope.get(CLUSTER);
    for (const [scope, rules] of this.byScope) {
      if (scope === CLUSTER || !cluster) continue;
      for (const [key, verbs] of rules) {
        const covered = cluster.get(key);
        if (covered) for (const v of covered) verbs.delete(v);
        if (verbs.size === 0) rules.delete(key);
      }
      if (rules.size === 0) this.byScope.delete(scope);
    }
  }
}

/** Rules of one scope: resources with the same group, verbs and names share a rule; sorted for stable output. */
export function rulesOf(grants: Map<string, Set<string>>): RbacRule[] {
  const merged = new Map<string, RbacRule>();
  const sortedKeys = [...grants.keys()].sort();
  for (const key of sortedKeys) {
    const [group, resource, names] = key.split('|');
    const verbs = [...grants.get(key)!].sort((a, b) => VERB_ORDER.indexOf(a) - VERB_ORDER.indexOf(b));
    const mergeKey = `${group}|${verbs.join(',')}|${names}`;
    const existing = merged.get(mergeKey);
    if (existing) {
      existing.resources.push(resource);
    } else {
      const rule: RbacRule = { apiGroups: [group], resources: [resource], verbs };
      if (names) rule.resourceNames = names.split(',');
      merged.set(mergeKey, rule);
    }
  }
  return [...merged.values()];
}

/**
 * Whether leader election is on: configured, the loaded app's Operator built with it, or more than
 * one replica without sharding (sharded replicas split the work instead of standing by).
 */
export function leaderElectionOn(config: TosdkConfig, app?: AppModel): boolean {
  if (config.leaderElection !== undefined || app?.leaderElection !== undefined) return true;
  return (config.deployment?.replicas ?? 1) > 1 && !shardingOn(config, app);
}

/** Whether sharding is on: set in the configuration, or the loaded app's Operator was built with it. */
export function shardingOn(config: TosdkConfig, app?: AppModel): boolean {
  return config.sharding !== undefined || app?.sharding !== undefined;
}

/** The namespace of the sharding membership Leases: the one configured or given by the app, else the operator's. */
export function shardingLeaseNamespace(config: TosdkConfig, app?: AppModel): string {
  return config.sharding?.leaseNamespace ?? app?.sharding?.leaseNamespace ?? config.namespace;
}

/**
 * The rules of the sharding Role, exactly what a replica's `ShardMembership` calls: `create` (its
 * Lease on joining), `get` and `update` (renewal and acknowledgement; get after a conflict),
 * `list` and `watch` (the group's Leases by label), `delete` (its own Lease when it leaves). Lease
 * names are `<group>-<pod name>`, unknown in advance, so they are not restricted by name.
 */
export function shardingLeaseRules(): RbacRule[] {
  return [
    {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
    },
  ];
}

/**
 * The namespace of the leader election lease: the one configured or given by the app's Operator,
 * else the operator's (undefined: the Helm chart's release namespace).
 */
export function leaderElectionLeaseNamespace(config: TosdkConfig, app?: AppModel): string | undefined {
  return config.leaderElection?.leaseNamespace ?? app?.leaderElection?.leaseNamespace;
}

/**
 * The rules of the leader election Role: get, create, update on leases (get and update restricted to
 * the lease when its name is configured, or given by the app's Operator).
 */
export function leaseRules(config: TosdkConfig, app?: AppModel): RbacRule[] {
  const lease = config.leaderElection?.leaseName ?? app?.leaderElection?.leaseName;
  const group = { apiGroups: ['coordination.k8s.io'], resources: ['leases'] };
  return lease
    ? [
        { ...group, verbs: ['create'] },
        { ...group, verbs: ['get', 'update'], resourceNames: [lease] },
      ]
    : [{ ...group, verbs: ['get', 'create', 'update'] }];
}

/**
 * The permissions the app's controllers need, computed from their configuration:
 * - primary kind: list and watch in the watched namespaces; patch of the status subresource (status
 *   updates); patch of the object, always: the finalizer of a Cleaner (or of a workflow deleting
 *   dependents itself) is added and removed with it, and a reconciler may return
 *   `UpdateControl.patchResource` (a choice made at run time, which the configuration does not show;
 *   QOSDK grants it too); get with a finalizer: its guarded JSON patch re-reads the object after a
 *   conflict, as JOSDK's `conflictRetryingPatch` does;
 * - each event source's kind: list and watch in its namespaces (the controller's, `namespacesOverride`
 *   when given, for a source following them), and get for a source with a bounded
 *   cache (it fetches the objects it evicted one by one);
 * - each managed dependent's kind, by how it writes: with server-side apply (the default), create
 *   and patch for a Creator (an apply creates), patch for an Updater; without (`useSSA: false`),
 *   create for a Creator and update for an Updater; with `createOnlyIfMissing: true`, a Creator
 *   creates plainly and gets the object when its name is taken; delete for a Deleter the workflow
 *   deletes (not garbage collected, or with a reconcile precondition or activation condition);
 * - Events (create, patch) where primaries live, when reconcile errors are recorded;
 * - `@RbacRules` of the reconciler, in the watched namespaces; a rule on a cluster-scoped resource
 *   (`clusterScoped: true`, a built-in one such as `nodes`, or one of the app's kinds with
 *   `scope: 'Cluster'`) cluster-wide, since a Role cannot grant it.
 */
export function computeGrants(app: AppModel, namespacesOverride?: readonly string[]): Grants {
  const grants = new Grants();
  // the app's own cluster-scoped kinds, for @RbacRules naming them
  const clusterKinds = new Set(
    app.controllers
      .flatMap((c) => [
        c.configuration.resourceType,
        ...c.watched.map((w) => w.type),
        ...c.dependents.map((d) => d.type),
      ])
      .filter((t) => !t.namespaced)
      .map((t) => `${t.group}|${t.plural}`),
  );
  for (const c of app.controllers) {
    const cfg = c.configuration;
    const type = cfg.resourceType;
    // the chart's watchNamespaces restrict controllers of namespaced kinds only (it sets no namespaces
    // for the others, which core would refuse), so a cluster-scoped controller's sources keep theirs
    const override = type.namespaced ? namespacesOverride : undefined;
    const ns: Namespaces = override ?? (cfg.namespaces.length === 0 ? 'all' : cfg.namespaces);
    grants.addType(ns, type, ['list', 'watch']);
    const hasStatus = type.definition
      ? (type.definition.version.statusSubresource ?? type.definition.schema.status !== undefined)
      : !(type.group === '' || type.group.endsWith('.k8s.io')) || !NO_STATUS.has(type.kind);
    if (hasStatus) grants.addType(ns, type, ['patch'], 'status');
    // patchResource/patchResourceAndStatus and the finalizer: both patch the primary; the finalizer's
    // guarded JSON patch reads the object again after a conflict (a get)
    grants.addType(ns, type, c.usesFinalizer ? ['get', 'patch'] : ['patch']);
    for (const w of c.watched)
      grants.addType(
        (w.followsController ?? true) ? (override ?? w.namespaces) : w.namespaces,
        w.type,
        w.fetches ? ['get', 'list', 'watch'] : ['list', 'watch'],
      );
    for (const d of c.dependents) {
      const ssa = d.ssa ?? true;
      const verbs = [
        // server-side apply creates with a patch (which needs create too); createOnlyIfMissing and
        // non-SSA dependents create plainly, the former reading the object when its name is taken
        ...(d.create ? ['create', ...(ssa && !d.createOnlyIfMissing ? ['patch'] : [])] : []),
        ...(d.create && d.createOnlyIfMissing ? ['get'] : []),
        ...(d.update ? [ssa ? 'patch' : 'update'] : []),
        ...(d.delete ? ['delete'] : []),
      ];
      if (verbs.length) grants.addType(ns, d.type, verbs);
    }
    if (cfg.recordReconcileErrorEvents)
      grants.add(type.namespaced ? ns : 'all', '', 'events', ['create', 'patch']);
    for (const rule of c.extraRules) {
      for (const group of rule.apiGroups)
        for (const resource of rule.resources) {
          const key = `${group}|${resource.split('/')[0]}`;
          const cluster = rule.clusterScoped ?? (CLUSTER_SCOPED.has(key) || clusterKinds.has(key));
          grants.add(cluster ? 'cluster' : ns, group, resource, rule.verbs, rule.resourceNames);
        }
    }
  }
  grants.normalize();
  return grants;
}

/**
 * The ServiceAccount, roles and bindings of `tosdk generate rbac`: a ClusterRole for what is needed
 * in every namespace (or on cluster-scoped kinds), a Role per watched namespace otherwise, a Role
 * for the leader election lease in the operator's namespace (with leader election), and a Role
 * `<name>-shards` for the membership Leases in their namespace (with sharding).
 */
export function rbacManifests(app: AppModel, config: TosdkConfig): Manifest[] {
  const labels = config.labels ?? { 'app.kubernetes.io/name': config.name };
  const subject = { kind: 'ServiceAccount', name: config.name, namespace: config.namespace };
  const out: Manifest[] = [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: config.name, namespace: config.namespace, labels },
    },
  ];
  const grants = computeGrants(app);
  const bind = (
    kind: 'Role' | 'ClusterRole',
    name: string,
    namespace: string | undefined,
    rules: RbacRule[],
  ) => {
    const meta = (n: string) => (namespace ? { name: n, namespace, labels } : { name: n, labels });
    out.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: meta(name), rules });
    out.push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: `${kind}Binding`,
      metadata: meta(name),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name },
      subjects: [subject],
    });
  };
  const cluster = grants.byScope.get(CLUSTER);
  if (cluster) bind('ClusterRole', config.name, undefined, rulesOf(cluster));
  for (const scope of [...grants.byScope.keys()].filter((s) => s !== CLUSTER).sort()) {
    bind('Role', config.name, scope, rulesOf(grants.byScope.get(scope)!));
  }
  if (leaderElectionOn(config, app))
    bind(
      'Role',
      `${config.name}-leader-election`,
      leaderElectionLeaseNamespace(config, app) ?? config.namespace,
      leaseRules(config, app),
    );
  if (shardingOn(config, app))
    bind('Role', `${config.name}-shards`, shardingLeaseNamespace(config, app), shardingLeaseRules());
  return out;
}
