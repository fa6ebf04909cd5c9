import { describe, expect, it } from '@jest/globals';
import type { Context } from '../../api/context.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type { DependentResource } from '../../dependent/dependent-resource.js';
import { reconcileResult } from '../../dependent/dependent-resource.js';
import { ConditionResult } from '../condition.js';
import { KubernetesResourceDeletedCondition } from '../kubernetes-resource-deleted-condition.js';
import type { ManagedWorkflowSpec } from '../managed-workflow.js';
import { WorkflowBuilder } from '../workflow-builder.js';

/**
 * Adversarial review S9 of the workflow engine without an API server.
 *
 * S9-DW9 is a type-level finding: before its fix this file did not compile (`tsc` rejected a
 * condition class where the workflow README and the engine accept one), while Jest, which does not
 * type-check, ran it.
 */
const primary: KubernetesResource = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'p', namespace: 'n' },
};
const context = {} as Context<KubernetesResource>;

function dependent(name: string): DependentResource<string, KubernetesResource> {
  return {
    name,
    traits: { creator: true },
    getSecondaryResource: () => undefined,
    reconcile: () => Promise.resolve(reconcileResult({ operation: 'none', resource: name })),
  };
}

class NeverReady {
  isMet(): boolean {
    return false;
  }
}

class Allowed {
  detailedIsMet(): ConditionResult<string> {
    return ConditionResult.met('allowed');
  }
}

describe('S9 review: workflow engine', () => {
  it('[FINDING S9-DW9] condition classes, which the README documents and the engine instantiates, are accepted by the types of standalone and managed workflows', async () => {
    const workflow = new WorkflowBuilder<KubernetesResource>()
      .addDependentResource(dependent('a'))
      .withReconcilePrecondition(Allowed)
      .addDependentResource(dependent('b'))
      .dependsOn('a')
      .withReadyPostcondition(NeverReady)
      .addDependentResource(dependent('c'))
      .dependsOn('b')
      .build();
    const result = await workflow.reconcile(primary, context);
    expect(result.reconciledDependents).toEqual(['a', 'b']);
    expect(result.notReadyDependents).toEqual(['b']);
    expect(result.getDependentConditionResult('a', 'reconcile')).toEqual({ met: true, detail: 'allowed' });

    const spec: ManagedWorkflowSpec<KubernetesResource> = {
      dependents: [
        {
          dependent: dependent('d'),
          readyPostcondition: NeverReady,
          deletePostcondition: KubernetesResourceDeletedCondition,
        },
      ],
    };
    expect(spec.dependents).toHaveLength(1);
  });
});
