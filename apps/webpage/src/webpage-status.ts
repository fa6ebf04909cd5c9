import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { ErrorStatusUpdateControl, UpdateControl } from '@tosdk/core';
import type { Context } from '@tosdk/core';
import { WebPage } from './webpage.resource.js';
import type { WebPageStatus } from './webpage.resource.js';
import { InvalidWebPageError } from './webpage-validation.js';
import { SecondaryNameTakenError } from './secondary-name-taken.js';

/**
 * Whether a Deployment has rolled out its current spec: the controller saw this generation and all
 * desired replicas are updated and ready.
 */
export function isDeploymentReady(deployment: V1Deployment | undefined): boolean {
  if (!deployment) return false;
  const wanted = deployment.spec?.replicas ?? 1;
  const status = deployment.status;
  return (
    (status?.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0) &&
    (status?.updatedReplicas ?? 0) >= wanted &&
    (status?.readyReplicas ?? 0) >= wanted
  );
}

/** What exists for a page after its secondaries were reconciled. */
export interface ObservedSecondaries {
  /** The page's ConfigMap, if it exists. */
  configMap: V1ConfigMap | undefined;
  /** The page's Deployment, if it exists. */
  deployment: V1Deployment | undefined;
}

/**
 * The status of a page whose secondaries were reconciled, read from what exists: the ConfigMap's
 * name (absent without one), readiness of the Deployment, the generation; no error message.
 */
export function reconciledStatus(page: WebPage, observed: ObservedSecondaries): WebPageStatus {
  const name = observed.configMap?.metadata?.name;
  return {
    ...(name ? { configMapName: name } : {}),
    observedGeneration: page.metadata?.generation,
    ready: isDeploymentReady(observed.deployment),
  };
}

/**
 * The control that patches the status subresource only (server-side apply of `status`; fields the
 * operator set before and leaves out now, such as an old `errorMessage`, are removed).
 */
export function patchStatus(page: WebPage, status: WebPageStatus): UpdateControl<WebPage> {
  return UpdateControl.patchStatus<WebPage>(statusPatch(page, status));
}

function statusPatch(page: WebPage, status: WebPageStatus): WebPage {
  return {
    apiVersion: WebPage.apiVersion,
    kind: WebPage.kind,
    metadata: { name: page.metadata!.name!, namespace: page.metadata!.namespace! },
    status,
  };
}

/**
 * What every flavour does when a reconciliation fails (JOSDK's `ErrorStatusHandler`): the error goes
 * into `status.errorMessage` with `ready: false`, and a Warning event is published on the page. An
 * {@link InvalidWebPageError} is not retried (only a change of the page can fix it; the change
 * itself reconciles again); anything else follows the retry policy.
 */
export async function webPageErrorStatus(
  page: WebPage,
  context: Context<WebPage>,
  error: unknown,
): Promise<ErrorStatusUpdateControl<WebPage>> {
  const cause = rootCause(error);
  const invalid = cause instanceof InvalidWebPageError;
  const message = cause instanceof Error ? cause.message : String(cause);
  const reason = invalid ? 'InvalidWebPage' : 'ReconcileFailed';
  try {
    await context.eventRecorder.warning(page, reason, message);
  } catch (recordError) {
    context.logger.warn('could not publish the Warning event', { error: String(recordError) });
  }
  const control = ErrorStatusUpdateControl.patchStatus<WebPage>(
    statusPatch(page, {
      ...(page.status?.configMapName ? { configMapName: page.status.configMapName } : {}),
      observedGeneration: page.metadata?.generation,
      ready: false,
      errorMessage: message,
    }),
  );
  return invalid ? control.withNoRetry() : control;
}

// The framework and workflows wrap what a reconciler threw (ReconcileError, aggregated errors): find
// this sample's errors (which carry the API server's error as cause) by type through the `cause` chain and aggregated `errors`.
function rootCause(error: unknown): unknown {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e instanceof InvalidWebPageError || e instanceof SecondaryNameTakenError) return e;
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const { cause, errors } = e as { cause?: unknown; errors?: unknown };
    if (cause !== undefined) queue.push(cause);
    if (Array.isArray(errors)) queue.push(...(errors as unknown[]));
    else if (errors instanceof Map) queue.push(...(errors.values() as Iterable<unknown>));
  }
  return unwrapOnce(error);
}

function unwrapOnce(error: unknown): unknown {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof Error ? cause : error;
}
