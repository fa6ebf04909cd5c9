import { describe, expect, it } from '@jest/globals';
import type { Context } from '../../api/context.js';
import { ErrorStatusUpdateControl, InvalidControlArgumentError } from '../../api/controls.js';
import type { Reconciler } from '../../api/reconciler.js';
import type { Metrics } from '../../metrics/metrics.js';
import { apiServerSuite, newNamespace, waitFor, Widget, widget } from '../../operator/__tests__/support.js';

const bed = apiServerSuite();

// JOSDK's ErrorStatusUpdateControl: `rescheduleAfter` "is not considered as retry, it effectively
// cancels retry" (it calls withNoRetry), and `defaultErrorProcessing()` means the error is handled as
// if updateErrorStatus were absent, so withNoRetry/rescheduleAfter on it are refused
// (IllegalStateException there).
describe('ErrorStatusUpdateControl as JOSDK defines it', () => {
  it('[FINDING S14-EC1] [EP-09] rescheduleAfter cancels the retry: the failing resource is reconciled again after the delay past maxAttempts, each run with fresh retry info, and no retry is counted', async () => {
    const ns = await newNamespace(bed.admin);
    const retries: number[] = [];
    const metrics: Metrics = { retrying: (_id, _c, attempt) => void retries.push(attempt) };
    const attempts: Array<{ count: number; last: boolean }> = [];
    let runs = 0;
    const reconciler: Reconciler<Widget> = {
      reconcile: () => {
        runs++;
        throw new Error(`still failing (${runs})`);
      },
      updateErrorStatus: (resource: Widget, context: Context<Widget>) => {
        const info = context.getRetryInfo();
        attempts.push({ count: info?.attemptCount ?? 0, last: info?.isLastAttempt ?? false });
        resource.status = { message: `failed ${runs}` };
        return ErrorStatusUpdateControl.patchStatus(resource).rescheduleAfter(20);
      },
    };
    bed.operator({ metrics }).register(reconciler, {
      resourceType: Widget,
      name: 'error-reschedule',
      namespaces: [ns],
      // one retry at most: with the policy's retries, the second failure would end the runs
      retry: { maxAttempts: 1, initialInterval: 10 },
    });
    await bed.operators[0].start();
    await bed.admin.create(Widget, widget('w', ns));
    await waitFor(() => runs >= 5, 'five runs of a resource whose reconcile always fails', 20_000);
    expect(retries).toEqual([]);
    // every run starts as a first attempt: a reschedule, not a retry
    expect(attempts.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => ({ count: 0, last: false })));
  });

  it('[FINDING S14-EC2] defaultErrorProcessing() refuses withNoRetry and rescheduleAfter with a typed error that says what to use', () => {
    expect(() => ErrorStatusUpdateControl.defaultErrorProcessing().withNoRetry()).toThrow(
      InvalidControlArgumentError,
    );
    expect(() => ErrorStatusUpdateControl.defaultErrorProcessing().rescheduleAfter(1_000)).toThrow(
      /defaultErrorProcessing\(\).*noStatusUpdate\(\)/,
    );
    // noStatusUpdate is the control that may stop the retries
    expect(ErrorStatusUpdateControl.noStatusUpdate().withNoRetry().noRetry).toBe(true);
    expect(ErrorStatusUpdateControl.noStatusUpdate().rescheduleAfter(5).noRetry).toBe(true);
  });
});
