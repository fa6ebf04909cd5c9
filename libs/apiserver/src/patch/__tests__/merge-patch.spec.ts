import { describe, expect, it } from '@jest/globals';
import { applyMergePatch, PatchError } from '../index.js';
import type { JsonObject } from '../../types.js';

describe('applyMergePatch (RFC 7386)', () => {
  it('[EP-24] null removes a field; objects merge; arrays replace; input unchanged', () => {
    const target: JsonObject = {
      metadata: { name: 'x', labels: { a: '1', b: '2' }, finalizers: ['f1', 'f2'] },
      status: { phase: 'Running', message: 'ok' },
    };
    const before = structuredClone(target);
    const out = applyMergePatch(target, {
      metadata: { labels: { b: null, c: '3' }, finalizers: ['f3'] },
      status: { message: null },
    });
    expect(out).toEqual({
      metadata: { name: 'x', labels: { a: '1', c: '3' }, finalizers: ['f3'] },
      status: { phase: 'Running' },
    });
    expect(target).toEqual(before);
  });

  it('RFC 7386 appendix examples', () => {
    const cases: [JsonObject, JsonObject, JsonObject][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, expected] of cases) expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('does not share patch values with the result', () => {
    const patch = { spec: { list: [{ a: 1 }] } };
    const out = applyMergePatch({}, patch);
    patch.spec.list[0].a = 2;
    expect(out).toEqual({ spec: { list: [{ a: 1 }] } });
  });

  it('does not share target values with the result, at any depth the patch reaches or not', () => {
    const target: JsonObject = { a: { b: { c: 1, d: [{ e: 1 }] } }, f: { g: 1 } };
    const before = structuredClone(target);
    const out = applyMergePatch(target, { a: { b: { c: 2 } } }) as { a: { b: JsonObject }; f: JsonObject };
    expect(out).toEqual({ a: { b: { c: 2, d: [{ e: 1 }] } }, f: { g: 1 } });
    (out.a.b.d as JsonObject[])[0].e = 9;
    out.f.g = 9;
    out.a.b.x = 1;
    expect(target).toEqual(before);
  });

  it('a patch that is not an object gives PatchError NotAnObject (400)', () => {
    for (const patch of [[], 'x', null, 1, true]) {
      let caught: unknown;
      try {
        applyMergePatch({ a: 1 }, patch);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PatchError);
      expect([(caught as PatchError).code, (caught as PatchError).status]).toEqual(['NotAnObject', 400]);
    }
  });
});
