/** Metadata key of the {@link Reconciler} decorator (the controller configuration). */
export const RECONCILER_METADATA = 'tosdk:reconciler';
/** Metadata key of the {@link ConfigurationOverrider} decorator. */
export const CONFIGURATION_OVERRIDER_METADATA = 'tosdk:configuration-overrider';
/** Metadata key of the {@link OperatorMetricsSink} decorator. */
export const METRICS_SINK_METADATA = 'tosdk:metrics-sink';
/** Prefix of every environment variable the module reads. */
export const ENV_PREFIX = 'TOSDK_';
