/**
 * List and map semantics of the built-in kinds the API server serves, taken from the Go API types
 * (`k8s.io/api` `core/v1`, `apps/v1`, `batch/v1`, `networking/v1`, `rbac/v1`, `coordination/v1`,
 * `admissionregistration/v1`, `events/v1` and `k8s.io/apimachinery` `meta/v1`): `+listType`/`+listMapKey` drive server-side apply,
 * `patchStrategy`/`patchMergeKey` drive strategic merge patch (they differ in a few places, e.g. a Job's
 * `status.conditions` and a Pod's `status.hostIPs`), `+structType=atomic`/`+mapType=atomic` make a map atomic.
 */
import type { ListInfo, PatchSchema } from '../types.js';

/** One semantic rule at a dotted path pattern (`[]` stands for a list item). */
interface Rules {
  /** Apply semantics (`listType`). */
  lists: Map<string, ListInfo>;
  /** Strategic merge semantics where they differ from `lists`. */
  strategic: Map<string, ListInfo>;
  /** Atomic maps and structs. */
  atomicMaps: Set<string>;
}

const ATOMIC: ListInfo = { type: 'atomic' };
const SET: ListInfo = { type: 'set' };
const map = (...keys: string[]): ListInfo => ({ type: 'map', keys });
const TCP = { protocol: 'TCP' } as const;

function emptyRules(): Rules {
  return { lists: new Map(), strategic: new Map(), atomicMaps: new Set() };
}

function join(prefix: string, path: string): string {
  return prefix === '' ? path : `${prefix}.${path}`;
}

/** `ObjectMeta` at `prefix` (`metadata`, or `spec.template.metadata`). */
function addObjectMeta(rules: Rules, prefix: string): void {
  rules.lists.set(join(prefix, 'finalizers'), SET);
  rules.lists.set(join(prefix, 'ownerReferences'), map('uid'));
  rules.atomicMaps.add(join(prefix, 'ownerReferences.[]'));
  rules.lists.set(join(prefix, 'managedFields'), ATOMIC);
}

/** `LabelSelector` (structType atomic). */
function addLabelSelector(rules: Rules, path: string): void {
  rules.atomicMaps.add(path);
}

/** `Container` / `EphemeralContainer` at `prefix` (a list item path ending in `[]`). */
function addContainer(rules: Rules, prefix: string): void {
  rules.lists.set(join(prefix, 'ports'), {
    type: 'map',
    keys: ['containerPort', 'protocol'],
    keyDefaults: TCP,
  });
  rules.strategic.set(join(prefix, 'ports'), map('containerPort'));
  rules.lists.set(join(prefix, 'env'), map('name'));
  for (const ref of ['configMapKeyRef', 'secretKeyRef', 'fieldRef', 'resourceFieldRef', 'fileKeyRef']) {
    rules.atomicMaps.add(join(prefix, `env.[].valueFrom.${ref}`));
  }
  rules.lists.set(join(prefix, 'volumeMounts'), map('mountPath'));
  rules.lists.set(join(prefix, 'volumeDevices'), map('devicePath'));
  rules.lists.set(join(prefix, 'resources.claims'), map('name'));
  // listType=map without a patch strategy: a strategic merge patch replaces it
  rules.strategic.set(join(prefix, 'resources.claims'), ATOMIC);
  rules.lists.set(join(prefix, 'resizePolicy'), ATOMIC);
}

/** `PodSpec` at `prefix`. */
function addPodSpec(rules: Rules, prefix: string): void {
  rules.lists.set(join(prefix, 'volumes'), map('name'));
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    rules.lists.set(join(prefix, list), map('name'));
    addContainer(rules, join(prefix, `${list}.[]`));
  }
  rules.lists.set(join(prefix, 'imagePullSecrets'), map('name'));
  rules.atomicMaps.add(join(prefix, 'imagePullSecrets.[]'));
  rules.lists.set(join(prefix, 'hostAliases'), map('ip'));
  rules.lists.set(join(prefix, 'topologySpreadConstraints'), map('topologyKey', 'whenUnsatisfiable'));
  rules.strategic.set(join(prefix, 'topologySpreadConstraints'), map('topologyKey'));
  addLabelSelector(rules, join(prefix, 'topologySpreadConstraints.[].labelSelector'));
  rules.lists.set(join(prefix, 'schedulingGates'), map('name'));
  rules.lists.set(join(prefix, 'resourceClaims'), map('name'));
  rules.atomicMaps.add(join(prefix, 'nodeSelector'));
  rules.atomicMaps.add(join(prefix, 'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution'));
  for (const volumeRef of ['secret', 'configMap'])
    rules.lists.set(join(prefix, `volumes.[].${volumeRef}.items`), ATOMIC);
}

/** The pod template of a workload (`spec.template`) and its selector. */
function addWorkload(rules: Rules): void {
  addObjectMeta(rules, 'spec.template.metadata');
  addPodSpec(rules, 'spec.template.spec');
  addLabelSelector(rules, 'spec.selector');
}

function addStatusConditions(rules: Rules): void {
  rules.lists.set('status.conditions', map('type'));
}

type Builder = (rules: Rules) => void;

const CORE: Record<string, Builder> = {
  Pod: (r) => {
    addPodSpec(r, 'spec');
    addStatusConditions(r);
    r.lists.set('status.podIPs', map('ip'));
    r.lists.set('status.hostIPs', ATOMIC);
    r.strategic.set('status.hostIPs', map('ip'));
  },
  Service: (r) => {
    r.lists.set('spec.ports', { type: 'map', keys: ['port', 'protocol'], keyDefaults: TCP });
    r.strategic.set('spec.ports', map('port'));
    r.atomicMaps.add('spec.selector');
    addStatusConditions(r);
  },
  ConfigMap: () => undefined,
  Secret: () => undefined,
  Namespace: (r) => {
    r.lists.set('spec.finalizers', ATOMIC);
    addStatusConditions(r);
  },
  ServiceAccount: (r) => {
    r.lists.set('secrets', map('name'));
    r.atomicMaps.add('secrets.[]');
    r.lists.set('imagePullSecrets', ATOMIC);
  },
  Endpoints: (r) => {
    r.lists.set('subsets', ATOMIC);
  },
  Event: (r) => {
    r.atomicMaps.add('involvedObject');
    r.atomicMaps.add('related');
  },
  PersistentVolumeClaim: (r) => {
    addLabelSelector(r, 'spec.selector');
    r.atomicMaps.add('spec.dataSource');
    addStatusConditions(r);
  },
  // a pod template as ReplicaSet's; its selector is a plain map (granular), not a LabelSelector
  ReplicationController: (r) => {
    addObjectMeta(r, 'spec.template.metadata');
    addPodSpec(r, 'spec.template.spec');
    addStatusConditions(r);
  },
  PersistentVolume: (r) => {
    // ObjectReference is a struct of map-type atomic; access modes and mount options atomic lists
    r.atomicMaps.add('spec.claimRef');
    r.lists.set('spec.accessModes', ATOMIC);
    r.lists.set('spec.mountOptions', ATOMIC);
  },
  // kubelets merge their conditions and addresses by type; pod CIDRs are a set, taints atomic
  Node: (r) => {
    r.lists.set('spec.podCIDRs', SET);
    r.lists.set('spec.taints', ATOMIC);
    r.lists.set('status.addresses', map('type'));
    addStatusConditions(r);
  },
};

// +listType=atomic on the endpoints and ports (k8s.io/api discovery/v1 types.go)
const DISCOVERY: Record<string, Builder> = {
  EndpointSlice: (r) => {
    r.lists.set('endpoints', ATOMIC);
    r.lists.set('ports', ATOMIC);
  },
};

const STORAGE: Record<string, Builder> = {
  StorageClass: (r) => {
    r.lists.set('mountOptions', ATOMIC);
    r.lists.set('allowedTopologies', ATOMIC);
  },
};

const APPS: Record<string, Builder> = {
  Deployment: (r) => {
    addWorkload(r);
    addStatusConditions(r);
  },
  StatefulSet: (r) => {
    addWorkload(r);
    r.lists.set('spec.volumeClaimTemplates', ATOMIC);
    addStatusConditions(r);
  },
  ReplicaSet: (r) => {
    addWorkload(r);
    addStatusConditions(r);
  },
  DaemonSet: (r) => {
    addWorkload(r);
    addStatusConditions(r);
  },
};

const BATCH: Record<string, Builder> = {
  CronJob: (r) => {
    addObjectMeta(r, 'spec.jobTemplate.metadata');
    addObjectMeta(r, 'spec.jobTemplate.spec.template.metadata');
    addPodSpec(r, 'spec.jobTemplate.spec.template.spec');
    addLabelSelector(r, 'spec.jobTemplate.spec.selector');
    r.lists.set('status.active', ATOMIC);
    r.atomicMaps.add('status.active.[]');
  },
  Job: (r) => {
    addWorkload(r);
    r.lists.set('status.conditions', ATOMIC);
    r.strategic.set('status.conditions', map('type'));
  },
};

const NETWORKING: Record<string, Builder> = {
  Ingress: (r) => {
    r.lists.set('spec.rules', ATOMIC);
    r.lists.set('spec.tls', ATOMIC);
    r.atomicMaps.add('spec.defaultBackend.service.port');
  },
  // +listType=atomic on the rules and policy types (k8s.io/api networking/v1 types.go)
  NetworkPolicy: (r) => {
    addLabelSelector(r, 'spec.podSelector');
    r.lists.set('spec.ingress', ATOMIC);
    r.lists.set('spec.egress', ATOMIC);
    r.lists.set('spec.policyTypes', ATOMIC);
  },
};

const POLICY: Record<string, Builder> = {
  PodDisruptionBudget: (r) => {
    addLabelSelector(r, 'spec.selector');
    addStatusConditions(r);
  },
};

const AUTOSCALING: Record<string, Builder> = {
  HorizontalPodAutoscaler: (r) => {
    r.atomicMaps.add('spec.scaleTargetRef');
    r.lists.set('spec.metrics', ATOMIC);
    r.lists.set('status.currentMetrics', ATOMIC);
    addStatusConditions(r);
  },
};

const RBAC: Record<string, Builder> = {
  Role: (r) => r.lists.set('rules', ATOMIC),
  ClusterRole: (r) => {
    r.lists.set('rules', ATOMIC);
    r.lists.set('aggregationRule.clusterRoleSelectors', ATOMIC);
  },
  RoleBinding: (r) => {
    r.lists.set('subjects', ATOMIC);
    r.atomicMaps.add('roleRef');
  },
  ClusterRoleBinding: (r) => {
    r.lists.set('subjects', ATOMIC);
    r.atomicMaps.add('roleRef');
  },
};

const COORDINATION: Record<string, Builder> = {
  Lease: () => undefined,
};

/**
 * The `webhooks` of a Validating/MutatingWebhookConfiguration: a map keyed by `name` for apply and
 * merged by `name` by a strategic merge patch (so a CA injector can patch one webhook's
 * `clientConfig.caBundle`), as are each webhook's `matchConditions`.
 */
function addWebhooks(rules: Rules): void {
  rules.lists.set('webhooks', map('name'));
  rules.lists.set('webhooks.[].matchConditions', map('name'));
  addLabelSelector(rules, 'webhooks.[].namespaceSelector');
  addLabelSelector(rules, 'webhooks.[].objectSelector');
}

const ADMISSIONREGISTRATION: Record<string, Builder> = {
  ValidatingWebhookConfiguration: addWebhooks,
  MutatingWebhookConfiguration: addWebhooks,
  ValidatingAdmissionPolicy: (r) => {
    r.atomicMaps.add('spec.paramKind');
    r.atomicMaps.add('spec.matchConstraints');
    r.lists.set('spec.matchConditions', map('name'));
    r.lists.set('spec.variables', map('name'));
    r.atomicMaps.add('spec.variables.[]');
    // listType=map without a patch strategy: a strategic merge patch replaces it
    r.lists.set('status.conditions', map('type'));
    r.strategic.set('status.conditions', ATOMIC);
  },
  ValidatingAdmissionPolicyBinding: (r) => {
    r.atomicMaps.add('spec.paramRef');
    r.atomicMaps.add('spec.matchResources');
    r.lists.set('spec.validationActions', SET);
    // listType=set without a patch strategy: a strategic merge patch replaces it
    r.strategic.set('spec.validationActions', ATOMIC);
  },
};

const EVENTS: Record<string, Builder> = {
  Event: (r) => {
    r.atomicMaps.add('regarding');
    r.atomicMaps.add('related');
  },
};

const GROUPS: Record<string, { version: string; kinds: Record<string, Builder> }> = {
  '': { version: 'v1', kinds: CORE },
  apps: { version: 'v1', kinds: APPS },
  batch: { version: 'v1', kinds: BATCH },
  'networking.k8s.io': { version: 'v1', kinds: NETWORKING },
  policy: { version: 'v1', kinds: POLICY },
  autoscaling: { version: 'v2', kinds: AUTOSCALING },
  'discovery.k8s.io': { version: 'v1', kinds: DISCOVERY },
  'storage.k8s.io': { version: 'v1', kinds: STORAGE },
  'rbac.authorization.k8s.io': { version: 'v1', kinds: RBAC },
  'coordination.k8s.io': { version: 'v1', kinds: COORDINATION },
  'admissionregistration.k8s.io': { version: 'v1', kinds: ADMISSIONREGISTRATION },
  'events.k8s.io': { version: 'v1', kinds: EVENTS },
};

/** The rules at one path of a {@link RuleSchema}'s tree, and the paths below it by field name. */
interface RuleNode {
  readonly children: Map<string, RuleNode>;
  list?: ListInfo;
  strategic?: ListInfo;
  atomicMap?: true;
}

function ruleNode(): RuleNode {
  return { children: new Map() };
}

class RuleSchema implements PatchSchema {
  /**
   * The rules as a tree of path segments: a lookup walks the path's segments (the walks ask at every
   * list and map node of every write) instead of joining them into a new string per question.
   */
  private readonly root = ruleNode();

  constructor(rules: Rules) {
    for (const [k, v] of rules.lists) this.at(k).list = v;
    for (const [k, v] of rules.strategic) this.at(k).strategic = v;
    for (const k of rules.atomicMaps) this.at(k).atomicMap = true;
  }

  private at(dotted: string): RuleNode {
    let n = this.root;
    for (const seg of dotted.split('.')) {
      let c = n.children.get(seg);
      if (c === undefined) n.children.set(seg, (c = ruleNode()));
      n = c;
    }
    return n;
  }

  private find(path: readonly string[]): RuleNode | undefined {
    let n: RuleNode | undefined = this.root;
    for (let i = 0; i < path.length && n !== undefined; i++) n = n.children.get(path[i]);
    return n;
  }

  listInfo(path: readonly string[]): ListInfo | undefined {
    return this.find(path)?.list;
  }

  strategicListInfo(path: readonly string[]): ListInfo | undefined {
    const n = this.find(path);
    return n?.strategic ?? n?.list;
  }

  isAtomicMap(path: readonly string[]): boolean {
    return this.find(path)?.atomicMap === true;
  }
}

const cache = new Map<string, PatchSchema>();

/**
 * The patch strategies of a built-in kind: core/v1 Pod, Service, ConfigMap, Secret, Namespace,
 * ServiceAccount, Endpoints, Event, PersistentVolumeClaim, ReplicationController, PersistentVolume, Node; apps/v1 Deployment, StatefulSet, ReplicaSet,
 * DaemonSet; batch/v1 Job, CronJob; networking.k8s.io/v1 Ingress, NetworkPolicy; policy/v1
 * PodDisruptionBudget; autoscaling/v2 HorizontalPodAutoscaler; discovery.k8s.io/v1 EndpointSlice;
 * storage.k8s.io/v1 StorageClass; rbac.authorization.k8s.io/v1 Role, ClusterRole,
 * RoleBinding, ClusterRoleBinding; coordination.k8s.io/v1 Lease; admissionregistration.k8s.io/v1
 * ValidatingWebhookConfiguration, MutatingWebhookConfiguration, ValidatingAdmissionPolicy,
 * ValidatingAdmissionPolicyBinding; events.k8s.io/v1 Event. Every built-in kind also gets the
 * `ObjectMeta` rules (`metadata.finalizers` a set, `metadata.ownerReferences` a map keyed by `uid`,
 * `metadata.managedFields` atomic).
 *
 * An unknown group/version/kind gets a schema where every list is atomic (replaced by a strategic merge
 * patch) and every map granular; use {@link withObjectMetaSemantics} to add the `ObjectMeta` rules to it.
 *
 * @param group - the API group (`''` for core).
 * @param version - the API version (`v1`).
 * @param kind - the kind (`Deployment`).
 */
export function builtinPatchSchema(group: string, version: string, kind: string): PatchSchema {
  const id = `${group}/${version}/${kind}`;
  const cached = cache.get(id);
  if (cached !== undefined) return cached;
  const entry = Object.hasOwn(GROUPS, group) ? GROUPS[group] : undefined;
  const build =
    entry !== undefined && entry.version === version && Object.hasOwn(entry.kinds, kind)
      ? entry.kinds[kind]
      : undefined;
  const rules = emptyRules();
  if (build !== undefined) {
    addObjectMeta(rules, 'metadata');
    build(rules);
  }
  const schema = new RuleSchema(rules);
  cache.set(id, schema);
  return schema;
}

/**
 * Wraps `schema` so that `metadata` follows `ObjectMeta`'s rules (finalizers a set, ownerReferences a
 * map keyed by `uid` with atomic items, managedFields atomic), as kube-apiserver does for every kind,
 * custom resources included; everything else is answered by `schema`.
 *
 * @param schema - the kind's own schema (e.g. from a CRD's structural schema).
 */
export function withObjectMetaSemantics(schema: PatchSchema): PatchSchema {
  const meta = emptyRules();
  addObjectMeta(meta, 'metadata');
  const own = new RuleSchema(meta);
  return {
    listInfo: (path) => own.listInfo(path) ?? schema.listInfo(path),
    strategicListInfo: (path) =>
      own.strategicListInfo(path) ?? schema.strategicListInfo?.(path) ?? schema.listInfo(path),
    isAtomicMap: (path) => own.isAtomicMap(path) || (schema.isAtomicMap?.(path) ?? false),
  };
}
