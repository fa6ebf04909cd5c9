import { describe, expect, it } from '@jest/globals';
import { EventCorrelator } from '../internal/event-correlator.js';
import type { KubernetesEvent } from '../kubernetes-event.js';

const settings = {
  cacheSize: 4096,
  repeatWindowMs: 600_000,
  aggregateMaxEvents: 10,
  aggregateWindowMs: 600_000,
  spamBurst: 1_000_000,
  spamRefillMs: 1,
};

function event(message: string): KubernetesEvent {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { namespace: 'web' },
    involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'home', namespace: 'web', uid: 'u1' },
    type: 'Normal',
    reason: 'Scaled',
    message,
    source: { component: 'webpage-operator' },
    reportingComponent: 'webpage-operator',
  };
}

/** The messages the correlator keeps for the aggregation of one (object, type, reason) (white box). */
function keptMessages(correlator: EventCorrelator): number {
  const aggregates = (
    correlator as unknown as {
      aggregates: { values(): IterableIterator<{ messages: Set<string> }> };
    }
  ).aggregates;
  let kept = 0;
  for (const entry of aggregates.values()) kept += entry.messages.size;
  return kept;
}

describe('EventCorrelator review (session 9)', () => {
  // client-go tools/record/events_cache.go EventAggregate: "do not grow our local key set any larger
  // than max" (PopAny once the set reached maxEvents). Here every distinct message stayed in the set
  // as long as one came within 10 minutes of the last: an object with a periodic event whose
  // message varies ("scaled to 3 at 12:01") grew the set by one string per event, for ever.
  it('[FINDING S9-EV7] the similar-message aggregation keeps at most aggregateMaxEvents messages per key', () => {
    const correlator = new EventCorrelator(settings);
    let now = Date.UTC(2026, 10, 24, 8, 0, 0);
    const results = [];
    for (let i = 0; i < 5_000; i++) {
      now += 60_000; // one a minute: the window never lapses
      results.push(correlator.correlate(event(`scaled to ${i % 7} replicas at minute ${i}`), now));
    }
    // behaviour is unchanged: from the 10th distinct message on, all are combined
    expect(results.slice(0, 9).every((r) => !r.skip && !r.message.startsWith('(combined'))).toBe(true);
    expect(results.slice(9).every((r) => !r.skip && r.message.startsWith('(combined'))).toBe(true);
    expect(keptMessages(correlator)).toBeLessThanOrEqual(settings.aggregateMaxEvents);
  });
});
