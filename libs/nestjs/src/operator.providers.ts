import type { KubeConfig } from '@kubernetes/client-node';
import type { Provider } from '@nestjs/common';
import { KubeConfigError, KubernetesClient, loadKubeConfig, Operator } from '@tosdk/core';
import type { KubeConfigSource } from '@tosdk/core';
import { operatorOptionsFromEnvironment } from './config/environment-configuration.js';
import { KubeConfigNotFoundError, OperatorModuleConfigurationError } from './errors.js';
import { NestOperatorLogger } from './logging/nest-operator-logger.js';
import { OperatorMetricsHub } from './metrics/operator-metrics-hub.js';
import { KUBE_CONFIG } from './operator.constants.js';
import { OPERATOR_MODULE_OPTIONS } from './operator.module-definition.js';
import type { OperatorModuleOptions } from './operator-module-options.js';

/** Token of the options after the environment was applied. */
export const RESOLVED_OPERATOR_OPTIONS = Symbol('tosdk:ResolvedOperatorOptions');

/** The environment the module reads (`options.environment`, else `process.env`). */
export function environmentOf(options: OperatorModuleOptions): Record<string, string | undefined> {
  return options.readEnvironment === false ? {} : (options.environment ?? process.env);
}

/**
 * The KubeConfig of an app that gave neither `kubeConfig` nor `client`: core's `loadKubeConfig()`
 * (`KUBECONFIG`, `~/.kube/config`, else the in-cluster service account), which loads
 * @kubernetes/client-node only for exec plugins, auth providers (OIDC) and `proxy-url`: an operator
 * in a pod does not pay client-node's ~60 MB of RSS (issue 15 §3).
 *
 * @throws KubeConfigNotFoundError when none is found or it cannot be read (`cause`: core's `KubeConfigError`).
 */
export function loadModuleKubeConfig(env: Record<string, string | undefined>): KubeConfigSource {
  try {
    return loadKubeConfig({ env });
  } catch (error) {
    if (!(error instanceof KubeConfigError)) throw error;
    throw new KubeConfigNotFoundError(
      `${error.message} (or pass kubeConfig or client to OperatorModule.forRoot)`,
      { cause: error },
    );
  }
}

/** What an options factory that returned no object (a forgotten `return`, a missing config key) gets. */
function noOptionsError(options: unknown): OperatorModuleConfigurationError {
  return new OperatorModuleConfigurationError(
    `OperatorModule.forRootAsync: the options are ${options === null ? 'null' : typeof options}; useFactory (or createOperatorOptions() of useClass/useExisting) must return an OperatorModuleOptions object ({} for the defaults)`,
  );
}

/**
 * The module's providers: options merged with `TOSDK_*` variables (fails the bootstrap naming a bad
 * variable, or with an `OperatorModuleConfigurationError` when an async factory returned no object), the KubeConfig (only read when the app gave no client), the client and the Operator.
 */
/**
 * The operator's client as the module builds it from a KubeConfig, as core's Operator builds its own:
 * retries reported to the metrics, the module's logger, the app's `clientOptions` (retry policy,
 * sockets). The testing module builds its client the same way on its environment's KubeConfig.
 */
export function moduleClient(
  options: OperatorModuleOptions,
  kubeConfig: KubeConfig | KubeConfigSource,
  hub: OperatorMetricsHub,
): KubernetesClient {
  return KubernetesClient.fromKubeConfig(kubeConfig, {
    metrics: hub,
    logger: options.logger ?? new NestOperatorLogger(),
    ...options.clientOptions,
  });
}

export function operatorProviders(): Provider[] {
  return [
    {
      provide: RESOLVED_OPERATOR_OPTIONS,
      inject: [OPERATOR_MODULE_OPTIONS],
      useFactory: (options: OperatorModuleOptions | undefined | null): OperatorModuleOptions => {
        if (typeof options !== 'object' || options === null) throw noOptionsError(options);
        const fromEnvironment = operatorOptionsFromEnvironment(environmentOf(options));
        // TOSDK_SHARDING* override single fields of the module's sharding option (keeps its shardKey)
        const sharding = fromEnvironment.sharding
          ? { ...options.sharding, ...fromEnvironment.sharding }
          : options.sharding;
        return { ...options, ...fromEnvironment, ...(sharding ? { sharding } : {}) };
      },
    },
    {
      provide: KUBE_CONFIG,
      inject: [RESOLVED_OPERATOR_OPTIONS],
      useFactory: (options: OperatorModuleOptions): KubeConfig | KubeConfigSource | null =>
        // KUBECONFIG is not a TOSDK_* setting: read even with readEnvironment: false
        (typeof options.kubeConfig === 'function' ? options.kubeConfig() : options.kubeConfig) ??
        (options.client ? null : loadModuleKubeConfig(options.environment ?? process.env)),
    },
    OperatorMetricsHub,
    {
      provide: KubernetesClient,
      inject: [RESOLVED_OPERATOR_OPTIONS, KUBE_CONFIG, OperatorMetricsHub],
      useFactory: (
        options: OperatorModuleOptions,
        kubeConfig: KubeConfig | KubeConfigSource | null,
        hub: OperatorMetricsHub,
      ): KubernetesClient => options.client ?? moduleClient(options, kubeConfig!, hub),
    },
    {
      provide: Operator,
      inject: [RESOLVED_OPERATOR_OPTIONS, KUBE_CONFIG, KubernetesClient, OperatorMetricsHub],
      useFactory: (
        options: OperatorModuleOptions,
        kubeConfig: KubeConfig | KubeConfigSource | null,
        client: KubernetesClient,
        hub: OperatorMetricsHub,
      ): Operator => {
        if (options.metrics) hub.add(options.metrics);
        const { autoStart, controllers, readEnvironment, environment, overrideOperator, ...core } = options;
        void autoStart;
        void controllers;
        void readEnvironment;
        void environment;
        return new Operator(
          {
            ...core,
            kubeConfig: kubeConfig ?? undefined,
            client,
            // the client is a provider of the app: the orchestrator closes it at application shutdown
            // (onApplicationShutdown), so providers may still use it in onModuleDestroy after the
            // operator stopped
            closeClientOnStop: false,
            metrics: hub,
            logger: options.logger ?? new NestOperatorLogger(),
          },
          overrideOperator,
        );
      },
    },
  ];
}
