import { describe, expect, it } from '@jest/globals';
import { clone, deepEqual } from '../internal/json.js';

/** A small deterministic generator (mulberry32) so failures reproduce. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random JSON-like value with the awkward members a desired state may hold. */
function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 3 ? 7 : 10));
  switch (pick) {
    case 0:
      return `s${Math.floor(random() * 5)}`;
    case 1:
      return Math.floor(random() * 5) - 2;
    case 2:
      return random() < 0.5;
    case 3:
      return null;
    case 4:
      return undefined;
    case 5:
      return [Number.NaN, Number.POSITIVE_INFINITY, -0, 1.5][Math.floor(random() * 4)];
    case 6:
      return new Date(Math.floor(random() * 2) * 86_400_000);
    case 7:
    case 8: {
      const out: Record<string, unknown> = {};
      const n = Math.floor(random() * 4);
      for (let i = 0; i < n; i++) out[`k${Math.floor(random() * 4)}`] = randomValue(random, depth + 1);
      return out;
    }
    default:
      return Array.from({ length: Math.floor(random() * 3) }, () => randomValue(random, depth + 1));
  }
}

/** The reference the dependents used before: equality over the union of keys. */
function referenceEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => referenceEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!referenceEqual(ao[k], bo[k])) return false;
  return true;
}

describe('dependent JSON helpers', () => {
  it('clone gives exactly what a JSON round trip gives, for 2,000 seeded awkward values', () => {
    const random = seeded(15);
    for (let i = 0; i < 2_000; i++) {
      const value = randomValue(random, 0);
      if (value === undefined) continue;
      const expected: unknown = JSON.parse(JSON.stringify(value) ?? 'null');
      const copy = clone(value);
      expect(JSON.stringify(copy)).toBe(JSON.stringify(expected));
      expect(copy).toStrictEqual(expected);
    }
  });

  it('clone handles toJSON, boxed values, __proto__ members, functions and symbols as JSON does, and copies deeply', () => {
    const source = JSON.parse('{"__proto__": {"x": 1}, "plain": {"a": [1, {"b": 2}]}}') as Record<
      string,
      unknown
    >;
    Object.assign(source, {
      when: new Date(0),
      custom: { toJSON: (key: string) => `key:${key}` },
      boxed: [Object(1), Object('s'), Object(true)],
      fn: () => 1,
      sym: Symbol('s'),
      list: [() => 1, undefined, Symbol('t')],
    });
    const copy = clone(source);
    expect(copy).toStrictEqual(JSON.parse(JSON.stringify(source)));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toContain('__proto__');
    (copy['plain'] as { a: Array<{ b: number }> }).a[1].b = 3;
    expect((source['plain'] as { a: Array<{ b: number }> }).a[1].b).toBe(2);
    expect(() => clone({ big: BigInt(1) })).toThrow(TypeError);
  });

  it('deepEqual agrees with the union-of-keys reference on 5,000 seeded pairs (undefined members ignored)', () => {
    const random = seeded(7);
    let equal = 0;
    for (let i = 0; i < 5_000; i++) {
      const a = randomValue(random, 1);
      // half the pairs start equal (a JSON copy with undefined members put back at random)
      const b = random() < 0.5 ? clone(a) : randomValue(random, 1);
      expect(deepEqual(a, b)).toBe(referenceEqual(a, b));
      expect(deepEqual(b, a)).toBe(referenceEqual(b, a));
      if (referenceEqual(a, b)) equal++;
    }
    expect(equal).toBeGreaterThan(500);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, c: undefined })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, c: 0 })).toBe(false);
    expect(deepEqual({ a: undefined }, { b: undefined })).toBe(true);
  });
});
