import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import type { Context, ErrorStatusUpdateControl, UpdateControl } from '@tosdk/core';
import { Reconciler } from '@tosdk/nestjs';
import {
  ConfigMapDependent,
  DependentNames,
  DeploymentDependent,
  IngressDependent,
  isExposed,
  ServiceDependent,
} from '../dependents/webpage-dependents.js';
import { CONTROLLER_NAME } from '../webpage-names.js';
import { WebPage } from '../webpage.resource.js';
import { patchStatus, reconciledStatus, webPageErrorStatus } from '../webpage-status.js';
import { RbacRules } from '@tosdk/core';
import { WebPageRbac } from '../webpage-rbac.js';

/**
 * The managed flavour (JOSDK's `WebPageManagedDependentsReconciler`): the dependents and their
 * workflow are declared on the controller; the framework registers their informers and reconciles
 * the workflow before `reconcile`, which only reports the status. The ConfigMap comes first (it
 * validates the page), the Deployment and the Service depend on it, and the Ingress depends on the
 * Service behind the `spec.exposed` precondition.
 */
@RbacRules(WebPageRbac.events)
@Reconciler({
  resource: WebPage,
  name: CONTROLLER_NAME,
  recordReconcileErrorEvents: false,
  workflow: {
    dependents: [
      { dependent: ConfigMapDependent },
      { dependent: DeploymentDependent, dependsOn: [DependentNames.configMap] },
      { dependent: ServiceDependent, dependsOn: [DependentNames.configMap] },
      { dependent: IngressDependent, dependsOn: [DependentNames.service], reconcilePrecondition: isExposed },
    ],
  },
})
export class WebPageManagedReconciler implements Reconciler<WebPage> {
  reconcile(page: WebPage, context: Context<WebPage>): UpdateControl<WebPage> {
    const workflow = context.managedWorkflowAndDependentResourceContext();
    return patchStatus(
      page,
      reconciledStatus(page, {
        configMap: workflow.getSecondaryResource<V1ConfigMap>(DependentNames.configMap),
        deployment: workflow.getSecondaryResource<V1Deployment>(DependentNames.deployment),
      }),
    );
  }

  updateErrorStatus(
    page: WebPage,
    context: Context<WebPage>,
    error: unknown,
  ): Promise<ErrorStatusUpdateControl<WebPage>> {
    return webPageErrorStatus(page, context, error);
  }
}
