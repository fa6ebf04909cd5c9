import {
  isCreator,
  isDeleter,
  isDependentResourceWithExplicitState,
  isEventSourceProvider,
  isGarbageCollected,
  isUpdater,
  Operator,
} from '@tosdk/core';
import type {
  EventSource,
  KubernetesResource,
  ManagedDependentSpec,
  Reconciler,
  RegisteredController,
  ResolvedControllerConfiguration,
  ResourceType,
  TraitCarrier,
} from '@tosdk/core';
import { declaredRbacRules } from '@tosdk/core';
import type { RbacRule } from '@tosdk/core';
import type { AppLoader } from './config.js';
import { TosdkCliError } from './errors.js';

/** Where a kind is read or written: every namespace, or these. */
export type Namespaces = 'all' | readonly string[];

/** A kind an event source caches (list + watch). */
export interface WatchedKind {
  readonly type: ResourceType;
  readonly namespaces: Namespaces;
  /**
   * The source keeps a bounded cache (`boundedCache`): objects it evicted are fetched again one by
   * one (a get). Defaults to false.
   */
  readonly fetches?: boolean;
  /**
   * Whether the source watches the controller's namespaces (`EventSource.followsControllerNamespaces`),
   * so namespaces given to the controller at install (the chart's `watchNamespaces`) are its too;
   * false for a source given namespaces of its own. Defaults to true.
   */
  readonly followsController?: boolean;
}

/** A kind a managed dependent writes. */
export interface DependentKind {
  readonly type: ResourceType;
  readonly create: boolean;
  readonly update: boolean;
  readonly delete: boolean;
  /**
   * Whether it writes with server-side apply (a patch; creating that way needs create too), else with
   * create and update (a PUT). Defaults to true, `KubernetesDependentResource`'s default.
   */
  readonly ssa?: boolean;
  /**
   * `createOnlyIfMissing: true`: it creates with a plain create and, when the name is taken, reads the
   * object instead (a get). Defaults to false.
   */
  readonly createOnlyIfMissing?: boolean;
}

/** What `tosdk generate` knows about one registered controller. */
export interface ControllerModel {
  readonly name: string;
  readonly configuration: ResolvedControllerConfiguration;
  /** Whether the reconciler is a Cleaner or its workflow deletes dependents itself (a finalizer is added and removed). */
  readonly usesFinalizer: boolean;
  readonly watched: readonly WatchedKind[];
  readonly dependents: readonly DependentKind[];
  readonly extraRules: readonly RbacRule[];
}

/** The application as `tosdk generate` sees it. */
export interface AppModel {
  readonly controllers: readonly ControllerModel[];
  /**
   * Set when the app's Operator was built with sharding on (its membership Leases need RBAC);
   * `leaseNamespace` only when the app gave one (else the operator's own namespace is meant).
   */
  readonly sharding?: { readonly leaseNamespace?: string };
  /**
   * Set when the app's Operator was built with leader election (its lease needs RBAC): the lease
   * name, and the namespace when the app gave one (else the operator's own namespace is meant).
   */
  readonly leaderElection?: { readonly leaseName?: string; readonly leaseNamespace?: string };
}

interface Captured {
  reconciler: Reconciler<KubernetesResource>;
  registered: RegisteredController<KubernetesResource>;
}

const isResourceSource = (s: EventSource): s is EventSource & { resourceType: ResourceType } => {
  const t = (s as { resourceType?: ResourceType }).resourceType;
  return typeof t === 'object' && t !== null && typeof t.plural === 'string';
};

/**
 * Whether an informer source was given a bounded cache (`InformerEventSourceOptions.boundedCache`):
 * core keeps the options it was built with, unexposed, so they are read by name here.
 */
const hasBoundedCache = (source: EventSource): boolean =>
  Boolean((source as { o?: { boundedCache?: unknown } }).o?.boundedCache);

function sourceNamespaces(source: EventSource, controller: Namespaces): Namespaces {
  const ns = (source as { namespaces?: unknown }).namespaces;
  if (ns === 'all') return 'all';
  if (Array.isArray(ns)) return ns.length === 0 ? 'all' : (ns as string[]);
  return controller;
}

function instantiate(
  value: ManagedDependentSpec['dependent'],
): TraitCarrier & { resourceType?: ResourceType } {
  if (typeof value !== 'function') return value;
  const proto = (value as { prototype?: { reconcile?: unknown } }).prototype;
  if (proto && typeof proto.reconcile === 'function') return new (value as new () => TraitCarrier)();
  return (value as () => TraitCarrier)();
}

function model(c: Captured): ControllerModel {
  const configuration = c.registered.configuration;
  const controllerNs: Namespaces = configuration.namespaces.length === 0 ? 'all' : configuration.namespaces;
  // the event sources the operator registered for the controller (its own first)
  const sources = c.registered.eventSources?.();
  if (!sources) {
    throw new TosdkCliError(
      'AppLoadFailed',
      `controller ${c.registered.name}: its handle does not list event sources (RegisteredController.eventSources); install a @tosdk/core that matches this @tosdk/cli`,
    );
  }
  const watched: WatchedKind[] = [];
  let first = true;
  for (const source of sources.values()) {
    if (first) {
      first = false; // the primary informer
      continue;
    }
    if (isResourceSource(source))
      watched.push({
        type: source.resourceType,
        namespaces: sourceNamespaces(source, controllerNs),
        ...(hasBoundedCache(source) ? { fetches: true } : {}),
        ...(source.followsControllerNamespaces?.() === false ? { followsController: false } : {}),
      });
  }
  const dependents: DependentKind[] = [];
  let workflowCleans = false;
  for (const spec of configuration.workflow?.dependents ?? []) {
    const dependent = instantiate(spec.dependent);
    const type = dependent.resourceType;
    const gc = isGarbageCollected(dependent);
    const deletes =
      isDeleter(dependent) &&
      (!gc || spec.reconcilePrecondition !== undefined || spec.activationCondition !== undefined);
    if (isDeleter(dependent) && !gc) workflowCleans = true;
    // an external dependent keeping explicit state: the framework creates its state resource after
    // creating the external one, and deletes it after deleting it (plain create and delete)
    if (isDependentResourceWithExplicitState(dependent))
      dependents.push({
        type: dependent.stateResourceType,
        create: isCreator(dependent),
        update: false,
        delete: deletes,
        ssa: false,
      });
    if (!type) continue; // an external dependent: nothing else on the API server
    // a dependent with an activation condition registers its informer only once active, at run
    // time: the sources seen at load lack it, and its list and watch are needed then
    if (
      spec.activationCondition !== undefined &&
      !spec.useEventSourceWithName &&
      isEventSourceProvider(dependent)
    )
      watched.push(activatedInformer(dependent, type, controllerNs));
    dependents.push({
      type,
      create: isCreator(dependent),
      update: isUpdater(dependent),
      delete: deletes,
      ...writeMode(dependent),
    });
  }
  const isCleaner = typeof (c.reconciler as { cleanup?: unknown }).cleanup === 'function';
  return {
    name: c.registered.name,
    configuration,
    usesFinalizer: isCleaner || workflowCleans,
    watched,
    dependents,
    extraRules: declaredRbacRules(c.reconciler),
  };
}

/**
 * The informer a Kubernetes dependent registers when its activation condition holds: its kind, in
 * the namespaces of its `informer` option (read from the options it keeps), else the controller's.
 */
function activatedInformer(dependent: object, type: ResourceType, controllerNs: Namespaces): WatchedKind {
  const ns = (dependent as { options?: { informer?: { namespaces?: unknown } } }).options?.informer
    ?.namespaces;
  if (ns === 'all') return { type, namespaces: 'all', followsController: false };
  if (Array.isArray(ns))
    return { type, namespaces: ns.length === 0 ? 'all' : (ns as string[]), followsController: false };
  return { type, namespaces: controllerNs };
}

/**
 * How a Kubernetes dependent writes, read from the instance as its own writes decide it: its
 * `useSSA()` (a subclass may override it) and its `createOnlyIfMissing` option. Empty for other
 * dependents (their writes are their own code's).
 */
function writeMode(dependent: object): Pick<DependentKind, 'ssa' | 'createOnlyIfMissing'> {
  const d = dependent as { useSSA?: () => unknown; options?: { createOnlyIfMissing?: unknown } };
  if (typeof d.useSSA !== 'function') return {};
  return {
    ssa: d.useSSA() !== false,
    ...(d.options?.createOnlyIfMissing === true ? { createOnlyIfMissing: true } : {}),
  };
}

/** What a value is, for a message: `undefined`, `null`, a function's or object's kind. */
const describe = (value: unknown): string =>
  value === null || value === undefined
    ? String(value)
    : typeof value === 'object'
      ? 'an object that is not a dynamic module (no `module`)'
      : `a ${typeof value}`;

/**
 * Loads the app without starting it: while `loader` runs, `Operator.register` is observed and
 * `Operator.start`/`stop` do nothing, so controllers are registered and nothing connects.
 *
 * @throws TosdkCliError `AppLoadFailed` when the loader throws, `nestModule` resolves to something
 * that is not a Nest module (a class or a dynamic module), or no controller is registered.
 */
export async function loadApp(loader: AppLoader): Promise<AppModel> {
  const captured: Captured[] = [];
  let sharding: { leaseNamespace?: string } | undefined;
  let leaderElection: { leaseName?: string; leaseNamespace?: string } | undefined;
  const proto = Operator.prototype as unknown as Record<string, unknown>;
  const original = { register: proto['register'], start: proto['start'], stop: proto['stop'] };
  const register = original.register as (
    this: Operator,
    r: Reconciler<KubernetesResource>,
    o?: unknown,
  ) => RegisteredController<KubernetesResource>;
  proto['register'] = function (
    this: Operator,
    reconciler: Reconciler<KubernetesResource>,
    overrides?: unknown,
  ) {
    const registered = register.call(this, reconciler, overrides);
    captured.push({ reconciler, registered });
    if (this.sharding) {
      // the namespace the app asked for, not the one resolved offline (that would be the offline context's)
      const asked = (this as unknown as { options?: { sharding?: { leaseNamespace?: unknown } } }).options
        ?.sharding?.leaseNamespace;
      sharding = typeof asked === 'string' ? { leaseNamespace: asked } : {};
    }
    // leader election as the app asked for it (the namespace resolved offline would be the offline context's)
    const election = (
      this as unknown as { options?: { leaderElection?: { leaseName?: unknown; leaseNamespace?: unknown } } }
    ).options?.leaderElection;
    if (election) {
      leaderElection = {
        ...(typeof election.leaseName === 'string' ? { leaseName: election.leaseName } : {}),
        ...(typeof election.leaseNamespace === 'string' ? { leaseNamespace: election.leaseNamespace } : {}),
      };
    }
    return registered;
  };
  proto['start'] = () => Promise.resolve();
  proto['stop'] = () => Promise.resolve();
  try {
    if ('operator' in loader) {
      await loader.operator();
    } else {
      const module = await loader.nestModule();
      const dynamic = typeof module === 'object' && module !== null && 'module' in module;
      if (typeof module !== 'function' && !dynamic) {
        throw new TosdkCliError(
          'AppLoadFailed',
          `loading the app failed: app.nestModule resolved to ${describe(module)}, not a Nest module class or dynamic module; check that the file it imports exports the module under that name`,
        );
      }
      const { NestFactory } = (await import('@nestjs/core')) as {
        NestFactory: { createApplicationContext(m: unknown, o: object): Promise<{ close(): Promise<void> }> };
      };
      const context = await NestFactory.createApplicationContext(module, {
        logger: false,
        abortOnError: false,
      });
      await context.close();
    }
  } catch (error) {
    if (error instanceof TosdkCliError) throw error;
    throw new TosdkCliError(
      'AppLoadFailed',
      `loading the app failed: ${(error as Error)?.message || String(error)} (the app must register its controllers without connecting to a cluster)`,
      { cause: error },
    );
  } finally {
    Object.assign(proto, original);
  }
  if (captured.length === 0) {
    throw new TosdkCliError(
      'AppLoadFailed',
      'the app registered no controller: app.operator must register them on an Operator (without start()), app.nestModule must import the OperatorModule and provide @Reconciler classes',
    );
  }
  return {
    controllers: captured.map(model),
    ...(sharding ? { sharding } : {}),
    ...(leaderElection ? { leaderElection } : {}),
  };
}
