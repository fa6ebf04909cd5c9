import type { ModuleRef } from '@nestjs/core';

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
