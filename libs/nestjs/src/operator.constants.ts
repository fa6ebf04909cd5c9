/** Metadata key of the {@link Reconciler} decorator (the controller configuration). */
export const RECONCILER_METADATA = 'tosdk:reconciler';
/** Metadata key of the {@link ConfigurationOverrider} decorator. */
export const CONFIGURATION_OVERRIDER_METADATA = 'tosdk:configuration-overrider';
/** Metadata key of the {@link OperatorMetricsSink} decorator. */
export const METRICS_SINK_METADATA = 'tosdk:metrics-sink';
/** Prefix of every environment variable the module reads. */
export const ENV_PREFIX = 'TOSDK_';
/**
 * Injection token of the operator's `KubeConfig` (null when the app gave its own client):
 * `@Inject(KUBE_CONFIG) kubeConfig: KubeConfig | null`. A string, so it works whichever copy of
 * `@kubernetes/client-node` the app resolves (the `KubeConfig` class is also a token, but only for
 * the copy this package resolves). Override `KubeConfig` or this token in tests: both reach the client.
 */
export const KUBE_CONFIG = 'tosdk:KubeConfig';
