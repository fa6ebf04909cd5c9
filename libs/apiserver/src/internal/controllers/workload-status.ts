import type { JsonObject } from '../../types.js';
import { isObject, metaOf, str } from '../common/json.js';

/**
 * What the simulated controllers and kubelet write: pod phases and the workload statuses that
 * kube-controller-manager derives from the pods and ReplicaSets a workload owns.
 */

/** The label Deployments put on their ReplicaSets and pods. */
export const POD_TEMPLATE_HASH = 'pod-template-hash';

const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * A hash of a pod template in the form kube-controller-manager uses (FNV-32a, then its decimal
 * digits mapped to `rand.SafeEncodeString`'s alphabet), e.g. `7d4b9c8f6`. The value differs from a
 * real cluster's, which hashes Go's in-memory structure. Keys are hashed in sorted order: a template
 * written back with its fields in another order (`kubectl rollout undo` sends Go's sorted JSON) is
 * the same template, so it finds its existing ReplicaSet as kube's EqualIgnoreHash does.
 */
export function templateHash(template: unknown): string {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(canonicalJson(template ?? {}), 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return [...String(h)].map((c) => SAFE[c.charCodeAt(0) % SAFE.length]).join('');
}

/** JSON with every object's keys sorted. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The desired replicas of a workload (`spec.replicas`, default 1). */
export function replicasOf(obj: JsonObject): number {
  const spec = isObject(obj.spec) ? obj.spec : {};
  return typeof spec.replicas === 'number' ? spec.replicas : 1;
}

/** Whether a pod is Running with its Ready condition True. */
export function podReady(pod: JsonObject): boolean {
  const status = isObject(pod.status) ? pod.status : {};
  if (status.phase !== 'Running') return false;
  const conds = Array.isArray(status.conditions) ? status.conditions : [];
  return conds.some((c) => isObject(c) && c.type === 'Ready' && c.status === 'True');
}

/** Whether a pod has finished (Succeeded or Failed). */
export function podFinished(pod: JsonObject): boolean {
  const phase = isObject(pod.status) ? pod.status.phase : undefined;
  return phase === 'Succeeded' || phase === 'Failed';
}

function containersOf(pod: JsonObject): JsonObject[] {
  const spec = isObject(pod.spec) ? pod.spec : {};
  return Array.isArray(spec.containers) ? spec.containers.filter(isObject) : [];
}

function podCondition(type: string, status: string, now: string, reason?: string): JsonObject {
  const c: JsonObject = { type, status, lastProbeTime: null, lastTransitionTime: now };
  if (reason) c.reason = reason;
  return c;
}

/** The status a kubelet reports once a pod's containers run and are ready. */
export function runningPodStatus(pod: JsonObject, now: string, podIndex: number): JsonObject {
  const ip = `10.244.${Math.floor(podIndex / 250) % 250}.${(podIndex % 250) + 2}`;
  return {
    phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(
      (t) => podCondition(t, 'True', now),
    ),
    hostIP: '10.0.0.1',
    hostIPs: [{ ip: '10.0.0.1' }],
    podIP: ip,
    podIPs: [{ ip }],
    startTime: now,
    qosClass: 'BestEffort',
    containerStatuses: containersOf(pod).map((c) => ({
      name: c.name,
      image: c.image,
      imageID: `docker.io/library/${str(c.image)}`,
      containerID: `containerd://${templateHash([metaOf(pod).uid, c.name])}`,
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: now } },
    })),
  };
}

/** The status a kubelet reports once every container of a (Job) pod exited with 0. */
export function succeededPodStatus(pod: JsonObject, now: string): JsonObject {
  const status = isObject(pod.status) ? pod.status : {};
  const started = typeof status.startTime === 'string' ? status.startTime : now;
  return {
    ...status,
    phase: 'Succeeded',
    conditions: [
      podCondition('PodReadyToStartContainers', 'False', now),
      podCondition('Initialized', 'True', now, 'PodCompleted'),
      podCondition('Ready', 'False', now, 'PodCompleted'),
      podCondition('ContainersReady', 'False', now, 'PodCompleted'),
      podCondition('PodScheduled', 'True', now),
    ],
    containerStatuses: containersOf(pod).map((c) => ({
      name: c.name,
      image: c.image,
      imageID: `docker.io/library/${str(c.image)}`,
      ready: false,
      started: false,
      restartCount: 0,
      state: {
        terminated: { exitCode: 0, reason: 'Completed', startedAt: started, finishedAt: now },
      },
    })),
  };
}

/** Keeps a previous condition (and its times) when its type, status and reason are unchanged. */
export function keepConditionTimes(next: JsonObject[], previous: unknown): JsonObject[] {
  const prev = Array.isArray(previous) ? previous.filter(isObject) : [];
  return next.map((c) => {
    const p = prev.find((x) => x.type === c.type && x.status === c.status && x.reason === c.reason);
    return p
      ? {
          ...c,
          lastTransitionTime: p.lastTransitionTime,
          lastUpdateTime: p.lastUpdateTime ?? c.lastUpdateTime,
        }
      : c;
  });
}

/** Counts as Go's `omitempty` writes them: zero counts are left out. */
export function counts(values: Record<string, number>): JsonObject {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== 0));
}

/** `maxUnavailable` of a Deployment's rolling update (default 25%, rounded down); 0 for Recreate. */
export function maxUnavailable(deployment: JsonObject, replicas: number): number {
  const spec = isObject(deployment.spec) ? deployment.spec : {};
  const strategy = isObject(spec.strategy) ? spec.strategy : {};
  if (strategy.type === 'Recreate') return 0;
  const ru = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const v = ru.maxUnavailable ?? '25%';
  if (typeof v === 'number') return Math.min(v, replicas);
  const m = /^(\d+)%$/.exec(str(v));
  return m ? Math.min(Math.floor((replicas * Number(m[1])) / 100), replicas) : 0;
}

/** A Deployment condition as the deployment controller writes it. */
export function deploymentCondition(
  type: string,
  status: boolean,
  reason: string,
  message: string,
  now: string,
): JsonObject {
  return {
    type,
    status: status ? 'True' : 'False',
    lastUpdateTime: now,
    lastTransitionTime: now,
    reason,
    message,
  };
}
