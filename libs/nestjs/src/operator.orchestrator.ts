import { Inject, Injectable, Logger } from '@nestjs/common';
import type {
  BeforeApplicationShutdown,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleDestroy,
  OnModuleInit,
} from '@nestjs/common';
import type { Type } from '@nestjs/common';
import { LazyModuleLoader, ModuleRef, ModulesContainer } from '@nestjs/core';
import { InvalidControllerConfigurationError, KubernetesClient, Operator } from '@tosdk/core';
import type { ControllerConfigurationOptions, KubernetesResource, RegisteredController } from '@tosdk/core';
import {
  controllerOptionsFromEnvironment,
  unknownControllerVariables,
} from './config/environment-configuration.js';
import type { ControllerConfigurationOverrider } from './decorators/configuration-overrider.decorator.js';
import { OperatorBootstrapError, OperatorModuleConfigurationError } from './errors.js';
import { ReconcilerExplorer } from './internal/reconciler.explorer.js';
import type { DiscoveredReconciler } from './internal/reconciler.explorer.js';
import { stopBeforeDestroyHooks } from './internal/stop-before-destroy.js';
import { resolveWorkflowProviders } from './internal/workflow-providers.js';
import { pinoContextRunner, withPinoContext } from './logging/pino-request-context.js';
import type { PinoContextRunner } from './logging/pino-request-context.js';
import { OperatorMetricsHub } from './metrics/operator-metrics-hub.js';
import {
  lateReconcilersMessage,
  noReconcilersMessage,
  secondOperatorModuleMessage,
  sharedKindMessage,
  startFailedMessage,
} from './operator.messages.js';
import { environmentOf, RESOLVED_OPERATOR_OPTIONS } from './operator.providers.js';
import type { OperatorModuleOptions } from './operator-module-options.js';
import { OperatorRegistry } from './operator.registry.js';

/** Marks a LazyModuleLoader whose load() checks for late reconcilers. */
const LAZY_GUARD = Symbol('tosdk:lazy-reconciler-guard');

// Long enough to cost nothing, short enough for any timer wheel: it only keeps the event loop alive.
const KEEP_ALIVE_MS = 1 << 30;

/**
 * Runs the operator with the application: registers the discovered reconcilers in `onModuleInit`,
 * starts in `onApplicationBootstrap` (unless `autoStart: false`), and at shutdown stops before any
 * provider's `onModuleDestroy` runs (running reconciliations get `terminationTimeoutMs` with the
 * providers they use still in service), at the latest in `beforeApplicationShutdown`. The
 * `KubernetesClient` provider stays open for the app's own shutdown hooks and is closed in
 * `onApplicationShutdown` (when the module made it, or with `closeClientOnStop: true`).
 */
@Injectable()
export class OperatorOrchestrator
  implements
    OnModuleInit,
    OnApplicationBootstrap,
    OnModuleDestroy,
    BeforeApplicationShutdown,
    OnApplicationShutdown
{
  private readonly logger = new Logger('OperatorModule');
  private keepAlive: NodeJS.Timeout | undefined;
  private readonly registered = new Set<Type>();

  constructor(
    private readonly operator: Operator,
    @Inject(RESOLVED_OPERATOR_OPTIONS) private readonly options: OperatorModuleOptions,
    private readonly explorer: ReconcilerExplorer,
    private readonly registry: OperatorRegistry,
    private readonly hub: OperatorMetricsHub,
    private readonly moduleRef: ModuleRef,
    private readonly modules: ModulesContainer,
    private readonly client: KubernetesClient,
  ) {}

  async onModuleInit(): Promise<void> {
    this.refuseSecondOperatorModule();
    for (const sink of this.explorer.metricsSinks()) this.hub.add(sink);
    // refused when request-scoped even without reconcilers
    const overriders = this.explorer.overriders();
    const reconcilers = this.explorer.reconcilers();
    if (reconcilers.length === 0) this.logger.warn(noReconcilersMessage());
    const pino = reconcilers.length > 0 ? await pinoContextRunner(this.moduleRef) : undefined;
    for (const r of reconcilers) this.register(r, pino, overriders);
    this.guardLazyModules();
    this.stopBeforeDestroyHooks();
    this.warnAboutSharedKinds();
    const env = environmentOf(this.options);
    const names = this.registry.controllerNames();
    const known = `controllers: ${names.join(', ') || 'none'}`;
    for (const variable of unknownControllerVariables(env, names)) {
      this.logger.warn(`${variable} names no controller of this application (${known}); it is ignored`);
    }
    for (const key of Object.keys(this.options.controllers ?? {})) {
      if (names.includes(key)) continue;
      this.logger.warn(
        `the OperatorModule option controllers.${key} names no controller of this application (${known}); it is ignored (keys are controller names: @Reconciler's name, else the class name lower-cased)`,
      );
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.autoStart === false) return;
    try {
      await this.operator.start();
    } catch (error) {
      throw new OperatorBootstrapError(startFailedMessage(error), { cause: error });
    }
    this.keepAlive = setInterval(() => undefined, KEEP_ALIVE_MS);
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  onApplicationShutdown(): void {
    // the module made the client unless the app gave it: then the app owns it
    const owned = this.options.closeClientOnStop ?? !this.options.client;
    if (owned && !this.client.isClosed) this.client.close();
  }

  /** Stops the operator (idempotent: core's stop() is) and lets the process exit. */
  private async stop(): Promise<void> {
    try {
      await this.operator.stop();
    } finally {
      if (this.keepAlive) clearInterval(this.keepAlive);
      this.keepAlive = undefined;
    }
  }

  /**
   * Nest calls every provider's onModuleDestroy before any beforeApplicationShutdown, and those of a
   * global module (this one by default) last: each waits for the operator's stop first, so running
   * reconciliations finish while what they use (pools, clients) is still open.
   */
  private stopBeforeDestroyHooks(): void {
    stopBeforeDestroyHooks(this.modules, () => this.stop(), this);
  }

  /**
   * Each OperatorModule instance (forRoot/forRootAsync imported twice with other options) runs its own
   * operator with every discovered reconciler: each resource would be reconciled by both.
   */
  private refuseSecondOperatorModule(): void {
    const instances = [...this.modules.values()].filter((m) => m.providers.has(OperatorOrchestrator));
    if (instances.length < 2) return;
    // a global module is linked into every module's imports: name those that list it in @Module
    const type = instances[0].metatype;
    const importers = [...this.modules.values()]
      .filter((m) => {
        const declared = (Reflect.getMetadata('imports', m.metatype) ?? []) as unknown[];
        return declared.some((d) => d === type || (d as { module?: unknown } | null)?.module === type);
      })
      .map((m) => m.metatype.name);
    throw new OperatorModuleConfigurationError(secondOperatorModuleMessage(instances.length, importers));
  }

  /**
   * Discovery runs once, in onModuleInit: a reconciler of a module loaded later with Nest's
   * LazyModuleLoader would be silently ignored. The app's loader's load() is wrapped to reject,
   * naming such reconcilers and what to do.
   */
  private guardLazyModules(): void {
    let loader: LazyModuleLoader & { [LAZY_GUARD]?: true };
    try {
      loader = this.moduleRef.get(LazyModuleLoader, { strict: false });
    } catch {
      return;
    }
    if (loader[LAZY_GUARD]) return;
    loader[LAZY_GUARD] = true;
    const load = loader.load.bind(loader);
    loader.load = async (...args: Parameters<LazyModuleLoader['load']>) => {
      const loaded = await load(...args);
      this.stopBeforeDestroyHooks();
      const late = this.explorer.reconcilers().filter((r) => !this.registered.has(r.type));
      if (late.length > 0) {
        throw new OperatorModuleConfigurationError(lateReconcilersMessage(late.map((r) => r.type.name)));
      }
      return loaded;
    };
  }

  /** Two controllers on one kind are legal (e.g. disjoint namespaces) but usually a mistake: say so. */
  private warnAboutSharedKinds(): void {
    const byKind = new Map<string, string[]>();
    for (const name of this.registry.controllerNames()) {
      const type = this.registry.getController(name).configuration.resourceType;
      const kind = `${type.group ? `${type.plural}.${type.group}` : type.plural}/${type.version}`;
      byKind.set(kind, [...(byKind.get(kind) ?? []), name]);
    }
    for (const [kind, names] of byKind)
      if (names.length > 1) this.logger.warn(sharedKindMessage(kind, names));
  }

  private register(
    r: DiscoveredReconciler,
    pino: PinoContextRunner | undefined,
    overriders: ControllerConfigurationOverrider[],
  ): void {
    const { resource, ...rest } = r.options;
    const env = environmentOf(this.options);
    const reconciler = pino ? withPinoContext(r.instance, pino) : r.instance;
    let controller = typeof rest.name === 'string' ? rest.name : r.type.name.toLowerCase();
    let registered: RegisteredController<KubernetesResource>;
    try {
      registered = this.operator.register(reconciler, (decorated) => {
        let o: ControllerConfigurationOptions<KubernetesResource> = {
          ...decorated,
          // the workflow's provider classes (NestManagedWorkflowSpec) become instances below
          ...(rest as Omit<ControllerConfigurationOptions<KubernetesResource>, 'resourceType'>),
          resourceType: resource,
        };
        const name = o.name ?? r.type.name.toLowerCase();
        controller = name;
        o = { ...o, ...this.options.controllers?.[name] };
        o = { ...o, ...controllerOptionsFromEnvironment(env, name, o) };
        for (const overrider of overriders) o = { ...overrider.overrideController(name, { ...o }) };
        return resolveWorkflowProviders({ ...o, name: o.name ?? name }, this.moduleRef);
      });
    } catch (error) {
      // core's refusal (e.g. a finalizerName that is no qualified name) names the field, not the class
      if (!(error instanceof InvalidControllerConfigurationError)) throw error;
      throw new OperatorModuleConfigurationError(
        `@Reconciler on ${r.type.name} (controller ${controller}): ${error.message}`,
        { cause: error },
      );
    }
    this.registry.add(r.type, registered);
    this.registered.add(r.type);
  }
}
