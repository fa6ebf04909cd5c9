import { METRICS_SINK_METADATA } from '../operator.constants.js';

/**
 * Marks a provider implementing core's `Metrics` hooks; the OperatorModule discovers it in any
 * module and feeds it every hook call (the Prometheus implementation is one).
 */
export function OperatorMetricsSink(): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(METRICS_SINK_METADATA, true, target);
  };
}
