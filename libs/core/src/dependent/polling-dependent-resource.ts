import type { Context } from '../api/context.js';
import type { EventSourceContext } from '../api/event-source-context.js';
import type { ResourceID } from '../api/resource-id.js';
import type { KubernetesResource } from '../api/resource-type.js';
import type { ExternalResourceCachingEventSource } from '../event/sources/external-resource-caching-event-source.js';
import { PerResourcePollingEventSource } from '../event/sources/per-resource-polling-event-source.js';
import { PollingEventSource } from '../event/sources/polling-event-source.js';
import { AbstractExternalDependentResource } from './abstract-external-dependent-resource.js';
import type { ExternalDependentOptions } from './abstract-external-dependent-resource.js';
import type { ReconcileResult } from './dependent-resource.js';

/** Options of a {@link PollingDependentResource}. */
export interface PollingDependentOptions<R> extends ExternalDependentOptions<R> {
  /** Time between polls. Required, > 0. */
  periodMs: number;
  /** A poll not settled after this long fails. Defaults to `periodMs`, at least 1 s. */
  fetchTimeoutMs?: number;
  /**
   * Whether the operator's start fails when the first poll fails (see `PollingEventSource`'s
   * `failFast`). Defaults to true; false starts without the first poll's results (the dependent
   * then sees no external resources until a poll succeeds).
   */
  failFast?: boolean;
}

/**
 * An external dependent polled for all primaries at once (JOSDK's `PollingDependentResource`):
 * implement {@link PollingDependentResource.fetchResources} and `desired`, plus `create`,
 * `update`, `deleteResource` as the external API allows.
 */
export abstract class PollingDependentResource<
  R,
  P extends KubernetesResource = KubernetesResource,
> extends AbstractExternalDependentResource<R, P> {
  constructor(private readonly pollingOptions: PollingDependentOptions<R>) {
    super(pollingOptions);
  }

  /** Every external resource grouped by the primary it belongs to. */
  abstract fetchResources(): Promise<Iterable<readonly [ResourceID, Iterable<R>]>>;

  protected createEventSource(context: EventSourceContext<P>): ExternalResourceCachingEventSource<R> {
    return new PollingEventSource<R>({
      name: this.eventSourceName,
      fetcher: () => this.fetchResources(),
      periodMs: this.pollingOptions.periodMs,
      fetchTimeoutMs: this.pollingOptions.fetchTimeoutMs,
      failFast: this.pollingOptions.failFast,
      idOf: this.pollingOptions.idOf,
      clock: context.clock,
      logger: context.logger,
    });
  }
}

/**
 * An external dependent polled per primary (JOSDK's `PerResourcePollingDependentResource`):
 * implement {@link PerResourcePollingDependentResource.fetchResources}. A primary not polled yet is
 * fetched before its first reconciliation or deletion.
 */
export abstract class PerResourcePollingDependentResource<
  R,
  P extends KubernetesResource = KubernetesResource,
> extends AbstractExternalDependentResource<R, P> {
  constructor(private readonly pollingOptions: PollingDependentOptions<R>) {
    super(pollingOptions);
  }

  /** The external resources of one primary. */
  abstract fetchResources(primary: P): Promise<Iterable<R>>;

  protected createEventSource(context: EventSourceContext<P>): ExternalResourceCachingEventSource<R> {
    return new PerResourcePollingEventSource<R, P>(
      {
        name: this.eventSourceName,
        fetcher: (primary) => this.fetchResources(primary),
        periodMs: this.pollingOptions.periodMs,
        fetchTimeoutMs: this.pollingOptions.fetchTimeoutMs,
        idOf: this.pollingOptions.idOf,
      },
      context,
    );
  }

  override async reconcile(primary: P, context: Context<P>): Promise<ReconcileResult<R>> {
    await this.ensureFetched(primary);
    return super.reconcile(primary, context);
  }

  /**
   * Fetches a primary never polled, so a deletion before the first poll (e.g. right after a
   * restart) finds the external resource instead of leaving it while its state resource goes
   * (JOSDK's `PerResourcePollingEventSource.getSecondaryResources` fetches on such a miss).
   */
  protected override async ensureFetched(primary: P): Promise<void> {
    if (this.source instanceof PerResourcePollingEventSource) {
      await (this.source as PerResourcePollingEventSource<R, P>).getOrFetch(primary);
    }
  }
}
