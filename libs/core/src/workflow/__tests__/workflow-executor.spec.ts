import { describe, expect, it } from '@jest/globals';
import type { Context, EventSourceRetriever } from '../../api/context.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import type {
  DependentResource,
  DependentTraits,
  ReconcileResult,
} from '../../dependent/dependent-resource.js';
import { reconcileResult } from '../../dependent/dependent-resource.js';
import type { EventSource } from '../../event/event-source.js';
import { ConditionResult } from '../condition.js';
import { AggregatedOperatorError, WorkflowConfigurationError } from '../errors.js';
import { WorkflowBuilder } from '../workflow-builder.js';

const primary: KubernetesResource = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'p', namespace: 'n' },
};

/** A deferred the test resolves itself. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Records what the dependents do; each step can be held open by a gate. */
class Recorder {
  log: string[] = [];
  active = 0;
  maxActive = 0;
  gates = new Map<string, ReturnType<typeof deferred>>();
  failures = new Map<string, Error>();
  registrations: string[] = [];

  gate(step: string) {
    const g = deferred();
    this.gates.set(step, g);
    return g;
  }

  async step(step: string): Promise<void> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    this.log.push(`start ${step}`);
    try {
      const g = this.gates.get(step);
      if (g) await g.promise;
      const failure = this.failures.get(step);
      if (failure) throw failure;
    } finally {
      this.active--;
      this.log.push(`end ${step}`);
    }
  }

  context(): Context<KubernetesResource> {
    const registered = new Map<string, EventSource>();
    const retriever: EventSourceRetriever<KubernetesResource> = {
      eventSourceContext: {} as EventSourceRetriever<KubernetesResource>['eventSourceContext'],
      getEventSource: (name) => registered.get(name),
      dynamicallyRegisterEventSource: (name, create) => {
        if (!registered.has(name)) {
          registered.set(name, create());
          this.registrations.push(`register ${name}`);
        }
        return Promise.resolve(registered.get(name)!);
      },
      dynamicallyDeregisterEventSource: (name) => {
        if (registered.delete(name)) this.registrations.push(`deregister ${name}`);
        return Promise.resolve();
      },
    };
    return { eventSourceRetriever: () => retriever } as unknown as Context<KubernetesResource>;
  }
}

class FakeDependent implements DependentResource<string, KubernetesResource> {
  readonly eventSourceName: string;
  constructor(
    readonly name: string,
    private readonly r: Recorder,
    readonly traits: DependentTraits = { creator: true, updater: true, deleter: true },
  ) {
    this.eventSourceName = `${name}-source`;
  }
  async reconcile(): Promise<ReconcileResult<string>> {
    await this.r.step(`reconcile ${this.name}`);
    return reconcileResult({ operation: 'created', resource: this.name });
  }
  getSecondaryResource(): string | undefined {
    return this.name;
  }
  async delete(): Promise<void> {
    await this.r.step(`delete ${this.name}`);
  }
  eventSource(): EventSource {
    return { name: this.eventSourceName } as EventSource;
  }
  useEventSource(): void {}
}

const ends = (r: Recorder) => r.log.filter((l) => l.startsWith('end')).map((l) => l.slice(4));
const before = (r: Recorder, a: string, b: string) => r.log.indexOf(`end ${a}`) < r.log.indexOf(`start ${b}`);

/** Lets queued promise callbacks run until the recorder's log stops growing. */
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

function diamond(r: Recorder, size = 10, traits?: DependentTraits) {
  const d = (n: string) => new FakeDependent(n, r, traits);
  return new WorkflowBuilder<KubernetesResource>()
    .withExecutorSize(size)
    .addDependentResource(d('1'))
    .addDependentResource(d('2'))
    .dependsOn('1')
    .addDependentResource(d('3'))
    .dependsOn('1')
    .addDependentResource(d('4'))
    .dependsOn('2', '3');
}

describe('workflow executor (DAG)', () => {
  it('[WF-01] reconciles roots first, independent nodes concurrently, a node after all it depends on', async () => {
    const r = new Recorder();
    const g2 = r.gate('reconcile 2');
    const g3 = r.gate('reconcile 3');
    const run = diamond(r).build().reconcile(primary, r.context());
    await flush();
    expect(r.log).toEqual(['start reconcile 1', 'end reconcile 1', 'start reconcile 2', 'start reconcile 3']);
    g3.resolve();
    await flush();
    expect(r.log).not.toContain('start reconcile 4');
    g2.resolve();
    const result = await run;
    expect(ends(r)).toEqual(['reconcile 1', 'reconcile 3', 'reconcile 2', 'reconcile 4']);
    expect(r.maxActive).toBe(2);
    expect(result.reconciledDependents).toEqual(['1', '3', '2', '4']);
    expect(result.allDependentResourcesReady()).toBe(true);
    expect(result.reconcileResults.get('4')?.results[0]).toEqual({ operation: 'created', resource: '4' });
  });

  it('[WF-01] the executor size bounds the concurrency', async () => {
    const r = new Recorder();
    const builder = new WorkflowBuilder<KubernetesResource>().withExecutorSize(2);
    for (const n of ['a', 'b', 'c', 'd', 'e']) builder.addDependentResource(new FakeDependent(n, r));
    const gates = ['a', 'b', 'c', 'd', 'e'].map((n) => r.gate(`reconcile ${n}`));
    const run = builder.build().reconcile(primary, r.context());
    await flush();
    expect(r.active).toBe(2);
    for (const g of gates) {
      g.resolve();
      await flush();
      expect(r.active).toBeLessThanOrEqual(2);
    }
    await run;
    expect(r.maxActive).toBe(2);
    expect(ends(r)).toHaveLength(5);
  });

  it('[WF-02] a false ready postcondition stops what depends on the node, not its siblings', async () => {
    const r = new Recorder();
    const w = new WorkflowBuilder<KubernetesResource>()
      .addDependentResource(new FakeDependent('1', r))
      .addDependentResource(new FakeDependent('2', r), { dependsOn: ['1'], readyPostcondition: () => false })
      .addDependentResource(new FakeDependent('3', r), { dependsOn: ['1'] })
      .addDependentResource(new FakeDependent('4', r), { dependsOn: ['2', '3'] })
      .build();
    const result = await w.reconcile(primary, r.context());
    expect(ends(r).sort()).toEqual(['reconcile 1', 'reconcile 2', 'reconcile 3']);
    expect(result.allDependentResourcesReady()).toBe(false);
    expect(result.notReadyDependents).toEqual(['2']);
    expect(result.getDependentConditionResult('2', 'ready')).toEqual({ met: false, detail: undefined });

    const r2 = new Recorder();
    const w2 = new WorkflowBuilder<KubernetesResource>()
      .addDependentResource(new FakeDependent('1', r2), { readyPostcondition: () => false })
      .addDependentResource(new FakeDependent('2', r2), { dependsOn: ['1'] })
      .build();
    await w2.reconcile(primary, r2.context());
    expect(ends(r2)).toEqual(['reconcile 1']);
  });

  it('[WF-02] a false reconcile precondition on a leaf deletes that leaf (nothing depends on it)', async () => {
    const r = new Recorder();
    const workflow = new WorkflowBuilder<KubernetesResource>()
      .addDependentResource(new FakeDependent('1', r))
      .addDependentResource(new FakeDependent('2', r), {
        dependsOn: ['1'],
        reconcilePrecondition: () => false,
      })
      .build();
    const result = await workflow.reconcile(primary, r.context());
    expect(ends(r)).toEqual(['reconcile 1', 'delete 2']);
    expect(result.erroredDependentsExist()).toBe(false);
  });

  it('[WF-02] a false reconcile precondition deletes the node and all that depend on it, in reverse order', async () => {
    const r = new Recorder();
    const d = (n: string) => new FakeDependent(n, r);
    const build = (opts: { post5?: boolean; fail5?: boolean }) => {
      if (opts.fail5) r.failures.set('delete 5', new Error('boom'));
      return new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(d('1'))
        .addDependentResource(d('2'), { dependsOn: ['1'] })
        .addDependentResource(d('3'), { dependsOn: ['1'], reconcilePrecondition: () => false })
        .addDependentResource(d('4'), { dependsOn: ['3'] })
        .addDependentResource(d('5'), {
          dependsOn: ['3'],
          deletePostcondition: () => opts.post5 ?? true,
        })
        .withThrowExceptionFurther(false)
        .build();
    };
    const g4 = r.gate('delete 4');
    const run = build({}).reconcile(primary, r.context());
    await flush();
    // 4 and 5 are deleted concurrently; 3 waits for both
    expect(r.log).toContain('start delete 4');
    expect(r.log).toContain('end delete 5');
    expect(r.log).not.toContain('start delete 3');
    g4.resolve();
    const result = await run;
    expect(before(r, 'delete 4', 'delete 3') && before(r, 'delete 5', 'delete 3')).toBe(true);
    expect(
      ends(r)
        .filter((s) => s.startsWith('reconcile'))
        .sort(),
    ).toEqual(['reconcile 1', 'reconcile 2']);
    expect([...result.deletedDependents].sort()).toEqual(['3', '4', '5']);
    expect(result.getDependentConditionResult('3', 'reconcile')?.met).toBe(false);

    r.log = [];
    await build({ post5: false }).reconcile(primary, r.context());
    expect(
      ends(r)
        .filter((s) => s.startsWith('delete'))
        .sort(),
    ).toEqual(['delete 4', 'delete 5']);

    r.log = [];
    const failed = await build({ fail5: true }).reconcile(primary, r.context());
    expect(
      ends(r)
        .filter((s) => s.startsWith('delete'))
        .sort(),
    ).toEqual(['delete 4', 'delete 5']);
    expect(failed.erroredDependents.get('5')).toEqual(new Error('boom'));
  });

  describe('no step acts on a node that is still executing', () => {
    it('[WF-02] a node whose precondition turns false after its shared dependent was deleted is still deleted', async () => {
      // x depends on n1 and n2, both with a false precondition; n2's precondition answers only
      // after x's delete (started by n1) has finished, so x's step cannot hand n2 over
      const r = new Recorder();
      const n2Answer = deferred();
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('n1', r), { reconcilePrecondition: () => false })
        .addDependentResource(new FakeDependent('n2', r), {
          reconcilePrecondition: async () => {
            await n2Answer.promise;
            return false;
          },
        })
        .addDependentResource(new FakeDependent('x', r), { dependsOn: ['n1', 'n2'] })
        .build();
      const run = w.reconcile(primary, r.context());
      await flush();
      // n1 is deleted once x is; n2 has not answered yet
      expect(ends(r)).toEqual(['delete x', 'delete n1']);
      n2Answer.resolve();
      const result = await run;
      expect(ends(r)).toEqual(['delete x', 'delete n1', 'delete n2']);
      expect([...result.deletedDependents].sort()).toEqual(['n1', 'n2', 'x']);
      expect(result.erroredDependentsExist()).toBe(false);
    });

    it('[WF-02] a node whose precondition turns false while its shared dependent is being deleted waits for that delete', async () => {
      const r = new Recorder();
      const n2Answer = deferred();
      const gx = r.gate('delete x');
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('n1', r), { reconcilePrecondition: () => false })
        .addDependentResource(new FakeDependent('n2', r), {
          reconcilePrecondition: async () => {
            await n2Answer.promise;
            return false;
          },
        })
        .addDependentResource(new FakeDependent('x', r), { dependsOn: ['n1', 'n2'] })
        .build();
      const run = w.reconcile(primary, r.context());
      await flush();
      expect(r.log).toEqual(['start delete x']);
      n2Answer.resolve();
      await flush();
      // x is still executing: neither parent may start
      expect(r.log).toEqual(['start delete x']);
      gx.resolve();
      await run;
      expect(ends(r)[0]).toBe('delete x');
      expect(ends(r).slice(1).sort()).toEqual(['delete n1', 'delete n2']);
    });

    it('[WF-02] a root with a false precondition and nothing depending on it deletes itself', async () => {
      const r = new Recorder();
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r), { reconcilePrecondition: () => false })
        .addDependentResource(new FakeDependent('b', r))
        .build();
      const result = await w.reconcile(primary, r.context());
      expect(ends(r).sort()).toEqual(['delete a', 'reconcile b']);
      expect(result.deletedDependents).toEqual(['a']);
      expect(result.reconciledDependents).toEqual(['b']);
    });

    it('[WF-02] a leaf that is not a deleter is not deleted when its precondition is false, its delete postcondition is still checked', async () => {
      const r = new Recorder();
      let checked = 0;
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r))
        .addDependentResource(new FakeDependent('b', r, { creator: true }), {
          dependsOn: ['a'],
          reconcilePrecondition: () => false,
          deletePostcondition: () => ++checked > 0,
        })
        .build();
      const result = await w.reconcile(primary, r.context());
      expect(ends(r)).toEqual(['reconcile a']);
      expect(checked).toBe(1);
      expect(result.deletedDependents).toEqual([]);
      expect(result.getDependentConditionResult('b', 'delete')?.met).toBe(true);
    });

    it('[WF-02] a false delete postcondition on a leaf deleted by its own precondition keeps its parents', async () => {
      const r = new Recorder();
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r), { reconcilePrecondition: () => false })
        .addDependentResource(new FakeDependent('b', r), {
          dependsOn: ['a'],
          deletePostcondition: () => false,
        })
        .build();
      const result = await w.reconcile(primary, r.context());
      expect(ends(r)).toEqual(['delete b']);
      expect(result.deletedDependents).toEqual(['b']);
      expect(result.getDependentConditionResult('b', 'delete')?.met).toBe(false);
    });

    it('[WF-04] a node marked for delete whose activation condition is false is left alone, and what it depends on is deleted', async () => {
      const r = new Recorder();
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r), { reconcilePrecondition: () => false })
        .addDependentResource(new FakeDependent('b', r), {
          dependsOn: ['a'],
          activationCondition: () => false,
        })
        .build();
      const result = await w.reconcile(primary, r.context());
      expect(ends(r)).toEqual(['delete a']);
      expect(result.getDependentConditionResult('b', 'activation')?.met).toBe(false);
      expect(result.getDependentConditionResult('b', 'delete')).toBeUndefined();
    });

    it('[WF-04] an activation condition toggling across runs: a leaf is reconciled, left alone while inactive (event source gone), reconciled again', async () => {
      const r = new Recorder();
      let active = true;
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r))
        .addDependentResource(new FakeDependent('b', r), {
          dependsOn: ['a'],
          activationCondition: () => active,
        })
        .build();
      const ctx = r.context();
      await w.reconcile(primary, ctx);
      expect(ends(r)).toEqual(['reconcile a', 'reconcile b']);
      active = false;
      r.log = [];
      const inactive = await w.reconcile(primary, ctx);
      expect(ends(r)).toEqual(['reconcile a']);
      expect(inactive.deletedDependents).toEqual([]);
      active = true;
      r.log = [];
      await w.reconcile(primary, ctx);
      expect(ends(r)).toEqual(['reconcile a', 'reconcile b']);
      expect(r.registrations).toEqual(['register b-source', 'deregister b-source', 'register b-source']);
    });

    it('[WF-04] an inactive node with two dependents: both deleted, a shared grandchild first, nothing reconciled below it', async () => {
      const r = new Recorder();
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r), { activationCondition: () => false })
        .addDependentResource(new FakeDependent('b', r), { dependsOn: ['a'] })
        .addDependentResource(new FakeDependent('c', r), { dependsOn: ['a'] })
        .addDependentResource(new FakeDependent('d', r), { dependsOn: ['b', 'c'] })
        .build();
      const result = await w.reconcile(primary, r.context());
      expect(ends(r)[0]).toBe('delete d');
      expect(ends(r).slice(1).sort()).toEqual(['delete b', 'delete c']);
      expect([...result.deletedDependents].sort()).toEqual(['b', 'c', 'd']);
      expect(result.reconciledDependents).toEqual([]);
    });

    it('[WF-10] an error in an activation condition or reconcile precondition marks the node errored; nothing below it runs or is deleted', async () => {
      for (const key of ['activationCondition', 'reconcilePrecondition'] as const) {
        const r = new Recorder();
        const w = new WorkflowBuilder<KubernetesResource>()
          .addDependentResource(new FakeDependent('a', r), {
            [key]: () => {
              throw new Error(`${key} failed`);
            },
          })
          .addDependentResource(new FakeDependent('b', r), { dependsOn: ['a'] })
          .addDependentResource(new FakeDependent('c', r))
          .withThrowExceptionFurther(false)
          .build();
        const result = await w.reconcile(primary, r.context());
        expect(ends(r)).toEqual(['reconcile c']);
        expect(result.erroredDependents.get('a')).toEqual(new Error(`${key} failed`));
        expect(result.deletedDependents).toEqual([]);
      }
    });

    it('[WF-10] an error in a ready postcondition keeps the dependents from running', async () => {
      const r = new Recorder();
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r), {
          readyPostcondition: () => Promise.reject(new Error('ready failed')),
        })
        .addDependentResource(new FakeDependent('b', r), { dependsOn: ['a'] })
        .withThrowExceptionFurther(false)
        .build();
      const result = await w.reconcile(primary, r.context());
      expect(ends(r)).toEqual(['reconcile a']);
      expect(result.reconciledDependents).toEqual(['a']);
      expect(result.erroredDependents.get('a')).toEqual(new Error('ready failed'));
    });

    it('[WF-10] an error in a delete postcondition, in reconcile or cleanup, keeps what the node depends on', async () => {
      const failing = () => {
        throw new Error('post failed');
      };
      const r = new Recorder();
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r), { reconcilePrecondition: () => false })
        .addDependentResource(new FakeDependent('b', r), { dependsOn: ['a'], deletePostcondition: failing })
        .withThrowExceptionFurther(false)
        .build();
      const result = await w.reconcile(primary, r.context());
      expect(ends(r)).toEqual(['delete b']);
      expect(result.erroredDependents.get('b')).toEqual(new Error('post failed'));

      const r2 = new Recorder();
      const w2 = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r2))
        .addDependentResource(new FakeDependent('b', r2), { dependsOn: ['a'], deletePostcondition: failing })
        .withThrowExceptionFurther(false)
        .build();
      const cleanup = await w2.cleanup(primary, r2.context());
      expect(ends(r2)).toEqual(['delete b']);
      expect(cleanup.erroredDependents.get('b')).toEqual(new Error('post failed'));
    });

    it('[WF-02] cleanup: a parent is deleted once, after the last of its dependents, even when they finish in any order', async () => {
      const r = new Recorder();
      const gb = r.gate('delete b');
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r))
        .addDependentResource(new FakeDependent('b', r), { dependsOn: ['a'] })
        .addDependentResource(new FakeDependent('c', r), { dependsOn: ['a'] })
        .build();
      const run = w.cleanup(primary, r.context());
      await flush();
      expect(ends(r)).toEqual(['delete c']);
      expect(r.log).not.toContain('start delete a');
      gb.resolve();
      const result = await run;
      expect(ends(r)).toEqual(['delete c', 'delete b', 'delete a']);
      expect(result.deleteCalledOnDependents).toEqual(['c', 'b', 'a']);
    });

    it('[WF-02] cleanup: a false delete postcondition then a true one on the next cleanup deletes the parent then', async () => {
      const r = new Recorder();
      let gone = false;
      const w = new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r))
        .addDependentResource(new FakeDependent('b', r), {
          dependsOn: ['a'],
          deletePostcondition: () => gone,
        })
        .build();
      const first = await w.cleanup(primary, r.context());
      expect(ends(r)).toEqual(['delete b']);
      expect(first.postConditionNotMetDependents).toEqual(['b']);
      gone = true;
      r.log = [];
      const second = await w.cleanup(primary, r.context());
      expect(ends(r)).toEqual(['delete b', 'delete a']);
      expect(second.allPostConditionsMet()).toBe(true);
    });
  });

  it('[WF-10] errors in several nodes are aggregated; independent nodes still reconcile', async () => {
    const r = new Recorder();
    r.failures.set('reconcile 2', new Error('two failed'));
    r.failures.set('reconcile 5', new Error('five failed'));
    const build = () =>
      diamond(r)
        .addDependentResource(new FakeDependent('5', r))
        .addDependentResource(new FakeDependent('6', r));
    const error = await build()
      .build()
      .reconcile(primary, r.context())
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(AggregatedOperatorError);
    const aggregated = error as AggregatedOperatorError;
    expect(aggregated.code).toBe('AggregatedOperatorError');
    expect([...aggregated.errorsByDependent.keys()].sort()).toEqual(['2', '5']);
    expect(aggregated.message).toContain('two failed');
    expect(ends(r)).toContain('reconcile 3');
    expect(ends(r)).toContain('reconcile 6');
    expect(r.log).not.toContain('start reconcile 4');

    // silent mode: the errors are in the result
    const result = await build().withThrowExceptionFurther(false).build().reconcile(primary, r.context());
    expect(result.erroredDependentsExist()).toBe(true);
    expect(() => result.throwAggregatedErrorIfErrorsPresent()).toThrow(AggregatedOperatorError);
  });

  it('[WF-02] cleanup runs in reverse order; a false delete postcondition or an error keeps what the node depends on', async () => {
    const r = new Recorder();
    const g2 = r.gate('delete 2');
    const run = diamond(r).build().cleanup(primary, r.context());
    await flush();
    expect(r.log).toEqual([
      'start delete 4',
      'end delete 4',
      'start delete 2',
      'start delete 3',
      'end delete 3',
    ]);
    g2.resolve();
    const result = await run;
    expect(ends(r)).toEqual(['delete 4', 'delete 3', 'delete 2', 'delete 1']);
    expect(result.deleteCalledOnDependents).toEqual(['4', '3', '2', '1']);
    expect(result.allPostConditionsMet()).toBe(true);

    const r2 = new Recorder();
    const w2 = new WorkflowBuilder<KubernetesResource>()
      .addDependentResource(new FakeDependent('1', r2))
      .addDependentResource(new FakeDependent('2', r2), {
        dependsOn: ['1'],
        deletePostcondition: () => false,
      })
      .addDependentResource(new FakeDependent('3', r2), { dependsOn: ['1'] })
      .addDependentResource(new FakeDependent('4', r2), { dependsOn: ['2', '3'] })
      .build();
    const r2result = await w2.cleanup(primary, r2.context());
    expect(ends(r2).sort()).toEqual(['delete 2', 'delete 3', 'delete 4']);
    expect(r2result.postConditionNotMetDependents).toEqual(['2']);
    expect(r2result.allPostConditionsMet()).toBe(false);

    const r3 = new Recorder();
    r3.failures.set('delete 4', new Error('x'));
    await expect(diamond(r3).build().cleanup(primary, r3.context())).rejects.toThrow(AggregatedOperatorError);
    expect(ends(r3)).toEqual(['delete 4']);
  });

  it('[WF-02] cleanup calls delete only on deleters that are not garbage collected', async () => {
    const r = new Recorder();
    const result = await diamond(r, 10, { deleter: true, garbageCollected: true })
      .build()
      .cleanup(primary, r.context());
    expect(r.log).toEqual([]);
    expect(result.deleteCalledOnDependents).toEqual([]);
    const r2 = new Recorder();
    const w = diamond(r2, 10, { creator: true }).build();
    expect(w.hasCleaner()).toBe(false);
    await w.cleanup(primary, r2.context());
    expect(r2.log).toEqual([]);
    expect(diamond(new Recorder()).build().hasCleaner()).toBe(true);
  });

  it('[WF-04] an inactive node is neither reconciled nor deleted, its dependents are deleted, its event source follows activation', async () => {
    const r = new Recorder();
    let active = false;
    const w = new WorkflowBuilder<KubernetesResource>()
      .addDependentResource(new FakeDependent('a', r), { activationCondition: () => active })
      .addDependentResource(new FakeDependent('b', r), { dependsOn: ['a'] })
      .addDependentResource(new FakeDependent('c', r))
      .build();
    const ctx = r.context();
    await w.reconcile(primary, ctx);
    expect(ends(r).sort()).toEqual(['delete b', 'reconcile c']);
    expect(r.registrations).toEqual([]);
    active = true;
    r.log = [];
    await w.reconcile(primary, ctx);
    expect(ends(r)).toEqual(['reconcile c', 'reconcile a', 'reconcile b']);
    expect(r.registrations).toEqual(['register a-source']);
    active = false;
    r.log = [];
    const cleanup = await w.cleanup(primary, ctx);
    expect(ends(r).sort()).toEqual(['delete b', 'delete c']);
    expect([...cleanup.deleteCalledOnDependents].sort()).toEqual(['b', 'c']);
    expect(r.registrations).toEqual(['register a-source', 'deregister a-source']);
  });

  it('[WF-07] a false precondition and an inactive parent together create nothing', async () => {
    const r = new Recorder();
    const w = new WorkflowBuilder<KubernetesResource>()
      .addDependentResource(new FakeDependent('a', r), { activationCondition: () => false })
      .addDependentResource(new FakeDependent('b', r), {
        dependsOn: ['a'],
        reconcilePrecondition: () => false,
      })
      .build();
    await w.reconcile(primary, r.context());
    expect(r.log.filter((l) => l.includes('reconcile'))).toEqual([]);
  });

  it('[WF-03] detailed conditions report their detail in the result', async () => {
    const r = new Recorder();
    const w = new WorkflowBuilder<KubernetesResource>()
      .addDependentResource(new FakeDependent('a', r), {
        readyPostcondition: { detailedIsMet: () => ConditionResult.unmet({ replicas: 1 }) },
        reconcilePrecondition: { isMet: () => Promise.resolve(true) },
      })
      .build();
    const result = await w.reconcile(primary, r.context());
    expect(result.getDependentConditionResult<{ replicas: number }>('a', 'ready')?.detail).toEqual({
      replicas: 1,
    });
    expect(result.getDependentConditionResult('a', 'reconcile')?.met).toBe(true);
    expect(result.getDependentConditionResult('a', 'delete')).toBeUndefined();
  });

  it('a cycle, an unknown dependsOn and duplicate names fail naming them', () => {
    const r = new Recorder();
    const cycle = () =>
      new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r), { dependsOn: ['c'] })
        .addDependentResource(new FakeDependent('b', r), { dependsOn: ['a'] })
        .addDependentResource(new FakeDependent('c', r), { dependsOn: ['b'] })
        .build();
    expect(cycle).toThrow(WorkflowConfigurationError);
    expect(cycle).toThrow(/cycle: a -> c -> b -> a/);
    const unknown = () =>
      new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r), { dependsOn: ['zz'] })
        .build();
    expect(unknown).toThrow(/"a" depends on "zz"/);
    try {
      unknown();
    } catch (e) {
      expect((e as WorkflowConfigurationError).code).toBe('UnknownDependsOn');
    }
    const dup = () =>
      new WorkflowBuilder<KubernetesResource>()
        .addDependentResource(new FakeDependent('a', r))
        .addDependentResource(new FakeDependent('a', r))
        .build();
    expect(dup).toThrow(/two workflow dependents are named "a"/);
    expect(() => new WorkflowBuilder<KubernetesResource>().withExecutorSize(0).build()).toThrow(
      /executor size/,
    );
    expect(() => new WorkflowBuilder<KubernetesResource>().dependsOn('x')).toThrow(
      /addDependentResource first/,
    );
  });
});
