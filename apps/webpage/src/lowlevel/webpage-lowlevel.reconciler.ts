import type { V1ConfigMap, V1Deployment, V1Ingress, V1Service } from '@kubernetes/client-node';
import { KubernetesApiError, ResourceID, ResourceTypes } from '@tosdk/core';
import type {
  Context,
  ErrorStatusUpdateControl,
  EventSourceContext,
  EventSources,
  KubernetesResource,
  ResourceType,
  UpdateControl,
} from '@tosdk/core';
import { Reconciler } from '@tosdk/nestjs';
import { containsDesired } from '../desired-state-match.js';
import { desiredConfigMap, desiredDeployment, desiredIngress, desiredService } from '../webpage-desired.js';
import type { Desired } from '../webpage-desired.js';
import { CONTROLLER_NAME, FIELD_MANAGER } from '../webpage-names.js';
import { WebPage } from '../webpage.resource.js';
import { patchStatus, reconciledStatus, webPageErrorStatus } from '../webpage-status.js';
import { validateWebPage } from '../webpage-validation.js';
import { SecondaryNameTakenError } from '../secondary-name-taken.js';
import { OwnedResourceEventSource } from './owned-resource-event-source.js';
import { RbacRules } from '@tosdk/core';
import { WebPageRbac } from '../webpage-rbac.js';

interface Sources {
  configMaps: OwnedResourceEventSource<V1ConfigMap>;
  deployments: OwnedResourceEventSource<V1Deployment>;
  services: OwnedResourceEventSource<V1Service>;
  ingresses: OwnedResourceEventSource<V1Ingress>;
}

/**
 * The low-level flavour (JOSDK's `WebPageReconciler`): its own informer event sources and plain code
 * that compares each secondary with its desired state, writes only what differs (server-side
 * apply), deletes the Ingress when the page is no longer exposed, and reports the status from what
 * exists.
 */
@RbacRules(WebPageRbac.events, ...WebPageRbac.secondaryWrites)
@Reconciler({ resource: WebPage, name: CONTROLLER_NAME, recordReconcileErrorEvents: false })
export class WebPageLowLevelReconciler implements Reconciler<WebPage> {
  private sources: Sources | undefined;

  prepareEventSources(context: EventSourceContext<WebPage>): EventSources {
    this.sources = {
      configMaps: new OwnedResourceEventSource(ResourceTypes.ConfigMap, context),
      deployments: new OwnedResourceEventSource(ResourceTypes.Deployment, context),
      services: new OwnedResourceEventSource(ResourceTypes.Service, context),
      ingresses: new OwnedResourceEventSource(ResourceTypes.Ingress, context),
    };
    return { ...this.sources };
  }

  async reconcile(page: WebPage, context: Context<WebPage>): Promise<UpdateControl<WebPage>> {
    validateWebPage(page);
    const sources = this.sources!;
    const configMap = await this.ensure(
      ResourceTypes.ConfigMap,
      sources.configMaps,
      desiredConfigMap(page),
      page,
      context,
    );
    const deployment = await this.ensure(
      ResourceTypes.Deployment,
      sources.deployments,
      desiredDeployment(page),
      page,
      context,
    );
    await this.ensure(ResourceTypes.Service, sources.services, desiredService(page), page, context);
    if (page.spec?.exposed === true) {
      await this.ensure(ResourceTypes.Ingress, sources.ingresses, desiredIngress(page), page, context);
    } else {
      for (const ingress of sources.ingresses.getSecondaryResources(page)) {
        context.logger.info('deleting the Ingress of a page that is no longer exposed');
        await context.client.delete(ResourceTypes.Ingress, ResourceID.fromResource(ingress));
      }
    }
    return patchStatus(page, reconciledStatus(page, { configMap, deployment }));
  }

  updateErrorStatus(
    page: WebPage,
    context: Context<WebPage>,
    error: unknown,
  ): Promise<ErrorStatusUpdateControl<WebPage>> {
    return webPageErrorStatus(page, context, error);
  }

  private async ensure<R extends KubernetesResource>(
    type: ResourceType<R>,
    source: OwnedResourceEventSource<R>,
    desired: Desired<R>,
    page: WebPage,
    context: Context<WebPage>,
  ): Promise<R> {
    const actual = source.getSecondaryResources(page).find((r) => r.metadata?.name === desired.metadata.name);
    if (actual && containsDesired(desired, actual)) return actual;
    context.logger.info(`${actual ? 'updating' : 'creating'} ${type.kind} ${desired.metadata.name}`);
    // a create holds the precondition resourceVersion "1": kube creates a missing object whatever
    // version an apply names, and refuses (409) to change an existing one, which is not the page's
    // (the page's own would be in the source's cache)
    const target = actual ? desired : { ...desired, metadata: { ...desired.metadata, resourceVersion: '1' } };
    let written: R;
    try {
      written = await context.client.apply(type, target, { fieldManager: FIELD_MANAGER, force: true });
    } catch (error) {
      if (actual || !(error instanceof KubernetesApiError && error.status === 409)) throw error;
      throw new SecondaryNameTakenError(
        type.kind,
        ResourceID.fromResource(desired),
        ResourceID.fromResource(page).key,
        {
          cause: error,
        },
      );
    }
    source.cacheOwnWrite(written);
    return written;
  }
}
