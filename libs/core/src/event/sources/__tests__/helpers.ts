import type { V1ConfigMap } from '@kubernetes/client-node';
import type { KubernetesResource } from '../../../api/resource-type.js';

/** A ConfigMap owned by a widget (controller owner reference). */
export function ownedConfigMap(
  name: string,
  namespace: string,
  owner: KubernetesResource,
  data: Record<string, string> = { value: 'a' },
  labels?: Record<string, string>,
): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace,
      labels,
      ownerReferences: [
        {
          apiVersion: owner.apiVersion!,
          kind: owner.kind!,
          name: owner.metadata!.name!,
          uid: owner.metadata!.uid!,
          controller: true,
        },
      ],
    },
    data,
  };
}

/** A plain ConfigMap. */
export function configMap(
  name: string,
  namespace: string,
  data: Record<string, string>,
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): V1ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...metadata }, data };
}
