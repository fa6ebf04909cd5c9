import type {
  CoreV1Event,
  V1ConfigMap,
  V1CronJob,
  V1EndpointSlice,
  V1LimitRange,
  V1LimitRangeItem,
  V1LimitRangeSpec,
  V1Node,
  V1PriorityClass,
  V1ResourceQuota,
  V1StorageClass,
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
 * A LimitRange as the API server sends it: client-node's model calls a limit's `default` `_default`
 * (its serializer renames it), while tosdk's client hands out the JSON as it comes.
 */
type LimitRangeJson = Omit<V1LimitRange, 'spec'> & {
  spec?: Omit<V1LimitRangeSpec, 'limits'> & {
    limits: Array<Omit<V1LimitRangeItem, '_default'> & { default?: V1LimitRangeItem['_default'] }>;
  };
};

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
  Node: core<V1Node>('Node', undefined, true),
  ResourceQuota: core<V1ResourceQuota>('ResourceQuota'),
  LimitRange: core<LimitRangeJson>('LimitRange'),
  EndpointSlice: defineResource<V1EndpointSlice>({
    group: 'discovery.k8s.io',
    version: 'v1',
    kind: 'EndpointSlice',
  }),
  StorageClass: defineResource<V1StorageClass>({
    group: 'storage.k8s.io',
    version: 'v1',
    kind: 'StorageClass',
    scope: 'Cluster',
  }),
  PriorityClass: defineResource<V1PriorityClass>({
    group: 'scheduling.k8s.io',
    version: 'v1',
    kind: 'PriorityClass',
    scope: 'Cluster',
  }),
});
