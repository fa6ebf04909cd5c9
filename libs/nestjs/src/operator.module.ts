import { Module } from '@nestjs/common';
import type { DynamicModule, Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { KubeConfig } from '@kubernetes/client-node';
import { KubernetesClient, Operator } from '@tosdk/core';
import {
  requestedRegisteredControllers,
  getRegisteredControllerToken,
} from './decorators/inject-registered-controller.decorator.js';
import { ReconcilerExplorer } from './internal/reconciler.explorer.js';
import { OperatorMetricsHub } from './metrics/operator-metrics-hub.js';
import {
  ConfigurableOperatorModule,
  OPERATOR_MODULE_ASYNC_OPTIONS_TYPE,
  OPERATOR_MODULE_OPTIONS_TYPE,
} from './operator.module-definition.js';
import { KUBE_CONFIG } from './operator.constants.js';
import { OperatorOrchestrator } from './operator.orchestrator.js';
import { operatorProviders } from './operator.providers.js';
import { lazyRegisteredController, OperatorRegistry } from './operator.registry.js';

function withControllerHandles(definition: DynamicModule): DynamicModule {
  const handles: Provider[] = requestedRegisteredControllers().map((type) => ({
    provide: getRegisteredControllerToken(type),
    inject: [OperatorRegistry],
    useFactory: (registry: OperatorRegistry) => lazyRegisteredController(registry, type),
  }));
  return {
    ...definition,
    providers: [...(definition.providers ?? []), ...handles],
    exports: [...(definition.exports ?? []), ...handles.map((h) => (h as { provide: symbol }).provide)],
  };
}

/**
 * The operator in a Nest application (JOSDK's Spring Boot starter): discovers `@Reconciler`
 * providers in every module and runs them on one core `Operator` with the application's life cycle.
 * Injectable: `Operator`, the KubeConfig as `@Inject(KUBE_CONFIG)` or by its class (null when the app
 * gave its own client), `KubernetesClient`,
 * `OperatorRegistry` and `@InjectRegisteredController(X)` handles. Global unless `isGlobal: false`.
 *
 * ```ts
 * @Module({ imports: [OperatorModule.forRoot({ concurrentReconciliationThreads: 10 }), WebPageModule] })
 * export class AppModule {}
 * ```
 */
@Module({
  imports: [DiscoveryModule],
  providers: [...operatorProviders(), OperatorRegistry, ReconcilerExplorer, OperatorOrchestrator],
  exports: [Operator, KubeConfig, KUBE_CONFIG, KubernetesClient, OperatorRegistry, OperatorMetricsHub],
})
export class OperatorModule extends ConfigurableOperatorModule {
  /** The module with options given directly (and `isGlobal`). */
  static override forRoot(options: typeof OPERATOR_MODULE_OPTIONS_TYPE = {}): DynamicModule {
    return withControllerHandles(super.forRoot(options));
  }

  /** The module with options from `useFactory`/`useClass`/`useExisting` (and `isGlobal`). */
  static override forRootAsync(options: typeof OPERATOR_MODULE_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withControllerHandles(super.forRootAsync(options));
  }
}
