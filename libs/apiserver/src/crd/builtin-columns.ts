/**
 * Printer columns for a few built-in kinds, so `kubectl get` against this server looks like against a
 * real one. Covered: Pod, Deployment, ReplicaSet, StatefulSet, Service, ConfigMap, Secret, Namespace,
 * ServiceAccount, Lease. Other kinds get the default Table (Name, Created At).
 */
import type { JsonObject } from '../types.js';
import { arrayAt, isObject, objectAt } from './json-util.js';
import type { PrinterColumn } from './printer-column.js';
import { AGE_COLUMN } from './printer-column.js';

const age: PrinterColumn = {
  ...AGE_COLUMN,
  description: 'CreationTimestamp is when the server created this object.',
};

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function podReady(pod: JsonObject): string {
  const statuses = arrayAt(objectAt(pod, 'status'), 'containerStatuses').filter(isObject);
  const total = arrayAt(objectAt(pod, 'spec'), 'containers').length;
  return `${statuses.filter((s) => s.ready === true).length}/${total}`;
}

function podRestarts(pod: JsonObject): string {
  const statuses = arrayAt(objectAt(pod, 'status'), 'containerStatuses').filter(isObject);
  return String(statuses.reduce((n, s) => n + num(s.restartCount), 0));
}

function podStatus(pod: JsonObject): string {
  const status = objectAt(pod, 'status');
  let reason = str(status.reason) || str(status.phase) || 'Pending';
  const init = arrayAt(status, 'initContainerStatuses').filter(isObject);
  const initTotal = arrayAt(objectAt(pod, 'spec'), 'initContainers').length;
  let initializing = false;
  init.forEach((s, i) => {
    if (initializing) return;
    const state = objectAt(s, 'state');
    const terminated = isObject(state.terminated) ? state.terminated : undefined;
    const waiting = isObject(state.waiting) ? state.waiting : undefined;
    if (terminated && num(terminated.exitCode) === 0) return;
    initializing = true;
    if (terminated) reason = `Init:${str(terminated.reason) || `ExitCode:${num(terminated.exitCode)}`}`;
    else if (waiting && str(waiting.reason) && waiting.reason !== 'PodInitializing')
      reason = `Init:${str(waiting.reason)}`;
    else reason = `Init:${i}/${initTotal}`;
  });
  if (!initializing) {
    for (const s of arrayAt(status, 'containerStatuses').filter(isObject).reverse()) {
      const state = objectAt(s, 'state');
      if (isObject(state.waiting) && str(state.waiting.reason)) reason = str(state.waiting.reason);
      else if (isObject(state.terminated)) {
        const t = state.terminated;
        reason = str(t.reason) || (num(t.signal) ? `Signal:${num(t.signal)}` : `ExitCode:${num(t.exitCode)}`);
      }
    }
  }
  if (objectAt(pod, 'metadata').deletionTimestamp !== undefined) {
    reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  }
  return reason;
}

function servicePorts(svc: JsonObject): string {
  const ports = arrayAt(objectAt(svc, 'spec'), 'ports').filter(isObject);
  if (ports.length === 0) return '<none>';
  return ports
    .map((p) => {
      const protocol = str(p.protocol) || 'TCP';
      return p.nodePort !== undefined
        ? `${num(p.port)}:${num(p.nodePort)}/${protocol}`
        : `${num(p.port)}/${protocol}`;
    })
    .join(',');
}

function externalIp(svc: JsonObject): string {
  const spec = objectAt(svc, 'spec');
  const ingress = arrayAt(objectAt(objectAt(svc, 'status'), 'loadBalancer'), 'ingress')
    .filter(isObject)
    .map((i) => str(i.ip) || str(i.hostname))
    .filter(Boolean);
  const external = arrayAt(spec, 'externalIPs').filter((x): x is string => typeof x === 'string');
  switch (str(spec.type) || 'ClusterIP') {
    case 'ExternalName':
      return str(spec.externalName) || '<none>';
    case 'LoadBalancer': {
      const all = [...ingress, ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    default:
      return external.length ? external.join(',') : '<none>';
  }
}

function selectorString(selector: unknown): string {
  if (!isObject(selector)) return '<none>';
  const labels = isObject(selector.matchLabels) ? selector.matchLabels : selector;
  const parts = Object.entries(labels)
    .filter(([, v]) => typeof v === 'string')
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? parts.join(',') : '<none>';
}

function containers(obj: JsonObject, field: 'name' | 'image'): string {
  const list = arrayAt(objectAt(objectAt(objectAt(obj, 'spec'), 'template'), 'spec'), 'containers').filter(
    isObject,
  );
  return list.map((c) => str(c[field])).join(',');
}

/** kubectl's READINESS GATES of a pod: `<none>`, or gates whose condition is True of all gates (printPod). */
function readinessGates(pod: JsonObject): string {
  const gates = arrayAt(objectAt(pod, 'spec'), 'readinessGates').filter(isObject);
  if (gates.length === 0) return '<none>';
  const conditions = arrayAt(objectAt(pod, 'status'), 'conditions').filter(isObject);
  const met = gates.filter(
    (g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True',
  ).length;
  return `${met}/${gates.length}`;
}

const TABLE: Record<string, PrinterColumn[]> = {
  '/v1/Pod': [
    {
      name: 'Ready',
      type: 'string',
      jsonPath: '',
      priority: 0,
      description: 'Ready containers of all containers.',
      value: podReady,
    },
    {
      name: 'Status',
      type: 'string',
      jsonPath: '',
      priority: 0,
      description: 'The aggregate status of the containers.',
      value: podStatus,
    },
    {
      name: 'Restarts',
      type: 'string',
      jsonPath: '',
      priority: 0,
      description: 'Container restarts.',
      value: podRestarts,
    },
    age,
    {
      name: 'IP',
      type: 'string',
      jsonPath: '.status.podIP',
      priority: 1,
      value: (p) => str(objectAt(p, 'status').podIP) || '<none>',
    },
    {
      name: 'Node',
      type: 'string',
      jsonPath: '.spec.nodeName',
      priority: 1,
      value: (p) => str(objectAt(p, 'spec').nodeName) || '<none>',
    },
    {
      name: 'Nominated Node',
      type: 'string',
      jsonPath: '.status.nominatedNodeName',
      priority: 1,
      value: (p) => str(objectAt(p, 'status').nominatedNodeName) || '<none>',
    },
    {
      name: 'Readiness Gates',
      type: 'string',
      jsonPath: '.spec.readinessGates',
      priority: 1,
      value: readinessGates,
    },
  ],
  'apps/v1/Deployment': [
    {
      name: 'Ready',
      type: 'string',
      jsonPath: '',
      priority: 0,
      description: 'Ready replicas of desired replicas.',
      value: (d) => `${num(objectAt(d, 'status').readyReplicas)}/${num(objectAt(d, 'spec').replicas ?? 1)}`,
    },
    {
      name: 'Up-to-date',
      type: 'integer',
      jsonPath: '',
      priority: 0,
      value: (d) => num(objectAt(d, 'status').updatedReplicas),
    },
    {
      name: 'Available',
      type: 'integer',
      jsonPath: '',
      priority: 0,
      value: (d) => num(objectAt(d, 'status').availableReplicas),
    },
    age,
    { name: 'Containers', type: 'string', jsonPath: '', priority: 1, value: (d) => containers(d, 'name') },
    { name: 'Images', type: 'string', jsonPath: '', priority: 1, value: (d) => containers(d, 'image') },
    {
      name: 'Selector',
      type: 'string',
      jsonPath: '',
      priority: 1,
      value: (d) => selectorString(objectAt(d, 'spec').selector),
    },
  ],
  'apps/v1/ReplicaSet': [
    {
      name: 'Desired',
      type: 'integer',
      jsonPath: '',
      priority: 0,
      value: (r) => num(objectAt(r, 'spec').replicas ?? 1),
    },
    {
      name: 'Current',
      type: 'integer',
      jsonPath: '',
      priority: 0,
      value: (r) => num(objectAt(r, 'status').replicas),
    },
    {
      name: 'Ready',
      type: 'integer',
      jsonPath: '',
      priority: 0,
      value: (r) => num(objectAt(r, 'status').readyReplicas),
    },
    age,
    { name: 'Containers', type: 'string', jsonPath: '', priority: 1, value: (r) => containers(r, 'name') },
    { name: 'Images', type: 'string', jsonPath: '', priority: 1, value: (r) => containers(r, 'image') },
    {
      name: 'Selector',
      type: 'string',
      jsonPath: '',
      priority: 1,
      value: (r) => selectorString(objectAt(r, 'spec').selector),
    },
  ],
  'apps/v1/StatefulSet': [
    {
      name: 'Ready',
      type: 'string',
      jsonPath: '',
      priority: 0,
      value: (s) => `${num(objectAt(s, 'status').readyReplicas)}/${num(objectAt(s, 'spec').replicas ?? 1)}`,
    },
    age,
    { name: 'Containers', type: 'string', jsonPath: '', priority: 1, value: (s) => containers(s, 'name') },
    { name: 'Images', type: 'string', jsonPath: '', priority: 1, value: (s) => containers(s, 'image') },
  ],
  '/v1/Service': [
    {
      name: 'Type',
      type: 'string',
      jsonPath: '',
      priority: 0,
      value: (s) => str(objectAt(s, 'spec').type) || 'ClusterIP',
    },
    {
      name: 'Cluster-IP',
      type: 'string',
      jsonPath: '',
      priority: 0,
      value: (s) => str(objectAt(s, 'spec').clusterIP) || '<none>',
    },
    { name: 'External-IP', type: 'string', jsonPath: '', priority: 0, value: externalIp },
    { name: 'Port(s)', type: 'string', jsonPath: '', priority: 0, value: servicePorts },
    age,
    {
      name: 'Selector',
      type: 'string',
      jsonPath: '',
      priority: 1,
      value: (s) => selectorString(objectAt(s, 'spec').selector),
    },
  ],
  '/v1/ConfigMap': [
    {
      name: 'Data',
      type: 'integer',
      jsonPath: '',
      priority: 0,
      description: 'Number of entries in data and binaryData.',
      value: (c) => Object.keys(objectAt(c, 'data')).length + Object.keys(objectAt(c, 'binaryData')).length,
    },
    age,
  ],
  '/v1/Secret': [
    { name: 'Type', type: 'string', jsonPath: '.type', priority: 0 },
    {
      name: 'Data',
      type: 'integer',
      jsonPath: '',
      priority: 0,
      value: (s) => Object.keys(objectAt(s, 'data')).length + Object.keys(objectAt(s, 'stringData')).length,
    },
    age,
  ],
  '/v1/Namespace': [
    {
      name: 'Status',
      type: 'string',
      jsonPath: '',
      priority: 0,
      value: (n) => str(objectAt(n, 'status').phase) || 'Active',
    },
    age,
  ],
  '/v1/ServiceAccount': [
    {
      name: 'Secrets',
      type: 'integer',
      jsonPath: '',
      priority: 0,
      value: (s) => arrayAt(s, 'secrets').length,
    },
    age,
  ],
  'coordination.k8s.io/v1/Lease': [
    { name: 'Holder', type: 'string', jsonPath: '.spec.holderIdentity', priority: 0 },
    age,
  ],
};

/**
 * The printer columns of a built-in kind (the core group is `''`), or an empty list for kinds this
 * server has none for (then {@link buildTable} gives the default Name / Created At table).
 */
export function builtinColumns(group: string, version: string, kind: string): PrinterColumn[] {
  return [...(TABLE[`${group}/${version}/${kind}`] ?? [])];
}
