import type { ResourceID } from '../api/resource-id.js';
import type { ResourceType } from '../api/resource-type.js';
import type { Event } from '../event/event.js';
import type { ClientRetryReason } from '../client/retry-policy.js';

/** Identifies the controller a metric is about. */
export interface ControllerMetricsInfo {
  /** Controller name. */
  readonly name: string;
  /** Its primary kind. */
  readonly resourceType: ResourceType;
}

/**
 * A sharded replica's shard, read when metrics are collected (see {@link Metrics.shardingStarted}).
 */
export interface ShardMetricsSource {
  /** The shard group (`sharding.name`). */
  readonly group: string;
  /** This replica's identity in the group. */
  readonly identity: string;
  /** Live members this replica sees now (0 before its first read of the group). */
  members(): number;
  /** Whether every live member acknowledged the current ring (this replica reconciles its whole share). */
  settled(): boolean;
  /** Per controller: the primary resources in this replica's share now (counted from its cache). */
  ownedResources(): { controller: ControllerMetricsInfo; count: number }[];
}

/** What kind of execution a timing measures. */
export type ExecutionKind = 'reconcile' | 'cleanup';

/**
 * Hooks the runtime calls as it processes events (JOSDK's `Metrics`). Every hook is optional;
 * implement the ones your metrics backend needs (`@tosdk/nestjs` maps them to Prometheus). Hooks
 * must be fast and should not throw; what one throws, or the promise an `async` hook rejects, is
 * caught and logged at debug, never failing a reconciliation or ending the process. Every run
 * reported by {@link Metrics.reconciliationStarted} is followed by {@link Metrics.reconcileSucceeded}
 * or {@link Metrics.reconcileFailed} and by {@link Metrics.reconciliationFinished}, also the pass that
 * only adds the finalizer (kind `reconcile`).
 */
export interface Metrics {
  /** A controller was registered. */
  controllerRegistered?(controller: ControllerMetricsInfo): void;
  /** An event for a primary reached the controller's event processor. */
  receivedEvent?(event: Event, controller: ControllerMetricsInfo): void;
  /** A reconciliation was submitted to the executor (it may wait for a free slot). */
  reconcileSubmitted?(id: ResourceID, controller: ControllerMetricsInfo, attemptCount: number): void;
  /** A reconciliation (or cleanup) started running. */
  reconciliationStarted?(id: ResourceID, controller: ControllerMetricsInfo): void;
  /** A reconciliation or cleanup succeeded. */
  reconcileSucceeded?(id: ResourceID, controller: ControllerMetricsInfo, kind: ExecutionKind): void;
  /** A reconciliation or cleanup failed, whether it is retried or not (a failure ended by `ErrorStatusUpdateControl.withNoRetry()` counts). */
  reconcileFailed?(
    id: ResourceID,
    controller: ControllerMetricsInfo,
    kind: ExecutionKind,
    error: unknown,
  ): void;
  /** A reconciliation finished (after success or failure), with its duration. */
  reconciliationFinished?(
    id: ResourceID,
    controller: ControllerMetricsInfo,
    kind: ExecutionKind,
    durationMs: number,
  ): void;
  /**
   * A deleted resource's state was dropped: its delete event was processed (after the cleanup that
   * removed the finalizer, if any). Once per deleted resource, as JOSDK's `cleanupDone`.
   */
  cleanupDone?(id: ResourceID, controller: ControllerMetricsInfo): void;
  /** A retry was scheduled after a failure. */
  retrying?(id: ResourceID, controller: ControllerMetricsInfo, attemptCount: number, delayMs: number): void;
  /** The operator's executor changed: reconciliations waiting for a slot and running. */
  executorChanged?(queued: number, inFlight: number): void;
  /**
   * The operator's Kubernetes client retries a request after a transient failure, before any
   * reconcile retry is spent (see `ClientRetryOptions`): `verb` is the client call (`get`, `list`,
   * `create`, `update`, `patch`, `apply`, `delete`, `request`), `reason` the failure (`429`, `500`,
   * `503`, `504`, `connection`, `timeout`).
   */
  clientRetry?(verb: string, reason: ClientRetryReason): void;
  /**
   * The operator started with `sharding` on: `shard` tells this replica's shard when asked (read it
   * at scrape time; it changes as members join and leave).
   */
  shardingStarted?(shard: ShardMetricsSource): void;
  /** The sharded operator stopped: forget the `shard` given to {@link Metrics.shardingStarted}. */
  shardingStopped?(shard: ShardMetricsSource): void;
}

/** Metrics that record nothing (the default). */
export const NOOP_METRICS: Metrics = Object.freeze({});
