/**
 * `@tosdk/nestjs/metrics`: Prometheus metrics of the operator with prom-client, as its own entry
 * point: only apps that import it need prom-client installed.
 *
 * ```ts
 * import { OperatorMetricsModule } from '@tosdk/nestjs/metrics';
 * ```
 *
 * @packageDocumentation
 */

export { OperatorMetricNames } from './operator-metric-names.js';
export { PrometheusOperatorMetrics } from './prometheus-operator-metrics.js';
export type { PrometheusOperatorMetricsOptions } from './prometheus-operator-metrics.js';
export { OperatorMetricsModule } from './operator-metrics.module.js';
export type {
  OperatorMetricsModuleAsyncOptions,
  OperatorMetricsModuleOptions,
} from './operator-metrics.module.js';
