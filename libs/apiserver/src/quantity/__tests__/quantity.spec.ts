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

describe('parseQuantity: values and formats of apimachinery quantity_test.go TestQuantityParse cases', () => {
  const NANO = 10n ** 9n;
  it.each([
    ['100.035k', 100035n * NANO, 'DecimalSI'],
    ['0.0005k', 500000000n, 'DecimalSI'],
    ['1.3E+6', 1300000n * NANO, 'DecimalExponent'],
    ['3.001n', 4n, 'DecimalSI'],
    ['1.1E-9', 2n, 'DecimalExponent'],
    ['0.00000012354', 124n, 'DecimalSI'],
    ['9Ei', (2n ** 63n - 1n) * NANO, 'BinarySI'],
    ['9223372036854775807Ki', (2n ** 63n - 1n) * NANO, 'BinarySI'],
    ['12E', 12n * 10n ** 27n, 'DecimalSI'],
    ['100.035Ki', 10243584n * 10n ** 7n, 'BinarySI'],
    ['0.05Gi', 536870912n * 10n ** 8n, 'BinarySI'],
    ['0.000000000001Ki', 2n, 'DecimalSI'],
    ['1.', NANO, 'DecimalSI'],
    ['1.G', NANO * NANO, 'DecimalSI'],
  ] as const)('%s', (input, nanos, format) => {
    const q = parseQuantity(input);
    expect([q.nanos, q.format]).toEqual([nanos, format]);
  });

  it.each([
    ['.001Ki', '1024m'],
    ['.000000001Ki', '1024n'],
    ['1.1Ki', '1126400m'],
    ['1080000000n', '1080m'],
    ['.001e12', '1e9'],
    ['0.001e0', '1e-3'],
    ['1000e-12', '1e-9'],
    ['307200Ki', '300Mi'],
    ['1000E', '1'], // kube has no suffix past E and writes the mantissa alone
  ])('%s is written back as %s', (input, text) => {
    expect(canonicalQuantity(input)).toBe(text);
  });
});
