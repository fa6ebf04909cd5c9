// Helpers of the mysql-schema end-to-end tests (test/mysql-schema-*.e2e-spec.ts): test code, not shipped.
import { Writable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import type { ControllerMetricsInfo, Metrics, ResourceID } from '@tosdk/core';
import { OperatorMetricsSink } from '@tosdk/nestjs';
import { MySQLSchema } from '../../mysql-schema.resource.js';

/** What this app's operator did per resource (`namespace/name`): reconciliations, failures, retries. */
@Injectable()
@OperatorMetricsSink()
export class ReconcileRecorder implements Metrics {
  /** Keys of started reconciliations, in order. */
  readonly started: string[] = [];
  /** Keys of failed reconciliations and cleanups. */
  readonly failed: string[] = [];
  /** Keys and delays of scheduled retries. */
  readonly retries: Array<{ key: string; attempt: number; delayMs: number }> = [];

  reconciliationStarted(id: ResourceID, _controller: ControllerMetricsInfo): void {
    this.started.push(id.key);
  }

  reconcileFailed(id: ResourceID, _controller: ControllerMetricsInfo): void {
    this.failed.push(id.key);
  }

  retrying(id: ResourceID, _controller: ControllerMetricsInfo, attemptCount: number, delayMs: number): void {
    this.retries.push({ key: id.key, attempt: attemptCount, delayMs });
  }

  /** How many of a list are about one resource. */
  count(list: 'started' | 'failed', key: string): number {
    return this[list].filter((k) => k === key).length;
  }

  /** The retries of one resource. */
  retriesOf(key: string): Array<{ attempt: number; delayMs: number }> {
    return this.retries.filter((r) => r.key === key);
  }
}

/** Swallows pino's lines. */
export const quietLogs = new Writable({
  write(_chunk, _encoding, done) {
    done();
  },
});

/** A MySQLSchema to create. */
export function mysqlSchema(namespace: string, name: string, encoding: string): MySQLSchema {
  return {
    apiVersion: MySQLSchema.apiVersion,
    kind: MySQLSchema.kind,
    metadata: { name, namespace },
    spec: { encoding },
  };
}

/** Fast retries and polls for tests (unlimited attempts as in production, 200 ms doubling up to 1 s). */
export const TEST_RETRY = {
  maxAttempts: -1,
  initialInterval: 200,
  intervalMultiplier: 2,
  maxInterval: 1_000,
};

/** Poll period of the tests. */
export const TEST_POLL_MS = 300;
