import type { JsonObject } from '../../types.js';
import type { TableColumn } from './resource-type.js';
import { age, humanDuration } from '../encoding/table.js';

/**
 * Table columns of built-in kinds whose kube-apiserver printers differ from the usual
 * `Name ... Age` shape (pkg/printers/internalversion/printers.go, and the default table
 * convertor for kinds it has no printer for).
 */

/** The value at `path` in `obj`; undefined where the path leaves the object. */
export function field(obj: unknown, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/** The string or number at `path`, as text; `''` for anything else. */
export function text(obj: unknown, ...path: string[]): string {
  const v = field(obj, path);
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

function column(name: string, value: (o: JsonObject) => unknown, priority = 0): TableColumn {
  return { name, type: 'string', description: name, priority, value };
}

/** An Event's First Seen: `firstTimestamp`, else `eventTime` (as printEvent). */
function firstSeen(o: JsonObject): string {
  return text(o, 'firstTimestamp') !== '' ? age(o.firstTimestamp) : age(o.eventTime);
}

/** An Event's Last Seen: the series' last observation, else `lastTimestamp`, else First Seen. */
function lastSeen(o: JsonObject): string {
  if (isSeries(o)) return age(field(o, ['series', 'lastObservedTime']));
  return text(o, 'lastTimestamp') !== '' ? age(o.lastTimestamp) : firstSeen(o);
}

function isSeries(o: JsonObject): boolean {
  return o.series !== null && typeof o.series === 'object';
}

/** `kind/name` of the involved object, the kind lower-cased; the kind alone without a name. */
function target(o: JsonObject): string {
  const kind = text(o, 'involvedObject', 'kind').toLowerCase();
  const name = text(o, 'involvedObject', 'name');
  return name === '' ? kind : `${kind}/${name}`;
}

/** `component, instance` from `source`, falling back to the reporting controller and instance. */
function eventSource(o: JsonObject): string {
  const component = text(o, 'source', 'component') || text(o, 'reportingComponent');
  const instance = text(o, 'source', 'host') || text(o, 'reportingInstance');
  return instance === '' ? component : `${component}, ${instance}`;
}

function eventCount(o: JsonObject): number {
  const n = Number(isSeries(o) ? field(o, ['series', 'count']) : o.count);
  return Number.isFinite(n) && n !== 0 ? n : 1;
}

/**
 * core/v1 Event: Last Seen, Type, Reason, Object, Message, with Subobject, Source, First Seen,
 * Count and Name for `-o wide`; there is no leading Name column (see `nameColumn`).
 */
export const EVENT_COLUMNS: readonly TableColumn[] = [
  column('Last Seen', lastSeen),
  column('Type', (o) => text(o, 'type')),
  column('Reason', (o) => text(o, 'reason')),
  column('Object', target),
  column('Subobject', (o) => text(o, 'involvedObject', 'fieldPath'), 1),
  column('Source', eventSource, 1),
  column('Message', (o) => text(o, 'message').trim()),
  column('First Seen', firstSeen, 1),
  { ...column('Count', eventCount, 1), type: 'integer' },
  { ...column('Name', (o) => text(o, 'metadata', 'name'), 1), format: 'name' },
];

/** The subjects of a binding by kind: users, groups and service accounts (`namespace/name`). */
function subjects(o: JsonObject, kind: 'User' | 'Group' | 'ServiceAccount'): string {
  const list = Array.isArray(o.subjects) ? (o.subjects as unknown[]) : [];
  return list
    .filter((s) => text(s, 'kind') === kind)
    .map((s) => {
      const ns = kind === 'ServiceAccount' ? text(s, 'namespace') : '';
      return ns === '' ? text(s, 'name') : `${ns}/${text(s, 'name')}`;
    })
    .join(', ');
}

/** The Age column every built-in Table ends with. */
export const AGE: TableColumn = column('Age', (o) => age(field(o, ['metadata', 'creationTimestamp'])));

/** RoleBinding and ClusterRoleBinding: Role (`Kind/name`), Age; Users, Groups, ServiceAccounts wide. */
export const BINDING_COLUMNS: readonly TableColumn[] = [
  column('Role', (o) => `${text(o, 'roleRef', 'kind')}/${text(o, 'roleRef', 'name')}`),
  AGE,
  column('Users', (o) => subjects(o, 'User'), 1),
  column('Groups', (o) => subjects(o, 'Group'), 1),
  column('ServiceAccounts', (o) => subjects(o, 'ServiceAccount'), 1),
];

/** The default table convertor's columns after Name (Role, ClusterRole): the creation time. */
export const CREATED_AT_COLUMNS: readonly TableColumn[] = [
  { ...column('Created At', (o) => field(o, ['metadata', 'creationTimestamp'])), type: 'date' },
];

function labelsString(v: unknown): string {
  if (v === null || typeof v !== 'object') return '<none>';
  const pairs = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}=${text({ x }, 'x')}`);
  return pairs.length === 0 ? '<none>' : pairs.sort().join(',');
}

/** `metav1.FormatLabelSelector`: matchLabels then expressions, `<none>` for none. */
function labelSelectorString(sel: unknown): string {
  if (sel === null || typeof sel !== 'object') return '<none>';
  const parts: string[] = [];
  const ml = field(sel, ['matchLabels']);
  if (ml !== null && typeof ml === 'object')
    for (const [k, v] of Object.entries(ml as Record<string, unknown>))
      parts.push(`${k}=${text({ v }, 'v')}`);
  const exprs = field(sel, ['matchExpressions']);
  if (Array.isArray(exprs))
    for (const e of exprs) {
      const op = text(e, 'operator');
      const key = text(e, 'key');
      const values = (field(e, ['values']) as unknown[] | undefined) ?? [];
      const set = `(${values.map((x) => text({ x }, 'x')).join(',')})`;
      if (op === 'In') parts.push(`${key} in ${set}`);
      else if (op === 'NotIn') parts.push(`${key} notin ${set}`);
      else if (op === 'Exists') parts.push(key);
      else if (op === 'DoesNotExist') parts.push(`!${key}`);
    }
  return parts.length === 0 ? '<none>' : parts.join(',');
}

function containerCells(template: unknown, what: 'name' | 'image'): string {
  const cs = field(template, ['spec', 'containers']);
  return Array.isArray(cs) ? cs.map((c) => text(c, what)).join(',') : '';
}

function boolCell(v: unknown): string {
  return v === true ? 'True' : v === false ? 'False' : '<unset>';
}

/** batch/v1 CronJob (printCronJob). */
export const CRONJOB_COLUMNS: readonly TableColumn[] = [
  column('Schedule', (o) => text(o, 'spec', 'schedule')),
  column('Timezone', (o) => text(o, 'spec', 'timeZone') || '<none>'),
  { ...column('Suspend', (o) => boolCell(field(o, ['spec', 'suspend']))), type: 'boolean' },
  {
    ...column('Active', (o) => {
      const a = field(o, ['status', 'active']);
      return Array.isArray(a) ? a.length : 0;
    }),
    type: 'integer',
  },
  column('Last Schedule', (o) =>
    text(o, 'status', 'lastScheduleTime') === '' ? '<none>' : age(field(o, ['status', 'lastScheduleTime'])),
  ),
  AGE,
  column(
    'Containers',
    (o) => containerCells(field(o, ['spec', 'jobTemplate', 'spec', 'template']), 'name'),
    1,
  ),
  column('Images', (o) => containerCells(field(o, ['spec', 'jobTemplate', 'spec', 'template']), 'image'), 1),
  column('Selector', (o) => labelSelectorString(field(o, ['spec', 'jobTemplate', 'spec', 'selector'])), 1),
];

/** core/v1 ReplicationController (printReplicationController). */
export const REPLICATION_CONTROLLER_COLUMNS: readonly TableColumn[] = [
  { ...column('Desired', (o) => Number(field(o, ['spec', 'replicas']) ?? 0)), type: 'integer' },
  { ...column('Current', (o) => Number(field(o, ['status', 'replicas']) ?? 0)), type: 'integer' },
  { ...column('Ready', (o) => Number(field(o, ['status', 'readyReplicas']) ?? 0)), type: 'integer' },
  AGE,
  column('Containers', (o) => containerCells(field(o, ['spec', 'template']), 'name'), 1),
  column('Images', (o) => containerCells(field(o, ['spec', 'template']), 'image'), 1),
  column('Selector', (o) => labelsString(field(o, ['spec', 'selector'])), 1),
];

const ACCESS_MODES: Record<string, string> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};

/** core/v1 PersistentVolume (printPersistentVolume). */
export const PERSISTENT_VOLUME_COLUMNS: readonly TableColumn[] = [
  column('Capacity', (o) => text(o, 'spec', 'capacity', 'storage') || '0'),
  column('Access Modes', (o) => accessModesString(field(o, ['spec', 'accessModes']))),
  column('Reclaim Policy', (o) => text(o, 'spec', 'persistentVolumeReclaimPolicy')),
  column('Status', (o) => text(o, 'status', 'phase')),
  column('Claim', (o) => {
    const name = text(o, 'spec', 'claimRef', 'name');
    return name === '' ? '' : `${text(o, 'spec', 'claimRef', 'namespace')}/${name}`;
  }),
  column('StorageClass', (o) => text(o, 'spec', 'storageClassName')),
  column('VolumeAttributesClass', (o) => text(o, 'spec', 'volumeAttributesClassName') || '<unset>'),
  column('Reason', (o) => text(o, 'status', 'reason')),
  AGE,
  column('VolumeMode', (o) => text(o, 'spec', 'volumeMode') || '<unset>', 1),
];

function accessModesString(modes: unknown): string {
  if (!Array.isArray(modes)) return '';
  const seen = new Set(modes.map((m) => (typeof m === 'string' ? m : '')));
  return Object.keys(ACCESS_MODES)
    .filter((m) => seen.has(m))
    .map((m) => ACCESS_MODES[m])
    .join(',');
}

function num(o: unknown, ...path: string[]): number {
  const v = field(o, path);
  return typeof v === 'number' ? v : 0;
}

function hasCondition(o: JsonObject, type: string): boolean {
  const conditions = field(o, ['status', 'conditions']);
  return (
    Array.isArray(conditions) &&
    conditions.some((c) => text(c, 'type') === type && text(c, 'status') === 'True')
  );
}

/** A Job's Status cell (printJob): its finished condition, Terminating, Suspended, or Running. */
function jobStatus(o: JsonObject): string {
  if (hasCondition(o, 'Complete')) return 'Complete';
  if (hasCondition(o, 'Failed')) return 'Failed';
  if (field(o, ['metadata', 'deletionTimestamp']) !== undefined) return 'Terminating';
  if (hasCondition(o, 'Suspended')) return 'Suspended';
  if (hasCondition(o, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(o: JsonObject): string {
  const succeeded = num(o, 'status', 'succeeded');
  const completions = field(o, ['spec', 'completions']);
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = num(o, 'spec', 'parallelism');
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** From startTime to completionTime, or to now while it runs; empty before it starts. */
function jobDuration(o: JsonObject, now: number = Date.now()): string {
  const start = Date.parse(text(o, 'status', 'startTime'));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(text(o, 'status', 'completionTime'));
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

/** batch/v1 Job (printJob). */
export const JOB_COLUMNS: readonly TableColumn[] = [
  column('Status', jobStatus),
  column('Completions', jobCompletions),
  column('Duration', (o) => jobDuration(o)),
  AGE,
  column('Containers', (o) => containerCells(field(o, ['spec', 'template']), 'name'), 1),
  column('Images', (o) => containerCells(field(o, ['spec', 'template']), 'image'), 1),
  column('Selector', (o) => labelSelectorString(field(o, ['spec', 'selector'])), 1),
];

/** apps/v1 DaemonSet (printDaemonSet). */
export const DAEMON_SET_COLUMNS: readonly TableColumn[] = [
  { ...column('Desired', (o) => num(o, 'status', 'desiredNumberScheduled')), type: 'integer' },
  { ...column('Current', (o) => num(o, 'status', 'currentNumberScheduled')), type: 'integer' },
  { ...column('Ready', (o) => num(o, 'status', 'numberReady')), type: 'integer' },
  { ...column('Up-to-date', (o) => num(o, 'status', 'updatedNumberScheduled')), type: 'integer' },
  { ...column('Available', (o) => num(o, 'status', 'numberAvailable')), type: 'integer' },
  column('Node Selector', (o) => labelsString(field(o, ['spec', 'template', 'spec', 'nodeSelector']))),
  AGE,
  column('Containers', (o) => containerCells(field(o, ['spec', 'template']), 'name'), 1),
  column('Images', (o) => containerCells(field(o, ['spec', 'template']), 'image'), 1),
  column('Selector', (o) => labelSelectorString(field(o, ['spec', 'selector'])), 1),
];

/** Up to three hosts of an Ingress's rules, `*` for none (formatHosts). */
function ingressHosts(o: JsonObject): string {
  const rules = field(o, ['spec', 'rules']);
  const list = Array.isArray(rules) ? rules : [];
  const hosts = list.map((r) => text(r, 'host')).filter((h) => h !== '');
  if (hosts.length === 0) return '*';
  const shown = hosts.slice(0, 3).join(',');
  return hosts.length > 3 ? `${shown} + ${list.length - 3} more...` : shown;
}

/** The load balancer's IPs or host names, sorted and unique, clipped to 16 characters. */
function ingressAddress(o: JsonObject): string {
  const ingress = field(o, ['status', 'loadBalancer', 'ingress']);
  const list = Array.isArray(ingress) ? ingress : [];
  const addresses = [
    ...new Set(list.map((i) => text(i, 'ip') || text(i, 'hostname')).filter((a) => a !== '')),
  ];
  const joined = addresses.sort().join(',');
  return joined.length > 16 ? `${joined.slice(0, 13)}...` : joined;
}

/** networking.k8s.io/v1 Ingress (printIngress). */
export const INGRESS_COLUMNS: readonly TableColumn[] = [
  column('Class', (o) => text(o, 'spec', 'ingressClassName') || '<none>'),
  column('Hosts', ingressHosts),
  column('Address', ingressAddress),
  column('Ports', (o) => {
    const tls = field(o, ['spec', 'tls']);
    return Array.isArray(tls) && tls.length > 0 ? '80, 443' : '80';
  }),
  AGE,
];

/** `ip:port` of the ready addresses, three at most (formatEndpoints); `<none>` without subsets. */
function endpointsString(o: JsonObject): string {
  const subsets = field(o, ['subsets']);
  if (!Array.isArray(subsets) || subsets.length === 0) return '<none>';
  const all: string[] = [];
  for (const s of subsets) {
    const addresses = field(s, ['addresses']);
    const ips = (Array.isArray(addresses) ? addresses : []).map((a) => text(a, 'ip'));
    const ports = field(s, ['ports']);
    if (!Array.isArray(ports) || ports.length === 0) all.push(...ips);
    else
      for (const p of ports)
        for (const ip of ips)
          all.push(ip.includes(':') ? `[${ip}]:${num(p, 'port')}` : `${ip}:${num(p, 'port')}`);
  }
  const shown = all.slice(0, 3).join(',');
  return all.length > 3 ? `${shown} + ${all.length - 3} more...` : shown;
}

/** core/v1 Endpoints (printEndpoints). */
export const ENDPOINTS_COLUMNS: readonly TableColumn[] = [column('Endpoints', endpointsString), AGE];

/** core/v1 PersistentVolumeClaim (printPersistentVolumeClaim): capacity and modes once bound. */
export const PERSISTENT_VOLUME_CLAIM_COLUMNS: readonly TableColumn[] = [
  column('Status', (o) =>
    field(o, ['metadata', 'deletionTimestamp']) !== undefined ? 'Terminating' : text(o, 'status', 'phase'),
  ),
  column('Volume', (o) => text(o, 'spec', 'volumeName')),
  column('Capacity', (o) =>
    text(o, 'spec', 'volumeName') === '' ? '' : text(o, 'status', 'capacity', 'storage'),
  ),
  column('Access Modes', (o) =>
    text(o, 'spec', 'volumeName') === '' ? '' : accessModesString(field(o, ['status', 'accessModes'])),
  ),
  column(
    'StorageClass',
    (o) =>
      text(o, 'spec', 'storageClassName') ||
      text(o, 'metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class'),
  ),
  column('VolumeAttributesClass', (o) => text(o, 'spec', 'volumeAttributesClassName') || '<unset>'),
  AGE,
  column('VolumeMode', (o) => text(o, 'spec', 'volumeMode') || '<unset>', 1),
];

/** A string or number as printed; anything else empty. */
function scalar(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
}

/** An int-or-string field as Go's IntOrString.String() prints it; `N/A` when unset (printPodDisruptionBudget). */
function intOrStringCell(v: unknown): string {
  return typeof v === 'number' || typeof v === 'string' ? String(v) : 'N/A';
}

/** policy/v1 PodDisruptionBudget (printPodDisruptionBudget). */
export const POD_DISRUPTION_BUDGET_COLUMNS: readonly TableColumn[] = [
  column('Min Available', (o) => intOrStringCell(field(o, ['spec', 'minAvailable']))),
  column('Max Unavailable', (o) => intOrStringCell(field(o, ['spec', 'maxUnavailable']))),
  {
    ...column('Allowed Disruptions', (o) => Number(field(o, ['status', 'disruptionsAllowed']) ?? 0)),
    type: 'integer',
  },
  AGE,
];

/** networking.k8s.io/v1 NetworkPolicy (printNetworkPolicy). */
export const NETWORK_POLICY_COLUMNS: readonly TableColumn[] = [
  column('Pod-Selector', (o) => labelSelectorString(field(o, ['spec', 'podSelector']))),
  AGE,
];

/**
 * One metric of an autoscaling/v2 HorizontalPodAutoscaler as kubectl's TARGETS shows it
 * (formatHPAMetrics): `<current>/<target>`, the current value read from the status metric at the
 * same index when it is of the same type, `<unknown>` until reported; resource utilization in %
 * (`<auto>` without a target utilization); `(avg)` after an object's or external metric's
 * average value.
 */
function hpaMetric(spec: unknown, status: unknown): string {
  const type = text(spec, 'type');
  // a metric's source is the member its type names, lower-cased first (resource,
  // containerResource, pods, object, external)
  const member = type.charAt(0).toLowerCase() + type.slice(1);
  if (!['resource', 'containerResource', 'pods', 'object', 'external'].includes(member))
    return '<unknown type>';
  const src = field(spec, [member]);
  const cur = field(status, [member, 'current']);
  const target = field(src, ['target']);
  const quantity = (v: unknown): string => (v === undefined || v === null ? '<unknown>' : scalar(v));
  const named = type === 'Resource' || type === 'ContainerResource' ? `${text(src, 'name')}: ` : '';
  if (type === 'Pods')
    return `${quantity(field(cur, ['averageValue']))}/${scalar(field(target, ['averageValue']))}`;
  const average = field(target, ['averageValue']);
  if (average !== undefined && average !== null) {
    const avg = type === 'Object' || type === 'External' ? ' (avg)' : '';
    return `${named}${quantity(field(cur, ['averageValue']))}/${scalar(average)}${avg}`;
  }
  if (named !== '') {
    const now = field(cur, ['averageUtilization']);
    const want = field(target, ['averageUtilization']);
    return `${named}${typeof now === 'number' ? `${now}%` : '<unknown>'}/${typeof want === 'number' ? `${want}%` : '<auto>'}`;
  }
  return `${quantity(field(cur, ['value']))}/${scalar(field(target, ['value']))}`;
}

/** autoscaling/v2 HorizontalPodAutoscaler (printHorizontalPodAutoscaler). */
export const HORIZONTAL_POD_AUTOSCALER_COLUMNS: readonly TableColumn[] = [
  column(
    'Reference',
    (o) => `${text(o, 'spec', 'scaleTargetRef', 'kind')}/${text(o, 'spec', 'scaleTargetRef', 'name')}`,
  ),
  column('Targets', (o) => {
    const specs = field(o, ['spec', 'metrics']);
    if (!Array.isArray(specs) || specs.length === 0) return '<none>';
    const statuses = field(o, ['status', 'currentMetrics']);
    const current = Array.isArray(statuses) ? statuses : [];
    // formatHPAMetrics reads the status at the spec's index, and only of the spec's type
    const shown = specs
      .slice(0, 2)
      .map((m, i) => hpaMetric(m, text(current[i], 'type') === text(m, 'type') ? current[i] : undefined));
    return specs.length > 2 ? `${shown.join(', ')} + ${specs.length - 2} more...` : shown.join(', ');
  }),
  column('MinPods', (o) => {
    const min = field(o, ['spec', 'minReplicas']);
    return typeof min === 'number' ? String(min) : '<unset>';
  }),
  { ...column('MaxPods', (o) => Number(field(o, ['spec', 'maxReplicas']) ?? 0)), type: 'integer' },
  { ...column('Replicas', (o) => Number(field(o, ['status', 'currentReplicas']) ?? 0)), type: 'integer' },
  AGE,
];
