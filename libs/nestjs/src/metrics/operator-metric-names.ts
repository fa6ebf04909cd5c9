/** Names of the operator's Prometheus metrics. */
export const OperatorMetricNames = Object.freeze({
  reconciliationsStarted: 'tosdk_reconciliations_started_total',
  reconciliationsSucceeded: 'tosdk_reconciliations_succeeded_total',
  reconciliationsFailed: 'tosdk_reconciliations_failed_total',
  retries: 'tosdk_reconciliation_retries_total',
  eventsReceived: 'tosdk_events_received_total',
  cleanups: 'tosdk_cleanups_total',
  queueSize: 'tosdk_reconciliation_queue_size',
  inFlight: 'tosdk_reconciliations_in_flight',
  reconcileDuration: 'tosdk_reconciliation_duration_seconds',
  cleanupDuration: 'tosdk_cleanup_duration_seconds',
  clientRetries: 'tosdk_client_retries_total',
  shardInfo: 'tosdk_shard_info',
  shardMembers: 'tosdk_shard_members',
  shardSettled: 'tosdk_shard_settled',
  shardOwnedResources: 'tosdk_shard_owned_resources',
});

/** Labels of every per-controller metric. */
export const CONTROLLER_LABELS = ['controller', 'group', 'version', 'kind'] as const;
/** Labels added with `perResourceLabels`. */
export const RESOURCE_LABELS = ['namespace', 'name'] as const;
/** Labels of every `tosdk_shard_*` metric: the shard group and this replica's identity in it. */
export const SHARD_LABELS = ['shard_group', 'shard'] as const;
