/**
 * The optional values kube-apiserver's CEL environment uses (`oldSelf` of an `optionalOldSelf` rule,
 * `format.named`, `validate`): `hasValue()`, `value()`, `or(opt)`, `orValue(x)`, `optional.of(x)`,
 * `optional.none()` and `optional.ofNonZeroValue(x)`. The `a.?b` and `a[?k]` syntax is in
 * optional-syntax.ts.
 */
import { CelScalar, celError, celFunc, celMethod, isCelList, isCelMap, mapType } from '@bufbuild/cel';
import type { CelFunc, CelValue } from '@bufbuild/cel';
import { none, optionalPayload, some } from './opaque.js';

const T = mapType(CelScalar.STRING, CelScalar.DYN);

function payload(v: CelValue, fn: string): readonly unknown[] {
  const p = optionalPayload(v);
  if (p === undefined) throw celError(`no such overload: ${fn}`);
  return p;
}

function isZero(v: CelValue): boolean {
  if (v === null || v === false || v === 0n || v === 0 || v === '') return true;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isCelList(v) || isCelMap(v)) return v.size === 0;
  return false;
}

/** The functions of optional values. */
export function optionalLibrary(): CelFunc[] {
  return [
    celMethod('hasValue', T, [], CelScalar.BOOL, function (this: CelValue) {
      return payload(this, 'hasValue').length === 1;
    }),
    celMethod('value', T, [], CelScalar.DYN, function (this: CelValue) {
      const p = payload(this, 'value');
      if (p.length === 0) throw celError('optional.none() dereference');
      return p[0] as never;
    }),
    celMethod('orValue', T, [CelScalar.DYN], CelScalar.DYN, function (this: CelValue, other: CelValue) {
      const p = payload(this, 'orValue');
      return (p.length === 1 ? p[0] : other) as never;
    }),
    celMethod('or', T, [T], T, function (this: CelValue, other: CelValue) {
      return (payload(this, 'or').length === 1 ? this : (payload(other, 'or'), other)) as never;
    }),
    celFunc('optional.none', [], T, () => none()),
    celFunc('optional.of', [CelScalar.DYN], T, (v: CelValue) => some(v as never)),
    celFunc('optional.ofNonZeroValue', [CelScalar.DYN], T, (v: CelValue) =>
      isZero(v) ? none() : some(v as never),
    ),
  ];
}
