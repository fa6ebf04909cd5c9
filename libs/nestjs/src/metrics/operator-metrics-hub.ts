import { Injectable } from '@nestjs/common';
import type {
  ClientRetryReason,
  ControllerMetricsInfo,
  Event,
  ExecutionKind,
  Metrics,
  ResourceID,
  ShardMetricsSource,
} from '@tosdk/core';

/**
 * The `Metrics` the operator is built with: forwards every hook to the sinks added to it (the
 * module's `metrics` option and the discovered `@OperatorMetricsSink` providers). A sink that
 * throws does not affect the others.
 */
@Injectable()
export class OperatorMetricsHub implements Metrics {
  private readonly sinks: Metrics[] = [];

  /** Adds a sink (once). */
  add(sink: Metrics): void {
    if (sink !== this && !this.sinks.includes(sink)) this.sinks.push(sink);
  }

  private each(call: (sink: Metrics) => void): void {
    for (const sink of this.sinks) {
      try {
        call(sink);
      } catch {
        // a metrics sink must not break the runtime or the other sinks
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
