import type {
  Context,
  EventSourceRetriever,
  ManagedWorkflowAndDependentResourceContext,
  ResourceEventRecorder,
  RetryInfo,
} from '../../api/context.js';
import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import { resourceTypeName } from '../../api/resource-type.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import type { ResourceEventSource } from '../../event/event-source.js';
import { compareResourceVersions } from '../../informer/internal/resource-version.js';
import type { Logger } from '../../util/logger.js';
import { ResourceOperations } from '../../event/sources/resource-operations.js';
import type { ResourceOperationsHost } from '../../event/sources/resource-operations.js';
import { ManagedWorkflowContext } from '../../workflow/internal/managed-workflow.js';
import type { ManagedWorkflow } from '../../workflow/internal/managed-workflow.js';
import { AmbiguousSecondaryResourceError, NoEventSourceForTypeError } from '../errors.js';

/** The controller's event sources that cache a kind, by name. */
export interface SecondaryResourceSources {
  sourcesFor(type: ResourceType): ReadonlyArray<{ name: string; source: ResourceEventSource }>;
}

/** Everything a {@link DefaultContext} reads. */
export interface DefaultContextOptions<P extends KubernetesResource> {
  readonly primary: P;
  readonly retryInfo: RetryInfo | undefined;
  readonly isNextReconciliationImminent: () => boolean;
  readonly client: KubernetesClient;
  readonly logger: Logger;
  readonly eventRecorder: ResourceEventRecorder;
  readonly controllerName: string;
  readonly secondary: SecondaryResourceSources;
  /** The controller's managed workflow, if any. */
  readonly managedWorkflow?: ManagedWorkflow<P>;
  /** The controller's event sources with dynamic registration. */
  readonly eventSources?: EventSourceRetriever<P>;
  /** What `resourceOperations()` writes with and caches into. */
  readonly operations?: ResourceOperationsHost<P>;
}

const sameKind = (a: ResourceType, b: ResourceType) =>
  a.group === b.group && a.version === b.version && a.kind === b.kind;

/** The {@link Context} given to reconcilers. */
export class DefaultContext<P extends KubernetesResource> implements Context<P> {
  readonly client: KubernetesClient;
  readonly logger: Logger;
  readonly eventRecorder: ResourceEventRecorder;
  readonly controllerName: string;

  constructor(private readonly o: DefaultContextOptions<P>) {
    this.client = o.client;
    this.logger = o.logger;
    this.eventRecorder = o.eventRecorder;
    this.controllerName = o.controllerName;
  }

  private workflowContext: ManagedWorkflowContext<P> | undefined;

  /**
   * The context of `updateErrorStatus` after this context's reconciliation failed: `primary` and
   * `retryInfo` of the failure, and what the reconciliation's managed workflow left (its result
   * and the values put into it), as JOSDK hands the error handler the reconciliation's context.
   */
  forErrorStatus(primary: P, retryInfo: RetryInfo | undefined): DefaultContext<P> {
    const next = new DefaultContext<P>({ ...this.o, primary, retryInfo });
    if (this.workflowContext) next.workflowContext = this.workflowContext.carriedTo(primary, next);
    return next;
  }

  managedWorkflowAndDependentResourceContext(): ManagedWorkflowAndDependentResourceContext<P> {
    this.workflowContext ??= new ManagedWorkflowContext(this.o.managedWorkflow, this.o.primary, this);
    return this.workflowContext;
  }

  private operations: ResourceOperations<P> | undefined;

  resourceOperations(): ResourceOperations<P> {
    if (!this.o.operations) {
      throw new NoEventSourceForTypeError(
        `${this.controllerName}: this context has no access to the controller's caches for resource operations`,
      );
    }
    this.operations ??= new ResourceOperations<P>(this.o.operations);
    return this.operations;
  }

  eventSourceRetriever(): EventSourceRetriever<P> {
    if (!this.o.eventSources) {
      throw new NoEventSourceForTypeError(
        `${this.controllerName}: this context has no access to the controller's event sources`,
      );
    }
    return this.o.eventSources;
  }

  getRetryInfo(): RetryInfo | undefined {
    return this.o.retryInfo;
  }

  isLastAttempt(): boolean {
    return this.o.retryInfo?.isLastAttempt ?? false;
  }

  isNextReconciliationImminent(): boolean {
    return this.o.isNextReconciliationImminent();
  }

  getPrimaryResource(): P {
    return this.o.primary;
  }

  getSecondaryResource<R extends KubernetesResource>(
    type: ResourceType<R>,
    eventSourceName?: string,
  ): R | undefined {
    let sources = this.sources(type);
    if (eventSourceName !== undefined) {
      sources = sources.filter((s) => s.name === eventSourceName);
      if (sources.length === 0) {
        throw new NoEventSourceForTypeError(
          `${this.controllerName}: no event source named "${eventSourceName}" caches ${resourceTypeName(type)}`,
        );
      }
    } else if (sources.length === 0) {
      return undefined; // a workflow dependent's source, not registered now (see sources())
    } else if (sources.length > 1) {
      throw new NoEventSourceForTypeError(
        `${this.controllerName}: ${sources.length} event sources cache ${resourceTypeName(type)} (${sources
          .map((s) => s.name)
          .join(', ')}); pass the event source name`,
      );
    }
    const found = sources[0].source.getSecondaryResources(this.o.primary) as R[];
    if (found.length > 1) {
      throw new AmbiguousSecondaryResourceError(
        `${this.controllerName}: ${found.length} ${resourceTypeName(type)} belong to the primary; use getSecondaryResources`,
      );
    }
    return found[0];
  }

  getSecondaryResources<R extends KubernetesResource>(type: ResourceType<R>): R[] {
    const sources = this.sources(type);
    if (sources.length === 1) return sources[0].source.getSecondaryResources(this.o.primary) as R[];
    // one object per namespace/name: the newest of the sources' copies (as JOSDK's deduplication), so
    // a source that lags (e.g. behind another's own write) does not hide what another serves already;
    // of one version, a whole copy rather than a metadataOnly source's
    const result: R[] = [];
    const partial: boolean[] = [];
    const at = new Map<string, number>();
    for (const { source } of sources) {
      const metadataOnly = (source as { metadataOnly?: unknown }).metadataOnly === true;
      for (const r of source.getSecondaryResources(this.o.primary) as R[]) {
        const key = `${r.metadata?.namespace ?? ''}/${r.metadata?.name ?? ''}`;
        const index = at.get(key);
        if (index === undefined) {
          at.set(key, result.length);
          result.push(r);
          partial.push(metadataOnly);
          continue;
        }
        const order =
          compareResourceVersions(r.metadata?.resourceVersion, result[index].metadata?.resourceVersion) ?? 0;
        if (order > 0 || (order === 0 && partial[index] && !metadataOnly)) {
          result[index] = r;
          partial[index] = metadataOnly;
        }
      }
    }
    return result;
  }

  /**
   * The sources caching a kind. None when no source does but a dependent of the managed workflow
   * manages the kind: its source is registered only while its activation condition holds, and
   * reading its secondaries meanwhile answers nothing (as JOSDK's `isMissingEventSourceExpected`).
   * @throws NoEventSourceForTypeError when no source caches the kind and no dependent manages it.
   */
  private sources(type: ResourceType) {
    const sources = this.o.secondary.sourcesFor(type).filter((s) => sameKind(s.source.resourceType, type));
    if (sources.length === 0 && this.workflowManages(type)) return sources;
    if (sources.length === 0) {
      throw new NoEventSourceForTypeError(
        `${this.controllerName}: no event source caches ${resourceTypeName(type)}; register one in prepareEventSources`,
      );
    }
    return sources;
  }

  /** Whether a dependent of the managed workflow manages the kind. */
  private workflowManages(type: ResourceType): boolean {
    const nodes = this.o.managedWorkflow?.workflow.nodes ?? [];
    return nodes.some((n) => {
      const t = n.dependent.resourceType;
      return t !== undefined && sameKind(t, type);
    });
  }
}
