import { describe, expect, it } from '@jest/globals';
import { ResourceID } from '../../api/resource-id.js';
import type { Metrics } from '../../metrics/metrics.js';
import { apiServerSuite, newNamespace, RecordingReconciler, waitFor, Widget, widget } from './support.js';

const bed = apiServerSuite();

/**
 * Review s11: a controller's namespace changes that overlap (JOSDK's `Controller.changeNamespaces`
 * is `synchronized`). The informer serializes its own changes (S10-IN5); the controller around it
 * must too, or the primaries of the namespace in between stay behind in the event processor: their
 * retries and reschedules, and the `cleanupDone` a user's metrics count once per primary that left.
 */
describe('review s11: overlapping namespace changes of a controller', () => {
  it('[FINDING S11-NS1] a→b→c in a row: every primary that left (a’s and b’s) is cleaned up exactly once, and c’s is reconciled', async () => {
    const [a, b, c] = [
      await newNamespace(bed.admin),
      await newNamespace(bed.admin),
      await newNamespace(bed.admin),
    ];
    for (const ns of [a, b, c]) await bed.admin.create(Widget, widget(`in-${ns}`, ns));
    const cleaned = new Map<string, number>();
    const metrics: Metrics = {
      cleanupDone: (id) => void cleaned.set(id.key, (cleaned.get(id.key) ?? 0) + 1),
    };
    const r = new RecordingReconciler();
    const registered = bed.operator({ metrics }).register(r, {
      resourceType: Widget,
      name: 's11-ns1',
      namespaces: [a],
    });
    await bed.operators[0].start();
    await waitFor(() => r.of(`in-${a}`).length === 1, 'a reconciled');

    const outcomes = await Promise.allSettled([
      registered.changeNamespaces([b]),
      registered.changeNamespaces([c]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(registered.configuration.namespaces).toEqual([c]);
    await waitFor(() => r.of(`in-${c}`).length >= 1, 'c reconciled');

    const leftA = new ResourceID(`in-${a}`, a).key;
    const leftB = new ResourceID(`in-${b}`, b).key;
    await waitFor(() => cleaned.has(leftA) && cleaned.has(leftB), 'a’s and b’s primaries cleaned up');
    expect(Object.fromEntries(cleaned)).toEqual({ [leftA]: 1, [leftB]: 1 });
  });

  it('three changes in a row end in the order they were asked, and the last one wins (passed before the S11-NS1 fix too; kept as its guard)', async () => {
    const [a, b, c] = [
      await newNamespace(bed.admin),
      await newNamespace(bed.admin),
      await newNamespace(bed.admin),
    ];
    for (const ns of [a, b, c]) await bed.admin.create(Widget, widget(`in-${ns}`, ns));
    const r = new RecordingReconciler();
    const registered = bed
      .operator()
      .register(r, { resourceType: Widget, name: 's11-ns1-order', namespaces: [a] });
    await bed.operators[0].start();
    await waitFor(() => r.of(`in-${a}`).length === 1, 'a reconciled');
    const order: string[] = [];
    await Promise.all([
      registered.changeNamespaces([b]).then(() => order.push(b)),
      registered.changeNamespaces([c]).then(() => order.push(c)),
      registered.changeNamespaces([a, c]).then(() => order.push(`${a},${c}`)),
    ]);
    expect(order).toEqual([b, c, `${a},${c}`]);
    expect(registered.configuration.namespaces).toEqual([a, c].sort());
    await waitFor(() => r.of(`in-${c}`).length >= 1, 'c reconciled');
  });
});
