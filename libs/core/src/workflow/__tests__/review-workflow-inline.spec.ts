import { describe, expect, it } from '@jest/globals';
import type { Context } from '../../api/context.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { DependentResource, ReconcileResult } from '../../dependent/dependent-resource.js';
import { reconcileResult } from '../../dependent/dependent-resource.js';
import { AggregatedOperatorError } from '../errors.js';
import { WorkflowBuilder } from '../workflow-builder.js';

/**
 * Adversarial review of cc5c730 (workflow node steps start inline when no executor bound is set):
 * a node that throws, synchronously or not, in its reconcile or a condition must not stop
 * independent nodes, and a bound that is set must still bound.
 */
const primary: KubernetesResource = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'p', namespace: 'n' },
};
const context = {} as Context<KubernetesResource>;

interface Probe {
  reconciled: string[];
  active: number;
  maxActive: number;
}

/** A dependent whose reconcile throws synchronously (`sync`), rejects (`async`), or waits a turn and succeeds. */
function dependent(
  name: string,
  probe: Probe,
  fails?: 'sync' | 'async',
): DependentResource<string, KubernetesResource> {
  return {
    name,
    traits: { creator: true, updater: true },
    getSecondaryResource: () => undefined,
    reconcile(): Promise<ReconcileResult<string>> {
      if (fails === 'sync') throw new Error(`${name} threw`);
      probe.active++;
      probe.maxActive = Math.max(probe.maxActive, probe.active);
      return (async () => {
        try {
          // several turns of the event loop: concurrent steps overlap here
          for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
          if (fails === 'async') throw new Error(`${name} rejected`);
          probe.reconciled.push(name);
          return reconcileResult({ operation: 'created', resource: name });
        } finally {
          probe.active--;
        }
      })();
    },
  };
}

const probe = (): Probe => ({ reconciled: [], active: 0, maxActive: 0 });

async function failure(run: Promise<unknown>): Promise<AggregatedOperatorError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AggregatedOperatorError);
  return error as AggregatedOperatorError;
}

describe('review: inline workflow steps (cc5c730)', () => {
  it.each([
    ['inline (no bound)', undefined],
    ['bounded to 1', 1],
  ])(
    '[WF-10] %s: a reconcile throwing synchronously, one rejecting and a throwing precondition stop only their own branches',
    async (_label, size) => {
      const p = probe();
      const builder = new WorkflowBuilder<KubernetesResource>();
      if (size !== undefined) builder.withExecutorSize(size);
      builder
        .addDependentResource(dependent('sync', p, 'sync'))
        .addDependentResource(dependent('after-sync', p))
        .dependsOn('sync')
        .addDependentResource(dependent('async', p, 'async'))
        .addDependentResource(dependent('guarded', p))
        .withReconcilePrecondition(() => {
          throw new Error('precondition threw');
        })
        .addDependentResource(dependent('after-guarded', p))
        .dependsOn('guarded')
        .addDependentResource(dependent('ready-throws', p))
        .withReadyPostcondition(() => {
          throw new Error('postcondition threw');
        })
        .addDependentResource(dependent('independent', p))
        .addDependentResource(dependent('after-independent', p))
        .dependsOn('independent');
      const error = await failure(builder.build().reconcile(primary, context));
      expect([...error.errorsByDependent.keys()].sort()).toEqual([
        'async',
        'guarded',
        'ready-throws',
        'sync',
      ]);
      expect(p.reconciled.sort()).toEqual(['after-independent', 'independent', 'ready-throws']);
      if (size !== undefined) expect(p.maxActive).toBeLessThanOrEqual(size);
    },
  );

  it('[WF-01] a bound of 2 still bounds 8 independent nodes of which some throw synchronously (a throw frees its slot)', async () => {
    const p = probe();
    const builder = new WorkflowBuilder<KubernetesResource>().withExecutorSize(2);
    for (let i = 0; i < 8; i++)
      builder.addDependentResource(dependent(`n${i}`, p, i % 3 === 0 ? 'sync' : undefined));
    const error = await failure(builder.build().reconcile(primary, context));
    expect([...error.errorsByDependent.keys()].sort()).toEqual(['n0', 'n3', 'n6']);
    expect(p.reconciled.sort()).toEqual(['n1', 'n2', 'n4', 'n5', 'n7']);
    expect(p.maxActive).toBe(2);
  });

  it('[WF-01] without a bound, independent nodes all run at once', async () => {
    const p = probe();
    const builder = new WorkflowBuilder<KubernetesResource>();
    for (let i = 0; i < 6; i++) builder.addDependentResource(dependent(`n${i}`, p));
    const result = await builder.build().reconcile(primary, context);
    expect(result.erroredDependentsExist()).toBe(false);
    expect(p.maxActive).toBe(6);
  });
});
