import { createRequire } from 'node:module';
import { Module } from '@nestjs/common';
import type { DynamicModule, ModuleMetadata, Provider, Type } from '@nestjs/common';
import type * as NestPrometheus from '@willsoto/nestjs-prometheus';
import { Counter, Gauge, Histogram, register } from 'prom-client';
import { CONTROLLER_LABELS, OperatorMetricNames as N, RESOURCE_LABELS } from './operator-metric-names.js';
import { PrometheusOperatorMetrics } from './prometheus-operator-metrics.js';
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

/** The operator's metrics in prom-client's default registry (the ones already there are reused). */
function promMetrics(options: OperatorMetricsModuleOptions): OperatorPrometheusMetrics {
  const labelNames = [...CONTROLLER_LABELS, ...(options.perResourceLabels ? RESOURCE_LABELS : [])];
  const buckets = options.durationBuckets ?? DEFAULT_BUCKETS;
  const existing = <T>(name: string) => register.getSingleMetric(name) as T | undefined;
  const counter = (name: string, help: string, extra: string[] = []) =>
    existing<Counter<string>>(name) ?? new Counter({ name, help, labelNames: [...labelNames, ...extra] });
  const gauge = (name: string, help: string) => existing<Gauge<string>>(name) ?? new Gauge({ name, help });
  const histogram = (name: string, help: string) =>
    existing<Histogram<string>>(name) ?? new Histogram({ name, help, labelNames, buckets });
  return {
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
  };
}

const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

// @willsoto/nestjs-prometheus is CommonJS and requires the ES module @nestjs/common: loaded on first
// use (after @nestjs/common is evaluated) so ESM loaders that refuse require(esm) cycles accept it.
let library: typeof NestPrometheus | undefined;
function nestPrometheus(): typeof NestPrometheus {
  library ??= createRequire(import.meta.url)('@willsoto/nestjs-prometheus') as typeof NestPrometheus;
  return library;
}

/**
 * Prometheus metrics of the operator with @willsoto/nestjs-prometheus: the
 * {@link PrometheusOperatorMetrics} sink (found by the OperatorModule) and the scrape endpoint.
 * Metrics live in prom-client's default registry, as the library's providers do; a process with
 * several apps shares them.
 *
 * ```ts
 * imports: [OperatorModule.forRoot(), OperatorMetricsModule.forRoot()]
 * ```
 */
@Module({})
export class OperatorMetricsModule {
  /** The module. */
  static forRoot(options: OperatorMetricsModuleOptions = {}): DynamicModule {
    const lib = nestPrometheus();
    const labelNames = [...CONTROLLER_LABELS, ...(options.perResourceLabels ? RESOURCE_LABELS : [])];
    const buckets = options.durationBuckets ?? DEFAULT_BUCKETS;
    const counter = (name: string, help: string, extra: string[] = []) =>
      lib.makeCounterProvider({ name, help, labelNames: [...labelNames, ...extra] });
    const metrics: Provider[] = [
      counter(N.reconciliationsStarted, 'Reconciliations and cleanups started'),
      counter(N.reconciliationsSucceeded, 'Reconciliations and cleanups that succeeded'),
      counter(N.reconciliationsFailed, 'Reconciliations and cleanups that failed, by error code', ['error']),
      counter(N.retries, 'Retries scheduled after failed reconciliations'),
      counter(N.eventsReceived, 'Events received for primary resources'),
      counter(N.cleanups, 'Finished cleanups (finalizer removed or deleted resource forgotten)'),
      lib.makeGaugeProvider({ name: N.queueSize, help: 'Reconciliations waiting for a free executor slot' }),
      lib.makeGaugeProvider({ name: N.inFlight, help: 'Reconciliations and cleanups running' }),
      lib.makeHistogramProvider({
        name: N.reconcileDuration,
        help: 'Duration of reconciliations',
        labelNames,
        buckets,
      }),
      lib.makeHistogramProvider({
        name: N.cleanupDuration,
        help: 'Duration of cleanups',
        labelNames,
        buckets,
      }),
    ];
    const sink: Provider = {
      provide: PrometheusOperatorMetrics,
      inject: [
        N.reconciliationsStarted,
        N.reconciliationsSucceeded,
        N.reconciliationsFailed,
        N.retries,
        N.eventsReceived,
        N.cleanups,
        N.queueSize,
        N.inFlight,
        N.reconcileDuration,
        N.cleanupDuration,
      ].map((n) => lib.getToken(n)),
      useFactory: (...m: unknown[]) =>
        new PrometheusOperatorMetrics(
          { perResourceLabels: options.perResourceLabels ?? false },
          {
            started: m[0] as Counter<string>,
            succeeded: m[1] as Counter<string>,
            failed: m[2] as Counter<string>,
            retries: m[3] as Counter<string>,
            events: m[4] as Counter<string>,
            cleanups: m[5] as Counter<string>,
            queueSize: m[6] as Gauge<string>,
            inFlight: m[7] as Gauge<string>,
            reconcileDuration: m[8] as Histogram<string>,
            cleanupDuration: m[9] as Histogram<string>,
          },
        ),
    };
    // prom-client refuses a second registration of its default metrics (several apps in one process)
    const defaults =
      (options.defaultMetrics ?? true) && !register.getSingleMetric('process_cpu_user_seconds_total');
    return {
      module: OperatorMetricsModule,
      imports: [
        lib.PrometheusModule.register({
          path: options.path ?? '/metrics',
          defaultMetrics: { enabled: defaults },
        }),
      ],
      providers: [...metrics, sink],
      exports: [PrometheusOperatorMetrics],
    };
  }

  /**
   * The module with its options from a factory (with `imports` and `inject`), resolved before the
   * routes are registered: the scrape path too.
   */
  static forRootAsync(options: OperatorMetricsModuleAsyncOptions): DynamicModule {
    const lib = nestPrometheus();
    @Module({
      imports: options.imports ?? [],
      providers: [{ provide: METRICS_OPTIONS, inject: options.inject ?? [], useFactory: options.useFactory }],
      exports: [METRICS_OPTIONS],
    })
    class OperatorMetricsOptionsModule {}
    return {
      module: OperatorMetricsModule,
      imports: [
        OperatorMetricsOptionsModule,
        lib.PrometheusModule.registerAsync({
          imports: [OperatorMetricsOptionsModule],
          inject: [METRICS_OPTIONS],
          useFactory: (o: OperatorMetricsModuleOptions) => ({
            path: o.path ?? '/metrics',
            defaultMetrics: {
              // prom-client refuses a second registration of its default metrics (several apps in one process)
              enabled:
                (o.defaultMetrics ?? true) && !register.getSingleMetric('process_cpu_user_seconds_total'),
            },
          }),
        }),
      ],
      providers: [
        {
          provide: PrometheusOperatorMetrics,
          inject: [METRICS_OPTIONS],
          useFactory: (o: OperatorMetricsModuleOptions) =>
            new PrometheusOperatorMetrics(
              { perResourceLabels: o.perResourceLabels ?? false },
              promMetrics(o),
            ),
        },
      ],
      exports: [PrometheusOperatorMetrics],
    };
  }
}
