import { Injectable, Logger } from '@nestjs/common';
import type {
  ClientRetryReason,
  ControllerMetricsInfo,
  Event,
  ExecutionKind,
  Metrics,
  ResourceID,
  ShardMetricsSource,
} from '@tosdk/core';
import { METRICS_SINK_IDENTITY } from '../operator.constants.js';

/**
 * The `Metrics` the operator is built with: forwards every hook to the sinks added to it (the
 * module's `metrics` option and the discovered `@OperatorMetricsSink` providers). Sinks of one
 * identity (see {@link METRICS_SINK_IDENTITY}; else the instance) are fed once. A sink that throws
 * does not affect the others; its first failure is logged (warning), later ones are not.
 */
@Injectable()
export class OperatorMetricsHub implements Metrics {
  private readonly logger = new Logger('OperatorMetrics');
  private readonly sinks: Metrics[] = [];
  private readonly identities = new Set<unknown>();
  private readonly failed = new WeakSet<Metrics>();

  /** Adds a sink, unless it or a sink of the same identity was added. */
  add(sink: Metrics): void {
    if (sink === this) return;
    const identity = (sink as { [METRICS_SINK_IDENTITY]?: unknown })[METRICS_SINK_IDENTITY] ?? sink;
    if (this.identities.has(identity) || this.sinks.includes(sink)) return;
    this.identities.add(identity);
    this.sinks.push(sink);
  }

  private each(call: (sink: Metrics) => void): void {
    for (const sink of this.sinks) {
      try {
        call(sink);
      } catch (error) {
        // a metrics sink must not break the runtime or the other sinks; say so once per sink
        if (this.failed.has(sink)) continue;
        this.failed.add(sink);
        const name = (sink as object).constructor?.name || 'a metrics sink';
        this.logger.warn(
          `metrics sink ${name} failed, its metrics are incomplete (later failures are not logged): ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  controllerRegistered(c: ControllerMetricsInfo): void {
    this.each((s) => s.controllerRegistered?.(c));
  }
  receivedEvent(event: Event, c: ControllerMetricsInfo): void {
    this.each((s) => s.receivedEvent?.(event, c));
  }
  reconcileSubmitted(id: ResourceID, c: ControllerMetricsInfo, attempt: number): void {
    this.each((s) => s.reconcileSubmitted?.(id, c, attempt));
  }
  reconciliationStarted(id: ResourceID, c: ControllerMetricsInfo): void {
    this.each((s) => s.reconciliationStarted?.(id, c));
  }
  reconcileSucceeded(id: ResourceID, c: ControllerMetricsInfo, kind: ExecutionKind): void {
    this.each((s) => s.reconcileSucceeded?.(id, c, kind));
  }
  reconcileFailed(id: ResourceID, c: ControllerMetricsInfo, kind: ExecutionKind, error: unknown): void {
    this.each((s) => s.reconcileFailed?.(id, c, kind, error));
  }
  reconciliationFinished(id: ResourceID, c: ControllerMetricsInfo, kind: ExecutionKind, ms: number): void {
    this.each((s) => s.reconciliationFinished?.(id, c, kind, ms));
  }
  cleanupDone(id: ResourceID, c: ControllerMetricsInfo): void {
    this.each((s) => s.cleanupDone?.(id, c));
  }
  retrying(id: ResourceID, c: ControllerMetricsInfo, attempt: number, delayMs: number): void {
    this.each((s) => s.retrying?.(id, c, attempt, delayMs));
  }
  executorChanged(queued: number, inFlight: number): void {
    this.each((s) => s.executorChanged?.(queued, inFlight));
  }
  clientRetry(verb: string, reason: ClientRetryReason): void {
    this.each((s) => s.clientRetry?.(verb, reason));
  }
  shardingStarted(shard: ShardMetricsSource): void {
    this.each((s) => s.shardingStarted?.(shard));
  }
  shardingStopped(shard: ShardMetricsSource): void {
    this.each((s) => s.shardingStopped?.(shard));
  }
}
