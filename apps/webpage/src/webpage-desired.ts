import { createHash } from 'node:crypto';
import type {
  V1ConfigMap,
  V1Deployment,
  V1Ingress,
  V1ObjectMeta,
  V1OwnerReference,
  V1Service,
} from '@kubernetes/client-node';
import {
  configMapName,
  HTML_HASH_ANNOTATION,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  WEBPAGE_LABEL,
  workloadName,
} from './webpage-names.js';
import { WebPage } from './webpage.resource.js';

/** The image that serves the pages. */
export const NGINX_IMAGE = 'nginx:1.27-alpine';

/** An object whose name is known, as server-side apply needs it. */
export type Desired<T> = T & { metadata: V1ObjectMeta & { name: string; namespace: string } };

/** The owner reference that makes the API server's garbage collector delete a secondary with its page. */
export function ownerReference(page: WebPage): V1OwnerReference {
  return {
    apiVersion: WebPage.apiVersion,
    kind: WebPage.kind,
    name: page.metadata!.name!,
    uid: page.metadata!.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function metadata(page: WebPage, name: string): Desired<object>['metadata'] {
  return {
    name,
    namespace: page.metadata!.namespace!,
    labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [WEBPAGE_LABEL]: page.metadata!.name! },
    ownerReferences: [ownerReference(page)],
  };
}

/** The ConfigMap holding the page as `index.html`. */
export function desiredConfigMap(page: WebPage): Desired<V1ConfigMap> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(page, configMapName(page)),
    data: { 'index.html': page.spec!.html },
  };
}

/**
 * One nginx replica serving the ConfigMap. The pod template carries the page's hash, so a new page
 * rolls the pods instead of waiting for the kubelet to refresh the mounted file.
 */
export function desiredDeployment(page: WebPage): Desired<V1Deployment> {
  const name = workloadName(page);
  const podLabels = { [WEBPAGE_LABEL]: page.metadata!.name! };
  const hash = createHash('sha256').update(page.spec!.html).digest('hex');
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(page, name),
    spec: {
      replicas: 1,
      selector: { matchLabels: podLabels },
      template: {
        metadata: { labels: podLabels, annotations: { [HTML_HASH_ANNOTATION]: hash } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: NGINX_IMAGE,
              ports: [{ name: 'http', containerPort: 80 }],
              volumeMounts: [{ name: 'html', mountPath: '/usr/share/nginx/html', readOnly: true }],
              readinessProbe: { httpGet: { path: '/', port: 'http' } },
            },
          ],
          volumes: [{ name: 'html', configMap: { name: configMapName(page) } }],
        },
      },
    },
  };
}

/** A ClusterIP Service in front of the nginx pods, port 80. */
export function desiredService(page: WebPage): Desired<V1Service> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(page, workloadName(page)),
    spec: {
      selector: { [WEBPAGE_LABEL]: page.metadata!.name! },
      ports: [{ name: 'http', port: 80, targetPort: 'http' }],
    },
  };
}

/** The path an exposed page is served under: `/<namespace>/<name>`. */
export function ingressPath(page: WebPage): string {
  return `/${page.metadata!.namespace!}/${page.metadata!.name!}`;
}

/** An Ingress routing {@link ingressPath} to the Service (nginx ingress rewrites it to `/`). */
export function desiredIngress(page: WebPage): Desired<V1Ingress> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      ...metadata(page, workloadName(page)),
      annotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' },
    },
    spec: {
      rules: [
        {
          http: {
            paths: [
              {
                path: ingressPath(page),
                pathType: 'Prefix',
                backend: { service: { name: workloadName(page), port: { name: 'http' } } },
              },
            ],
          },
        },
      ],
    },
  };
}
