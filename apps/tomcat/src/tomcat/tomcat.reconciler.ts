import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { ErrorStatusUpdateControl, InformerEventSource, ResourceTypes, UpdateControl } from '@tosdk/core';
import type { Context, EventSourceContext, EventSources } from '@tosdk/core';
import { Reconciler } from '@tosdk/nestjs';
import { TOMCAT_CONTROLLER, WEBAPP_LIST_SELECTOR } from '../tomcat-names.js';
import { Tomcat } from '../tomcat.resource.js';
import type { TomcatStatus } from '../tomcat.resource.js';
import { tomcatNameProblem } from './tomcat-name.js';
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
 * whose Deployment then rolls. The status reports the ready pods, and `errorMessage` when a
 * reconciliation failed: the API server's message, or for a name that cannot name the Service
 * (`web.v1`, more than 63 characters) an {@link InvalidTomcatNameError} naming `metadata.name`,
 * without retries.
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
      tomcat.status?.observedGeneration === status.observedGeneration &&
      tomcat.status?.errorMessage === undefined
    ) {
      return UpdateControl.noUpdate<Tomcat>();
    }
    return UpdateControl.patchStatus<Tomcat>(statusObject(tomcat, status));
  }

  updateErrorStatus(
    tomcat: Tomcat,
    _context: Context<Tomcat>,
    error: unknown,
  ): ErrorStatusUpdateControl<Tomcat> {
    const invalidName = tomcatNameProblem(tomcat, error);
    const control = ErrorStatusUpdateControl.patchStatus<Tomcat>(
      statusObject(tomcat, {
        readyReplicas: tomcat.status?.readyReplicas ?? 0,
        observedGeneration: tomcat.metadata?.generation,
        errorMessage: invalidName?.message ?? messageOf(error),
      }),
    );
    return invalidName ? control.withNoRetry() : control;
  }
}

function statusObject(tomcat: Tomcat, status: TomcatStatus): Tomcat {
  return {
    apiVersion: Tomcat.apiVersion,
    kind: Tomcat.kind,
    metadata: { name: tomcat.metadata!.name!, namespace: tomcat.metadata!.namespace! },
    status,
  };
}

// the framework and the workflow wrap what failed (ReconcileError, the workflow's aggregated error):
// the messages of the innermost errors, e.g. the API server's refusal of a dependent
function messageOf(error: unknown): string {
  const leaves: string[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): void => {
    if (depth > 10 || seen.has(e)) return;
    seen.add(e);
    const { cause, errorsByDependent } = (e ?? {}) as { cause?: unknown; errorsByDependent?: unknown };
    if (errorsByDependent instanceof Map) {
      for (const inner of errorsByDependent.values() as Iterable<unknown>) visit(inner, depth + 1);
    } else if (cause !== undefined) visit(cause, depth + 1);
    else leaves.push(e instanceof Error ? e.message : String(e));
  };
  visit(error, 0);
  return leaves.join('; ');
}
