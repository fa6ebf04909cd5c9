import { describe, expect, it } from '@jest/globals';
import { EventCorrelator } from '../event-correlator.js';

// The correlator's caches hold at most `cacheSize` entries, least recently used out first (bounded
// by lru-cache's maxSize since issue 15 §3, so nothing is allocated up front).
describe('EventCorrelator cache bound', () => {
  const settings = {
    cacheSize: 2,
    repeatWindowMs: 60_000,
    aggregateMaxEvents: 10,
    aggregateWindowMs: 60_000,
    spamBurst: 25,
    spamRefillMs: 300_000,
  };
  const observation = (name: string) => ({
    name,
    count: 1,
    firstTimestamp: '2026-01-01T00:00:00Z',
    lastSeen: 0,
  });

  it('keeps cacheSize written Events and drops the least recently used', () => {
    const correlator = new EventCorrelator(settings);
    correlator.written('a', observation('a'));
    correlator.written('b', observation('b'));
    expect(correlator.lastWritten('a', 0)?.name).toBe('a'); // a is now the most recently used
    correlator.written('c', observation('c'));
    expect(correlator.lastWritten('b', 0)).toBeUndefined();
    expect(correlator.lastWritten('a', 0)?.name).toBe('a');
    expect(correlator.lastWritten('c', 0)?.name).toBe('c');
  });
});
