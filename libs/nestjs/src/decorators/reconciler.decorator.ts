import type {
  ControllerConfigurationOptions,
  KubernetesResource,
  Reconciler as CoreReconciler,
  ResourceType,
} from '@tosdk/core';
import type { NestManagedWorkflowSpec } from '../internal/workflow-providers.js';
import { RECONCILER_METADATA } from '../operator.constants.js';

/**
 * Options of the {@link Reconciler} decorator: core's controller configuration with the primary
 * kind named `resource`, and a `workflow` whose dependents and conditions may be Nest provider
 * classes with injected constructor parameters.
 */
export interface ReconcilerOptions<P extends KubernetesResource = KubernetesResource> extends Omit<
  ControllerConfigurationOptions<P>,
  'resourceType' | 'workflow'
> {
  /** The primary kind (`defineResource(...)` or `ResourceTypes.X`). Required. */
  resource: ResourceType<P>;
  /** The managed workflow; provider classes are replaced by their Nest instances. Defaults to none. */
  workflow?: NestManagedWorkflowSpec<P>;
}

/**
 * A reconciler as core defines it; the same name as the decorator so one import from
 * `@tosdk/nestjs` serves `@Reconciler(...)` and `implements Reconciler<WebPage>` (core's
 * `Reconciler` is a type only: importing it from `@tosdk/core` for the decorator is a type error,
 * "only refers to a type", never a silent mistake).
 */
export type Reconciler<P extends KubernetesResource = KubernetesResource> = CoreReconciler<P>;

/**
 * Marks a provider as a reconciler and carries its controller configuration. The OperatorModule
 * discovers it in any module, registers it in `onModuleInit` and starts it with the application.
 * The class keeps full constructor injection; it must be a singleton (not request-scoped).
 *
 * ```ts
 * @Reconciler({ resource: WebPage, namespaces: ['web'] })
 * export class WebPageReconciler implements Reconciler<WebPage> {
 *   constructor(private readonly pages: PageRenderer) {}
 *   async reconcile(page: WebPage, context: Context<WebPage>) { ... }
 * }
 * ```
 */
export function Reconciler<P extends KubernetesResource>(
  options: ReconcilerOptions<P>,
): <C extends abstract new (...args: never[]) => CoreReconciler<P>>(target: C) => void {
  // The target must construct a Reconciler of the decorated kind: a class whose reconcile takes
  // another kind than `resource` is a compile-time error at the decorator. The options are checked
  // again at bootstrap (JavaScript callers, casts): see the OperatorModule.
  return (target) => {
    Reflect.defineMetadata(RECONCILER_METADATA, options ?? MISSING_OPTIONS, target);
  };
}

/** Stored for `@Reconciler()` without options, so discovery finds the class and says what is missing. */
const MISSING_OPTIONS = Object.freeze({}) as ReconcilerOptions;

/** The options of a class's {@link Reconciler} decorator, if any. */
export function getReconcilerOptions(target: unknown): ReconcilerOptions | undefined {
  if (typeof target !== 'function') return undefined;
  return Reflect.getMetadata(RECONCILER_METADATA, target) as ReconcilerOptions | undefined;
}
