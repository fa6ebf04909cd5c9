import { describe, expect, it } from '@jest/globals';
import { ExponentialBackoff, InvalidBackoffError } from '../backoff.js';

describe('ExponentialBackoff', () => {
  it('starts at 0.8 s, doubles up to 30 s, and resets', () => {
    const backoff = new ExponentialBackoff({}, () => 0.5);
    const delays = Array.from({ length: 8 }, () => backoff.next());
    expect(delays).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    expect(backoff.attempts).toBe(8);
    backoff.reset();
    expect(backoff.next()).toBe(800);
  });

  it('spreads each delay by ±jitter and never exceeds the maximum', () => {
    const low = new ExponentialBackoff({ jitter: 0.2 }, () => 0);
    const high = new ExponentialBackoff({ jitter: 0.2 }, () => 0.999999);
    expect(low.next()).toBe(640);
    expect(high.next()).toBe(960);
    for (let i = 0; i < 10; i++) high.next();
    expect(high.next()).toBe(30000);
  });

  it('rejects options out of range with InvalidBackoffError', () => {
    expect(() => new ExponentialBackoff({ initialMs: 0 })).toThrow(InvalidBackoffError);
    expect(() => new ExponentialBackoff({ initialMs: 100, maxMs: 50 })).toThrow(InvalidBackoffError);
    expect(() => new ExponentialBackoff({ factor: 0.5 })).toThrow(InvalidBackoffError);
    expect(() => new ExponentialBackoff({ jitter: 1 })).toThrow(InvalidBackoffError);
    expect(() => new ExponentialBackoff({ resetAfterMs: -1 })).toThrow(InvalidBackoffError);
  });
});
