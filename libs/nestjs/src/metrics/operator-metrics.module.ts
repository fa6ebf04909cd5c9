import { Controller, Get, Header, Module } from '@nestjs/common';
import type { DynamicModule, ModuleMetadata, OnModuleInit, Type } from '@nestjs/common';
import type { ShardMetricsSource } from '@tosdk/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client';
import {
  CONTROLLER_LABELS,
  OperatorMetricNames as N,
  RESOURCE_LABELS,
  SHARD_LABELS,
} from './operator-metric-names.js';
import { collectShards, PrometheusOperatorMetrics } from './prometheus-operator-metrics.js';
import type {
  OperatorPrometheusMetrics,
  PrometheusOperatorMetricsOptions,
} from './prometheus-operator-metrics.js';

/** Options of {@link OperatorMetricsModule.forRoot}. */
export interface OperatorMetricsModuleOptions extends PrometheusOperatorMetricsOptions {
  /** Path of the scrape endpoint. Defaults to `/metrics`. */
  path?: string;
  /** Also collect prom-client's default process metrics. Defaults to true. */
  defaultMetrics?: boolean;
  /** Buckets of the duration histograms, in seconds. Defaults to 0.005 s .. 60 s. */
  durationBuckets?: number[];
}

/** Options of {@link OperatorMetricsModule.forRootAsync}: the options come from a factory (e.g. ConfigService). */
export interface OperatorMetricsModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** Providers the factory gets, in order. Defaults to none. */
  inject?: (string | symbol | Type)[];
  /** The options (path, labels, buckets, default metrics), resolved before the routes are registered. */
  useFactory: (...args: never[]) => OperatorMetricsModuleOptions | Promise<OperatorMetricsModuleOptions>;
}

const METRICS_OPTIONS = Symbol('tosdk:OperatorMetricsModuleOptions');

/** The metrics this package registered (any copy of it in the process), with their shape. */
const OWN_KEY = Symbol.for('tosdk:prometheus-own-metrics');
const own = ((globalThis as Record<symbol, unknown>)[OWN_KEY] ??= new WeakMap<object, string>()) as WeakMap<
  object,
  string
>;

/**
 * The shards of this process's sharded operators: one set for the process (any copy of this package
 * adds to it), as the registry the `tosdk_shard_*` gauges live in is one.
 */
const SHARDS_KEY = Symbol.for('tosdk:prometheus-shards');
const SHARDS = ((globalThis as Record<symbol, unknown>)[SHARDS_KEY] ??=
  new Set<ShardMetricsSource>()) as Set<ShardMetricsSource>;

const SHARD_GAUGES = [N.shardInfo, N.shardMembers, N.shardSettled, N.shardOwnedResources];

/**
 * The `tosdk_shard_*` gauges (once per registry): read {@link SHARDS} when scraped. Metrics of those
 * names that this package (any copy of it) did not register are replaced, as {@link metric} does.
 */
function shardGauges(): void {
  if (SHARD_GAUGES.every((name) => own.get(register.getSingleMetric(name) ?? {}) === 'shard')) return;
  for (const name of SHARD_GAUGES) if (register.getSingleMetric(name)) register.removeSingleMetric(name);
  const labelNames = [...SHARD_LABELS];
  // the first registered: its collect callback sets all four before the registry reads the others
  const info: Gauge<string> = new Gauge({
    name: N.shardInfo,
    help: 'This replica in its shard group (always 1; join on shard_group and shard)',
    labelNames,
    collect: () => collectShards(SHARDS, { info, members, settled, owned }),
  });
  const members = new Gauge({
    name: N.shardMembers,
    help: 'Live members of the shard group this replica sees',
    labelNames,
  });
  const settled = new Gauge({
    name: N.shardSettled,
    help: '1 when every live member acknowledged the ring (this replica reconciles its whole share), else 0',
    labelNames,
  });
  const owned = new Gauge({
    name: N.shardOwnedResources,
    help: "Primary resources in this replica's share, by controller",
    labelNames: [...labelNames, ...CONTROLLER_LABELS],
  });
  for (const gauge of [info, members, settled, owned]) own.set(gauge, 'shard');
}

/**
 * The metric `name` in the default registry: the one there when this package registered it with
 * the same `shape` (label names and buckets), else a new one made by `make` (replacing one of
 * another shape, e.g. an earlier app's histogram with other buckets, or one registered by others).
 */
function metric<T extends object>(name: string, shape: string, make: () => T): T {
  const existing = register.getSingleMetric(name) as T | undefined;
  if (existing && own.get(existing) === shape) return existing;
  if (existing) register.removeSingleMetric(name);
  const made = make();
  own.set(made, shape);
  return made;
}

/**
 * The operator's metrics in prom-client's default registry. Counters and histograms always declare
 * the per-resource labels (`namespace`, `name`): a sink without `perResourceLabels` leaves them out
 * (prom-client accepts a subset, and the exposition shows only the labels given), so apps of one
 * process with and without per-resource labels share the metrics and each gets what it asked for.
 * A histogram registered with other buckets is replaced: the last module's buckets apply, and every
 * app's durations are observed into it.
 */
function promMetrics(options: OperatorMetricsModuleOptions): OperatorPrometheusMetrics {
  const labelNames = [...CONTROLLER_LABELS, ...RESOURCE_LABELS];
  const buckets = options.durationBuckets ?? DEFAULT_BUCKETS;
  const counter = (name: string, help: string, extra: string[] = []) => {
    const names = [...labelNames, ...extra];
    return metric(name, names.join(), () => new Counter({ name, help, labelNames: names }));
  };
  const gauge = (name: string, help: string) => metric(name, '', () => new Gauge({ name, help }));
  const histogram = (name: string, help: string): Pick<Histogram<string>, 'observe' | 'remove'> => {
    const made = metric(
      name,
      `${labelNames.join()}|${buckets.join()}`,
      () => new Histogram({ name, help, labelNames, buckets }),
    );
    // a later module with other buckets replaces the histogram in the registry: observe into the
    // one registered now (ours, of any buckets), so an earlier app's durations are not lost
    const target = (): Histogram<string> => {
      const current = register.getSingleMetric(name);
      return current && own.has(current) ? (current as Histogram<string>) : made;
    };
    return {
      observe: (labels: Partial<Record<string, string | number>>, value: number) =>
        target().observe(labels, value),
      // a deleted resource's series (perResourceLabels) leave the histogram they were observed into
      remove: (labels: Partial<Record<string, string | number>>) => target().remove(labels),
    } as Pick<Histogram<string>, 'observe' | 'remove'>;
  };
  shardGauges();
  return {
    shards: SHARDS,
    started: counter(N.reconciliationsStarted, 'Reconciliations and cleanups started'),
    succeeded: counter(N.reconciliationsSucceeded, 'Reconciliations and cleanups that succeeded'),
    failed: counter(N.reconciliationsFailed, 'Reconciliations and cleanups that failed, by error code', [
      'error',
    ]),
    retries: counter(N.retries, 'Retries scheduled after failed reconciliations'),
    events: counter(N.eventsReceived, 'Events received for primary resources'),
    cleanups: counter(N.cleanups, 'Finished cleanups (finalizer removed or deleted resource forgotten)'),
    queueSize: gauge(N.queueSize, 'Reconciliations waiting for a free executor slot'),
    inFlight: gauge(N.inFlight, 'Reconciliations and cleanups running'),
    reconcileDuration: histogram(N.reconcileDuration, 'Duration of reconciliations'),
    cleanupDuration: histogram(N.cleanupDuration, 'Duration of cleanups'),
    clientRetries: metric(
      N.clientRetries,
      'verb,reason',
      () =>
        new Counter({
          name: N.clientRetries,
          help: 'Requests the Kubernetes client retried after a transient failure (429, 5xx, connection), by client call and reason',
          labelNames: ['verb', 'reason'],
        }),
    ),
  };
}

const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Nest's route metadata key (as @Controller writes it). */
const PATH = 'path';

/**
 * A scrape controller class of its own per module (so each app keeps its path): prom-client's
 * default registry in the text exposition format. prom-client is used directly rather than through
 * @willsoto/nestjs-prometheus: that package is CommonJS requiring ES-module Nest, which Jest loads
 * only on Node >= 24.9.
 */
function scrapeController(): Type {
  @Controller()
  class OperatorMetricsController {
    @Get()
    @Header('Content-Type', register.contentType)
    @Header('Cache-Control', 'no-store')
    scrape(): Promise<string> {
      return register.metrics();
    }
  }
  return OperatorMetricsController;
}

function applyPath(controller: Type, path: string | undefined): void {
  Reflect.defineMetadata(PATH, path ?? '/metrics', controller);
}

/**
 * prom-client's default process metrics, registered in `onModuleInit`, once per process: after every
 * provider was made, so a library that registers them unconditionally while its providers are made
 * (`@willsoto/nestjs-prometheus`'s `registerAsync`) finds them free whatever the module order, and
 * this module, seeing them registered, does not register them again.
 */
class DefaultProcessMetrics implements OnModuleInit {
  constructor(private readonly enabled: boolean) {}
  onModuleInit(): void {
    // prom-client refuses a second registration of its default metrics (several apps in one process)
    if (this.enabled && !register.getSingleMetric('process_cpu_user_seconds_total')) collectDefaultMetrics();
  }
}

const DEFAULT_PROCESS_METRICS = Symbol('tosdk:DefaultProcessMetrics');

/** The sink on the resolved options. */
function sinkOf(options: OperatorMetricsModuleOptions): PrometheusOperatorMetrics {
  return new PrometheusOperatorMetrics(
    {
      perResourceLabels: options.perResourceLabels ?? false,
      perResourceRemovalDelayMs: options.perResourceRemovalDelayMs,
    },
    promMetrics(options),
  );
}

/**
 * Prometheus metrics of the operator with prom-client: the {@link PrometheusOperatorMetrics} sink
 * (found by the OperatorModule) and the scrape endpoint (`GET /metrics` by default). Metrics live in
 * prom-client's default registry, so the app's own metrics (prom-client, or
 * @willsoto/nestjs-prometheus's providers and endpoint) are scraped with them; a process with
 * several apps shares them. Each module's `perResourceLabels` applies to its own app (the series
 * declare the per-resource labels and leave them out without it); the last module's
 * `durationBuckets` apply (an earlier histogram with other buckets is replaced; the earlier apps'
 * durations go to the new one). Imported by several modules of one app, each reconciliation is
 * counted once (the first module's sink is fed).
 *
 * ```ts
 * import { OperatorMetricsModule } from '@tosdk/nestjs/metrics';
 * imports: [OperatorModule.forRoot(), OperatorMetricsModule.forRoot({ path: '/metrics' })]
 * ```
 */
@Module({})
export class OperatorMetricsModule {
  /** The module. */
  static forRoot(options: OperatorMetricsModuleOptions = {}): DynamicModule {
    const controller = scrapeController();
    applyPath(controller, options.path);
    return {
      module: OperatorMetricsModule,
      controllers: [controller],
      providers: [
        { provide: PrometheusOperatorMetrics, useFactory: () => sinkOf(options) },
        {
          provide: DEFAULT_PROCESS_METRICS,
          useValue: new DefaultProcessMetrics(options.defaultMetrics ?? true),
        },
      ],
      exports: [PrometheusOperatorMetrics],
    };
  }

  /**
   * The module with its options from a factory (with `imports` and `inject`), resolved before the
   * routes are registered: the scrape path too.
   */
  static forRootAsync(options: OperatorMetricsModuleAsyncOptions): DynamicModule {
    const controller = scrapeController();
    applyPath(controller, undefined);
    return {
      module: OperatorMetricsModule,
      imports: options.imports ?? [],
      controllers: [controller],
      providers: [
        {
          provide: METRICS_OPTIONS,
          inject: options.inject ?? [],
          useFactory: async (...args: never[]) => {
            const resolved = await options.useFactory(...args);
            applyPath(controller, resolved.path);
            return resolved;
          },
        },
        {
          provide: PrometheusOperatorMetrics,
          inject: [METRICS_OPTIONS],
          useFactory: (resolved: OperatorMetricsModuleOptions) => sinkOf(resolved),
        },
        {
          provide: DEFAULT_PROCESS_METRICS,
          inject: [METRICS_OPTIONS],
          useFactory: (resolved: OperatorMetricsModuleOptions) =>
            new DefaultProcessMetrics(resolved.defaultMetrics ?? true),
        },
      ],
      exports: [PrometheusOperatorMetrics],
    };
  }
}
