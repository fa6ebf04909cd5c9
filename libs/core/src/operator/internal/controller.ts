import type { EventSourceRetriever, ResourceEventRecorder } from '../../api/context.js';
import type { EventSourceContext, Reconciler } from '../../api/reconciler.js';
import { isCleaner } from '../../api/reconciler.js';
import type { KubernetesResource, ResourceType } from '../../api/resource-type.js';
import type { KubernetesClient } from '../../client/kubernetes-client.js';
import { ResourceID } from '../../api/resource-id.js';
import type { ResolvedControllerConfiguration } from '../../config/controller-configuration.js';
import { ReconcilePriority } from '../../event/event.js';
import { isResourceEventSource } from '../../event/event-source.js';
import type { EventSource, EventSourceHealth, ResourceEventSource } from '../../event/event-source.js';
import type { BoundedExecutor } from '../../event/internal/bounded-executor.js';
import { ControllerEventSource } from '../../event/internal/controller-event-source.js';
import type { PrimaryInformer } from '../../event/internal/controller-event-source.js';
import type { RelistWindow } from '../../event/sources/relist-window.js';
import type { SharedInformers } from '../../informer/shared-informers.js';
import { EventProcessor } from '../../event/internal/event-processor.js';
import { InformerEventSource } from '../../event/sources/informer-event-source.js';
import { outsideResourceContext } from '../../logging/resource-context.js';
import type { ControllerMetricsInfo, Metrics } from '../../metrics/metrics.js';
import { ReconciliationDispatcher } from '../../reconcile/internal/reconciliation-dispatcher.js';
import { WriteFence } from '../../reconcile/internal/write-fence.js';
import type { Clock, TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { ManagedWorkflow } from '../../workflow/internal/managed-workflow.js';
import { DuplicateNameError, EventSourceStartError } from '../errors.js';

/** Everything a {@link Controller} is made of. */
export interface ControllerOptions<P extends KubernetesResource> {
  readonly reconciler: Reconciler<P>;
  readonly config: ResolvedControllerConfiguration<P>;
  readonly client: KubernetesClient;
  readonly informer: PrimaryInformer<P>;
  /** Which primary events come from a (re-)list (the informer must list with the client it wrapped). */
  readonly relists?: RelistWindow;
  readonly executor: BoundedExecutor;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly eventRecorder: ResourceEventRecorder;
  /** Executor size of a managed workflow that sets none (the operator's `defaultWorkflowExecutorSize`). */
  readonly workflowExecutorSize?: number;
  /** The operator's shared informers, handed to event sources through their context. */
  readonly sharedInformers?: SharedInformers;
  /**
   * Whether reconciliations may write now, asked on every write (with leader election: the lease is
   * valid). Defaults to always.
   */
  readonly mayWrite?: () => boolean;
}

/**
 * One reconciler with its event sources, event processor and dispatcher (JOSDK's internal
 * `Controller`). Event sources are started with the controller's own first; events are processed
 * only between {@link Controller.startProcessing} and {@link Controller.stopProcessing}.
 */
export class Controller<P extends KubernetesResource> {
  readonly name: string;
  readonly controllerEventSource: ControllerEventSource<P>;
  readonly eventProcessor: EventProcessor<P>;
  private readonly sources = new Map<string, EventSource>();
  /** Why a source without its own health failed to start (by name), until it starts after all. */
  private readonly startFailures = new Map<string, string>();
  private startSettings: { cacheSyncTimeoutMs: number; failFast: boolean } | undefined;
  private readonly logger: Logger;

  constructor(private readonly o: ControllerOptions<P>) {
    this.fence = new WriteFence(o.mayWrite);
    this.name = o.config.name;
    this.logger = o.logger.child({ controller: this.name });
    const info: ControllerMetricsInfo = { name: this.name, resourceType: o.config.resourceType };
    // built first: a bad workflow declaration fails registration
    const managedWorkflow = o.config.workflow
      ? new ManagedWorkflow<P>(o.config.workflow, { executorSize: o.workflowExecutorSize })
      : undefined;
    this.controllerEventSource = new ControllerEventSource(
      o.informer,
      o.config,
      // a workflow deleting dependents itself needs the finalizer as a Cleaner does
      isCleaner(o.reconciler) || (managedWorkflow?.hasCleaner() ?? false),
      this.logger,
      o.relists,
    );
    const dispatcher = new ReconciliationDispatcher<P>({
      config: o.config,
      reconciler: o.reconciler,
      client: o.client,
      cache: this.controllerEventSource,
      secondary: this,
      eventSources: this.eventSourceRetriever(),
      managedWorkflow,
      eventRecorder: o.eventRecorder,
      logger: this.logger,
      clock: o.clock,
      fence: this.fence,
    });
    this.eventProcessor = new EventProcessor<P>({
      controller: info,
      cache: this.controllerEventSource,
      handler: dispatcher,
      executor: o.executor,
      retry: o.config.retry,
      rateLimiter: o.config.rateLimiter,
      maxReconciliationIntervalMs: o.config.maxReconciliationIntervalMs,
      clock: o.clock,
      metrics: o.metrics,
      logger: this.logger,
    });
    this.controllerEventSource.setEventHandler(this.eventProcessor);
    this.putSource(this.controllerEventSource.name, this.controllerEventSource);
    this.registerUserEventSources();
    if (managedWorkflow) this.registerWorkflowEventSources(managedWorkflow);
  }

  /** Registers the event sources of the managed workflow's dependents and connects shared ones. */
  private registerWorkflowEventSources(workflow: ManagedWorkflow<P>): void {
    for (const [name, source] of workflow.eventSources(this.eventSourceContext())) {
      if (this.sources.get(name) === source) continue;
      if (this.sources.has(name)) {
        throw new DuplicateNameError(
          `controller ${this.name}: the event source of a workflow dependent is named "${name}" like another; name the dependent's informer, or use useEventSourceWithName to share it`,
        );
      }
      source.setEventHandler(this.eventProcessor);
      this.putSource(name, source);
    }
    workflow.connectSharedSources((name) => this.sources.get(name));
  }

  /** The configuration. */
  get configuration(): ResolvedControllerConfiguration<P> {
    return this.o.config;
  }

  /** Event sources by name, the controller's own first. */
  get eventSources(): ReadonlyMap<string, EventSource> {
    return this.sources;
  }

  /** {@link Controller.sourcesFor}'s answers by kind, until the event sources change. */
  private readonly sourcesByKind = new Map<
    string,
    ReadonlyArray<{ name: string; source: ResourceEventSource }>
  >();

  /**
   * The event sources caching a kind (the context's secondary access). Asked on every secondary read
   * and `resourceOperations()` write, so the answer is kept per kind until a source is added or removed.
   */
  sourcesFor(type: ResourceType): ReadonlyArray<{ name: string; source: ResourceEventSource }> {
    const key = `${type.group}/${type.version}/${type.kind}`;
    let found = this.sourcesByKind.get(key);
    if (!found) {
      found = this.findSources(type);
      this.sourcesByKind.set(key, found);
    }
    return found;
  }

  /** Adds or replaces an event source; {@link sourcesFor}'s kept answers are recomputed. */
  private putSource(name: string, source: EventSource): void {
    this.sources.set(name, source);
    this.sourcesByKind.clear();
  }

  /** Removes an event source; {@link sourcesFor}'s kept answers are recomputed. */
  private dropSource(name: string): void {
    this.sources.delete(name);
    this.startFailures.delete(name);
    this.sourcesByKind.clear();
  }

  private findSources(type: ResourceType): Array<{ name: string; source: ResourceEventSource }> {
    const found: Array<{ name: string; source: ResourceEventSource }> = [];
    for (const [name, source] of this.sources) {
      if (source === this.controllerEventSource || !isResourceEventSource(source)) continue;
      const t = source.resourceType;
      if (t.group === type.group && t.version === type.version && t.kind === type.kind)
        found.push({ name, source });
    }
    return found;
  }

  /**
   * Starts the event sources, each within `cacheSyncTimeoutMs`: the controller's own, and at the
   * same time every informer-backed secondary source (their start is a list; nothing is reconciled
   * before all caches are synced, and each primary's own add event triggers its first
   * reconciliation, so secondary events of the first list need not find their primary cached);
   * other sources (polling, custom) after the controller's own, those of `resourceStateLoader`
   * priority before the rest.
   * @throws EventSourceStartError when one fails or times out and `failFast` is on.
   */
  async startEventSources(cacheSyncTimeoutMs: number, failFast: boolean): Promise<void> {
    this.startSettings = { cacheSyncTimeoutMs, failFast };
    const [own, ...others] = [...this.sources.entries()];
    const start = ([name, source]: [string, EventSource]) =>
      this.startOne(name, source, cacheSyncTimeoutMs, failFast);
    const listing = others.filter(([, s]) => s instanceof InformerEventSource);
    const later = others.filter(([, s]) => !(s instanceof InformerEventSource));
    // sources that load state (read by others or by the reconciler at once) before the rest
    const loaders = later.filter(([, s]) => s.startPriority === 'resourceStateLoader');
    const rest = later.filter(([, s]) => s.startPriority !== 'resourceStateLoader');
    const ordered = async () => {
      await start(own);
      for (const group of [loaders, rest]) await Promise.all(group.map(start));
    };
    const results = await Promise.allSettled([ordered(), ...listing.map(start)]);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Registers an event source while the operator runs (JOSDK's dynamic registration): it gets the
   * event processor and, when the controller's sources were started, is started (its cache synced
   * within `cacheSyncTimeoutMs`) before this resolves.
   * @throws DuplicateNameError when a source of that name is registered.
   * @throws EventSourceStartError when it fails to start (it is then not registered).
   */
  async registerEventSource(name: string, source: EventSource): Promise<void> {
    if (this.sources.has(name)) {
      throw new DuplicateNameError(`controller ${this.name}: an event source named "${name}" is registered`);
    }
    source.setEventHandler(this.eventProcessor);
    this.putSource(name, source);
    const settings = this.startSettings;
    if (!settings) return;
    try {
      // a source registered while a reconcile runs is not about that reconcile's resource: its
      // timers, polls and callbacks start outside its logging context (JOSDK's MDC is per
      // reconciliation), whatever kind of source it is
      await outsideResourceContext(() => this.startOne(name, source, settings.cacheSyncTimeoutMs, true));
    } catch (error) {
      this.dropSource(name);
      await source.stop().catch(() => undefined);
      throw error;
    }
  }

  /** Stops and removes an event source (not the controller's own); false when none has that name. */
  async deregisterEventSource(name: string): Promise<boolean> {
    const source = this.sources.get(name);
    if (!source || source === this.controllerEventSource) return false;
    this.dropSource(name);
    await source.stop();
    return true;
  }

  /**
   * Starts processing events (including those received meanwhile). On a restart (leadership
   * regained) every cached primary is queued once, since timers were dropped while stopped; like an
   * initial list and the max-interval resyncs, that backlog is {@link ReconcilePriority.LOW}, so
   * resources created or changed meanwhile start before it (controller-runtime's priority queue
   * gives the adds a newly elected leader's informers replay low priority too).
   */
  startProcessing(): void {
    const restart = this.processingStarted;
    this.processingStarted = true;
    this.fence.open();
    this.eventProcessor.start();
    if (restart) {
      for (const primary of this.o.informer.list()) {
        this.eventProcessor.handleEvent({
          resourceId: ResourceID.fromResource(primary),
          priority: ReconcilePriority.LOW,
        });
      }
    }
  }

  private processingStarted = false;

  /**
   * Stops processing: no new reconciliation starts; running ones finish. Their writes through the
   * framework are refused from now on (`ReconcileAbandonedError`), unless `keepWrites` (a graceful
   * stop lets them write until {@link Controller.fenceWrites}).
   */
  stopProcessing(options: { keepWrites?: boolean } = {}): void {
    this.eventProcessor.stop();
    if (!options.keepWrites) this.fence.close();
  }

  /** Refuses every write of the reconciliations running now (they outlived the stop's grace time). */
  fenceWrites(): void {
    this.fence.close();
  }

  /** Whether running reconciliations may write (see `WriteFence`). */
  private readonly fence: WriteFence;

  /** Stops every event source. */
  async stopEventSources(): Promise<void> {
    const results = await Promise.allSettled([...this.sources.values()].map((s) => s.stop()));
    for (const r of results) {
      if (r.status === 'rejected')
        this.logger.warn('stopping an event source failed', { error: String(r.reason) });
    }
  }

  /** Health of every event source by name. */
  health(): Record<string, EventSourceHealth> {
    const result: Record<string, EventSourceHealth> = {};
    for (const [name, source] of this.sources) {
      try {
        const failed = this.startFailures.get(name);
        result[name] =
          source.health?.() ??
          (failed === undefined
            ? { healthy: true, status: 'running' }
            : { healthy: false, status: 'failed', reason: failed });
      } catch (error) {
        result[name] = { healthy: false, status: 'unknown', reason: `health check threw: ${String(error)}` };
      }
    }
    return result;
  }

  /** Changes the namespaces of the primary informer and of the event sources that follow it. */
  changeNamespaces(namespaces: readonly string[]): Promise<void> {
    // One change at a time, in the order asked (JOSDK's is `synchronized`): the primaries that leave
    // are those of the namespaces the previous change ended on, so none is left in the processor.
    const change = this.namespaceChange.then(() => this.applyNamespaces(namespaces));
    this.namespaceChange = change.catch(() => undefined);
    return change;
  }

  private namespaceChange: Promise<void> = Promise.resolve();

  private async applyNamespaces(namespaces: readonly string[]): Promise<void> {
    await this.controllerEventSource.changeNamespaces(namespaces);
    const following = [...this.sources.values()].filter(
      (s) =>
        s !== this.controllerEventSource &&
        s.changeNamespaces &&
        (s.followsControllerNamespaces?.() ?? false),
    );
    await Promise.all(following.map((s) => s.changeNamespaces!(namespaces)));
  }

  /**
   * The controller's event sources for reconcilers and workflows (JOSDK's `EventSourceRetriever`):
   * registering a name that exists returns the registered source (once started).
   */
  eventSourceRetriever(): EventSourceRetriever<P> {
    const pending = new Map<string, Promise<EventSource>>();
    return {
      eventSourceContext: this.eventSourceContext(),
      getEventSource: (name) => this.sources.get(name),
      dynamicallyRegisterEventSource: (name, create) => {
        const inFlight = pending.get(name);
        if (inFlight) return inFlight;
        const existing = this.sources.get(name);
        if (existing) return Promise.resolve(existing);
        const source = create();
        const registering = this.registerEventSource(name, source).then(() => source);
        pending.set(name, registering);
        const forget = () => void pending.delete(name);
        registering.then(forget, forget);
        return registering;
      },
      dynamicallyDeregisterEventSource: async (name) => {
        await pending.get(name)?.catch(() => undefined);
        await this.deregisterEventSource(name);
      },
    };
  }

  private eventSourceContextValue: EventSourceContext<P> | undefined;

  /** What event sources of this controller are made with. */
  eventSourceContext(): EventSourceContext<P> {
    this.eventSourceContextValue ??= this.createEventSourceContext();
    return this.eventSourceContextValue;
  }

  private registerUserEventSources(): void {
    if (!this.o.reconciler.prepareEventSources) return;
    const context = this.eventSourceContext();
    const prepared = this.o.reconciler.prepareEventSources(context);
    const entries: Array<[string | undefined, EventSource]> = Array.isArray(prepared)
      ? prepared.map((s) => [s.name, s])
      : Object.entries(prepared);
    entries.forEach(([name, source], index) => {
      const key = name ?? `${source.constructor?.name ?? 'EventSource'}#${index}`;
      if (this.sources.has(key)) {
        throw new DuplicateNameError(`controller ${this.name}: two event sources are named "${key}"`);
      }
      source.setEventHandler(this.eventProcessor);
      this.putSource(key, source);
    });
  }

  private createEventSourceContext(): EventSourceContext<P> {
    const context: EventSourceContext<P> = {
      primaryResourceType: this.o.config.resourceType,
      client: this.o.client,
      controllerName: this.name,
      namespaces: this.o.config.namespaces,
      primaryCache: {
        get: (id) => this.o.informer.get(id),
        list: (namespace) => this.o.informer.list(namespace),
        addIndexer: this.o.informer.addIndexer
          ? (name, fn) => this.o.informer.addIndexer!(name, fn)
          : undefined,
        byIndex: this.o.informer.byIndex ? (name, value) => this.o.informer.byIndex!(name, value) : undefined,
      },
      logger: this.logger,
      clock: this.o.clock,
      fieldManager: this.o.config.fieldManager,
      sharedInformers: this.o.sharedInformers,
    };
    return context;
  }

  private async startOne(
    name: string,
    source: EventSource,
    timeoutMs: number,
    failFast: boolean,
  ): Promise<void> {
    let timer: TimerHandle | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = this.o.clock.setTimeout(
        () =>
          reject(
            new EventSourceStartError(
              `controller ${this.name}: event source ${name} did not sync within ${timeoutMs} ms`,
              this.name,
              name,
            ),
          ),
        timeoutMs,
      );
    });
    let started: Promise<void>;
    try {
      started = Promise.resolve(source.start());
    } catch (error) {
      started = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    try {
      await Promise.race([started, timeout]);
    } catch (error) {
      const wrapped =
        error instanceof EventSourceStartError
          ? error
          : new EventSourceStartError(
              `controller ${this.name}: event source ${name} failed to start: ${error instanceof Error ? error.message : String(error)}`,
              this.name,
              name,
              { cause: error },
            );
      if (failFast) throw wrapped;
      // a source without health of its own is reported unhealthy with this (until a late start succeeds)
      if (!source.health) {
        this.startFailures.set(name, wrapped.message);
        started.then(
          () => {
            if (this.sources.get(name) === source) this.startFailures.delete(name);
          },
          () => undefined,
        );
      }
      this.logger.error('event source not started; going on (stopOnInformerErrorDuringStartup is off)', {
        eventSource: name,
        error: wrapped.message,
      });
    } finally {
      if (timer !== undefined) this.o.clock.clearTimeout(timer);
    }
  }
}
