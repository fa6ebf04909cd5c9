import type { JsonObject, PatchSchema } from '../../types.js';
import type { NameRule, ResourceType, TableColumn } from './resource-type.js';
import { age } from '../encoding/table.js';
import {
  BINDING_COLUMNS,
  CREATED_AT_COLUMNS,
  CRONJOB_COLUMNS,
  DAEMON_SET_COLUMNS,
  ENDPOINTS_COLUMNS,
  EVENT_COLUMNS,
  HORIZONTAL_POD_AUTOSCALER_COLUMNS,
  INGRESS_COLUMNS,
  JOB_COLUMNS,
  NETWORK_POLICY_COLUMNS,
  PERSISTENT_VOLUME_CLAIM_COLUMNS,
  PERSISTENT_VOLUME_COLUMNS,
  POD_DISRUPTION_BUDGET_COLUMNS,
  REPLICATION_CONTROLLER_COLUMNS,
} from './table-columns.js';
import {
  ENDPOINT_SLICE_COLUMNS,
  NODE_COLUMNS,
  PRIORITY_CLASS_COLUMNS,
  RESOURCE_QUOTA_COLUMNS,
  STORAGE_CLASS_COLUMNS,
} from './infrastructure-columns.js';

/** Built-ins with a scale subresource. */
const SCALABLE = new Set([
  'apps/deployments',
  'apps/statefulsets',
  'apps/replicasets',
  '/replicationcontrollers',
]);

const ALL_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
] as const;

function get(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function str(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const AGE: TableColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  value: (o) => age(get(o, 'metadata.creationTimestamp')),
};

function col(name: string, type: string, value: (o: JsonObject) => unknown, priority = 0): TableColumn {
  return { name, type, value, priority, description: name };
}

function count(v: unknown): number {
  return v && typeof v === 'object' ? Object.keys(v).length : 0;
}

function readyOf(o: JsonObject): string {
  return `${Number(get(o, 'status.readyReplicas') ?? 0)}/${Number(get(o, 'spec.replicas') ?? 0)}`;
}

function images(o: JsonObject, field: 'name' | 'image'): string {
  const cs = get(o, 'spec.template.spec.containers');
  return Array.isArray(cs) ? cs.map((c) => str((c as JsonObject)[field]) ?? '').join(',') : '';
}

function selectorString(o: JsonObject): string {
  const ml = get(o, 'spec.selector.matchLabels');
  if (!ml || typeof ml !== 'object') return '';
  return Object.entries(ml as Record<string, unknown>)
    .map(([k, v]) => `${k}=${str(v) ?? ''}`)
    .join(',');
}

function podReady(o: JsonObject): string {
  const cs = get(o, 'spec.containers');
  const st = get(o, 'status.containerStatuses');
  const total = Array.isArray(cs) ? cs.length : 0;
  const ready = Array.isArray(st) ? st.filter((s) => (s as JsonObject).ready === true).length : 0;
  return `${ready}/${total}`;
}

function podRestarts(o: JsonObject): number {
  const st = get(o, 'status.containerStatuses');
  return Array.isArray(st)
    ? st.reduce((n: number, s) => n + Number((s as JsonObject).restartCount ?? 0), 0)
    : 0;
}

function servicePorts(o: JsonObject): string {
  const ps = get(o, 'spec.ports');
  if (!Array.isArray(ps) || ps.length === 0) return '<none>';
  return ps
    .map((p) => `${str((p as JsonObject).port) ?? ''}/${str((p as JsonObject).protocol) ?? 'TCP'}`)
    .join(',');
}

/** Field selectors a built-in kind accepts beyond metadata.name and metadata.namespace. */
const FIELD_SELECTORS: Record<string, readonly string[]> = {
  '/pods': [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.podIPs',
    'status.nominatedNodeName',
    // what old v1 clients send for spec.nodeName
    'spec.host',
  ],
  '/services': ['spec.clusterIP', 'spec.type'],
  '/events': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  'events.k8s.io/events': [
    'regarding.kind',
    'regarding.namespace',
    'regarding.name',
    'regarding.uid',
    'regarding.apiVersion',
    'regarding.resourceVersion',
    'regarding.fieldPath',
    'reason',
    'reportingController',
    'type',
  ],
  '/secrets': ['type'],
  '/namespaces': ['status.phase'],
  '/nodes': ['spec.unschedulable'],
  'apps/replicasets': ['status.replicas'],
  'batch/jobs': ['status.successful'],
};

function fieldValue(obj: JsonObject, field: string): string | undefined {
  // an Event written the events.k8s.io way has no source.component: its reporting controller
  // (reportingComponent in core/v1) is its source
  if (field === 'source') return str(get(obj, 'source.component')) || str(get(obj, 'reportingComponent'));
  if (field === 'spec.host') return fieldValue(obj, 'spec.nodeName');
  // accepted by the pod's field label conversion but not among its selectable fields: always ""
  if (field === 'status.podIPs') return '';
  // int32 fields, formatted as integers (0 when unset): a Job's successful count is status.succeeded
  if (field === 'status.successful') return String(Number(get(obj, 'status.succeeded') ?? 0));
  if (field === 'status.replicas') return String(Number(get(obj, 'status.replicas') ?? 0));
  if (field === 'spec.hostNetwork') return String(get(obj, 'spec.hostNetwork') === true);
  if (field === 'spec.unschedulable') return String(get(obj, 'spec.unschedulable') === true);
  const v = get(obj, field);
  return v === undefined ? '' : str(v);
}

interface Def {
  group: string;
  version: string;
  kind: string;
  plural: string;
  short?: string[];
  cats?: string[];
  cluster?: boolean;
  status?: boolean;
  verbs?: readonly string[];
  name?: NameRule;
  columns?: TableColumn[];
  /** false when the kind's Table has no leading Name column (core/v1 Event). */
  nameColumn?: false;
  virtual?: boolean;
}

const DEFS: Def[] = [
  {
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    short: ['ns'],
    cluster: true,
    status: true,
    name: 'label',
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    columns: [col('Status', 'string', (o) => get(o, 'status.phase') ?? 'Active'), AGE],
  },
  {
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    short: ['cm'],
    columns: [col('Data', 'string', (o) => count(o.data) + count(o.binaryData)), AGE],
  },
  {
    group: '',
    version: 'v1',
    kind: 'Secret',
    plural: 'secrets',
    columns: [
      col('Type', 'string', (o) => o.type ?? 'Opaque'),
      col('Data', 'string', (o) => count(o.data)),
      AGE,
    ],
  },
  {
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    short: ['svc'],
    cats: ['all'],
    status: true,
    name: 'label',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    columns: [
      col('Type', 'string', (o) => get(o, 'spec.type') ?? 'ClusterIP'),
      col('Cluster-IP', 'string', (o) => get(o, 'spec.clusterIP') ?? '<none>'),
      col(
        'External-IP',
        'string',
        (o) => (get(o, 'spec.externalIPs') as string[] | undefined)?.join(',') ?? '<none>',
      ),
      col('Port(s)', 'string', servicePorts),
      AGE,
      col('Selector', 'string', (o) => selectorOfService(o), 1),
    ],
  },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', short: ['sa'] },
  {
    group: '',
    version: 'v1',
    kind: 'Pod',
    plural: 'pods',
    short: ['po'],
    cats: ['all'],
    status: true,
    columns: [
      col('Ready', 'string', podReady),
      col('Status', 'string', (o) => get(o, 'status.phase') ?? 'Pending'),
      col('Restarts', 'string', podRestarts),
      AGE,
      col('IP', 'string', (o) => get(o, 'status.podIP') ?? '<none>', 1),
      col('Node', 'string', (o) => get(o, 'spec.nodeName') ?? '<none>', 1),
    ],
  },
  {
    group: '',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    short: ['ev'],
    columns: [...EVENT_COLUMNS],
    nameColumn: false,
  },
  {
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    short: ['pvc'],
    status: true,
    columns: [...PERSISTENT_VOLUME_CLAIM_COLUMNS],
  },
  {
    group: '',
    version: 'v1',
    kind: 'Endpoints',
    plural: 'endpoints',
    short: ['ep'],
    columns: [...ENDPOINTS_COLUMNS],
  },
  {
    group: '',
    version: 'v1',
    kind: 'ReplicationController',
    plural: 'replicationcontrollers',
    short: ['rc'],
    cats: ['all'],
    status: true,
    columns: [...REPLICATION_CONTROLLER_COLUMNS],
  },
  {
    group: '',
    version: 'v1',
    kind: 'PersistentVolume',
    plural: 'persistentvolumes',
    short: ['pv'],
    cluster: true,
    status: true,
    columns: [...PERSISTENT_VOLUME_COLUMNS],
  },
  {
    group: '',
    version: 'v1',
    kind: 'Node',
    plural: 'nodes',
    short: ['no'],
    cluster: true,
    status: true,
    columns: [...NODE_COLUMNS],
  },
  {
    group: '',
    version: 'v1',
    kind: 'ResourceQuota',
    plural: 'resourcequotas',
    short: ['quota'],
    status: true,
    columns: [...RESOURCE_QUOTA_COLUMNS],
  },
  {
    group: '',
    version: 'v1',
    kind: 'LimitRange',
    plural: 'limitranges',
    short: ['limits'],
    columns: [...CREATED_AT_COLUMNS],
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    short: ['deploy'],
    cats: ['all'],
    status: true,
    columns: [
      col('Ready', 'string', readyOf),
      col('Up-to-date', 'integer', (o) => Number(get(o, 'status.updatedReplicas') ?? 0)),
      col('Available', 'integer', (o) => Number(get(o, 'status.availableReplicas') ?? 0)),
      AGE,
      col('Containers', 'string', (o) => images(o, 'name'), 1),
      col('Images', 'string', (o) => images(o, 'image'), 1),
      col('Selector', 'string', selectorString, 1),
    ],
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    short: ['sts'],
    cats: ['all'],
    status: true,
    columns: [col('Ready', 'string', readyOf), AGE],
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    plural: 'replicasets',
    short: ['rs'],
    cats: ['all'],
    status: true,
    columns: [
      col('Desired', 'integer', (o) => Number(get(o, 'spec.replicas') ?? 0)),
      col('Current', 'integer', (o) => Number(get(o, 'status.replicas') ?? 0)),
      col('Ready', 'integer', (o) => Number(get(o, 'status.readyReplicas') ?? 0)),
      AGE,
    ],
  },
  {
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    plural: 'daemonsets',
    short: ['ds'],
    cats: ['all'],
    status: true,
    columns: [...DAEMON_SET_COLUMNS],
  },
  {
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    plural: 'jobs',
    cats: ['all'],
    status: true,
    columns: [...JOB_COLUMNS],
  },
  {
    group: 'batch',
    version: 'v1',
    kind: 'CronJob',
    plural: 'cronjobs',
    short: ['cj'],
    cats: ['all'],
    status: true,
    columns: [...CRONJOB_COLUMNS],
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'Ingress',
    plural: 'ingresses',
    short: ['ing'],
    status: true,
    columns: [...INGRESS_COLUMNS],
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'NetworkPolicy',
    plural: 'networkpolicies',
    short: ['netpol'],
    columns: [...NETWORK_POLICY_COLUMNS],
  },
  {
    group: 'discovery.k8s.io',
    version: 'v1',
    kind: 'EndpointSlice',
    plural: 'endpointslices',
    columns: [...ENDPOINT_SLICE_COLUMNS],
  },
  {
    group: 'storage.k8s.io',
    version: 'v1',
    kind: 'StorageClass',
    plural: 'storageclasses',
    short: ['sc'],
    cluster: true,
    columns: [...STORAGE_CLASS_COLUMNS],
    nameColumn: false,
  },
  {
    group: 'scheduling.k8s.io',
    version: 'v1',
    kind: 'PriorityClass',
    plural: 'priorityclasses',
    short: ['pc'],
    cluster: true,
    columns: [...PRIORITY_CLASS_COLUMNS],
  },
  {
    group: 'policy',
    version: 'v1',
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    short: ['pdb'],
    status: true,
    columns: [...POD_DISRUPTION_BUDGET_COLUMNS],
  },
  {
    group: 'autoscaling',
    version: 'v2',
    kind: 'HorizontalPodAutoscaler',
    plural: 'horizontalpodautoscalers',
    short: ['hpa'],
    cats: ['all'],
    status: true,
    columns: [...HORIZONTAL_POD_AUTOSCALER_COLUMNS],
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    plural: 'leases',
    columns: [col('Holder', 'string', (o) => get(o, 'spec.holderIdentity') ?? ''), AGE],
  },
  { group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', short: ['ev'] },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'Role',
    plural: 'roles',
    name: 'path',
    columns: [...CREATED_AT_COLUMNS],
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    cluster: true,
    name: 'path',
    columns: [...CREATED_AT_COLUMNS],
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'RoleBinding',
    plural: 'rolebindings',
    name: 'path',
    columns: [...BINDING_COLUMNS],
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    cluster: true,
    name: 'path',
    columns: [...BINDING_COLUMNS],
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectAccessReview',
    plural: 'selfsubjectaccessreviews',
    cluster: true,
    verbs: ['create'],
    virtual: true,
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectRulesReview',
    plural: 'selfsubjectrulesreviews',
    cluster: true,
    verbs: ['create'],
    virtual: true,
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SubjectAccessReview',
    plural: 'subjectaccessreviews',
    cluster: true,
    verbs: ['create'],
    virtual: true,
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'LocalSubjectAccessReview',
    plural: 'localsubjectaccessreviews',
    verbs: ['create'],
    virtual: true,
  },
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectReview',
    plural: 'selfsubjectreviews',
    cluster: true,
    verbs: ['create'],
    virtual: true,
  },
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'TokenReview',
    plural: 'tokenreviews',
    cluster: true,
    verbs: ['create'],
    virtual: true,
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingWebhookConfiguration',
    plural: 'validatingwebhookconfigurations',
    cats: ['api-extensions'],
    cluster: true,
    columns: [webhooksColumn(), AGE],
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'MutatingWebhookConfiguration',
    plural: 'mutatingwebhookconfigurations',
    cats: ['api-extensions'],
    cluster: true,
    columns: [webhooksColumn(), AGE],
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingAdmissionPolicy',
    plural: 'validatingadmissionpolicies',
    cats: ['api-extensions'],
    cluster: true,
    status: true,
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    plural: 'validatingadmissionpolicybindings',
    cats: ['api-extensions'],
    cluster: true,
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    short: ['crd', 'crds'],
    cats: ['api-extensions'],
    cluster: true,
    status: true,
    columns: [col('Created At', 'date', (o) => get(o, 'metadata.creationTimestamp'))],
  },
];

/** The WEBHOOKS column of the webhook configuration kinds: how many webhooks the object lists. */
function webhooksColumn(): TableColumn {
  return col('Webhooks', 'integer', (o) => {
    const hooks = get(o, 'webhooks');
    return Array.isArray(hooks) ? hooks.length : 0;
  });
}

function selectorOfService(o: JsonObject): string {
  const s = get(o, 'spec.selector');
  if (!s || typeof s !== 'object') return '<none>';
  return Object.entries(s as Record<string, unknown>)
    .map(([k, v]) => `${k}=${str(v) ?? ''}`)
    .join(',');
}

/** The built-in resources; `schemaOf` gives the strategic-merge/apply schema of a kind. */
export function builtinResources(
  schemaOf: (group: string, version: string, kind: string) => PatchSchema,
): ResourceType[] {
  return DEFS.map((d) => {
    const key = `${d.group}/${d.plural}`;
    const selectable = FIELD_SELECTORS[key] ?? [];
    return {
      group: d.group,
      preferredVersion: d.version,
      versions: [
        {
          name: d.version,
          served: true,
          storage: true,
          statusSubresource: d.status === true,
          patchSchema: schemaOf(d.group, d.version, d.kind),
          selectableFields: selectable,
          fieldValue,
          ...(SCALABLE.has(key)
            ? {
                scale: {
                  specReplicasPath: '.spec.replicas',
                  statusReplicasPath: '.status.replicas',
                  labelSelectorPath: '.spec.selector',
                  ...(key === '/replicationcontrollers' ? { selectorIsLabelSet: true } : {}),
                },
              }
            : {}),
        },
      ],
      kind: d.kind,
      listKind: `${d.kind}List`,
      plural: d.plural,
      singular: d.kind.toLowerCase(),
      shortNames: d.short ?? [],
      categories: d.cats ?? [],
      namespaced: d.cluster !== true,
      verbs: d.verbs ?? ALL_VERBS,
      nameRule: d.name ?? 'subdomain',
      virtual: d.virtual === true,
      columns: d.columns ?? [AGE],
      ...(d.nameColumn === false ? { nameColumn: false } : {}),
      strategicMerge: true,
    } satisfies ResourceType;
  });
}
