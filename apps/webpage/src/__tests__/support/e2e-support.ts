// Helpers of the WebPage end-to-end tests (test/webpage-*.e2e-spec.ts): test code, not shipped.
import { Writable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import type { ControllerMetricsInfo, Metrics, ResourceID } from '@tosdk/core';
import { OperatorMetricsSink } from '@tosdk/nestjs';
import { WebPage } from '../../webpage.resource.js';
import type { WebPageSpec } from '../../webpage.resource.js';

/**
 * A metrics sink per application: which WebPages this app's operator reconciled and how many
 * retries it scheduled. (Prometheus metrics live in the process-wide registry, so two apps in one
 * test process cannot be told apart through `/metrics`.)
 */
@Injectable()
@OperatorMetricsSink()
export class ReconcileRecorder implements Metrics {
  /** Keys (`namespace/name`) of started reconciliations, in order. */
  readonly started: string[] = [];
  /** Keys of scheduled retries. */
  readonly retries: string[] = [];

  reconciliationStarted(id: ResourceID, _controller: ControllerMetricsInfo): void {
    this.started.push(id.key);
  }

  retrying(id: ResourceID, _controller: ControllerMetricsInfo): void {
    this.retries.push(id.key);
  }

  /** How many reconciliations of one page started. */
  startsOf(key: string): number {
    return this.started.filter((k) => k === key).length;
  }
}

/** Swallows pino's lines (the e2e tests assert on the cluster, not on logs). */
export const quietLogs = new Writable({
  write(_chunk, _encoding, done) {
    done();
  },
});

/** A WebPage to create. */
export function webPage(namespace: string, name: string, spec: WebPageSpec): WebPage {
  return { apiVersion: WebPage.apiVersion, kind: WebPage.kind, metadata: { name, namespace }, spec };
}
