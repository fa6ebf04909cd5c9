import type { ModuleRef } from '@nestjs/core';
import type {
  Condition,
  DependentResource,
  DetailedCondition,
  KubernetesResource,
  ManagedDependentSpec,
  ManagedWorkflowSpec,
} from '@tosdk/core';

/**
 * A Nest provider class: constructor parameters of any kind, injected by Nest (the class must be a
 * provider of some module; it is replaced by its instance before registration).
 *
 * @typeParam T - what the class constructs.
 */
export type ProviderClass<T> = new (...args: never[]) => T;

/** The condition fields of a workflow dependent. */
type ConditionField =
  'reconcilePrecondition' | 'readyPostcondition' | 'deletePostcondition' | 'activationCondition';

/**
 * One dependent of a managed workflow in `@Reconciler` options: core's
 * {@link ManagedDependentSpec}, whose `dependent` and conditions may also be Nest provider classes
 * with injected constructor parameters.
 *
 * @typeParam P - the primary kind.
 */
export type NestManagedDependentSpec<P extends KubernetesResource = KubernetesResource> = Omit<
  ManagedDependentSpec<P>,
  'dependent' | ConditionField
> & {
  /** The dependent, a factory, a class with a no-argument constructor, or a Nest provider class. */
  dependent: ManagedDependentSpec<P>['dependent'] | ProviderClass<DependentResource<unknown, P>>;
} & {
  [F in ConditionField]?:
    ManagedDependentSpec<P>[F] | ProviderClass<Condition<unknown, P> | DetailedCondition<unknown, P>>;
};

/**
 * A managed workflow in `@Reconciler` options: core's {@link ManagedWorkflowSpec} whose dependents
 * are {@link NestManagedDependentSpec}s.
 *
 * @typeParam P - the primary kind.
 */
export type NestManagedWorkflowSpec<P extends KubernetesResource = KubernetesResource> = Omit<
  ManagedWorkflowSpec<P>,
  'dependents'
> & {
  /** The dependents in declaration order. */
  dependents: ReadonlyArray<NestManagedDependentSpec<P>>;
};

/** Fields of a workflow's dependent spec that may name a Nest provider class. */
const PROVIDER_FIELDS = [
  'dependent',
  'reconcilePrecondition',
  'readyPostcondition',
  'deletePostcondition',
  'activationCondition',
] as const;

function providerOf(moduleRef: ModuleRef, value: unknown): unknown {
  if (typeof value !== 'function') return value;
  try {
    // a class registered as a provider anywhere: its singleton, with its own injections
    return moduleRef.get(value, { strict: false });
  } catch {
    // not a provider: a factory or a condition function, passed to core as is
    return value;
  }
}

/**
 * Replaces provider classes in a reconciler's managed workflow (`workflow.dependents[*]` and their
 * conditions) with their Nest instances, so dependent resources and conditions are providers with
 * injection. Options without a workflow are returned unchanged.
 */
export function resolveWorkflowProviders<O extends object>(options: O, moduleRef: ModuleRef): O {
  const workflow = (options as { workflow?: { dependents?: ReadonlyArray<Record<string, unknown>> } })
    .workflow;
  if (!workflow?.dependents) return options;
  const dependents = workflow.dependents.map((spec) => {
    const resolved: Record<string, unknown> = { ...spec };
    for (const field of PROVIDER_FIELDS) {
      if (field in resolved) resolved[field] = providerOf(moduleRef, resolved[field]);
    }
    return resolved;
  });
  return { ...options, workflow: { ...workflow, dependents } };
}
