import { describe, expect, it } from '@jest/globals';
import { deepEqual } from '../json.js';

describe('deepEqual', () => {
  it('ignores key order and keys that hold undefined, on both sides', () => {
    expect(deepEqual({ a: 1, b: { c: [1, { d: 2 }] } }, { b: { c: [1, { d: 2 }] }, a: 1 })).toBe(true);
    expect(deepEqual({ a: 1, x: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, x: undefined })).toBe(true);
    expect(deepEqual({ a: undefined }, { b: undefined })).toBe(true);
  });

  it('tells apart a missing key, a null, a different count and a different nested value', () => {
    expect(deepEqual({ a: 1, b: null }, { a: 1 })).toBe(false);
    expect(deepEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(deepEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(deepEqual({ a: { b: [1, 2] } }, { a: { b: [2, 1] } })).toBe(false);
    expect(deepEqual([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(deepEqual({ 0: 1, 1: 2 }, [1, 2])).toBe(false);
    expect(deepEqual({}, null)).toBe(false);
    expect(deepEqual('1', 1)).toBe(false);
  });

  it('compares an own __proto__ key (as JSON.parse makes it) as data, never the prototype', () => {
    const a = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as Record<string, unknown>;
    const b = JSON.parse('{"y": 2, "__proto__": {"x": 1}}') as Record<string, unknown>;
    const c = JSON.parse('{"y": 2, "__proto__": {"x": 2}}') as Record<string, unknown>;
    expect(deepEqual(a, b)).toBe(true);
    expect(deepEqual(a, c)).toBe(false);
    expect(deepEqual(a, { y: 2 })).toBe(false);
  });

  it('counts only own keys, not inherited ones', () => {
    const proto = { inherited: 1 };
    const a = Object.assign(Object.create(proto) as Record<string, unknown>, { k: 1 });
    expect(deepEqual(a, { k: 1 })).toBe(true);
    expect(deepEqual({ k: 1 }, a)).toBe(true);
  });
});
