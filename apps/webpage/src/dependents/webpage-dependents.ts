import type { V1ConfigMap, V1Deployment, V1Ingress, V1Service } from '@kubernetes/client-node';
import { CRUDKubernetesDependentResource, ResourceID, ResourceTypes } from '@tosdk/core';
import type { KubernetesResource, ResourceType } from '@tosdk/core';
import { desiredConfigMap, desiredDeployment, desiredIngress, desiredService } from '../webpage-desired.js';
import { configMapName, SECONDARY_SELECTOR, workloadName } from '../webpage-names.js';
import type { WebPage } from '../webpage.resource.js';
import { validateWebPage } from '../webpage-validation.js';

/** Names of the dependents in the workflows of the managed and standalone flavours. */
export const DependentNames = Object.freeze({
  configMap: 'configmap',
  deployment: 'deployment',
  service: 'service',
  ingress: 'ingress',
});

/**
 * What the four dependents share: created, updated (server-side apply, managed-fields matching)
 * and garbage collected through an owner reference; an informer per kind restricted to the
 * operator's label; the secondary found by name, without computing the desired state.
 */
abstract class WebPageDependent<R extends KubernetesResource> extends CRUDKubernetesDependentResource<
  R,
  WebPage
> {
  constructor(name: string, resourceType: ResourceType<R>) {
    super({ name, resourceType, informer: { labelSelector: SECONDARY_SELECTOR } });
  }

  /** The secondary's name for a page. */
  protected abstract nameFor(page: WebPage): string;

  protected override targetSecondaryResourceID(page: WebPage): ResourceID {
    return new ResourceID(this.nameFor(page), page.metadata?.namespace);
  }
}

/**
 * The ConfigMap with the page. The root of the workflow, so it validates the page: an invalid page
 * fails here and nothing that depends on it is touched.
 */
export class ConfigMapDependent extends WebPageDependent<V1ConfigMap> {
  constructor() {
    super(DependentNames.configMap, ResourceTypes.ConfigMap);
  }

  protected nameFor(page: WebPage): string {
    return configMapName(page);
  }

  /** @throws InvalidWebPageError for a page that cannot be served. */
  protected override desired(page: WebPage): V1ConfigMap {
    validateWebPage(page);
    return desiredConfigMap(page);
  }
}

/** The nginx Deployment mounting the ConfigMap. */
export class DeploymentDependent extends WebPageDependent<V1Deployment> {
  constructor() {
    super(DependentNames.deployment, ResourceTypes.Deployment);
  }

  protected nameFor(page: WebPage): string {
    return workloadName(page);
  }

  protected override desired(page: WebPage): V1Deployment {
    return desiredDeployment(page);
  }
}

/** The Service in front of the nginx pods. */
export class ServiceDependent extends WebPageDependent<V1Service> {
  constructor() {
    super(DependentNames.service, ResourceTypes.Service);
  }

  protected nameFor(page: WebPage): string {
    return workloadName(page);
  }

  protected override desired(page: WebPage): V1Service {
    return desiredService(page);
  }
}

/** The Ingress; in the workflows only while the page is exposed ({@link isExposed}). */
export class IngressDependent extends WebPageDependent<V1Ingress> {
  constructor() {
    super(DependentNames.ingress, ResourceTypes.Ingress);
  }

  protected nameFor(page: WebPage): string {
    return workloadName(page);
  }

  protected override desired(page: WebPage): V1Ingress {
    return desiredIngress(page);
  }
}

/** The Ingress's reconcile precondition (JOSDK's `ExposedIngressCondition`): false deletes the Ingress. */
export function isExposed(_dependent: unknown, page: WebPage): boolean {
  return page.spec?.exposed === true;
}
