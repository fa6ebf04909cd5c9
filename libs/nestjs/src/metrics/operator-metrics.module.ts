import { Module } from '@nestjs/common';
import type { DynamicModule, Provider } from '@nestjs/common';
import {
  makeCounterProvider,
  makeGaugeProvider,
  makeHistogramProvider,
  PrometheusModule,
} from '@willsoto/nestjs-prometheus';
import { register } from 'prom-client';
import { CONTROLLER_LABELS, OperatorMetricNames as N, RESOURCE_LABELS } from './operator-metric-names.js';
import { OPERATOR_METRICS_OPTIONS, PrometheusOperatorMetrics } from './prometheus-operator-metrics.js';
import type { PrometheusOperatorMetricsOptions } from './prometheus-operator-metrics.js';

/** Options of {@link OperatorMetricsModule.forRoot}. */
export interface OperatorMetricsModuleOptions extends PrometheusOperatorMetricsOptions {
  /** Path of the scrape endpoint. Defaults to `/metrics`. */
  path?: string;
  /** Also collect prom-client's default process metrics. Defaults to true. */
  defaultMetrics?: boolean;
  /** Buckets of the duration histograms, in seconds. Defaults to 0.005 s .. 60 s. */
  durationBuckets?: number[];
}

const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Prometheus metrics of the operator with @willsoto/nestjs-prometheus: the
 * {@link PrometheusOperatorMetrics} sink (found by the OperatorModule) and the scrape endpoint.
 *
 * ```ts
 * imports: [OperatorModule.forRoot(), OperatorMetricsModule.forRoot()]
 * ```
 */
@Module({})
export class OperatorMetricsModule {
  /** The module. Metrics live in prom-client's default registry (as the library's providers do). */
  static forRoot(options: OperatorMetricsModuleOptions = {}): DynamicModule {
    const labelNames = [...CONTROLLER_LABELS, ...(options.perResourceLabels ? RESOURCE_LABELS : [])];
    const buckets = options.durationBuckets ?? DEFAULT_BUCKETS;
    const counter = (name: string, help: string, extra: string[] = []) =>
      makeCounterProvider({ name, help, labelNames: [...labelNames, ...extra] });
    const metrics: Provider[] = [
      counter(N.reconciliationsStarted, 'Reconciliations and cleanups started'),
      counter(N.reconciliationsSucceeded, 'Reconciliations and cleanups that succeeded'),
      counter(N.reconciliationsFailed, 'Reconciliations and cleanups that failed, by error code', ['error']),
      counter(N.retries, 'Retries scheduled after failed reconciliations'),
      counter(N.eventsReceived, 'Events received for primary resources'),
      counter(N.cleanups, 'Finished cleanups (finalizer removed or deleted resource forgotten)'),
      makeGaugeProvider({ name: N.queueSize, help: 'Reconciliations waiting for a free executor slot' }),
      makeGaugeProvider({ name: N.inFlight, help: 'Reconciliations and cleanups running' }),
      makeHistogramProvider({ name: N.reconcileDuration, help: 'Duration of reconciliations', labelNames, buckets }),
      makeHistogramProvider({ name: N.cleanupDuration, help: 'Duration of cleanups', labelNames, buckets }),
    ];
    // prom-client refuses a second registration of its default metrics (several apps in one process)
    const defaults = (options.defaultMetrics ?? true) && !register.getSingleMetric('process_cpu_user_seconds_total');
    return {
      module: OperatorMetricsModule,
      imports: [PrometheusModule.register({ path: options.path ?? '/metrics', defaultMetrics: { enabled: defaults } })],
      providers: [
        { provide: OPERATOR_METRICS_OPTIONS, useValue: { perResourceLabels: options.perResourceLabels ?? false } },
        ...metrics,
        PrometheusOperatorMetrics,
      ],
      exports: [PrometheusOperatorMetrics],
    };
  }
}
