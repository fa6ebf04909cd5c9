import type { Counter, Gauge, Histogram } from 'prom-client';
import type {
  ClientRetryReason,
  ControllerMetricsInfo,
  Event,
  ExecutionKind,
  Metrics,
  ResourceID,
  ShardMetricsSource,
} from '@tosdk/core';
import { OperatorMetricsSink } from '../decorators/operator-metrics-sink.decorator.js';
import { METRICS_SINK_IDENTITY } from '../operator.constants.js';

/** Options of the Prometheus metrics. */
export interface PrometheusOperatorMetricsOptions {
  /** Add `namespace` and `name` labels (one series per resource: mind the cardinality). Defaults to false. */
  perResourceLabels?: boolean;
  /**
   * With `perResourceLabels`, how long a deleted resource's series stay after its `cleanupDone`
   * before they are removed (as JOSDK's per-resource meter cleaner; a scrape in between still sees
   * their last values). A new event for a resource of that name in the meantime keeps them.
   * Defaults to 60000 (ms).
   */
  perResourceRemovalDelayMs?: number;
}

type Labels = Record<string, string>;

/** A metric whose series can be removed by their labels. */
type Removable = { remove(labels: Labels): void };

/** A metric of no remove(): its series stay. */
const KEEP: Removable = { remove: () => undefined };

/** Each sink's executor numbers, by the queue gauge they add up in (any copy of this package). */
const EXECUTORS_KEY = Symbol.for('tosdk:prometheus-executors');
const EXECUTORS = ((globalThis as Record<symbol, unknown>)[EXECUTORS_KEY] ??= new WeakMap<
  object,
  Map<object, { queued: number; inFlight: number }>
>()) as WeakMap<object, Map<object, { queued: number; inFlight: number }>>;

/** The prom-client metrics {@link PrometheusOperatorMetrics} writes to. */
export interface OperatorPrometheusMetrics {
  started: Counter<string>;
  succeeded: Counter<string>;
  failed: Counter<string>;
  retries: Counter<string>;
  events: Counter<string>;
  cleanups: Counter<string>;
  queueSize: Gauge<string>;
  inFlight: Gauge<string>;
  /**
   * Durations of reconciliations (a prom-client `Histogram`, or anything that observes into one: the
   * module's follows the histogram registered last, whose buckets apply to every app of the process).
   */
  reconcileDuration: Pick<Histogram<string>, 'observe'> & Partial<Pick<Histogram<string>, 'remove'>>;
  /** Durations of cleanups (as {@link OperatorPrometheusMetrics.reconcileDuration}). */
  cleanupDuration: Pick<Histogram<string>, 'observe'> & Partial<Pick<Histogram<string>, 'remove'>>;
  /** Requests the Kubernetes client retried after a transient failure, by `verb` and `reason`. */
  clientRetries?: Counter<string>;
  /** The shards of the sharded operators of this process, read by the `tosdk_shard_*` gauges. */
  shards?: Set<ShardMetricsSource>;
}

/**
 * Sets the `tosdk_shard_*` gauges from `shards` (called when they are collected): `info` 1, `members`
 * and `settled` per shard, `owned` per shard and controller.
 */
export function collectShards(
  shards: Iterable<ShardMetricsSource>,
  gauges: { info: Gauge<string>; members: Gauge<string>; settled: Gauge<string>; owned: Gauge<string> },
): void {
  for (const gauge of Object.values(gauges)) gauge.reset();
  for (const shard of shards) {
    const l = { shard_group: shard.group, shard: shard.identity };
    try {
      gauges.info.set(l, 1);
      gauges.members.set(l, shard.members());
      gauges.settled.set(l, shard.settled() ? 1 : 0);
      for (const { controller: c, count } of shard.ownedResources()) {
        gauges.owned.set(
          {
            ...l,
            controller: c.name,
            group: c.resourceType.group,
            version: c.resourceType.version,
            kind: c.resourceType.kind,
          },
          count,
        );
      }
    } catch {
      // a shard that cannot tell (stopping) is left out of this scrape
    }
  }
}

/**
 * The `error` label of a failure: the stable `code` of what failed, else its class name. Core's
 * generic `ReconcileError` wrapper is looked through to its cause (what the reconciler threw).
 */
function errorLabel(error: unknown): string {
  const e = error as { code?: unknown; cause?: unknown } | null;
  if (e?.code === 'ReconcileError' && e.cause !== undefined) return errorLabel(e.cause);
  if (typeof e?.code === 'string' && e.code) return e.code;
  if (error instanceof Error) return error.constructor.name || error.name;
  return typeof error;
}

/**
 * Core's metrics hooks as Prometheus metrics (JOSDK's Micrometer metrics): counters of
 * reconciliations started, succeeded and failed (by `error`), retries, events and cleanups; gauges
 * of the executor's queue and in-flight executions; histograms of reconcile and cleanup durations;
 * `tosdk_client_retries_total{verb, reason}`: requests the client retried itself (429, 5xx,
 * connection) before any reconcile retry was spent.
 * With `sharding` on, `tosdk_shard_info{shard_group, shard}` (1), `tosdk_shard_members` (live
 * members this replica sees), `tosdk_shard_settled` (1 when its whole share is reconciled) and
 * `tosdk_shard_owned_resources{shard_group, shard, controller, group, version, kind}` (primaries in
 * its share), read at scrape time.
 * Per-controller series are labelled `controller`, `group`, `version`, `kind`.
 */
@OperatorMetricsSink()
export class PrometheusOperatorMetrics implements Metrics {
  private readonly perResource: boolean;
  private readonly removalDelayMs: number;
  /** With per-resource labels: the label sets written per resource key, per metric. */
  private readonly series = new Map<string, Map<Removable, Map<string, Labels>>>();
  private readonly removals = new Map<string, ReturnType<typeof setTimeout>>();
  private closed = false;
  private readonly started: Counter<string>;
  private readonly succeeded: Counter<string>;
  private readonly failed: Counter<string>;
  private readonly retries: Counter<string>;
  private readonly events: Counter<string>;
  private readonly cleanups: Counter<string>;
  private readonly queueSize: Gauge<string>;
  private readonly inFlight: Gauge<string>;
  private readonly reconcileDuration: OperatorPrometheusMetrics['reconcileDuration'];
  private readonly cleanupDuration: OperatorPrometheusMetrics['cleanupDuration'];
  private readonly clientRetries?: Counter<string>;
  private readonly shards?: Set<ShardMetricsSource>;

  /**
   * What this sink writes to (its counter of started reconciliations): two sinks on the same
   * prom-client metrics (`OperatorMetricsModule` imported by two modules of one app) are fed once.
   */
  get [METRICS_SINK_IDENTITY](): unknown {
    return this.started;
  }

  /** Made by {@link OperatorMetricsModule} from the metrics it registers. */
  constructor(options: PrometheusOperatorMetricsOptions, metrics: OperatorPrometheusMetrics) {
    this.perResource = options.perResourceLabels ?? false;
    this.removalDelayMs = Math.max(0, options.perResourceRemovalDelayMs ?? 60_000);
    this.started = metrics.started;
    this.succeeded = metrics.succeeded;
    this.failed = metrics.failed;
    this.retries = metrics.retries;
    this.events = metrics.events;
    this.cleanups = metrics.cleanups;
    this.queueSize = metrics.queueSize;
    this.inFlight = metrics.inFlight;
    this.reconcileDuration = metrics.reconcileDuration;
    this.cleanupDuration = metrics.cleanupDuration;
    this.clientRetries = metrics.clientRetries;
    this.shards = metrics.shards;
  }

  private labels(c: ControllerMetricsInfo, id?: ResourceID): Labels {
    const l: Labels = {
      controller: c.name,
      group: c.resourceType.group,
      version: c.resourceType.version,
      kind: c.resourceType.kind,
    };
    if (this.perResource) {
      l['namespace'] = id?.namespace ?? '';
      l['name'] = id?.name ?? '';
    }
    return l;
  }

  /**
   * Writes `labels` to `metric` (with `write`); with per-resource labels, remembers the series so
   * the resource's deletion removes it, and keeps a resource of that name that came back.
   */
  private record<L extends Labels>(
    metric: Removable,
    id: ResourceID,
    labels: L,
    write: (l: L) => void,
  ): void {
    write(labels);
    if (!this.perResource) return;
    const key = `${id.namespace ?? ''}/${id.name}`;
    const pending = this.removals.get(key);
    if (pending !== undefined) {
      clearTimeout(pending);
      this.removals.delete(key);
    }
    let byMetric = this.series.get(key);
    if (!byMetric) this.series.set(key, (byMetric = new Map<Removable, Map<string, Labels>>()));
    let sets = byMetric.get(metric);
    if (!sets) byMetric.set(metric, (sets = new Map<string, Labels>()));
    sets.set(JSON.stringify(labels), labels);
  }

  /** Removes the series of the resource `key` (per-resource labels). */
  private removeSeries(key: string): void {
    this.removals.delete(key);
    const byMetric = this.series.get(key);
    this.series.delete(key);
    for (const [metric, sets] of byMetric ?? []) {
      for (const labels of sets.values()) metric.remove(labels);
    }
  }

  controllerRegistered(c: ControllerMetricsInfo): void {
    // start the controller's counters at 0 so rates work from the first scrape
    if (this.perResource) return;
    const l = this.labels(c);
    for (const counter of [this.started, this.succeeded, this.retries, this.events, this.cleanups]) {
      counter.inc(l, 0);
    }
  }
  receivedEvent(event: Event, c: ControllerMetricsInfo): void {
    const id = event.resourceId;
    this.record(this.events, id, this.labels(c, id), (l) => this.events.inc(l));
  }
  reconciliationStarted(id: ResourceID, c: ControllerMetricsInfo): void {
    this.record(this.started, id, this.labels(c, id), (l) => this.started.inc(l));
  }
  reconcileSucceeded(id: ResourceID, c: ControllerMetricsInfo): void {
    this.record(this.succeeded, id, this.labels(c, id), (l) => this.succeeded.inc(l));
  }
  reconcileFailed(id: ResourceID, c: ControllerMetricsInfo, _kind: ExecutionKind, error: unknown): void {
    const labels = { ...this.labels(c, id), error: errorLabel(error) };
    this.record(this.failed, id, labels, (l) => this.failed.inc(l));
  }
  reconciliationFinished(id: ResourceID, c: ControllerMetricsInfo, kind: ExecutionKind, ms: number): void {
    const histogram = kind === 'cleanup' ? this.cleanupDuration : this.reconcileDuration;
    const removable: Removable = histogram.remove ? (histogram as Removable) : KEEP;
    this.record(removable, id, this.labels(c, id), (l) => histogram.observe(l, ms / 1000));
  }
  cleanupDone(id: ResourceID, c: ControllerMetricsInfo): void {
    this.record(this.cleanups, id, this.labels(c, id), (l) => this.cleanups.inc(l));
    if (!this.perResource) return;
    // the resource is gone: its series go after the delay, so label values do not pile up
    const key = `${id.namespace ?? ''}/${id.name}`;
    const timer = setTimeout(() => this.removeSeries(key), this.removalDelayMs);
    timer.unref?.();
    this.removals.set(key, timer);
  }
  retrying(id: ResourceID, c: ControllerMetricsInfo, _attemptCount?: number, _delayMs?: number): void {
    this.record(this.retries, id, this.labels(c, id), (l) => this.retries.inc(l));
  }
  executorChanged(queued: number, inFlight: number): void {
    if (this.closed) return;
    // the gauges are the process's: each operator's numbers add up in them
    let states = EXECUTORS.get(this.queueSize);
    if (!states)
      EXECUTORS.set(this.queueSize, (states = new Map<object, { queued: number; inFlight: number }>()));
    states.set(this, { queued, inFlight });
    this.setExecutorGauges(states);
  }
  private setExecutorGauges(states: Map<object, { queued: number; inFlight: number }>): void {
    let queued = 0;
    let inFlight = 0;
    for (const state of states.values()) {
      queued += state.queued;
      inFlight += state.inFlight;
    }
    this.queueSize.set(queued);
    this.inFlight.set(inFlight);
  }
  /**
   * The app shut down (after its operator stopped): its operator's share leaves the executor gauges,
   * and the series of deleted resources waiting for removal are removed now.
   */
  onApplicationShutdown(): void {
    this.closed = true;
    const states = EXECUTORS.get(this.queueSize);
    if (states?.delete(this)) this.setExecutorGauges(states);
    for (const [key, timer] of this.removals) {
      clearTimeout(timer);
      this.removeSeries(key);
    }
  }
  clientRetry(verb: string, reason: ClientRetryReason): void {
    this.clientRetries?.inc({ verb, reason });
  }
  shardingStarted(shard: ShardMetricsSource): void {
    this.shards?.add(shard);
  }
  shardingStopped(shard: ShardMetricsSource): void {
    this.shards?.delete(shard);
  }
}
