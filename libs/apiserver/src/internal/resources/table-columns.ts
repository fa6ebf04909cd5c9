import type { JsonObject } from '../../types.js';
import type { TableColumn } from './resource-type.js';
import { age } from '../encoding/table.js';

/**
 * Table columns of built-in kinds whose kube-apiserver printers differ from the usual
 * `Name ... Age` shape (pkg/printers/internalversion/printers.go, and the default table
 * convertor for kinds it has no printer for).
 */

function field(obj: unknown, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function text(obj: unknown, ...path: string[]): string {
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

const AGE: TableColumn = column('Age', (o) => age(field(o, ['metadata', 'creationTimestamp'])));

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
  column('Access Modes', (o) => {
    const modes = field(o, ['spec', 'accessModes']);
    if (!Array.isArray(modes)) return '';
    const seen = new Set(modes.map((m) => (typeof m === 'string' ? m : '')));
    return Object.keys(ACCESS_MODES)
      .filter((m) => seen.has(m))
      .map((m) => ACCESS_MODES[m])
      .join(',');
  }),
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
