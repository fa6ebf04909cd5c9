import { describe, expect, it } from '@jest/globals';
import { QuantityError, canonicalQuantity, compareQuantities, parseQuantity } from '../quantity.js';

describe('resource quantities (kube-apiserver canonical form)', () => {
  it.each([
    ['2000m', '2'],
    ['1500m', '1500m'],
    ['0.5', '500m'],
    ['1000', '1k'],
    ['1200', '1200'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['1.5Gi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['512', '512'],
    ['1023Ki', '1023Ki'],
    ['0.5Ki', '512'],
    ['1e3', '1e3'],
    ['1000e0', '1e3'],
    ['1E', '1E'],
    ['100M', '100M'],
    ['0.1n', '1n'],
    ['-2000m', '-2'],
    ['0Mi', '0'],
    ['+5', '+5'], // kube's parser keeps the sign: ParseQuantity's fast path reuses the input
    ['.5', '500m'],
  ])('%s → %s', (input, canonical) => {
    expect(canonicalQuantity(input)).toBe(canonical);
  });

  it.each(['', ' 1', '1..2', '1GiB', 'abc', '1i', '1e', '--1', '1 Gi'])('%j is not a quantity', (input) => {
    expect(() => parseQuantity(input)).toThrow(QuantityError);
  });

  it('compares exact values across formats', () => {
    expect(compareQuantities(parseQuantity('1Ki'), parseQuantity('1024'))).toBe(0);
    expect(compareQuantities(parseQuantity('1G'), parseQuantity('1Gi'))).toBe(-1);
    expect(compareQuantities(parseQuantity('100m'), parseQuantity('0.1'))).toBe(0);
  });
});
