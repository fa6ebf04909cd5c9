import type { V1ConfigMap, V1Deployment, V1Service } from '@kubernetes/client-node';
import { CRUDKubernetesDependentResource, ResourceID, ResourceTypes } from '@tosdk/core';
import type { Context, KubernetesResource, ResourceType } from '@tosdk/core';
import {
  CONTEXTS_ANNOTATION,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  TOMCAT_LABEL,
  WEBAPP_LIST_KEY,
  webappListName,
  WEBAPPS_HASH_ANNOTATION,
  workloadName,
  WORKLOAD_SELECTOR,
} from '../tomcat-names.js';
import type { Tomcat } from '../tomcat.resource.js';
import { contextPathsOf, listHash } from '../webapp/webapp-list.js';

/** Names of the Tomcat controller's dependents. */
export const TomcatDependentNames = Object.freeze({ deployment: 'deployment', service: 'service' });

/** Name of the Tomcat controller's event source of application-list ConfigMaps. */
export const WEBAPP_LISTS_SOURCE = 'webapp-lists';

/** The image that downloads the WARs of the application list before Tomcat starts. */
export const FETCH_IMAGE = 'busybox:1.36';

// the init container: one `<war name> <url>` line per application, each downloaded into webapps/
const FETCH_SCRIPT = [
  'set -eu',
  'if [ -f /list/webapps.txt ]; then',
  '  while read -r war url; do',
  '    [ -n "$war" ] || continue',
  '    wget -q -O "/webapps/$war.war" "$url"',
  '  done < /list/webapps.txt',
  'fi',
].join('\n');

abstract class TomcatDependent<R extends KubernetesResource> extends CRUDKubernetesDependentResource<
  R,
  Tomcat
> {
  constructor(name: string, resourceType: ResourceType<R>) {
    super({ name, resourceType, informer: { labelSelector: WORKLOAD_SELECTOR } });
  }

  protected override targetSecondaryResourceID(tomcat: Tomcat): ResourceID {
    return new ResourceID(workloadName(tomcat), tomcat.metadata?.namespace);
  }
}

/** The application list of a Tomcat, from the controller's ConfigMap event source ('' when there is none yet). */
export function currentWebappList(tomcat: Tomcat, context: Context<Tomcat>): string {
  const name = webappListName(tomcat.metadata!.name!);
  const list = context
    .getSecondaryResources<V1ConfigMap>(ResourceTypes.ConfigMap)
    .find((c) => c.metadata?.name === name && c.metadata?.namespace === tomcat.metadata?.namespace);
  return list?.data?.[WEBAPP_LIST_KEY] ?? '';
}

/**
 * The Tomcat Deployment: `spec.replicas` pods of `tomcat:<version>`, an init container that
 * downloads the WARs of the application list (the ConfigMap the Webapp controller keeps) into the
 * pods' `webapps/`, and the list's hash and context paths on the pod template, so a changed list
 * rolls the pods and every pod says what it serves.
 */
export class TomcatDeploymentDependent extends TomcatDependent<V1Deployment> {
  constructor() {
    super(TomcatDependentNames.deployment, ResourceTypes.Deployment);
  }

  protected override desired(tomcat: Tomcat, context: Context<Tomcat>): V1Deployment {
    const name = workloadName(tomcat);
    const labels = { [TOMCAT_LABEL]: name };
    const list = currentWebappList(tomcat, context);
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name,
        namespace: tomcat.metadata!.namespace!,
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, ...labels },
      },
      spec: {
        replicas: tomcat.spec?.replicas ?? 1,
        selector: { matchLabels: labels },
        template: {
          metadata: {
            labels,
            annotations: {
              [WEBAPPS_HASH_ANNOTATION]: listHash(list),
              [CONTEXTS_ANNOTATION]: contextPathsOf(list).join(','),
            },
          },
          spec: {
            initContainers: [
              {
                name: 'fetch-webapps',
                image: FETCH_IMAGE,
                command: ['sh', '-c', FETCH_SCRIPT],
                volumeMounts: [
                  { name: 'list', mountPath: '/list', readOnly: true },
                  { name: 'webapps', mountPath: '/webapps' },
                ],
              },
            ],
            containers: [
              {
                name: 'tomcat',
                image: `tomcat:${tomcat.spec!.version}`,
                ports: [{ name: 'http', containerPort: 8080 }],
                volumeMounts: [{ name: 'webapps', mountPath: '/usr/local/tomcat/webapps' }],
                readinessProbe: { tcpSocket: { port: 'http' } },
              },
            ],
            volumes: [
              { name: 'list', configMap: { name: webappListName(name), optional: true } },
              { name: 'webapps', emptyDir: {} },
            ],
          },
        },
      },
    };
  }
}

/** The Service in front of the Tomcat pods, port 80 to 8080. */
export class TomcatServiceDependent extends TomcatDependent<V1Service> {
  constructor() {
    super(TomcatDependentNames.service, ResourceTypes.Service);
  }

  protected override desired(tomcat: Tomcat): V1Service {
    const name = workloadName(tomcat);
    return {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name,
        namespace: tomcat.metadata!.namespace!,
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [TOMCAT_LABEL]: name },
      },
      spec: {
        selector: { [TOMCAT_LABEL]: name },
        ports: [{ name: 'http', port: 80, targetPort: 'http' }],
      },
    };
  }
}
