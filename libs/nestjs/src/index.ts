/**
 * `@tosdk/nestjs`: the NestJS integration of tosdk (JOSDK's Spring Boot starter): the
 * OperatorModule with reconciler discovery, Terminus health, Prometheus metrics and pino logging
 * with the resource context.
 *
 * @packageDocumentation
 */

/** The npm name of this package. */
export const PACKAGE_NAME = '@tosdk/nestjs';

export * from './errors.js';
export type { OperatorModuleOptions } from './operator-module-options.js';
export { OPERATOR_MODULE_OPTIONS } from './operator.module-definition.js';
export type { OperatorModuleExtras } from './operator.module-definition.js';
export { OperatorModule } from './operator.module.js';
export { OperatorRegistry } from './operator.registry.js';
export { Reconciler, getReconcilerOptions } from './decorators/reconciler.decorator.js';
export type { ReconcilerOptions } from './decorators/reconciler.decorator.js';
export {
  InjectRegisteredController,
  getRegisteredControllerToken,
} from './decorators/inject-registered-controller.decorator.js';
export { ConfigurationOverrider } from './decorators/configuration-overrider.decorator.js';
export type { ControllerConfigurationOverrider } from './decorators/configuration-overrider.decorator.js';
export { OperatorMetricsSink } from './decorators/operator-metrics-sink.decorator.js';
export {
  CONTROLLER_VARIABLE_SUFFIXES,
  controllerOptionsFromEnvironment,
  controllerVariablePrefix,
  operatorOptionsFromEnvironment,
} from './config/environment-configuration.js';
export { loadKubeConfig } from './config/kube-config.loader.js';
export { OperatorHealthIndicator } from './health/operator-health.indicator.js';
export { OperatorHealthController } from './health/operator-health.controller.js';
export { OperatorHealthModule } from './health/operator-health.module.js';
export type { OperatorHealthModuleOptions } from './health/operator-health.module.js';
export { OperatorMetricsHub } from './metrics/operator-metrics-hub.js';
export { OperatorMetricNames } from './metrics/operator-metric-names.js';
export { PrometheusOperatorMetrics } from './metrics/prometheus-operator-metrics.js';
export type { PrometheusOperatorMetricsOptions } from './metrics/prometheus-operator-metrics.js';
export { OperatorMetricsModule } from './metrics/operator-metrics.module.js';
export type { OperatorMetricsModuleOptions } from './metrics/operator-metrics.module.js';
export { resourceContextMixin } from './logging/resource-context.mixin.js';
export { NestOperatorLogger } from './logging/nest-operator-logger.js';
