import type { KubeConfig } from '@kubernetes/client-node';
import type {
  ControllerConfigurationOptions,
  KubernetesClient,
  KubeConfigSource,
  KubernetesResource,
  Logger,
  Metrics,
  OperatorOptions,
  OperatorOptionsOverrider,
} from '@tosdk/core';

/**
 * Options of {@link OperatorModule}: core's operator options plus the Nest integration's own.
 * Environment variables (see `README.md`, "NestJS") override them; configuration overrider
 * providers override both.
 */
export interface OperatorModuleOptions extends Omit<OperatorOptions, 'metrics' | 'logger' | 'kubeConfig'> {
  /**
   * Where the API server is. Defaults to `KUBECONFIG`, else `~/.kube/config`, else the in-cluster
   * service account; never read when `client` is given. A function returning one
   * (`kubeConfig: loadClientNodeKubeConfig`) is called when the module's providers are built, not
   * when the module file is imported, so a testing module that overrides `KUBE_CONFIG` never calls
   * it (a machine without a kubeconfig, such as CI, can run the app's tests); the KubeConfig is then
   * injectable as `KUBE_CONFIG` only, not by its class.
   */
  kubeConfig?: KubeConfig | KubeConfigSource | (() => KubeConfig | KubeConfigSource);
  /** A client to use; when given, no KubeConfig is read at all. Defaults to one made from `kubeConfig`. */
  client?: KubernetesClient;
  /**
   * Close the `KubernetesClient` provider when the application shuts down (`onApplicationShutdown`,
   * after the app's own `onModuleDestroy` and `beforeApplicationShutdown` hooks, which may still use
   * it), not at the operator's `stop()`. Defaults to true when the module made the client, false for
   * a given `client`.
   */
  closeClientOnStop?: boolean;
  /** Start the operator in `onApplicationBootstrap`. Defaults to true; false leaves `operator.start()` to the app. */
  autoStart?: boolean;
  /**
   * Per-controller overrides keyed by controller name (`@Reconciler`'s `name`, else the class name
   * lower-cased), merged over each `@Reconciler` decorator's options; a key that names no controller
   * is logged as a warning at start-up. Defaults to none.
   */
  controllers?: Record<string, ControllerConfigurationOptions<KubernetesResource>>;
  /** Metrics hooks besides the discovered `@OperatorMetricsSink` providers (e.g. Prometheus). Defaults to none. */
  metrics?: Metrics;
  /** Logger of the framework. Defaults to Nest's `Logger` with context `tosdk` (pino when the app uses nestjs-pino). */
  logger?: Logger;
  /** Changes the operator options last, after the environment (core's overrider). Defaults to none. */
  overrideOperator?: OperatorOptionsOverrider;
  /** Read `TOSDK_*` environment variables. Defaults to true. */
  readEnvironment?: boolean;
  /** The environment to read. Defaults to `process.env`. */
  environment?: Record<string, string | undefined>;
}
