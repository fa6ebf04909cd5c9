import { describe, it, expect } from '@jest/globals';
import type { KubernetesResource } from '../../api/resource-type.js';
import { FakeClock } from '../../operator/leader-election/__tests__/fake-clock.js';
import { EventRecorder } from '../event-recorder.js';
import { EventSinkDouble } from './event-sink-double.js';

const page: KubernetesResource = {
  apiVersion: 'sample.tosdk.io/v1',
  kind: 'WebPage',
  metadata: { name: 'home', namespace: 'web', uid: 'uid-1', resourceVersion: '42' },
};

function setup() {
  const clock = new FakeClock(Date.UTC(2026, 10, 24, 8, 0, 0));
  const sink = new EventSinkDouble();
  const recorder = new EventRecorder(sink, { component: 'webpage-operator', clock });
  return { clock, sink, recorder };
}

describe('EventRecorder review (session 9)', () => {
  // client-go tools/record/events_cache.go getSpamKey: source, involved object and event.Type, so
  // Normal and Warning events about one object have a token bucket each
  it('[FINDING S9-EV1] a burst of Normal events about an object does not suppress its Warning events', async () => {
    const { sink, recorder } = setup();
    for (let i = 0; i < 25; i++) await recorder.normal(page, `Step${i}`, `step ${i}`);
    expect(sink.list()).toHaveLength(25);
    await recorder.warning(page, 'ReconcileFailed', 'the backend refused the change');
    expect(sink.list().filter((e) => e.type === 'Warning')).toHaveLength(1);
    // the Normal bucket is still empty
    await recorder.normal(page, 'Step25', 'step 25');
    expect(sink.list().filter((e) => e.type === 'Normal')).toHaveLength(25);
  });

  // client-go tools/record/events_cache.go EventCorrelate: eventObserve counts the occurrence in the
  // cache before the spam filter decides, so the next Event written carries every occurrence
  // ("x31"), not only those that got a token ("x26")
  it('[FINDING S9-EV9] occurrences dropped by the spam filter still count on the next write of the Event', async () => {
    const { sink, recorder, clock } = setup();
    for (let i = 0; i < 30; i++) await recorder.warning(page, 'ReconcileFailed', 'backend down');
    expect(sink.list()).toHaveLength(1);
    expect(sink.list()[0].count).toBe(25);
    await clock.advance(300_000);
    await recorder.warning(page, 'ReconcileFailed', 'backend down');
    expect(sink.list()).toHaveLength(1);
    expect(sink.list()[0].count).toBe(31);
  });
});
