import { describe, expect, it, jest } from '@jest/globals';
import type { Context } from '../../api/context.js';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import type { KubernetesResource } from '../../api/resource-type.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

/**
 * Adversarial review (session 5) of the primary's copy (issue 15 §2: "a copy that is never mutated
 * can be lazy", H21/H23): whatever the copy costs, a reconciler gets a plain, mutable JSON object
 * of its own. It may keep it and change it after reconcile returned, structuredClone it, spread it,
 * and none of that reaches the cache, another controller on the same primaries, or a later
 * reconciliation; cleanup and updateErrorStatus get such copies too.
 */
const bed = apiServerSuite();
jest.setTimeout(60_000);
const WAIT_MS = 20_000;

/** Every object reachable from `o` has Object.prototype or Array.prototype, is extensible and not frozen. */
function plainProblems(o: unknown, at = 'primary', out: string[] = []): string[] {
  if (o === null || typeof o !== 'object') return out;
  const proto = Object.getPrototypeOf(o) as unknown;
  if (proto !== Object.prototype && proto !== Array.prototype) out.push(`${at}: prototype is not plain`);
  if (!Object.isExtensible(o) || Object.isFrozen(o)) out.push(`${at}: frozen or not extensible`);
  for (const [k, v] of Object.entries(o)) plainProblems(v, `${at}.${k}`, out);
  return out;
}

interface Seen {
  value?: string;
  marks: string[];
  text: string;
}

/** Records what it is handed; keeps every primary and changes them later, deep, after returning. */
class Keeper implements Reconciler<Widget> {
  readonly seen: Seen[] = [];
  readonly problems: string[] = [];
  readonly kept: Widget[] = [];

  constructor(private readonly tag: string) {}

  reconcile(w: Widget, _context: Context<Widget>): UpdateControl<Widget> {
    const text = JSON.stringify(w);
    this.seen.push({ value: w.spec?.value, marks: marksOf(w), text });
    this.problems.push(...plainProblems(w));
    // structuredClone, spread and JSON give the same object
    try {
      const cloned = structuredClone(w);
      if (JSON.stringify(cloned) !== text) this.problems.push('structuredClone differs');
      if (JSON.stringify({ ...w }) !== text) this.problems.push('spread differs');
    } catch (e) {
      this.problems.push(`structuredClone threw ${(e as Error).name}`);
    }
    this.kept.push(w);
    // after this reconciliation is over: change what it was handed, deep
    setImmediate(() => {
      for (const kept of this.kept) {
        (kept.metadata!.labels ??= {})[`late-${this.tag}`] = 'x';
        kept.spec = { ...kept.spec, value: `mutated-by-${this.tag}` };
        (kept.status ??= {}).message = `late-${this.tag}`;
        const entry = kept.metadata?.managedFields?.[0];
        if (entry) entry.manager = `late-${this.tag}`;
      }
    });
    // and now, before returning nothing to write
    (w.metadata!.annotations ??= {})[`now-${this.tag}`] = 'x';
    return UpdateControl.noUpdate();
  }
}

function marksOf(
  w: KubernetesResource & { spec?: { value?: string }; status?: { message?: string } },
): string[] {
  const marks = [
    ...Object.keys(w.metadata?.labels ?? {}).filter((k) => k.startsWith('late-')),
    ...Object.keys(w.metadata?.annotations ?? {}).filter((k) => k.startsWith('now-')),
    ...(w.metadata?.managedFields ?? []).map((e) => e.manager ?? '').filter((m) => m.startsWith('late-')),
  ];
  if (w.spec?.value?.startsWith('mutated-by-')) marks.push(`spec:${w.spec.value}`);
  if (w.status?.message?.startsWith('late-')) marks.push(`status:${w.status.message}`);
  return marks;
}

describe('review s5: the primary a reconciler is handed is its own plain object', () => {
  it('two controllers of the same widgets keep and change their primaries after returning: neither they nor later reconciliations ever see those changes', async () => {
    const ns = await newNamespace(bed.admin);
    const a = new Keeper('a');
    const b = new Keeper('b');
    const operator = bed.operator();
    operator.register(a, { name: 'review-s5-copy-a', resourceType: Widget, namespaces: [ns] });
    operator.register(b, { name: 'review-s5-copy-b', resourceType: Widget, namespaces: [ns] });
    await operator.start();
    const id = new ResourceID('w', ns);
    await bed.admin.create(Widget, widget('w', ns, { value: 'v0' }));
    for (let i = 1; i <= 6; i++) {
      await waitFor(
        () => [a, b].every((k) => k.seen.some((s) => s.value === `v${i - 1}`)),
        `both reconciled v${i - 1}`,
        WAIT_MS,
      );
      // a later reconciliation of the same version: the resync of a label change by someone else
      await bed.admin.mergePatch(Widget, id, {
        metadata: { labels: { step: String(i) } },
        spec: { value: `v${i}` },
      });
    }
    await waitFor(
      () => [a, b].every((k) => k.seen.some((s) => s.value === 'v6')),
      'both reconciled v6',
      WAIT_MS,
    );
    expect([...a.problems, ...b.problems]).toEqual([]);
    expect([...a.seen, ...b.seen].flatMap((s) => s.marks)).toEqual([]);
    expect([...a.seen, ...b.seen].map((s) => s.value).filter((v) => v?.startsWith('mutated'))).toEqual([]);
    // the operator wrote nothing: the server holds what the admin wrote
    const served = await bed.admin.get(Widget, id);
    expect(served?.spec?.value).toBe('v6');
    expect(Object.keys(served?.metadata?.labels ?? {})).toEqual(['step']);
  });

  it('cleanup and updateErrorStatus are handed their own copies: changes they keep making after returning reach no later run', async () => {
    const ns = await newNamespace(bed.admin);
    const texts: Array<{ kind: string; marks: string[]; problems: string[] }> = [];
    const kept: Widget[] = [];
    const keep = (kind: string, w: Widget) => {
      texts.push({ kind, marks: marksOf(w), problems: plainProblems(w) });
      kept.push(w);
      setImmediate(() => {
        for (const k of kept) {
          (k.metadata!.labels ??= {})['late-x'] = 'x';
          (k.status ??= {}).message = 'late-x';
        }
      });
    };
    let failures = 0;
    const reconciler: Reconciler<Widget> & {
      cleanup(w: Widget): DeleteControl;
      updateErrorStatus(w: Widget, c: Context<Widget>, e: unknown): ErrorStatusUpdateControl<Widget>;
    } = {
      reconcile(w: Widget) {
        keep('reconcile', w);
        if (w.spec?.value === 'fail' && failures++ < 2) throw new Error('planned failure');
        return UpdateControl.noUpdate();
      },
      updateErrorStatus(w: Widget) {
        keep('updateErrorStatus', w);
        return ErrorStatusUpdateControl.defaultErrorProcessing();
      },
      cleanup(w: Widget) {
        keep('cleanup', w);
        return DeleteControl.defaultDelete();
      },
    };
    const operator = bed.operator();
    operator.register(reconciler, {
      name: 'review-s5-copy-cleaner',
      resourceType: Widget,
      namespaces: [ns],
      retry: { maxAttempts: 5, initialInterval: 10, intervalMultiplier: 1, maxInterval: 10 },
    });
    await operator.start();
    const id = new ResourceID('w', ns);
    await bed.admin.create(Widget, widget('w', ns, { value: 'fail' }));
    await waitFor(
      () => texts.filter((t) => t.kind === 'reconcile').length >= 3,
      'failed twice, then ran',
      WAIT_MS,
    );
    await bed.admin.delete(Widget, id);
    await waitFor(async () => (await bed.admin.get(Widget, id)) === undefined, 'deleted', WAIT_MS);
    expect(texts.map((t) => t.kind)).toEqual(
      expect.arrayContaining(['reconcile', 'updateErrorStatus', 'cleanup']),
    );
    expect(texts.flatMap((t) => [...t.marks, ...t.problems])).toEqual([]);
  });
});
