import { describe, expect, it } from '@jest/globals';
import type { Context } from '../../api/context.js';
import { ErrorStatusUpdateControl, UpdateControl } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import { ResourceID } from '../../api/resource-id.js';
import type { Metrics } from '../../metrics/metrics.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

const bed = apiServerSuite();

/** Records the execution outcome hooks as `kind:outcome` per resource name. */
function recordingMetrics(): { metrics: Metrics; outcomes: string[]; errors: unknown[]; retries: number[] } {
  const outcomes: string[] = [];
  const errors: unknown[] = [];
  const retries: number[] = [];
  const metrics: Metrics = {
    reconcileSucceeded: (id, _c, kind) => void outcomes.push(`${id.name}:${kind}:succeeded`),
    reconcileFailed: (id, _c, kind, error) => {
      outcomes.push(`${id.name}:${kind}:failed`);
      errors.push(error);
    },
    retrying: (_id, _c, attempt) => void retries.push(attempt),
  };
  return { metrics, outcomes, errors, retries };
}

describe('failed reconciliations count as failed in the metrics, whether retried or not', () => {
  it.each([
    ['patchStatus(...).withNoRetry()', (w: Widget) => ErrorStatusUpdateControl.patchStatus(w).withNoRetry()],
    ['noStatusUpdate().withNoRetry()', () => ErrorStatusUpdateControl.noStatusUpdate<Widget>().withNoRetry()],
  ])(
    '[EP-09][OP-07] a failure ended by %s calls reconcileFailed (not reconcileSucceeded) and is not retried',
    async (_name, control) => {
      const ns = await newNamespace(bed.admin);
      const { metrics, outcomes, errors, retries } = recordingMetrics();
      let runs = 0;
      const reconciler: Reconciler<Widget> = {
        reconcile: () => {
          runs++;
          throw new Error(`boom ${runs}`);
        },
        updateErrorStatus: (resource: Widget, _context: Context<Widget>) => {
          resource.status = { message: `failed ${runs}` };
          return control(resource);
        },
      };
      bed.operator({ metrics }).register(reconciler, {
        resourceType: Widget,
        name: 'noretry-metrics',
        namespaces: [ns],
        retry: { maxAttempts: 5, initialInterval: 10 },
      });
      await bed.operators[0].start();
      await bed.admin.create(Widget, widget('w', ns));
      await waitFor(() => outcomes.length >= 1, 'an outcome hook', 20_000);
      expect(outcomes).toEqual(['w:reconcile:failed']);
      expect(String(errors[0])).toContain('boom 1');

      // a second failure, by a new event, counts again; neither is retried
      await bed.admin.mergePatch(Widget, new ResourceID('w', ns), { spec: { value: 'b' } });
      await waitFor(() => outcomes.length >= 2, 'a second outcome hook', 20_000);
      expect(outcomes).toEqual(['w:reconcile:failed', 'w:reconcile:failed']);
      expect(retries).toEqual([]);
      expect(runs).toBe(2);
    },
  );

  it('[OP-07] a retried failure still calls reconcileFailed once per failed attempt, then reconcileSucceeded', async () => {
    const ns = await newNamespace(bed.admin);
    const { metrics, outcomes, retries } = recordingMetrics();
    let runs = 0;
    const ok: Reconciler<Widget> = {
      reconcile: () => {
        runs++;
        if (runs < 3) throw new Error(`boom ${runs}`);
        return UpdateControl.noUpdate<Widget>();
      },
    };
    bed.operator({ metrics }).register(ok, {
      resourceType: Widget,
      name: 'retry-metrics',
      namespaces: [ns],
      retry: { maxAttempts: 5, initialInterval: 10 },
    });
    await bed.operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => outcomes.includes('w:reconcile:succeeded'), 'success after retries', 20_000);
    expect(outcomes).toEqual(['w:reconcile:failed', 'w:reconcile:failed', 'w:reconcile:succeeded']);
    expect(retries).toEqual([1, 2]);
  });
});
