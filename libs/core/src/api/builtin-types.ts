import type {
  CoreV1Event,
  V1ConfigMap,
  V1CronJob,
  V1DaemonSet,
  V1Deployment,
  V1Ingress,
  V1Job,
  V1Lease,
  V1Namespace,
  V1NetworkPolicy,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodDisruptionBudget,
  V1ReplicaSet,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import { defineResource } from './resource-type.js';
import type { KubernetesResource, ResourceType } from './resource-type.js';

const core = <T extends KubernetesResource>(
  kind: string,
  plural?: string,
  cluster = false,
): ResourceType<T> =>
  defineResource<T>({ group: '', version: 'v1', kind, plural, scope: cluster ? 'Cluster' : 'Namespaced' });

/**
 * Predefined {@link ResourceType}s of the built-in kinds, typed with @kubernetes/client-node's models.
 * A built-in kind can be a primary resource as well as a secondary one.
 */
export const ResourceTypes = Object.freeze({
  Namespace: core<V1Namespace>('Namespace', undefined, true),
  ConfigMap: core<V1ConfigMap>('ConfigMap'),
  Secret: core<V1Secret>('Secret'),
  Service: core<V1Service>('Service'),
  ServiceAccount: core<V1ServiceAccount>('ServiceAccount'),
  Pod: core<V1Pod>('Pod'),
  Event: core<CoreV1Event>('Event'),
  PersistentVolumeClaim: core<V1PersistentVolumeClaim>('PersistentVolumeClaim'),
  Deployment: defineResource<V1Deployment>({ group: 'apps', version: 'v1', kind: 'Deployment' }),
  StatefulSet: defineResource<V1StatefulSet>({ group: 'apps', version: 'v1', kind: 'StatefulSet' }),
  ReplicaSet: defineResource<V1ReplicaSet>({ group: 'apps', version: 'v1', kind: 'ReplicaSet' }),
  DaemonSet: defineResource<V1DaemonSet>({ group: 'apps', version: 'v1', kind: 'DaemonSet' }),
  Job: defineResource<V1Job>({ group: 'batch', version: 'v1', kind: 'Job' }),
  Ingress: defineResource<V1Ingress>({
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'Ingress',
    plural: 'ingresses',
  }),
  Lease: defineResource<V1Lease>({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' }),
  CronJob: defineResource<V1CronJob>({ group: 'batch', version: 'v1', kind: 'CronJob' }),
  NetworkPolicy: defineResource<V1NetworkPolicy>({
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'NetworkPolicy',
    plural: 'networkpolicies',
  }),
  PodDisruptionBudget: defineResource<V1PodDisruptionBudget>({
    group: 'policy',
    version: 'v1',
    kind: 'PodDisruptionBudget',
  }),
  HorizontalPodAutoscaler: defineResource<V2HorizontalPodAutoscaler>({
    group: 'autoscaling',
    version: 'v2',
    kind: 'HorizontalPodAutoscaler',
  }),
});
