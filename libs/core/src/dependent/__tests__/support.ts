import type { V1ConfigMap, V1Deployment, V1Service } from '@kubernetes/client-node';
import type { Context } from '../../api/context.js';
import { ResourceTypes } from '../../api/builtin-types.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import type { ApiServerSuite, Widget } from '../../operator/__tests__/support.js';
import {
  CRUDKubernetesDependentResource,
  CRUDNoGCKubernetesDependentResource,
} from '../crud-kubernetes-dependent-resource.js';
import type { KubernetesDependentOptions } from '../kubernetes-dependent-options.js';

export { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

/**
 * Stops the operators the test made so far (a restart within a test); the suite stops those made
 * later after the test.
 */
export async function stopOperators(suite: ApiServerSuite): Promise<void> {
  await Promise.all(suite.operators.splice(0).map((o) => o.stop()));
}

/** A ConfigMap named `<primary>-cm` holding the widget's value. */
export class ConfigMapDependent extends CRUDKubernetesDependentResource<V1ConfigMap, Widget> {
  desiredCalls = 0;
  constructor(
    options: Partial<KubernetesDependentOptions<V1ConfigMap>> = {},
    readonly suffix = 'cm',
  ) {
    super({ resourceType: ResourceTypes.ConfigMap, ...options });
  }
  protected desired(primary: Widget): V1ConfigMap {
    this.desiredCalls++;
    return {
      metadata: {
        name: `${primary.metadata!.name!}-${this.suffix}`,
        labels: { app: primary.metadata!.name! },
      },
      data: { value: primary.spec?.value ?? '' },
    };
  }
}

/** The same ConfigMap, deleted by the workflow (no owner reference). */
export class NoGCConfigMapDependent extends CRUDNoGCKubernetesDependentResource<V1ConfigMap, Widget> {
  constructor(
    options: Partial<KubernetesDependentOptions<V1ConfigMap>> = {},
    readonly suffix = 'cm',
  ) {
    super({ resourceType: ResourceTypes.ConfigMap, ...options });
  }
  protected desired(primary: Widget): V1ConfigMap {
    return {
      metadata: { name: `${primary.metadata!.name!}-${this.suffix}` },
      data: { value: primary.spec?.value ?? '' },
    };
  }
}

/** A Deployment with `size` replicas. */
export class DeploymentDependent extends CRUDKubernetesDependentResource<V1Deployment, Widget> {
  constructor(options: Partial<KubernetesDependentOptions<V1Deployment>> = {}) {
    super({ resourceType: ResourceTypes.Deployment, ...options });
  }
  protected desired(primary: Widget): V1Deployment {
    const name = primary.metadata!.name!;
    return {
      metadata: { name },
      spec: {
        replicas: primary.spec?.size ?? 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'web', image: `nginx:${primary.spec?.value ?? 'latest'}` }] },
        },
      },
    };
  }
}

/** A Service in front of the deployment. */
export class ServiceDependent extends CRUDKubernetesDependentResource<V1Service, Widget> {
  constructor(options: Partial<KubernetesDependentOptions<V1Service>> = {}) {
    super({ resourceType: ResourceTypes.Service, ...options });
  }
  protected desired(primary: Widget): V1Service {
    const name = primary.metadata!.name!;
    return { metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] } };
  }
}

/** Ready when the deployment reports all replicas ready. */
export function deploymentReady(_d: unknown, primary: Widget, context: Context<Widget>): boolean {
  const d = context
    .managedWorkflowAndDependentResourceContext()
    .getSecondaryResource<V1Deployment>('deployment');
  void primary;
  return (d?.status?.readyReplicas ?? 0) >= (d?.spec?.replicas ?? 1);
}

/** Simulates the deployment controller: sets readyReplicas to spec.replicas. */
export async function markDeploymentReady(
  client: KubernetesClient,
  namespace: string,
  name: string,
): Promise<void> {
  const d = await client.get(ResourceTypes.Deployment, new ResourceID(name, namespace));
  if (!d) throw new Error(`no deployment ${namespace}/${name}`);
  const replicas = d.spec?.replicas ?? 1;
  await client.mergePatch(
    ResourceTypes.Deployment,
    new ResourceID(name, namespace),
    { status: { replicas, readyReplicas: replicas, availableReplicas: replicas } },
    { subresource: 'status' },
  );
}
