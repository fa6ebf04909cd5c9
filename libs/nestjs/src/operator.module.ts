import { Module } from '@nestjs/common';
import type { DynamicModule, Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
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
 * A client-node `KubeConfig` handed to `forRoot` is also injectable by its class (the module no
 * longer imports client-node to make that token for everyone: the class is the one the app holds).
 */
function withKubeConfigClass(definition: DynamicModule, kubeConfig: unknown): DynamicModule {
  const type = (kubeConfig as { constructor?: unknown } | undefined)?.constructor;
  if (typeof type !== 'function' || type === Object || type.name !== 'KubeConfig') return definition;
  const token = type as abstract new (...args: never[]) => unknown;
  return {
    ...definition,
    providers: [...(definition.providers ?? []), { provide: token, useExisting: KUBE_CONFIG }],
    exports: [...(definition.exports ?? []), token],
  };
}

/**
 * The operator in a Nest application (JOSDK's Spring Boot starter): discovers `@Reconciler`
 * providers in every module and runs them on one core `Operator` with the application's life cycle.
 * Injectable: `Operator`, the KubeConfig as `@Inject(KUBE_CONFIG)` (null when the app gave its own
 * client; core's `loadKubeConfig()` result unless the app gave `kubeConfig`; also by the `KubeConfig`
 * class when `forRoot` was given a client-node `KubeConfig`), `KubernetesClient`,
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
  exports: [Operator, KUBE_CONFIG, KubernetesClient, OperatorRegistry, OperatorMetricsHub],
})
export class OperatorModule extends ConfigurableOperatorModule {
  /** The module with options given directly (and `isGlobal`). */
  static override forRoot(options: typeof OPERATOR_MODULE_OPTIONS_TYPE = {}): DynamicModule {
    return withKubeConfigClass(withControllerHandles(super.forRoot(options)), options.kubeConfig);
  }

  /** The module with options from `useFactory`/`useClass`/`useExisting` (and `isGlobal`). */
  static override forRootAsync(options: typeof OPERATOR_MODULE_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withControllerHandles(super.forRootAsync(options));
  }
}
