import { describe, expect, it } from '@jest/globals';
import { HashRing } from '../hash-ring.js';

const keys = Array.from({ length: 3_000 }, (_, i) => `ns${i % 7}/resource-${i}`);

/** Each sampled key's owner in `ring`. */
const ownersOf = (ring: HashRing) => keys.map((k) => ring.ownerOf(k));

/** Whether no sampled key of `ring`'s share for `member` is outside `rings`' shares (owners precomputed). */
function sampledWithin(
  own: Array<string | undefined>,
  member: string,
  others: Array<Array<string | undefined>>,
): boolean {
  return own.every((o, i) => o !== member || others.some((r) => r[i] === member));
}

describe('HashRing.shareWithin (whether a cache refill can be skipped)', () => {
  it('[SH-15] a member that stays when another leaves only gains keys; when another joins it only loses keys', () => {
    const three = new HashRing(['a', 'b', 'c'], 128);
    const two = new HashRing(['a', 'c'], 128);
    const four = new HashRing(['a', 'b', 'c', 'd'], 128);
    // b leaves: a's old share lies within its new one, not the other way round
    expect(three.shareWithin('a', [two])).toBe(true);
    expect(two.shareWithin('a', [three])).toBe(false);
    // d joins: a's new share lies within its old one
    expect(four.shareWithin('a', [three])).toBe(true);
    expect(three.shareWithin('a', [four])).toBe(false);
    // the joiner's share lies within no earlier cache
    expect(four.shareWithin('d', [three])).toBe(false);
    expect(four.shareWithin('d', [])).toBe(false);
    // a union covers what each ring of it covers
    expect(two.shareWithin('a', [three, two])).toBe(true);
  });

  it('[SH-15] agrees with sampling on random member sets (never claims a share is covered when a sampled key is not)', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pool = Array.from({ length: 8 }, (_, i) => `m${i}`);
    let claimedOutside = 0;
    for (let round = 0; round < 20; round++) {
      const pick = () => pool.filter(() => random() < 0.5).concat('m0');
      const a = new HashRing(pick(), 16);
      const b = new HashRing(pick(), 16);
      const c = new HashRing(pick(), 16);
      const own = ownersOf(a);
      const others = [ownersOf(b), ownersOf(c)];
      for (const member of ['m0', ...a.members]) {
        const claimed = a.shareWithin(member, [b, c]);
        const sampled = sampledWithin(own, member, others);
        // a claim of "within" (a refill skipped) must hold for every sampled key
        if (claimed) expect([member, sampled]).toEqual([member, true]);
        else claimedOutside++;
      }
    }
    // the random sets are not all alike: some shares lie outside
    expect(claimedOutside).toBeGreaterThan(0);
  });
});
