import { PerResourcePollingDependentResource, PerResourcePollingEventSource, ResourceID } from '@tosdk/core';
import type { EventSourceContext, ExternalResourceCachingEventSource } from '@tosdk/core';
import type { MySQLSchema } from '../mysql-schema.resource.js';

/**
 * The per-resource poller of a database object, which also takes what the operator just wrote
 * (JOSDK's `handleRecentResourceCreate`): the next poll then compares with the written state, so
 * an object dropped by someone else before that poll is still noticed (and recreated).
 */
class DatabasePollingEventSource<R> extends PerResourcePollingEventSource<R, MySQLSchema> {
  recordWritten(primary: MySQLSchema, resource: R): void {
    this.handleResource(ResourceID.fromResource(primary), resource);
  }
}

/**
 * An object in the database that belongs to one `MySQLSchema`, polled per resource
 * (`PerResourcePollingDependentResource`, as JOSDK's sample polls its schema).
 */
export abstract class DatabasePollingDependent<R> extends PerResourcePollingDependentResource<
  R,
  MySQLSchema
> {
  private readonly periodMs: number;
  private readonly fetchTimeoutMs: number;
  private readonly idOfResource: (resource: R) => string;

  constructor(name: string, pollPeriodMs: number, idOf: (resource: R) => string) {
    // a poll that hangs fails after 10 s at most, whatever the period
    const fetchTimeoutMs = Math.min(Math.max(pollPeriodMs, 1_000), 10_000);
    super({ name, periodMs: pollPeriodMs, fetchTimeoutMs, idOf });
    this.periodMs = pollPeriodMs;
    this.fetchTimeoutMs = fetchTimeoutMs;
    this.idOfResource = idOf;
  }

  protected override createEventSource(
    context: EventSourceContext<MySQLSchema>,
  ): ExternalResourceCachingEventSource<R> {
    return new DatabasePollingEventSource<R>(
      {
        name: this.eventSourceName,
        fetcher: (primary) => this.fetchResources(primary),
        periodMs: this.periodMs,
        fetchTimeoutMs: this.fetchTimeoutMs,
        idOf: this.idOfResource,
      },
      context,
    );
  }

  /** Records what a write left in the database in the poller's cache. */
  protected recordWritten(primary: MySQLSchema, resource: R): void {
    if (this.source instanceof DatabasePollingEventSource)
      (this.source as DatabasePollingEventSource<R>).recordWritten(primary, resource);
  }
}
