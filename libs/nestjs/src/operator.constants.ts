/** Metadata key of the {@link Reconciler} decorator (the controller configuration). */
export const RECONCILER_METADATA = 'tosdk:reconciler';
/** Metadata key of the {@link ConfigurationOverrider} decorator. */
export const CONFIGURATION_OVERRIDER_METADATA = 'tosdk:configuration-overrider';
/** Metadata key of the {@link OperatorMetricsSink} decorator. */
export const METRICS_SINK_METADATA = 'tosdk:metrics-sink';
/**
 * A metrics sink may name what it writes to under this key: the OperatorModule feeds sinks of one
 * identity once (e.g. `OperatorMetricsModule` imported by two modules of one app gives two sink
 * instances writing to the same prom-client counters; only the first is fed). `Symbol.for`, so two
 * copies of the package agree.
 */
export const METRICS_SINK_IDENTITY: unique symbol = Symbol.for('tosdk:metrics-sink-identity');
/** Prefix of every environment variable the module reads. */
export const ENV_PREFIX = 'TOSDK_';
/**
 * Injection token of the operator's KubeConfig (null when the app gave its own client):
 * `@Inject(KUBE_CONFIG) kubeConfig: KubeConfigSource | null`. Unless the app gave `kubeConfig`, it
 * is what core's `loadKubeConfig()` read (a `KubeConfigSource`, not a client-node `KubeConfig`: the
 * module loads @kubernetes/client-node only for exec plugins, OIDC and `proxy-url`). A client-node
 * `KubeConfig` given to `forRoot` is injected as given, and by its class too. Override this token in
 * tests: it reaches the client and the operator.
 */
export const KUBE_CONFIG = 'tosdk:KubeConfig';
