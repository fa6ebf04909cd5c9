import type { Context } from '../api/context.js';
import type { KubernetesResource } from '../api/resource-type.js';
import type { DependentResource } from '../dependent/dependent-resource.js';

import { ConditionResult } from './condition-result.js';

export { ConditionResult } from './condition-result.js';
export type { ConditionType } from './condition-result.js';

/**
 * A condition on a dependent in a workflow (JOSDK's `Condition`): a reconcile precondition, a
 * ready or delete postcondition, or an activation condition.
 *
 * @typeParam R - the dependent's resource type.
 * @typeParam P - the primary kind.
 */
export interface Condition<R = unknown, P extends KubernetesResource = KubernetesResource> {
  /** Whether the condition holds for this primary. May be async. */
  isMet(dependent: DependentResource<R, P>, primary: P, context: Context<P>): boolean | Promise<boolean>;
}

/**
 * A condition that reports a detail with its outcome (JOSDK's `DetailedCondition`); the detail is
 * available in the workflow result through `getDependentConditionResult`.
 */
export interface DetailedCondition<
  R = unknown,
  P extends KubernetesResource = KubernetesResource,
  T = unknown,
> {
  /** The outcome with its detail. May be async. */
  detailedIsMet(
    dependent: DependentResource<R, P>,
    primary: P,
    context: Context<P>,
  ): ConditionResult<T> | Promise<ConditionResult<T>>;
}

/** A condition as a plain function. */
export type ConditionFunction<R = unknown, P extends KubernetesResource = KubernetesResource> = (
  dependent: DependentResource<R, P>,
  primary: P,
  context: Context<P>,
) => boolean | ConditionResult | Promise<boolean | ConditionResult>;

/** Anything accepted where a workflow takes a condition. */
export type AnyCondition<R = unknown, P extends KubernetesResource = KubernetesResource> =
  Condition<R, P> | DetailedCondition<R, P> | ConditionFunction<R, P>;

/**
 * A condition class with a no-argument constructor (JOSDK's `@Dependent(readyPostcondition =
 * MyCondition.class)`): a workflow makes one instance of it when it is built.
 */
export type ConditionClass<R = unknown, P extends KubernetesResource = KubernetesResource> = new () =>
  Condition<R, P> | DetailedCondition<R, P>;

/** What a workflow declaration takes as a condition: any {@link AnyCondition}, or a {@link ConditionClass}. */
export type ConditionDeclaration<R = unknown, P extends KubernetesResource = KubernetesResource> =
  AnyCondition<R, P> | ConditionClass<R, P>;

/** Whether a value can be used as a condition. */
export function isCondition(value: unknown): value is AnyCondition {
  if (typeof value === 'function') return true;
  if (!value || typeof value !== 'object') return false;
  const c = value as Partial<Condition & DetailedCondition>;
  return typeof c.isMet === 'function' || typeof c.detailedIsMet === 'function';
}

/** Evaluates any form of condition to a {@link ConditionResult}. */
export async function evaluateCondition<R, P extends KubernetesResource>(
  condition: AnyCondition<R, P>,
  dependent: DependentResource<R, P>,
  primary: P,
  context: Context<P>,
): Promise<ConditionResult> {
  let outcome: boolean | ConditionResult;
  if (typeof condition === 'function') outcome = await condition(dependent, primary, context);
  else if ('detailedIsMet' in condition && typeof condition.detailedIsMet === 'function')
    outcome = await condition.detailedIsMet(dependent, primary, context);
  else outcome = await (condition as Condition<R, P>).isMet(dependent, primary, context);
  if (typeof outcome === 'boolean') return outcome ? MET : UNMET;
  return outcome;
}

const MET = ConditionResult.met();
const UNMET = ConditionResult.unmet();
