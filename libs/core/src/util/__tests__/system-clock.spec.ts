import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { systemClock } from '../clock.js';

// Node runs a timer longer than 2^31 - 1 ms (~24.8 days) after 1 ms (Jest's fake timers do the same),
// so a 30-day maxReconciliationIntervalMs or rescheduleAfter reconciled about every millisecond
// (review S8-NE6). systemClock waits such delays in steps.
const DAY = 24 * 60 * 60 * 1000;

describe('systemClock', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('runs a 30-day callback once, after 30 days, not after 1 ms', () => {
    const runs: number[] = [];
    systemClock.setTimeout(() => runs.push(Date.now()), 30 * DAY);
    jest.advanceTimersByTime(1_000);
    expect(runs).toEqual([]);
    jest.advanceTimersByTime(25 * DAY); // past the first step of ~24.8 days
    expect(runs).toEqual([]);
    jest.advanceTimersByTime(5 * DAY - 1_001);
    expect(runs).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(runs).toEqual([1_000_000 + 30 * DAY]);
    jest.advanceTimersByTime(60 * DAY);
    expect(runs).toHaveLength(1);
  });

  it('cancels a long timer before and after its first step', () => {
    let runs = 0;
    const early = systemClock.setTimeout(() => runs++, 40 * DAY);
    const late = systemClock.setTimeout(() => runs++, 40 * DAY);
    systemClock.clearTimeout(early);
    jest.advanceTimersByTime(30 * DAY);
    systemClock.clearTimeout(late);
    jest.advanceTimersByTime(30 * DAY);
    expect(runs).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('never runs an infinite delay, and runs delays up to the limit, zero and negative ones as Node does', () => {
    const runs: string[] = [];
    systemClock.setTimeout(() => runs.push('never'), Infinity);
    systemClock.setTimeout(() => runs.push('limit'), 2 ** 31 - 1);
    systemClock.setTimeout(() => runs.push('zero'), 0);
    systemClock.setTimeout(() => runs.push('negative'), -5);
    jest.advanceTimersByTime(0);
    expect(runs).toEqual(['zero', 'negative']);
    jest.advanceTimersByTime(2 ** 31 - 1);
    expect(runs).toEqual(['zero', 'negative', 'limit']);
    jest.advanceTimersByTime(365 * DAY);
    expect(runs).toEqual(['zero', 'negative', 'limit']);
  });

  it('keeps no process alive: its timers are unref’ed, also the steps of a long one', () => {
    jest.useRealTimers();
    const keepingAlive = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = keepingAlive();
    const long = systemClock.setTimeout(() => undefined, 30 * DAY);
    const short = systemClock.setTimeout(() => undefined, 60_000);
    try {
      expect(keepingAlive()).toBe(before);
    } finally {
      systemClock.clearTimeout(long);
      systemClock.clearTimeout(short);
    }
  });
});
