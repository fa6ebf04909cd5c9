import type { JsonObject } from '../../types.js';
import { NAME_COLUMN } from '../encoding/table.js';
import { AGE, field, text } from './table-columns.js';
import type { TableColumn } from './resource-type.js';

/**
 * Table columns of the cluster-infrastructure kinds as kube-apiserver's printers make them
 * (pkg/printers/internalversion/printers.go: printNode, printEndpointSlice, printStorageClass,
 * printPriorityClass, printResourceQuota). kube-apiserver prints server-side Tables wide; columns of
 * priority 1 are the ones kubectl shows only with `-o wide`.
 */

function items(obj: unknown, ...path: string[]): unknown[] {
  const v = field(obj, path);
  return Array.isArray(v) ? v : [];
}

function column(name: string, value: (o: JsonObject) => unknown, priority = 0, type = 'string'): TableColumn {
  return { name, type, description: name, priority, value };
}

/** `Ready`/`NotReady` from the Ready condition, `Unknown` without one; `SchedulingDisabled` when cordoned. */
function nodeStatus(o: JsonObject): string {
  const ready = items(o, 'status', 'conditions').find((c) => text(c, 'type') === 'Ready');
  const status = [ready === undefined ? 'Unknown' : text(ready, 'status') === 'True' ? 'Ready' : 'NotReady'];
  if (field(o, ['spec', 'unschedulable']) === true) status.push('SchedulingDisabled');
  return status.join(',');
}

const NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';

/** findNodeRoles: `node-role.kubernetes.io/<role>` labels and a `kubernetes.io/role` label's value, sorted. */
function nodeRoles(o: JsonObject): string {
  const labels = field(o, ['metadata', 'labels']);
  const roles = new Set<string>();
  if (labels !== null && typeof labels === 'object') {
    for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
      if (k.startsWith(NODE_ROLE_PREFIX) && k.length > NODE_ROLE_PREFIX.length)
        roles.add(k.slice(NODE_ROLE_PREFIX.length));
      else if (k === 'kubernetes.io/role' && typeof v === 'string' && v !== '') roles.add(v);
    }
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function nodeAddress(o: JsonObject, type: string): string {
  const a = items(o, 'status', 'addresses').find((x) => text(x, 'type') === type);
  return a === undefined ? '<none>' : text(a, 'address');
}

const nodeInfo = (key: string) => (o: JsonObject) => text(o, 'status', 'nodeInfo', key) || '<unknown>';

/** core/v1 Node (printNode). */
export const NODE_COLUMNS: readonly TableColumn[] = [
  column('Status', nodeStatus),
  column('Roles', nodeRoles),
  AGE,
  column('Version', (o) => text(o, 'status', 'nodeInfo', 'kubeletVersion')),
  column('Internal-IP', (o) => nodeAddress(o, 'InternalIP'), 1),
  column('External-IP', (o) => nodeAddress(o, 'ExternalIP'), 1),
  column('OS-Image', nodeInfo('osImage'), 1),
  column('Kernel-Version', nodeInfo('kernelVersion'), 1),
  column('Container-Runtime', nodeInfo('containerRuntimeVersion'), 1),
];

/** listWithMoreString: the first three, `+ N more...` after them, `<unset>` for none. */
function firstThree(values: string[]): string {
  if (values.length > 3) return `${values.slice(0, 3).join(',')} + ${values.length - 3} more...`;
  return values.length === 0 ? '<unset>' : values.join(',');
}

/** discovery.k8s.io/v1 EndpointSlice (printEndpointSlice, formatDiscoveryPorts, formatDiscoveryEndpoints). */
export const ENDPOINT_SLICE_COLUMNS: readonly TableColumn[] = [
  column('AddressType', (o) => text(o, 'addressType')),
  column('Ports', (o) =>
    firstThree(
      items(o, 'ports').map((p) => {
        const port = field(p, ['port']);
        if (typeof port === 'number') return String(port);
        const name = field(p, ['name']);
        return typeof name === 'string' ? name : '*';
      }),
    ),
  ),
  column('Endpoints', (o) =>
    firstThree(items(o, 'endpoints').flatMap((e) => items(e, 'addresses').map((a) => text({ a }, 'a')))),
  ),
  AGE,
];

/**
 * storage.k8s.io/v1 StorageClass (printStorageClass): its own Name column (the kind sets
 * `nameColumn: false`), which marks the default class `<name> (default)`.
 */
export const STORAGE_CLASS_COLUMNS: readonly TableColumn[] = [
  {
    ...NAME_COLUMN,
    value: (o) => `${text(o, 'metadata', 'name')}${isDefaultStorageClass(o) ? ' (default)' : ''}`,
  },
  column('Provisioner', (o) => text(o, 'provisioner')),
  column('ReclaimPolicy', (o) => text(o, 'reclaimPolicy') || 'Delete'),
  column('VolumeBindingMode', (o) => text(o, 'volumeBindingMode') || 'Immediate'),
  column('AllowVolumeExpansion', (o) => field(o, ['allowVolumeExpansion']) === true),
  AGE,
];

/** The StorageClass annotations that make a class the cluster's default (storageutil.IsDefaultAnnotation). */
function isDefaultStorageClass(o: JsonObject): boolean {
  return (
    text(o, 'metadata', 'annotations', 'storageclass.kubernetes.io/is-default-class') === 'true' ||
    text(o, 'metadata', 'annotations', 'storageclass.beta.kubernetes.io/is-default-class') === 'true'
  );
}

/** scheduling.k8s.io/v1 PriorityClass (printPriorityClass). */
export const PRIORITY_CLASS_COLUMNS: readonly TableColumn[] = [
  column('Value', (o) => Number(field(o, ['value']) ?? 0), 0, 'integer'),
  column('Global-Default', (o) => field(o, ['globalDefault']) === true, 0, 'boolean'),
  AGE,
  column('PreemptionPolicy', (o) => text(o, 'preemptionPolicy')),
];

/** `resource: used/hard` of each hard limit, sorted by name, `limits.*` in the Limit column (printResourceQuota). */
function quotaCell(o: JsonObject, limits: boolean): string {
  const hard = field(o, ['status', 'hard']);
  if (hard === null || typeof hard !== 'object') return '';
  return Object.keys(hard)
    .sort()
    .filter((name) => name.startsWith('limits.') === limits)
    .map(
      (name) =>
        `${name}: ${quantityText(field(o, ['status', 'used', name]))}/${quantityText(field(hard, [name]))}`,
    )
    .join(', ');
}

/** A quantity as stored (the server stores quantities in kube's canonical form); a missing one is zero. */
function quantityText(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '0';
}

/** core/v1 ResourceQuota (printResourceQuota). */
export const RESOURCE_QUOTA_COLUMNS: readonly TableColumn[] = [
  column('Request', (o) => quotaCell(o, false)),
  column('Limit', (o) => quotaCell(o, true)),
  AGE,
];
