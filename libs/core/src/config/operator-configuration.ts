import type { KubeConfig } from '@kubernetes/client-node';
import type { ResourceEventRecorder } from '../api/context.js';
import type { KubernetesClient, KubernetesClientOptions } from '../client/kubernetes-client.js';
import type { KubeConfigSource } from './kube-config.js';
import type { Metrics } from '../metrics/metrics.js';
import type { OperatorLeaderElectionConfiguration } from '../operator/operator-leader-election.js';
import type { ShardingOptions } from '../sharding/sharding-configuration.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

/**
 * Options of an operator (JOSDK's `ConfigurationService` and its overrider).
 */
export interface OperatorOptions {
  /**
   * Where the API server is: a `KubeConfig` of @kubernetes/client-node, or {@link loadKubeConfig}'s
   * result (lighter: client-node is not loaded unless exec or OIDC credentials need it). One of
   * `kubeConfig` and `client` is required.
   */
  kubeConfig?: KubeConfig | KubeConfigSource;
  /** A client to use instead of one made from `kubeConfig`. */
  client?: KubernetesClient;
  /**
   * Options of the client made from `kubeConfig` (ignored with `client`): e.g. `retry` to tune or
   * turn off (`false`) the client's own retrying of transient failures. The operator's `logger`
   * and `metrics` (its `clientRetry` hook) are passed in unless given here. Defaults to the
   * client's defaults (see `KubernetesClientOptions`).
   */
  clientOptions?: KubernetesClientOptions;
  /** Reconciliations running at once across all controllers; more wait in a queue. Defaults to 50. */
  concurrentReconciliationThreads?: number;
  /** How long `start()` waits for each event source's cache to fill. Defaults to 120 000 ms. */
  cacheSyncTimeoutMs?: number;
  /** Fail `start()` when an informer cannot start (else it keeps retrying and shows as unhealthy). Defaults to true. */
  stopOnInformerErrorDuringStartup?: boolean;
  /** How long `stop()` lets running reconciliations finish. Defaults to 0 (do not wait). */
  terminationTimeoutMs?: number;
  /** Close the client on `stop()`. Defaults to true for a client made from `kubeConfig`, false for a given `client`. */
  closeClientOnStop?: boolean;
  /** At start, fail with a clear error when a controller's custom resource is not served. Defaults to false. */
  checkCrdAndValidateLocalModel?: boolean;
  /** Patch primaries with server-side apply; each controller can override. Defaults to true. */
  useSSAToPatchPrimaryResource?: boolean;
  /** Metrics hooks. Defaults to none. */
  metrics?: Metrics;
  /** Logger. Defaults to no logging. */
  logger?: Logger;
  /** Time source. Defaults to the system clock. */
  clock?: Clock;
  /** Leader election; only the leader processes events. Defaults to off. */
  leaderElection?: OperatorLeaderElectionConfiguration;
  /**
   * Splits every controller's primary resources across the replicas of this operator (membership
   * Leases and a consistent-hash ring); each replica reconciles only its share. Not together with
   * `leaderElection`. Defaults to off. See the README's "Sharding" section.
   */
  sharding?: ShardingOptions;
  /** Publishes Kubernetes Events (context.eventRecorder and Warning events on failures). Defaults to a recorder writing core/v1 Events with the client, component `tosdk-operator`. */
  eventRecorder?: ResourceEventRecorder;
  /**
   * Most dependent steps (reconcile, delete, their conditions) a managed workflow runs at once,
   * across all primaries of its controller, when its declaration sets no `executorSize` (which wins).
   * JOSDK bounds all workflows together with `concurrentWorkflowDependentResourceReconciliationThreads`;
   * here each workflow gets its own bound of this size. A positive integer. Defaults to none: a
   * workflow without a size has no bound of its own, and the controller's
   * `concurrentReconciliationThreads` bound its steps (`DEFAULT_WORKFLOW_EXECUTOR_SIZE`).
   */
  defaultWorkflowExecutorSize?: number;
  /** The namespace `WATCH_CURRENT_NAMESPACE` stands for. Defaults to the KubeConfig context's namespace, else the in-cluster namespace file, else `default` (as client-go finds it). */
  currentNamespace?: string;
}

/** Changes options before the operator uses them (JOSDK's `ConfigurationServiceOverrider`). */
export type OperatorOptionsOverrider = (options: OperatorOptions) => OperatorOptions;
