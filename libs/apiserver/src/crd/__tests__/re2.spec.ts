import { describe, expect, it } from '@jest/globals';
import { compileRe2, PatternError } from '../internal/re2.js';
import { compileCrd, validateCrd } from '../index.js';
import { schemaAt, v0, webPageCrd } from './fixtures.js';

describe('RE2 patterns', () => {
  it('leading flag groups become flags (also after ^); \\A and \\z become anchors', () => {
    expect(compileRe2('(?i)^abc$').test('ABC')).toBe(true);
    expect(compileRe2('^(?i)abc$').test('ABC')).toBe(true);
    expect(compileRe2('(?s)a.b').test('a\nb')).toBe(true);
    expect(compileRe2('\\Aab\\z').test('ab')).toBe(true);
    expect(compileRe2('\\Aab\\z').test('ab\n')).toBe(false);
  });

  it('(?U) and malformed patterns are PatternErrors', () => {
    expect(() => compileRe2('(?U)a+')).toThrow(PatternError);
    expect(() => compileRe2('(')).toThrow(PatternError);
  });

  it('a CRD pattern with (?i) is accepted and enforced case-insensitively', () => {
    const crd = webPageCrd((c) => (schemaAt(c, 'spec', 'html').pattern = '^(?i)<p'));
    expect(validateCrd(crd)).toEqual([]);
    v0(crd).selectableFields = [];
    const v = compileCrd(crd).versions[0];
    const obj = (html: string) => ({
      apiVersion: 'sample.tosdk.io/v1',
      kind: 'WebPage',
      metadata: { name: 'x' },
      spec: { html },
    });
    expect(v.admit(obj('<P>hi'), 'create')).toEqual([]);
    expect(v.admit(obj('hi'), 'create').map((c) => c.field)).toEqual(['spec.html']);
  });
});
