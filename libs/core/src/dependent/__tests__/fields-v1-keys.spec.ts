import { describe, expect, it } from '@jest/globals';
import { pruneToFields } from '../internal/fields-v1.js';
import { matchesManagedFields } from '../matchers.js';

/**
 * Keyed list items (`k:{"uid":"…"}`: every owned object's field set names its owner reference so) are
 * selected by the key's JSON, whatever way the key is read (issue 15 §2 tried a hand-written reader of
 * the one-member form; see parsedKey). These tests pin that: the compact key selects what the same
 * selector written with whitespace selects, keys that are no JSON select nothing, and a changed owner
 * reference is a difference for the matcher.
 */

/** xorshift32, seeded: the same cases on every run. */
function random(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x1_0000_0000;
  };
}

// characters that matter to the short path: quotes, backslashes, the key's own punctuation, control
// characters, spaces, non-ASCII and a surrogate pair
const ALPHABET = [
  'a',
  'b',
  'Z',
  '0',
  '-',
  '"',
  '\\',
  ':',
  '{',
  '}',
  ',',
  ' ',
  '\n',
  '\t',
  '\u0001',
  'é',
  '😀',
  '/',
];

function text(next: () => number, max: number): string {
  const length = Math.floor(next() * (max + 1));
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return out;
}

/** What the list's field set `{[key]: {}}` keeps of `list` (pruned to that one path element). */
const picked = (list: unknown[], key: string): unknown =>
  pruneToFields({ items: list }, { 'f:items': { [key]: {} } });

describe('keyed list items of a field set', () => {
  it('a compact one-member key selects what the same selector with whitespace selects (2,000 seeded cases)', () => {
    const next = random(0x15_02);
    let selected = 0;
    for (let c = 0; c < 2_000; c++) {
      const name = next() < 0.1 ? '__proto__' : text(next, 4);
      const value = text(next, 6);
      const other = text(next, 6);
      const list = [
        JSON.parse(`{${JSON.stringify(name)}:${JSON.stringify(other)}}`) as unknown,
        JSON.parse(`{${JSON.stringify(name)}:${JSON.stringify(value)},"x":1}`) as unknown,
        { [name === '__proto__' ? 'n' : name]: value },
      ];
      const selector = JSON.parse(`{${JSON.stringify(name)}:${JSON.stringify(value)}}`) as unknown;
      const compact = `k:${JSON.stringify(selector)}`;
      const spaced = `k:${JSON.stringify(selector, null, 1)}`;
      const got = picked(list, compact);
      expect({ compact, got }).toEqual({ compact, got: picked(list, spaced) });
      if (JSON.stringify(got) !== '{"items":[]}') selected++;
    }
    // the cases select items, so a short path selecting nothing would fail above
    expect(selected).toBeGreaterThan(1_000);
  });

  it('keys that are no JSON select nothing, however close to the one-member form (2,000 seeded cases)', () => {
    const next = random(0x15_03);
    let tried = 0;
    for (let c = 0; c < 2_000; c++) {
      const name = text(next, 3);
      const value = text(next, 3);
      const key = `k:{"${name}":"${value}"}`;
      let json = true;
      try {
        JSON.parse(key.slice(2));
      } catch {
        json = false;
      }
      if (json) continue;
      tried++;
      // the item a key read by position, without JSON's rules, would select
      const list = [{ [name]: value }, { a: 'b' }];
      expect({ key, got: picked(list, key) }).toEqual({ key, got: { items: [] } });
    }
    expect(tried).toBeGreaterThan(500);
  });

  it('edge forms: empty name and value, an empty value, a member named __proto__, several members', () => {
    const list = [{ '': '' }, { a: '' }, { a: 'b', c: 'd' }, JSON.parse('{"__proto__":"p"}') as unknown];
    expect(picked(list, 'k:{"":""}')).toEqual({ items: [{ '': '' }] });
    expect(picked(list, 'k:{"a":""}')).toEqual({ items: [{ a: '' }] });
    expect(picked(list, 'k:{"a":"b","c":"d"}')).toEqual({ items: [{ a: 'b', c: 'd' }] });
    expect(picked(list, 'k:{"__proto__":"p"}')).toEqual({ items: [list[3]] });
    expect(picked(list, 'k:{"a":"}')).toEqual({ items: [] });
    expect(picked(list, 'k:{"a"}')).toEqual({ items: [] });
  });

  it('an owner reference taken over by another uid is a difference; our own one matches', () => {
    const uid = 'b3f1c2d4-0000-4000-8000-000000000001';
    const desired = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'w-cm',
        namespace: 'ns',
        ownerReferences: [{ apiVersion: 'x.io/v1', kind: 'W', name: 'w', uid, controller: true }],
      },
      data: { value: 'v' },
    };
    const actual = (ownerUid: string, fieldUid: string) => ({
      ...desired,
      metadata: {
        ...desired.metadata,
        ownerReferences: [{ ...desired.metadata.ownerReferences[0], uid: ownerUid }],
        managedFields: [
          {
            manager: 'me',
            operation: 'Apply',
            apiVersion: 'v1',
            fieldsType: 'FieldsV1',
            fieldsV1: {
              'f:data': { 'f:value': {} },
              'f:metadata': { 'f:ownerReferences': { [`k:{"uid":"${fieldUid}"}`]: {} } },
            },
          },
        ],
      },
    });
    expect(matchesManagedFields(actual(uid, uid), desired, 'me')).toBe(true);
    const other = 'b3f1c2d4-0000-4000-8000-000000000002';
    expect(matchesManagedFields(actual(other, other), desired, 'me')).toBe(false);
    expect(matchesManagedFields(actual(uid, other), desired, 'me')).toBe(false);
  });
});
