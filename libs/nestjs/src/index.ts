/**
 * `@tosdk/nestjs`: the NestJS integration of tosdk (JOSDK's Spring Boot starter): the
 * OperatorModule with reconciler discovery and logging with the resource context. Terminus health
 * is in `@tosdk/nestjs/health`, Prometheus metrics in `@tosdk/nestjs/metrics`, the test module in
 * `@tosdk/nestjs/testing`.
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
export { KUBE_CONFIG, METRICS_SINK_IDENTITY } from './operator.constants.js';
export { OperatorRegistry } from './operator.registry.js';
export { Reconciler, getReconcilerOptions } from './decorators/reconciler.decorator.js';
export type { ReconcilerOptions } from './decorators/reconciler.decorator.js';
export type {
  NestManagedDependentSpec,
  NestManagedWorkflowSpec,
  ProviderClass,
} from './internal/workflow-providers.js';
export {
  InjectRegisteredController,
  getRegisteredControllerToken,
} from './decorators/inject-registered-controller.decorator.js';
export { ConfigurationOverrider } from './decorators/configuration-overrider.decorator.js';
export type {
  ConfigurationOverriderOptions,
  ControllerConfigurationOverrider,
} from './decorators/configuration-overrider.decorator.js';
export { OperatorMetricsSink } from './decorators/operator-metrics-sink.decorator.js';
export {
  CONTROLLER_VARIABLE_SUFFIXES,
  controllerOptionsFromEnvironment,
  controllerVariablePrefix,
  operatorOptionsFromEnvironment,
} from './config/environment-configuration.js';
export { loadClientNodeKubeConfig } from './config/kube-config.loader.js';
export { OperatorMetricsHub } from './metrics/operator-metrics-hub.js';
// Health (@nestjs/terminus) and Prometheus metrics (prom-client) have their own entry points,
// '@tosdk/nestjs/health' and '@tosdk/nestjs/metrics', so this one needs neither installed.
export { resourceContextMixin } from './logging/resource-context.mixin.js';
export { NestOperatorLogger } from './logging/nest-operator-logger.js';
