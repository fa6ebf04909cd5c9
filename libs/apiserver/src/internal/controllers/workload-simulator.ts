import type { JsonObject } from '../../types.js';
import { isObject, metaOf, rfc3339, str } from '../common/json.js';
import type { ObjectService, WriteContext } from '../storage/object-service.js';
import type { ResourceRegistry } from '../resources/registry.js';
import { storageVersion } from '../resources/resource-type.js';
import type { Store, StoreEvent } from '../storage/store.js';
import {
  counts,
  deploymentCondition,
  keepConditionTimes,
  maxUnavailable,
  POD_TEMPLATE_HASH,
  podFinished,
  podReady,
  replicasOf,
  runningPodStatus,
  succeededPodStatus,
  templateHash,
} from './workload-status.js';

const SYSTEM: WriteContext = {
  user: { name: 'system:serviceaccount:kube-system:workload-simulator', groups: ['system:masters'] },
  fieldManager: 'kube-controller-manager',
};

const PODS = '/pods';
const DEPLOYMENTS = 'apps/deployments';
const REPLICASETS = 'apps/replicasets';
const STATEFULSETS = 'apps/statefulsets';
const DAEMONSETS = 'apps/daemonsets';
const JOBS = 'batch/jobs';
const WORKLOADS = new Set([DEPLOYMENTS, REPLICASETS, STATEFULSETS, DAEMONSETS, JOBS]);
/** The workload resource of a controller owner reference, by `group/Kind`. */
const OWNER_KINDS: Record<string, string> = {
  'apps/Deployment': DEPLOYMENTS,
  'apps/ReplicaSet': REPLICASETS,
  'apps/StatefulSet': STATEFULSETS,
  'apps/DaemonSet': DAEMONSETS,
  'batch/Job': JOBS,
};
/** Children a controller creates or deletes in one round; the events of those writes start the next. */
const BURST = 100;

interface Child {
  resource: string;
  obj: JsonObject;
}

function controllerRef(obj: JsonObject): JsonObject | undefined {
  const refs = metaOf(obj).ownerReferences;
  return Array.isArray(refs) ? refs.filter(isObject).find((r) => r.controller === true) : undefined;
}

function ownerResource(ref: JsonObject): string | undefined {
  const apiVersion = str(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return OWNER_KINDS[`${group}/${str(ref.kind)}`];
}

function specOf(obj: JsonObject): JsonObject {
  return isObject(obj.spec) ? obj.spec : {};
}

function labelsOf(obj: unknown): Record<string, string> {
  const meta = isObject(obj) && isObject(obj.metadata) ? obj.metadata : {};
  return isObject(meta.labels) ? (meta.labels as Record<string, string>) : {};
}

function annotationsOf(obj: JsonObject): Record<string, string> {
  const a = metaOf(obj).annotations;
  return isObject(a) ? (a as Record<string, string>) : {};
}

const REVISION = 'deployment.kubernetes.io/revision';
const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';

function alive(o: JsonObject): boolean {
  return metaOf(o).deletionTimestamp === undefined;
}

/**
 * Optional workload simulation, as kube-controller-manager and a one-node kubelet would behave:
 * Deployments own a ReplicaSet per pod template (`pod-template-hash`); ReplicaSets, StatefulSets
 * (ordinal names, OrderedReady or Parallel), DaemonSets (one pod) and Jobs own Pods; Pods reach
 * Running and Ready `delayMs` after they are created (Job pods then Succeed after another
 * `delayMs`); each workload's status is derived from what it owns; scaling down deletes pods; deleting
 * a workload leaves its children to the garbage collector. Work is event driven: each change
 * reconciles only the changed object's controller, from an index of owned children.
 */
export class WorkloadSimulator {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Controlled children (ReplicaSets, Pods) by the uid of their controller. */
  private readonly children = new Map<string, Map<string, Child>>();
  private readonly queue = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
  private readonly unsubscribe: () => void;
  private disposed = false;
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
    this.disposed = true;
    this.unsubscribe();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.queue.clear();
  }

  private onEvent(ev: StoreEvent): void {
    if (ev.resource !== PODS && !WORKLOADS.has(ev.resource)) return;
    const obj = JSON.parse(ev.json) as JsonObject;
    const key = `${ev.resource}|${ev.namespace}|${ev.name}`;
    if (ev.resource === PODS || ev.resource === REPLICASETS) {
      const prev =
        ev.prevJson === undefined ? undefined : controllerRef(JSON.parse(ev.prevJson) as JsonObject);
      if (prev) this.children.get(str(prev.uid))?.delete(key);
      const ref = controllerRef(obj);
      if (ref && ev.type !== 'DELETED') {
        const uid = str(ref.uid);
        let m = this.children.get(uid);
        if (!m) this.children.set(uid, (m = new Map<string, Child>()));
        m.set(key, { resource: ev.resource, obj });
      }
      const owner = ref ? ownerResource(ref) : undefined;
      if (owner) this.enqueue(`${owner}|${ev.namespace}|${str(ref!.name)}`);
    }
    if (ev.type === 'DELETED') {
      this.children.delete(str(metaOf(obj).uid));
      this.cancel(key);
      return;
    }
    if (ev.resource === PODS) this.schedulePod(key, obj);
    else this.enqueue(key);
  }

  private cancel(key: string): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  private enqueue(key: string): void {
    if (this.disposed) return;
    this.queue.add(key);
    this.scheduled ??= setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = undefined;
    const keys = [...this.queue];
    this.queue.clear();
    for (const k of keys) {
      const [resource, namespace, name] = k.split('|') as [string, string, string];
      try {
        this.reconcile(resource, namespace, name);
      } catch {
        // a write that fails (the object changed meanwhile) is retried on the change's event
      }
    }
  }

  // ---- the kubelet ----

  private schedulePod(key: string, pod: JsonObject): void {
    if (!alive(pod) || podFinished(pod) || this.timers.has(key)) return;
    const running = isObject(pod.status) && pod.status.phase === 'Running';
    const ref = controllerRef(pod);
    const jobPod = ref !== undefined && ownerResource(ref) === JOBS;
    if (running && !jobPod) return;
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.advancePod(key);
    }, this.delayMs);
    t.unref();
    this.timers.set(key, t);
  }

  private advancePod(key: string): void {
    const [, namespace, name] = key.split('|') as [string, string, string];
    const live = this.store.get(PODS, namespace, name);
    if (!live || !alive(live) || podFinished(live)) return;
    const now = rfc3339(new Date());
    const running = isObject(live.status) && live.status.phase === 'Running';
    const status = running ? succeededPodStatus(live, now) : runningPodStatus(live, now, this.pods++);
    this.writeStatus(PODS, live, status);
  }

  // ---- controllers ----

  private reconcile(resource: string, namespace: string, name: string): void {
    const live = this.store.get(resource, namespace, name);
    if (!live || !alive(live)) return;
    const owned = [...(this.children.get(str(metaOf(live).uid))?.values() ?? [])];
    switch (resource) {
      case DEPLOYMENTS:
        return this.deployment(
          live,
          owned.filter((c) => c.resource === REPLICASETS).map((c) => c.obj),
        );
      case REPLICASETS:
      case DAEMONSETS:
      case JOBS:
      case STATEFULSETS: {
        const pods = owned.filter((c) => c.resource === PODS).map((c) => c.obj);
        if (resource === REPLICASETS) this.replicaSet(live, pods);
        else if (resource === DAEMONSETS) this.daemonSet(live, pods);
        else if (resource === JOBS) this.job(live, pods);
        else this.statefulSet(live, pods);
      }
    }
  }

  private deployment(d: JsonObject, sets: JsonObject[]): void {
    const meta = metaOf(d);
    const spec = specOf(d);
    const template = isObject(spec.template) ? spec.template : {};
    const hash = templateHash(template);
    const desired = replicasOf(d);
    const current = sets.filter(alive);
    const newRs = current.find((rs) => labelsOf(rs)[POD_TEMPLATE_HASH] === hash);
    const now = rfc3339(new Date());
    // the new ReplicaSet's revision is one past every other one's (deploymentutil.MaxRevision + 1)
    const revisionOf = (rs: JsonObject): number => Number(annotationsOf(rs)[REVISION] ?? 0) || 0;
    const revision = 1 + Math.max(0, ...sets.filter((s) => s !== newRs).map(revisionOf));
    if (newRs && revisionOf(newRs) < revision) this.reviseReplicaSet(newRs, revision);
    if (annotationsOf(d)[REVISION] !== String(revision))
      this.annotate(DEPLOYMENTS, d, { [REVISION]: String(revision) });
    if (!newRs) {
      const selector = isObject(spec.selector) ? spec.selector : {};
      const labels = { ...labelsOf(template), [POD_TEMPLATE_HASH]: hash };
      this.create(REPLICASETS, str(meta.namespace), {
        metadata: {
          name: `${str(meta.name)}-${hash}`,
          labels,
          annotations: {
            'deployment.kubernetes.io/desired-replicas': String(desired),
            [REVISION]: String(revision),
          },
          ownerReferences: [this.ownerRef(d, 'apps/v1', 'Deployment')],
        },
        spec: {
          replicas: desired,
          selector: {
            ...selector,
            matchLabels: {
              ...(isObject(selector.matchLabels) ? selector.matchLabels : {}),
              [POD_TEMPLATE_HASH]: hash,
            },
          },
          template: {
            ...template,
            metadata: { ...(isObject(template.metadata) ? template.metadata : {}), labels },
          },
        },
      });
    } else if (replicasOf(newRs) !== desired) {
      this.scale(newRs, desired);
    }
    const newAvailable = newRs
      ? Number(isObject(newRs.status) ? (newRs.status.availableReplicas ?? 0) : 0)
      : 0;
    const old = current.filter((rs) => rs !== newRs);
    const strategy = isObject(spec.strategy) ? spec.strategy.type : undefined;
    // Recreate drops the old pods at once; a rolling update once the new ReplicaSet is available
    if (strategy === 'Recreate' || newAvailable >= desired)
      for (const rs of old) if (replicasOf(rs) !== 0) this.scale(rs, 0);

    const statusOf = (rs: JsonObject, k: string): number => {
      const s = isObject(rs.status) ? rs.status : {};
      return typeof s[k] === 'number' ? s[k] : 0;
    };
    const sum = (k: string): number => current.reduce((n, rs) => n + statusOf(rs, k), 0);
    const total = sum('replicas');
    const available = sum('availableReplicas');
    const rsName = `${str(meta.name)}-${hash}`;
    const complete = newRs !== undefined && newAvailable >= desired && total === desired;
    const minAvailable = desired - maxUnavailable(d, desired);
    const prev = isObject(d.status) ? d.status : {};
    const status: JsonObject = {
      observedGeneration: meta.generation,
      ...counts({
        replicas: total,
        updatedReplicas: newRs ? statusOf(newRs, 'replicas') : 0,
        readyReplicas: sum('readyReplicas'),
        availableReplicas: available,
        unavailableReplicas: Math.max(0, desired - available),
      }),
      conditions: keepConditionTimes(
        [
          available >= minAvailable
            ? deploymentCondition(
                'Available',
                true,
                'MinimumReplicasAvailable',
                'Deployment has minimum availability.',
                now,
              )
            : deploymentCondition(
                'Available',
                false,
                'MinimumReplicasUnavailable',
                'Deployment does not have minimum availability.',
                now,
              ),
          complete
            ? deploymentCondition(
                'Progressing',
                true,
                'NewReplicaSetAvailable',
                `ReplicaSet "${rsName}" has successfully progressed.`,
                now,
              )
            : deploymentCondition(
                'Progressing',
                true,
                'ReplicaSetUpdated',
                `ReplicaSet "${rsName}" is progressing.`,
                now,
              ),
        ],
        prev.conditions,
      ),
    };
    this.writeStatus(DEPLOYMENTS, d, status);
  }

  private replicaSet(rs: JsonObject, owned: JsonObject[]): void {
    const pods = owned.filter((p) => alive(p) && !podFinished(p));
    const desired = replicasOf(rs);
    if (pods.length < desired) {
      for (let i = 0; i < Math.min(desired - pods.length, BURST); i++)
        this.createPod(rs, 'apps/v1', 'ReplicaSet', { generateName: `${str(metaOf(rs).name)}-` }, {});
    } else if (pods.length > desired) {
      // as the ReplicaSet controller: not ready pods first, then the newest
      const victims = [...pods].sort(
        (a, b) =>
          Number(podReady(a)) - Number(podReady(b)) ||
          str(metaOf(b).creationTimestamp).localeCompare(str(metaOf(a).creationTimestamp)) ||
          str(metaOf(b).name).localeCompare(str(metaOf(a).name)),
      );
      for (const p of victims.slice(0, Math.min(pods.length - desired, BURST))) this.deletePod(p);
    }
    const ready = pods.filter(podReady).length;
    this.writeStatus(REPLICASETS, rs, {
      replicas: pods.length,
      ...counts({ fullyLabeledReplicas: pods.length, readyReplicas: ready, availableReplicas: ready }),
      observedGeneration: metaOf(rs).generation,
    });
  }

  private statefulSet(sts: JsonObject, owned: JsonObject[]): void {
    const name = str(metaOf(sts).name);
    const spec = specOf(sts);
    const parallel = spec.podManagementPolicy === 'Parallel';
    const desired = replicasOf(sts);
    const revision = `${name}-${templateHash(spec.template)}`;
    const byOrdinal = new Map<number, JsonObject>();
    for (const p of owned) {
      const m = /-(\d+)$/.exec(str(metaOf(p).name));
      if (m && alive(p)) byOrdinal.set(Number(m[1]), p);
    }
    let budget = BURST;
    for (let i = 0; i < desired && budget > 0; i++) {
      const p = byOrdinal.get(i);
      if (p) {
        if (!parallel && !podReady(p)) break; // OrderedReady: the next ordinal waits for this one
        continue;
      }
      const podName = `${name}-${i}`;
      this.createPod(
        sts,
        'apps/v1',
        'StatefulSet',
        { name: podName },
        {
          'apps.kubernetes.io/pod-index': String(i),
          'controller-revision-hash': revision,
          'statefulset.kubernetes.io/pod-name': podName,
        },
        {
          hostname: podName,
          ...(typeof spec.serviceName === 'string' ? { subdomain: spec.serviceName } : {}),
        },
      );
      budget--;
      if (!parallel) break;
    }
    const extra = [...byOrdinal.keys()].filter((i) => i >= desired).sort((a, b) => b - a);
    for (const i of parallel ? extra.slice(0, BURST) : extra.slice(0, 1)) this.deletePod(byOrdinal.get(i)!);
    const pods = [...byOrdinal.values()];
    const ready = pods.filter(podReady).length;
    this.writeStatus(STATEFULSETS, sts, {
      observedGeneration: metaOf(sts).generation,
      replicas: pods.length,
      ...counts({ readyReplicas: ready, currentReplicas: pods.length, updatedReplicas: pods.length }),
      availableReplicas: ready,
      currentRevision: revision,
      updateRevision: revision,
      collisionCount: 0,
    });
  }

  private daemonSet(ds: JsonObject, owned: JsonObject[]): void {
    const pods = owned.filter(alive);
    const hash = templateHash(specOf(ds).template);
    if (pods.length === 0)
      this.createPod(
        ds,
        'apps/v1',
        'DaemonSet',
        { generateName: `${str(metaOf(ds).name)}-` },
        {
          'controller-revision-hash': hash,
          'pod-template-generation': String(Number(metaOf(ds).generation ?? 1)),
        },
      );
    for (const p of pods.slice(1)) this.deletePod(p);
    const ready = pods.slice(0, 1).filter(podReady).length;
    this.writeStatus(DAEMONSETS, ds, {
      currentNumberScheduled: Math.min(pods.length, 1),
      numberMisscheduled: 0,
      desiredNumberScheduled: 1,
      numberReady: ready,
      observedGeneration: metaOf(ds).generation,
      ...counts({
        updatedNumberScheduled: Math.min(pods.length, 1),
        numberAvailable: ready,
        numberUnavailable: 1 - ready,
      }),
    });
  }

  private job(job: JsonObject, owned: JsonObject[]): void {
    const meta = metaOf(job);
    const spec = specOf(job);
    const completions = typeof spec.completions === 'number' ? spec.completions : 1;
    const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 1;
    const prev = isObject(job.status) ? job.status : {};
    const succeeded = owned.filter((p) => isObject(p.status) && p.status.phase === 'Succeeded').length;
    const active = owned.filter((p) => alive(p) && !podFinished(p));
    const done = succeeded >= completions;
    const now = rfc3339(new Date());
    if (!done) {
      const want = Math.min(parallelism, completions - succeeded) - active.length;
      const uid = str(meta.uid);
      for (let i = 0; i < Math.min(want, BURST); i++)
        this.createPod(
          job,
          'batch/v1',
          'Job',
          { generateName: `${str(meta.name)}-` },
          {
            'batch.kubernetes.io/controller-uid': uid,
            'batch.kubernetes.io/job-name': str(meta.name),
            'controller-uid': uid,
            'job-name': str(meta.name),
          },
        );
    }
    const status: JsonObject = {
      startTime: typeof prev.startTime === 'string' ? prev.startTime : now,
      ...counts({ active: done ? 0 : active.length, succeeded }),
      ready: done ? 0 : active.filter(podReady).length,
      terminating: 0,
      uncountedTerminatedPods: {},
    };
    if (done) {
      const cond = (type: string): JsonObject => ({
        type,
        status: 'True',
        lastProbeTime: now,
        lastTransitionTime: now,
        reason: 'CompletionsReached',
        message: 'Reached expected number of succeeded pods',
      });
      status.completionTime = typeof prev.completionTime === 'string' ? prev.completionTime : now;
      status.conditions = keepConditionTimes(
        [cond('SuccessCriteriaMet'), cond('Complete')],
        prev.conditions,
      ).map((c) => ({ ...c, lastProbeTime: c.lastTransitionTime }));
    }
    this.writeStatus(JOBS, job, status);
  }

  // ---- writes ----

  private ownerRef(owner: JsonObject, apiVersion: string, kind: string): JsonObject {
    const m = metaOf(owner);
    return { apiVersion, kind, name: m.name, uid: m.uid, controller: true, blockOwnerDeletion: true };
  }

  private createPod(
    owner: JsonObject,
    apiVersion: string,
    kind: string,
    naming: { name?: string; generateName?: string },
    extraLabels: Record<string, string>,
    extraSpec: JsonObject = {},
  ): void {
    const template = isObject(specOf(owner).template) ? (specOf(owner).template as JsonObject) : {};
    const tmeta = isObject(template.metadata) ? template.metadata : {};
    const metadata: JsonObject = {
      ...tmeta,
      ...naming,
      labels: { ...labelsOf(template), ...extraLabels },
      ownerReferences: [this.ownerRef(owner, apiVersion, kind)],
    };
    const spec = { ...(isObject(template.spec) ? template.spec : {}), ...extraSpec };
    this.create(PODS, str(metaOf(owner).namespace), { metadata, spec });
  }

  private create(resource: string, namespace: string, body: JsonObject): void {
    const rt = this.registry.byStorageKey(resource);
    if (!rt) return;
    try {
      this.service.create(rt, storageVersion(rt), namespace, body, SYSTEM);
    } catch {
      // e.g. a name taken by an object this controller does not own: nothing to adopt here
    }
  }

  private deletePod(pod: JsonObject): void {
    const rt = this.registry.byStorageKey(PODS)!;
    const m = metaOf(pod);
    this.service.delete(rt, storageVersion(rt), str(m.namespace), str(m.name), {}, SYSTEM);
  }

  private scale(obj: JsonObject, replicas: number): void {
    const rt = this.registry.byStorageKey(REPLICASETS)!;
    const m = metaOf(obj);
    const live = this.store.get(REPLICASETS, str(m.namespace), str(m.name));
    if (!live) return;
    const next = { ...live, spec: { ...specOf(live), replicas } };
    this.service.commitUpdate(rt, storageVersion(rt), live, next, SYSTEM, undefined, 'track');
  }

  /**
   * A rollback (or a roll forward) to an existing ReplicaSet: it gets the next revision and keeps
   * its former one in `deployment.kubernetes.io/revision-history` (SetNewReplicaSetAnnotations).
   */
  private reviseReplicaSet(rs: JsonObject, revision: number): void {
    const annotations = annotationsOf(rs);
    const previous = annotations[REVISION];
    const next: Record<string, string> = { [REVISION]: String(revision) };
    if (previous !== undefined) {
      const history = annotations[REVISION_HISTORY];
      next[REVISION_HISTORY] = history ? `${history},${previous}` : previous;
    }
    this.annotate(REPLICASETS, rs, next);
  }

  /** Sets annotations on an object (a metadata update by the controller; no new generation). */
  private annotate(resource: string, obj: JsonObject, annotations: Record<string, string>): void {
    const m = metaOf(obj);
    const live = this.store.get(resource, str(m.namespace), str(m.name));
    const rt = this.registry.byStorageKey(resource);
    if (!live || !rt) return;
    const meta = metaOf(live);
    const current = isObject(meta.annotations) ? meta.annotations : {};
    const next = { ...live, metadata: { ...meta, annotations: { ...current, ...annotations } } };
    this.service.commitUpdate(rt, storageVersion(rt), live, next, SYSTEM, undefined, 'track');
  }

  private writeStatus(resource: string, obj: JsonObject, status: JsonObject): void {
    const m = metaOf(obj);
    const live = this.store.get(resource, str(m.namespace), str(m.name));
    const rt = this.registry.byStorageKey(resource);
    if (!live || !rt || JSON.stringify(live.status ?? {}) === JSON.stringify(status)) return;
    this.service.commitUpdate(rt, storageVersion(rt), live, { ...live, status }, SYSTEM, 'status', 'track');
  }
}
