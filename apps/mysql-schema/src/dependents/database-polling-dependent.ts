import { PerResourcePollingDependentResource } from '@tosdk/core';
import type { MySQLSchema } from '../mysql-schema.resource.js';

/**
 * An object in the database that belongs to one `MySQLSchema`, polled per resource
 * (`PerResourcePollingDependentResource`, as JOSDK's sample polls its schema). What a create or
 * update returns is put into the poller's cache by @tosdk/core (JOSDK's
 * `handleRecentResourceCreate`), so an object dropped by someone else before the next poll is
 * still noticed by that poll (and recreated).
 */
export abstract class DatabasePollingDependent<R> extends PerResourcePollingDependentResource<
  R,
  MySQLSchema
> {
  constructor(name: string, pollPeriodMs: number, idOf: (resource: R) => string) {
    // a poll that hangs fails after 10 s at most, whatever the period
    const fetchTimeoutMs = Math.min(Math.max(pollPeriodMs, 1_000), 10_000);
    super({ name, periodMs: pollPeriodMs, fetchTimeoutMs, idOf });
  }
}
