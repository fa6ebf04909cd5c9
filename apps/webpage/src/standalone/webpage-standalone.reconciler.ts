import { WorkflowBuilder } from '@tosdk/core';
import type {
  Context,
  ErrorStatusUpdateControl,
  EventSourceContext,
  EventSources,
  UpdateControl,
  Workflow,
} from '@tosdk/core';
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
import { validateWebPage } from '../webpage-validation.js';
import { RbacRules } from '@tosdk/core';
import { WebPageRbac } from '../webpage-rbac.js';

/**
 * The standalone flavour (JOSDK's `WebPageDependentsWorkflowReconciler`): the reconciler creates
 * the dependents, builds their workflow with `WorkflowBuilder`, registers their informers in
 * `prepareEventSources` and runs the workflow itself in `reconcile`, after validating the page.
 */
@RbacRules(WebPageRbac.events, ...WebPageRbac.secondaryWrites)
@Reconciler({ resource: WebPage, name: CONTROLLER_NAME, recordReconcileErrorEvents: false })
export class WebPageStandaloneReconciler implements Reconciler<WebPage> {
  private readonly configMap = new ConfigMapDependent();
  private readonly deployment = new DeploymentDependent();
  private readonly service = new ServiceDependent();
  private readonly ingress = new IngressDependent();
  private readonly workflow: Workflow<WebPage> = new WorkflowBuilder<WebPage>()
    .addDependentResource(this.configMap)
    .addDependentResource(this.deployment)
    .dependsOn(this.configMap)
    .addDependentResource(this.service)
    .dependsOn(this.configMap)
    .addDependentResource(this.ingress)
    .dependsOn(this.service)
    .withReconcilePrecondition(isExposed)
    .build();

  prepareEventSources(context: EventSourceContext<WebPage>): EventSources {
    return {
      [DependentNames.configMap]: this.configMap.eventSource(context),
      [DependentNames.deployment]: this.deployment.eventSource(context),
      [DependentNames.service]: this.service.eventSource(context),
      [DependentNames.ingress]: this.ingress.eventSource(context),
    };
  }

  async reconcile(page: WebPage, context: Context<WebPage>): Promise<UpdateControl<WebPage>> {
    validateWebPage(page);
    await this.workflow.reconcile(page, context);
    return patchStatus(
      page,
      reconciledStatus(page, {
        configMap: this.configMap.getSecondaryResource(page, context),
        deployment: this.deployment.getSecondaryResource(page, context),
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
