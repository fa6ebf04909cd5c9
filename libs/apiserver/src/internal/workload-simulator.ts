import type { JsonObject } from '../types.js';
import { isObject, metaOf, rfc3339, str } from './json.js';
import type { ObjectService, WriteContext } from './object-service.js';
import type { ResourceRegistry } from './registry.js';
import { storageVersion } from './resource-type.js';
import type { Store, StoreEvent } from './store.js';

const SYSTEM: WriteContext = {
  user: { name: 'system:serviceaccount:kube-system:workload-simulator', groups: ['system:masters'] },
  fieldManager: 'kube-controller-manager',
};

const SIMULATED = new Set([
  'apps/deployments',
  'apps/statefulsets',
  'apps/replicasets',
  'apps/daemonsets',
  '/pods',
  'batch/jobs',
]);

function replicasOf(obj: JsonObject): number {
  const spec = isObject(obj.spec) ? obj.spec : {};
  return typeof spec.replicas === 'number' ? spec.replicas : 1;
}

function condition(type: string, reason: string, message: string, now: string): JsonObject {
  return { type, status: 'True', lastTransitionTime: now, lastUpdateTime: now, reason, message };
}

/** The status a controller would report once the workload is ready. */
export function readyStatus(
  resource: string,
  obj: JsonObject,
  now: string,
  podIndex: number,
): JsonObject | undefined {
  const gen = metaOf(obj).generation;
  const n = replicasOf(obj);
  const counts = (keys: string[]): JsonObject => Object.fromEntries(n > 0 ? keys.map((k) => [k, n]) : []);
  switch (resource) {
    case 'apps/deployments':
      return {
        observedGeneration: gen,
        ...counts(['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas']),
        conditions: [
          condition('Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now),
          condition(
            'Progressing',
            'NewReplicaSetAvailable',
            `ReplicaSet "${str(metaOf(obj).name)}" has successfully progressed.`,
            now,
          ),
        ],
      };
    case 'apps/statefulsets':
      return {
        observedGeneration: gen,
        replicas: n,
        ...counts(['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']),
      };
    case 'apps/replicasets':
      return {
        observedGeneration: gen,
        replicas: n,
        ...counts(['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']),
      };
    case 'apps/daemonsets':
      return {
        observedGeneration: gen,
        desiredNumberScheduled: 1,
        currentNumberScheduled: 1,
        numberReady: 1,
        numberAvailable: 1,
        updatedNumberScheduled: 1,
        numberMisscheduled: 0,
      };
    case 'batch/jobs': {
      const spec = isObject(obj.spec) ? obj.spec : {};
      const completions = typeof spec.completions === 'number' ? spec.completions : 1;
      return {
        startTime: now,
        completionTime: now,
        succeeded: completions,
        ready: 0,
        conditions: [
          {
            type: 'SuccessCriteriaMet',
            status: 'True',
            lastProbeTime: now,
            lastTransitionTime: now,
            reason: 'CompletionsReached',
            message: 'Reached expected number of succeeded pods',
          },
          {
            type: 'Complete',
            status: 'True',
            lastProbeTime: now,
            lastTransitionTime: now,
            reason: 'CompletionsReached',
            message: 'Reached expected number of succeeded pods',
          },
        ],
      };
    }
    case '/pods': {
      const spec = isObject(obj.spec) ? obj.spec : {};
      const containers = Array.isArray(spec.containers) ? (spec.containers as JsonObject[]) : [];
      const ip = `10.244.${Math.floor(podIndex / 250) % 250}.${(podIndex % 250) + 2}`;
      const cond = (type: string): JsonObject => ({
        type,
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: now,
      });
      return {
        phase: 'Running',
        conditions: [
          cond('PodReadyToStartContainers'),
          cond('Initialized'),
          cond('Ready'),
          cond('ContainersReady'),
          cond('PodScheduled'),
        ],
        hostIP: '10.0.0.1',
        podIP: ip,
        podIPs: [{ ip }],
        startTime: now,
        qosClass: 'BestEffort',
        containerStatuses: containers.map((c) => ({
          name: c.name,
          image: c.image,
          imageID: `docker.io/library/${str(c.image)}`,
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: now } },
        })),
      };
    }
    default:
      return undefined;
  }
}

function needsStatus(resource: string, obj: JsonObject): boolean {
  const meta = metaOf(obj);
  if (meta.deletionTimestamp !== undefined) return false;
  const status = isObject(obj.status) ? obj.status : {};
  if (resource === '/pods') return status.phase !== 'Running';
  if (resource === 'batch/jobs') return status.succeeded === undefined;
  if (status.observedGeneration !== meta.generation) return true;
  return (
    resource !== 'apps/daemonsets' &&
    (typeof status.replicas === 'number' ? status.replicas : 0) !== replicasOf(obj)
  );
}

/**
 * Optional workload simulation: Deployments, StatefulSets, ReplicaSets and DaemonSets report ready
 * replicas, Pods reach Running and Jobs complete, `delayMs` after each change, as their controllers
 * and kubelets would on a cluster. It writes status only; it creates no ReplicaSets or Pods.
 */
export class WorkloadSimulator {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly unsubscribe: () => void;
  private pods = 0;

  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
    private readonly service: ObjectService,
    private readonly delayMs: number,
  ) {
    this.unsubscribe = store.onChange((ev) => this.onEvent(ev));
  }

  dispose(): void {
    this.unsubscribe();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private onEvent(ev: StoreEvent): void {
    if (!SIMULATED.has(ev.resource) || ev.type === 'DELETED') return;
    const key = `${ev.resource}|${ev.namespace}|${ev.name}`;
    if (!needsStatus(ev.resource, JSON.parse(ev.json) as JsonObject)) return;
    const prev = this.timers.get(key);
    if (prev) clearTimeout(prev);
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.report(ev.resource, ev.namespace, ev.name);
    }, this.delayMs);
    t.unref();
    this.timers.set(key, t);
  }

  private report(resource: string, namespace: string, name: string): void {
    const rt = this.registry.byStorageKey(resource);
    const live = this.store.get(resource, namespace, name);
    if (!rt || !live || !needsStatus(resource, live)) return;
    const status = readyStatus(resource, live, rfc3339(new Date()), this.pods++);
    if (!status) return;
    try {
      this.service.commitUpdate(rt, storageVersion(rt), live, { ...live, status }, SYSTEM, 'status', 'track');
    } catch {
      // the object changed meanwhile; its change event schedules another report
    }
  }
}
