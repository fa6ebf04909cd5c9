/**
 * Kubernetes' CEL quantity library (`k8s.io/apiserver/pkg/cel/library/quantity.go`) over
 * @bufbuild/cel, on the package's exact quantity arithmetic. A quantity value carries its exact
 * value, so `quantity('1') == quantity('1000m')`.
 */
import { CelScalar, celError, celFunc, celMethod, mapType } from '@bufbuild/cel';
import type { CelFunc, CelMap, CelValue } from '@bufbuild/cel';
import { isQuantity, parseQuantity } from '../../../quantity/quantity.js';
import { expect, opaque } from './opaque.js';

const T = mapType(CelScalar.STRING, CelScalar.DYN);
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
const NANO = 10n ** 9n;

const wrap = (nanos: bigint): CelMap => opaque('quantity', nanos.toString());
const nanosOf = (v: CelValue, fn: string): bigint => BigInt(expect<string>('quantity', v, fn));

function operand(v: CelValue, fn: string): bigint {
  if (typeof v === 'bigint') return v * NANO;
  return nanosOf(v, fn);
}

function method(
  name: string,
  result: Parameters<typeof celMethod>[3],
  impl: (q: bigint) => CelValue,
): CelFunc {
  return celMethod(name, T, [], result, function (this: CelValue) {
    return impl(nanosOf(this, name));
  });
}

function binary(
  name: string,
  result: Parameters<typeof celMethod>[3],
  impl: (a: bigint, b: bigint) => CelValue,
): CelFunc {
  return celMethod(name, T, [CelScalar.DYN], result, function (this: CelValue, other: CelValue) {
    return impl(nanosOf(this, name), operand(other, name));
  });
}

/** The functions of the quantity library. */
export function quantityLibrary(): CelFunc[] {
  return [
    celFunc('quantity', [CelScalar.STRING], T, (s: string) => {
      try {
        return wrap(parseQuantity(s).nanos);
      } catch (err) {
        // kube's quantity() reports the parse error as ParseQuantity words it
        throw celError((err as Error).message);
      }
    }),
    celFunc('isQuantity', [CelScalar.STRING], CelScalar.BOOL, (s: string) => isQuantity(s)),
    method('sign', CelScalar.INT, (q) => (q > 0n ? 1n : q < 0n ? -1n : 0n)),
    method(
      'isInteger',
      CelScalar.BOOL,
      (q) => q % NANO === 0n && q / NANO <= INT64_MAX && q / NANO >= INT64_MIN,
    ),
    method('asInteger', CelScalar.INT, (q) => {
      if (q % NANO !== 0n || q / NANO > INT64_MAX || q / NANO < INT64_MIN)
        throw celError('cannot convert value to integer');
      return q / NANO;
    }),
    method('asApproximateFloat', CelScalar.DOUBLE, (q) => Number(q) / 1e9),
    binary('add', T, (a, b) => wrap(a + b)),
    binary('sub', T, (a, b) => wrap(a - b)),
    binary('isLessThan', CelScalar.BOOL, (a, b) => a < b),
    binary('isGreaterThan', CelScalar.BOOL, (a, b) => a > b),
    binary('compareTo', CelScalar.INT, (a, b) => (a < b ? -1n : a > b ? 1n : 0n)),
  ];
}
