import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { InformerEventSource, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { Context, EventSourceContext, EventSources } from '@tosdk/core';
import { Reconciler } from '@tosdk/nestjs';
import { TOMCAT_CONTROLLER, WEBAPP_LIST_SELECTOR } from '../tomcat-names.js';
import { Tomcat } from '../tomcat.resource.js';
import {
  TomcatDependentNames,
  TomcatDeploymentDependent,
  TomcatServiceDependent,
  WEBAPP_LISTS_SOURCE,
} from './tomcat-dependents.js';

/**
 * The Tomcat controller (JOSDK's `TomcatReconciler`): a Deployment and a Service as managed
 * dependents, and an informer on the application-list ConfigMaps the Webapp controller writes
 * (owned by the Tomcat, so mapped to it by owner reference): a new list reconciles the Tomcat,
 * whose Deployment then rolls. The status reports the ready pods.
 */
@Reconciler({
  resource: Tomcat,
  name: TOMCAT_CONTROLLER,
  workflow: {
    dependents: [{ dependent: TomcatDeploymentDependent }, { dependent: TomcatServiceDependent }],
  },
})
export class TomcatReconciler implements Reconciler<Tomcat> {
  prepareEventSources(context: EventSourceContext<Tomcat>): EventSources {
    return {
      [WEBAPP_LISTS_SOURCE]: new InformerEventSource<V1ConfigMap, Tomcat>(
        { type: ResourceTypes.ConfigMap, labelSelector: WEBAPP_LIST_SELECTOR },
        context,
      ),
    };
  }

  reconcile(tomcat: Tomcat, context: Context<Tomcat>): UpdateControl<Tomcat> {
    const deployment = context
      .managedWorkflowAndDependentResourceContext()
      .getSecondaryResource<V1Deployment>(TomcatDependentNames.deployment);
    const status = {
      readyReplicas: deployment?.status?.readyReplicas ?? 0,
      observedGeneration: tomcat.metadata?.generation,
    };
    if (
      tomcat.status?.readyReplicas === status.readyReplicas &&
      tomcat.status?.observedGeneration === status.observedGeneration
    ) {
      return UpdateControl.noUpdate<Tomcat>();
    }
    return UpdateControl.patchStatus<Tomcat>({
      apiVersion: Tomcat.apiVersion,
      kind: Tomcat.kind,
      metadata: { name: tomcat.metadata!.name!, namespace: tomcat.metadata!.namespace! },
      status,
    });
  }
}
