import type { ResourceEventRecorder } from '../api/context.js';
import type { Reconciler } from '../api/reconciler.js';
import type { KubernetesResource } from '../api/resource-type.js';
import { resourceTypeName } from '../api/resource-type.js';
import { KubernetesApiError } from '../client/errors.js';
import { KubernetesClient } from '../client/kubernetes-client.js';
import {
  getDecoratedConfiguration,
  InvalidControllerConfigurationError,
  resolveControllerConfiguration,
} from '../config/controller-configuration.js';
import type {
  ControllerConfigurationOptions,
  ResolvedControllerConfiguration,
} from '../config/controller-configuration.js';
import { resolveNamespaces } from '../config/namespaces.js';
import type { OperatorOptions, OperatorOptionsOverrider } from '../config/operator-configuration.js';
import type { EventSourceHealth } from '../event/event-source.js';
import { BoundedExecutor } from '../event/internal/bounded-executor.js';
import { EventRecorder } from '../events/event-recorder.js';
import { MultiNamespaceInformer } from '../informer/multi-namespace-informer.js';
import { SharedInformers } from '../informer/shared-informers.js';
import { RelistWindow } from '../event/sources/relist-window.js';
import type { Metrics, ShardMetricsSource } from '../metrics/metrics.js';
import { NOOP_METRICS } from '../metrics/metrics.js';
import { callMetricsHook } from '../metrics/internal/call-hook.js';
import { resourceContextLogger } from '../logging/context-logger.js';
import { systemClock } from '../util/clock.js';
import type { Clock, TimerHandle } from '../util/clock.js';
import { noopLogger } from '../util/logger.js';
import type { Logger } from '../util/logger.js';
import {
  DuplicateNameError,
  InvalidOperatorConfigurationError,
  MissingCustomResourceDefinitionError,
  OperatorStateError,
} from './errors.js';
import { Controller } from './internal/controller.js';
import { LeaderElector } from './leader-election/leader-elector.js';
import { operatorNamespace } from './leader-election/leader-election-configuration.js';
import type { RegisteredController } from './registered-controller.js';
import { ShardedInformer } from '../sharding/internal/sharded-informer.js';
import { attachShardedSecondaries } from '../sharding/internal/sharded-secondaries.js';
import { ShardMembership } from '../sharding/shard-membership.js';
import { shardingEnabled } from '../sharding/sharding-configuration.js';
import type { NamedEventSourceHealth, RuntimeInfo } from './runtime-info.js';

/** Overrides given at registration: options (merged over the decorator's) or a function of them. */
export type ControllerOverrides<P extends KubernetesResource> =
  | ControllerConfigurationOptions<P>
  | ((options: ControllerConfigurationOptions<P>) => ControllerConfigurationOptions<P>);

type State = 'new' | 'starting' | 'started' | 'stopped';

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new InvalidOperatorConfigurationError(`${name} must be a non-negative number, got ${String(v)}`);
  }
  return v;
}

/**
 * A set of controllers sharing a client, an executor and (optionally) leader election (JOSDK's
 * `Operator`).
 *
 * ```ts
 * const operator = new Operator({ kubeConfig });
 * operator.register(new WebPageReconciler(), { namespaces: ['web'] });
 * await operator.start();
 * // ...
 * await operator.stop();
 * ```
 */
export class Operator {
  /** The client every controller uses. */
  readonly client: KubernetesClient;
  /** Runtime information (started, controllers, event source health, leadership). */
  readonly runtimeInfo: RuntimeInfo;
  private readonly options: OperatorOptions;
  private readonly executor: BoundedExecutor;
  private readonly metrics: Metrics;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly cacheSyncTimeoutMs: number;
  private readonly terminationTimeoutMs: number;
  private readonly closeClientOnStop: boolean;
  private readonly currentNamespace: string;
  private readonly controllers = new Map<string, Controller<KubernetesResource>>();
  private readonly configurations = new Map<string, ResolvedControllerConfiguration<KubernetesResource>>();
  private readonly elector: LeaderElector | undefined;
  /** The leader elector's own client (2 connections) when the operator made its client itself. */
  private readonly electorClient: KubernetesClient | undefined;
  /** This replica's shard membership when `sharding` is on (see the README's "Sharding"). */
  readonly sharding: ShardMembership | undefined;
  private readonly shardingClient: KubernetesClient | undefined;
  private readonly shardedInformers = new Map<string, ShardedInformer<KubernetesResource>>();
  private shardMetrics: ShardMetricsSource | undefined;
  private readonly recorders: EventRecorder[] = [];
  /**
   * Where every informer of this operator comes from: controllers' primary informers and the
   * `InformerEventSource`s made with a controller's context share one list, one watch and one cache
   * per selection (kind, namespace, selectors, metadata-only, transform).
   */
  readonly sharedInformers = new SharedInformers();
  private state: State = 'new';
  private leading = false;
  private stopping: Promise<void> | undefined;

  /**
   * @param overrider - changes the options before use (JOSDK's overrider).
   * @throws InvalidOperatorConfigurationError when neither kubeConfig nor client is given, a number is out of range or `leaderElection.exit` is not a function.
   * @throws InvalidLeaderElectionConfigurationError for a bad leader election configuration.
   */
  constructor(options: OperatorOptions, overrider?: OperatorOptionsOverrider) {
    const o = overrider ? overrider({ ...options }) : { ...options };
    if (!o.client && !o.kubeConfig) {
      throw new InvalidOperatorConfigurationError('pass a kubeConfig or a client');
    }
    const threads = o.concurrentReconciliationThreads ?? 50;
    if (!Number.isInteger(threads) || threads < 1) {
      throw new InvalidOperatorConfigurationError(
        `concurrentReconciliationThreads must be a positive integer, got ${String(threads)}`,
      );
    }
    const workflowSize = o.defaultWorkflowExecutorSize;
    if (workflowSize !== undefined && (!Number.isInteger(workflowSize) || workflowSize < 1)) {
      throw new InvalidOperatorConfigurationError(
        `defaultWorkflowExecutorSize must be a positive integer, got ${String(workflowSize)}`,
      );
    }
    this.options = o;
    this.cacheSyncTimeoutMs = nonNegative('cacheSyncTimeoutMs', o.cacheSyncTimeoutMs, 120_000);
    this.terminationTimeoutMs = nonNegative('terminationTimeoutMs', o.terminationTimeoutMs, 0);
    this.logger = resourceContextLogger(o.logger ?? noopLogger);
    this.metrics = o.metrics ?? NOOP_METRICS;
    this.clock = o.clock ?? systemClock;
    this.client =
      o.client ??
      KubernetesClient.fromKubeConfig(o.kubeConfig!, {
        logger: this.logger,
        metrics: this.metrics,
        ...o.clientOptions,
      });
    this.closeClientOnStop = o.closeClientOnStop ?? !o.client;
    this.currentNamespace = o.currentNamespace ?? operatorNamespace({ kubeConfig: o.kubeConfig });
    this.executor = new BoundedExecutor(threads, (queued, inFlight) => {
      // a metrics hook must not break the executor
      if (this.metrics.executorChanged)
        callMetricsHook(() => this.metrics.executorChanged?.(queued, inFlight), this.logger);
    });
    const exit = o.leaderElection?.exit;
    if (exit !== undefined && typeof exit !== 'function') {
      throw new InvalidOperatorConfigurationError(
        `leaderElection.exit must be a function of the exit code, got ${typeof exit}`,
      );
    }
    // renewals get their own connections: queued behind busy reconciliations on the shared ones
    // (maxSockets) they missed the renew deadline, and the leader exited (controller-runtime builds
    // a client of its own for leader election too; sharding's membership does the same below), also
    // when the app passes its client beside the kubeConfig (as the Nest module does)
    this.electorClient =
      o.leaderElection && o.kubeConfig
        ? KubernetesClient.fromKubeConfig(o.kubeConfig, {
            ...o.clientOptions,
            logger: this.logger,
            maxSockets: 2,
          })
        : undefined;
    this.elector = o.leaderElection
      ? new LeaderElector(o.leaderElection, this.electorClient ?? this.client, {
          clock: this.clock,
          logger: this.logger,
          kubeConfig: o.kubeConfig,
          exit,
        })
      : undefined;
    if (shardingEnabled(o.sharding) && o.leaderElection) {
      throw new InvalidOperatorConfigurationError(
        'sharding and leaderElection cannot both be on: with sharding every replica reconciles its share; remove one',
      );
    }
    // membership renewals get their own connections: they must not queue behind reconciliations
    this.shardingClient =
      shardingEnabled(o.sharding) && o.kubeConfig
        ? KubernetesClient.fromKubeConfig(o.kubeConfig, { logger: this.logger, maxSockets: 2 })
        : undefined;
    this.sharding = shardingEnabled(o.sharding)
      ? new ShardMembership(o.sharding, this.shardingClient ?? this.client, {
          clock: this.clock,
          logger: this.logger,
          kubeConfig: o.kubeConfig,
        })
      : undefined;
    this.runtimeInfo = this.createRuntimeInfo();
  }

  /**
   * Registers a reconciler. Its configuration comes from its `@ControllerConfiguration` decorator,
   * overridden by `overrides`.
   * @throws OperatorStateError after `start()`.
   * @throws InvalidControllerConfigurationError for a bad configuration.
   * @throws DuplicateNameError when a controller of that name exists.
   */
  register<P extends KubernetesResource>(
    reconciler: Reconciler<P>,
    overrides?: ControllerOverrides<P>,
  ): RegisteredController<P> {
    if (this.state !== 'new') {
      throw new OperatorStateError(
        `cannot register a controller: the operator is ${this.state}; register before start()`,
      );
    }
    const options =
      typeof overrides === 'function'
        ? overrides({ ...(getDecoratedConfiguration(reconciler) ?? {}) })
        : overrides;
    const config = resolveControllerConfiguration(reconciler, options, {
      currentNamespace: this.currentNamespace,
      useSSA: this.options.useSSAToPatchPrimaryResource ?? true,
    });
    if (this.controllers.has(config.name)) {
      throw new DuplicateNameError(
        `a controller named "${config.name}" is already registered; give one another name`,
      );
    }
    const logger = this.logger.child({ controller: config.name });
    // tells own-write attribution which primary events come from a (re-)list
    this.sharedInformers.addFieldManager(config.fieldManager);
    const informer = new MultiNamespaceInformer<P>({
      client: this.client,
      shared: this.sharedInformers,
      type: config.resourceType,
      namespaces: config.namespaces.length === 0 ? 'all' : [...config.namespaces],
      labelSelector: config.labelSelector,
      fieldSelector: config.fieldSelector,
      clock: this.clock,
      logger,
      failFast: this.options.stopOnInformerErrorDuringStartup ?? true,
    });
    const relists = new RelistWindow((namespace) => informer.isListing(namespace));
    const sharded = this.sharding ? new ShardedInformer(informer, this.sharding) : undefined;
    const elector = this.elector;
    const controller = new Controller<P>({
      reconciler,
      config,
      client: this.client,
      informer: sharded ?? informer,
      relists,
      executor: this.executor,
      metrics: this.metrics,
      logger: this.logger,
      clock: this.clock,
      eventRecorder: this.eventRecorderFor(config.name),
      workflowExecutorSize: this.options.defaultWorkflowExecutorSize,
      sharedInformers: this.sharedInformers,
      // a leader whose renew deadline passed writes nothing, also before its step-down timer ran
      mayWrite: elector ? () => elector.isLeader() : undefined,
    });
    sharded?.connect({
      isUnderProcessing: (id) => controller.eventProcessor.isUnderProcessing(id),
      handleEvent: (event) => controller.eventProcessor.handleEvent(event),
      // a replica that lost its shard membership: running reconciliations may not write anymore,
      // those started later may (the fence reopens; nothing is queued, the replica owns nothing)
      fenceWrites: () => {
        if (!controller.eventProcessor.isRunning()) return;
        controller.fenceWrites();
        controller.startProcessing();
      },
    });
    // secondaries follow their primary's shard (cache only those of primaries this replica owns)
    if (this.sharding)
      attachShardedSecondaries(this.sharding, controller.eventSources.values(), {
        controller: config.name,
        primary: (id) => informer.get(id),
        logger,
      });
    this.controllers.set(config.name, controller as unknown as Controller<KubernetesResource>);
    if (sharded) this.shardedInformers.set(config.name, sharded);
    this.configurations.set(
      config.name,
      config as unknown as ResolvedControllerConfiguration<KubernetesResource>,
    );
    // metrics hooks must not break registration
    callMetricsHook(
      () => this.metrics.controllerRegistered?.({ name: config.name, resourceType: config.resourceType }),
      this.logger,
    );
    this.logger.info('controller registered', {
      controller: config.name,
      resource: resourceTypeName(config.resourceType),
      namespaces: config.namespaces.length ? config.namespaces : 'all',
    });
    const configurations = this.configurations;
    const name = config.name;
    return {
      name,
      get configuration() {
        return configurations.get(name) as unknown as ResolvedControllerConfiguration<P>;
      },
      health: () => controller.health(),
      eventSources: () => controller.eventSources,
      changeNamespaces: async (namespaces: string[]) => {
        let resolved: string[];
        try {
          resolved = resolveNamespaces(namespaces, this.currentNamespace);
        } catch (e) {
          throw new InvalidControllerConfigurationError(`namespaces: ${(e as Error).message}`);
        }
        if (!config.resourceType.namespaced && resolved.length > 0) {
          throw new InvalidControllerConfigurationError(
            `namespaces: ${config.resourceType.kind} is cluster-scoped; it cannot be restricted to namespaces`,
          );
        }
        configurations.set(
          name,
          Object.freeze({ ...configurations.get(name)!, namespaces: Object.freeze(resolved) }),
        );
        await controller.changeNamespaces(resolved);
      },
    };
  }

  /**
   * Starts the operator: checks CRDs (when configured) and lease permissions (with leader election),
   * starts every event source (each controller's own first) and waits for their caches, then
   * processes events: at once, or when elected leader.
   * @throws OperatorStateError when already started or stopped.
   * @throws MissingCustomResourceDefinitionError, LeaderElectionPermissionError, EventSourceStartError.
   * @throws ShardingLeaseNamespaceNotFoundError, ShardingLeasePermissionError with `sharding`, when the
   * membership Lease cannot be written (lease namespace missing, request forbidden).
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new OperatorStateError(`start() on an operator that is ${this.state}`);
    this.state = 'starting';
    try {
      if (this.options.checkCrdAndValidateLocalModel) await this.checkCrds();
      if (this.elector) await this.elector.checkPermissions();
      const failFast = this.options.stopOnInformerErrorDuringStartup ?? true;
      await Promise.all(
        [...this.controllers.values()].map((c) => c.startEventSources(this.cacheSyncTimeoutMs, failFast)),
      );
      this.sharding?.setControllers(
        [...this.configurations.values()].map((c) => ({ name: c.name, resourceType: c.resourceType })),
      );
      await this.sharding?.start();
      if (this.sharding) this.reportShardMetrics(this.sharding);
    } catch (error) {
      this.logger.error('operator start failed', {
        error: error instanceof Error ? error.message : String(error),
      });
      await this.stop();
      throw error;
    }
    if ((this.state as State) !== 'starting') return;
    this.state = 'started';
    if (this.elector) {
      this.elector.run({
        onStartLeading: () => {
          if (this.state !== 'started') return;
          this.leading = true;
          this.logger.info('leading: processing events');
          for (const c of this.controllers.values()) c.startProcessing();
        },
        onStopLeading: () => {
          this.leading = false;
          this.logger.warn('not leading anymore: event processing stopped');
          for (const c of this.controllers.values()) c.stopProcessing();
        },
      });
    } else {
      this.leading = true;
      for (const c of this.controllers.values()) c.startProcessing();
    }
    this.logger.info('operator started', { controllers: [...this.controllers.keys()] });
  }

  /**
   * Stops: no new reconciliation starts, running ones get `terminationTimeoutMs` to finish, leader
   * election ends (the lease is released), event sources stop and the client closes (when
   * configured). Idempotent; fine on an operator that never started.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopNow();
    return this.stopping;
  }

  /**
   * Stops the operator gracefully when the process gets one of `signals` (JOSDK's
   * `installShutdownHook`). Returns a function that removes the handlers.
   */
  installShutdownHook(signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): () => void {
    const handler = (signal: NodeJS.Signals) => {
      this.logger.info('stopping on signal', { signal });
      void this.stop();
    };
    for (const s of signals) process.once(s, handler);
    return () => {
      for (const s of signals) process.removeListener(s, handler);
    };
  }

  private async stopNow(): Promise<void> {
    const wasStarted = this.state !== 'new';
    this.state = 'stopped';
    this.leading = false;
    // losing the lease while running work gets its grace time must not exit (JOSDK's stoppingGracefully)
    this.elector?.prepareStop();
    // running reconciliations may still write during terminationTimeoutMs, not after
    for (const c of this.controllers.values()) c.stopProcessing({ keepWrites: true });
    this.executor.shutdown();
    if (this.executor.inFlight > 0 && this.terminationTimeoutMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = this.clock.setTimeout(resolve, this.terminationTimeoutMs);
        void this.executor.idle().then(() => {
          this.clock.clearTimeout(timer);
          resolve();
        });
      });
    }
    for (const c of this.controllers.values()) c.fenceWrites();
    if (this.executor.inFlight > 0) {
      this.logger.warn('stopping with reconciliations still running; their writes are refused', {
        inFlight: this.executor.inFlight,
      });
    }
    if (this.elector && wasStarted) await this.elector.stop();
    if (this.electorClient && !this.electorClient.isClosed) this.electorClient.close();
    if (this.sharding && wasStarted) await this.sharding.stop({ release: this.executor.inFlight === 0 });
    if (this.shardMetrics) {
      const shard = this.shardMetrics;
      this.shardMetrics = undefined;
      // metrics hooks must not break stop()
      callMetricsHook(() => this.metrics.shardingStopped?.(shard), this.logger);
    }
    if (this.shardingClient && !this.shardingClient.isClosed) this.shardingClient.close();
    await Promise.all([...this.controllers.values()].map((c) => c.stopEventSources()));
    await this.flushEventRecorders();
    if (this.closeClientOnStop && !this.client.isClosed) this.client.close();
    if (wasStarted) this.logger.info('operator stopped');
  }

  /** Lets queued Kubernetes Events be written (at most 2 s) before the client closes. */
  private async flushEventRecorders(): Promise<void> {
    if (this.recorders.length === 0) return;
    let timer: TimerHandle | undefined;
    await Promise.race([
      Promise.allSettled(this.recorders.map((r) => r.flush())),
      new Promise<void>((resolve) => (timer = this.clock.setTimeout(resolve, 2000))),
    ]);
    if (timer !== undefined) this.clock.clearTimeout(timer);
  }

  /** Gives the metrics this replica's shard, read at collection time. */
  private reportShardMetrics(membership: ShardMembership): void {
    const configurations = this.configurations;
    const informers = this.shardedInformers;
    const shard: ShardMetricsSource = {
      group: membership.configuration.name,
      identity: membership.configuration.identity,
      members: () => membership.status().members.length,
      settled: () => membership.status().settled,
      ownedResources: () =>
        [...informers].map(([name, informer]) => ({
          controller: { name, resourceType: configurations.get(name)!.resourceType },
          count: informer.list().length,
        })),
    };
    this.shardMetrics = shard;
    // metrics hooks must not break start()
    callMetricsHook(() => this.metrics.shardingStarted?.(shard), this.logger);
  }

  private eventRecorderFor(component: string): ResourceEventRecorder {
    if (this.options.eventRecorder) return this.options.eventRecorder;
    const recorder = new EventRecorder(this.client, {
      component,
      host: process.env['HOSTNAME'] || undefined,
      clock: this.clock,
      logger: this.logger,
    });
    this.recorders.push(recorder);
    return recorder;
  }

  private async checkCrds(): Promise<void> {
    for (const config of this.configurations.values()) {
      const type = config.resourceType;
      if (!type.group) continue;
      const path = `/apis/${type.group}/${type.version}`;
      let served = false;
      let cause: unknown;
      try {
        const list = await this.client.request<{ resources?: Array<{ name?: string }> }>(path);
        served = list.resources?.some((r) => r.name === type.plural) ?? false;
      } catch (error) {
        if (!(error instanceof KubernetesApiError && error.isNotFound())) throw error;
        cause = error;
      }
      if (!served) {
        throw new MissingCustomResourceDefinitionError(
          `controller ${config.name}: ${resourceTypeName(type)} (kind ${type.kind}) is not served by the API server; apply its CustomResourceDefinition (${type.plural}.${type.group} with version ${type.version} served) before starting`,
          { cause },
        );
      }
    }
  }

  private createRuntimeInfo(): RuntimeInfo {
    const health = () => {
      const result: Record<string, Record<string, EventSourceHealth>> = {};
      for (const [name, c] of this.controllers) result[name] = c.health();
      return result;
    };
    const unhealthy = (): NamedEventSourceHealth[] =>
      Object.entries(health()).flatMap(([controller, sources]) =>
        Object.entries(sources)
          .filter(([, h]) => !h.healthy)
          .map(([eventSource, h]) => ({ ...h, controller, eventSource })),
      );
    return Object.freeze({
      isStarted: () => this.state === 'started',
      registeredControllers: () => [...this.controllers.keys()],
      eventSourceHealth: health,
      allEventSourcesHealthy: () => unhealthy().length === 0,
      unhealthyEventSources: unhealthy,
      isLeaderElectionEnabled: () => this.elector !== undefined,
      isLeader: () =>
        this.state === 'started' && this.leading && (this.elector ? this.elector.isLeader() : true),
    });
  }
}
