import { describe, expect, it, jest } from '@jest/globals';
import type { Context } from '../../api/context.js';
import { DeleteControl, ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import { currentResourceContext } from '../../logging/resource-context.js';
import type { Logger } from '../../util/logger.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

/**
 * Adversarial review (session 5): the resource context (AsyncLocalStorage.run per reconciliation,
 * ~2.7 us of a restart's reconciliation in 0a4e57a's profile, so a candidate for a cheaper scheme).
 * Whatever carries it, every line and every `currentResourceContext()` of a reconciliation names
 * that reconciliation's resource, through awaits and timers, with many reconciliations interleaved
 * (reconcile, updateErrorStatus, cleanup), and nothing outside a reconciliation sees one.
 */
const bed = apiServerSuite();
jest.setTimeout(60_000);
const WAIT_MS = 20_000;
const N = 40;

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) {
    if (i % 2) await new Promise((resolve) => setImmediate(resolve));
    else await Promise.resolve();
  }
};

describe('review s5: the resource context of interleaved reconciliations', () => {
  it('every line and currentResourceContext() names its own resource through awaits, with 40 reconciliations interleaved, also in updateErrorStatus and cleanup; none outside', async () => {
    const ns = await newNamespace(bed.admin);
    const wrong: string[] = [];
    const lines: Array<{ where: string; name: unknown }> = [];
    const capture = (bindings: Record<string, unknown> = {}): Logger => ({
      debug: () => undefined,
      info: (message, fields) => {
        const merged = { ...bindings, ...fields };
        if (typeof merged.where === 'string')
          lines.push({ where: merged.where, name: merged['resource.name'] });
      },
      warn: () => undefined,
      error: () => undefined,
      child: (b) => capture({ ...bindings, ...b }),
    });
    const check = (where: string, name: string, context: Context<Widget>) => {
      const seen = currentResourceContext();
      if (seen?.['resource.name'] !== name || seen['resource.namespace'] !== ns)
        wrong.push(`${where} of ${name}: context names ${seen?.['resource.name']}`);
      context.logger.info('step', { where: `${where}:${name}` });
    };
    const failedOnce = new Set<string>();
    const reconciler: Reconciler<Widget> & {
      cleanup(w: Widget, c: Context<Widget>): Promise<DeleteControl>;
      updateErrorStatus(w: Widget, c: Context<Widget>, e: unknown): Promise<ErrorStatusUpdateControl<Widget>>;
    } = {
      async reconcile(w: Widget, context: Context<Widget>) {
        const name = w.metadata!.name!;
        const n = Number(name.slice(1));
        check('start', name, context);
        await ticks(n % 7);
        check('after awaits', name, context);
        await new Promise<void>((resolve) =>
          setTimeout(() => {
            check('in a timer', name, context);
            resolve();
          }, n % 3),
        );
        await context.client.get(Widget, new ResourceID(name, ns));
        check('after a request', name, context);
        if (n % 5 === 0 && !failedOnce.has(name)) {
          failedOnce.add(name);
          throw new Error('planned');
        }
        return UpdateControl.noUpdate();
      },
      async updateErrorStatus(w: Widget, context: Context<Widget>) {
        await ticks(3);
        check('updateErrorStatus', w.metadata!.name!, context);
        return ErrorStatusUpdateControl.defaultErrorProcessing();
      },
      async cleanup(w: Widget, context: Context<Widget>) {
        await ticks(Number(w.metadata!.name!.slice(1)) % 4);
        check('cleanup', w.metadata!.name!, context);
        return DeleteControl.defaultDelete();
      },
    };
    const operator = bed.operator({ logger: capture() });
    operator.register(reconciler, {
      name: 'review-s5-context',
      resourceType: Widget,
      namespaces: [ns],
      retry: { maxAttempts: 3, initialInterval: 5, intervalMultiplier: 1, maxInterval: 5 },
    });
    await operator.start();
    await Promise.all(Array.from({ length: N }, (_, i) => bed.admin.create(Widget, widget(`w${i}`, ns))));
    await waitFor(
      () =>
        Array.from({ length: N }, (_, i) => `after a request:w${i}`).every((l) =>
          lines.some((x) => x.where === l),
        ),
      'every widget reconciled',
      WAIT_MS,
    );
    await Promise.all(
      Array.from({ length: N }, (_, i) => bed.admin.delete(Widget, new ResourceID(`w${i}`, ns))),
    );
    await waitFor(
      async () => (await bed.admin.list(Widget, { namespace: ns })).items.length === 0,
      'every widget cleaned up and gone',
      WAIT_MS,
    );
    expect(wrong).toEqual([]);
    expect(lines.filter((l) => l.where.split(':')[1] !== l.name)).toEqual([]);
    expect(lines.some((l) => l.where.startsWith('updateErrorStatus'))).toBe(true);
    expect(lines.filter((l) => l.where.startsWith('cleanup')).length).toBe(N);
    // the test's own code runs in no reconciliation
    expect(currentResourceContext()).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(currentResourceContext()).toBeUndefined();
  });
});
