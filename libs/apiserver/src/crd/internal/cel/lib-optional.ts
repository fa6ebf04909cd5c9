/**
 * The optional values kube-apiserver's CEL environment uses (`oldSelf` of an `optionalOldSelf` rule,
 * `format.named`, `validate`): `hasValue()`, `value()`, `or(opt)`, `orValue(x)`, `optional.of(x)`,
 * `optional.none()` and `optional.ofNonZeroValue(x)`. The `a.?b` and `a[?k]` syntax is in
 * optional-syntax.ts.
 */
import {
  CelScalar,
  celError,
  celFunc,
  celMethod,
  isCelList,
  isCelMap,
  isCelUint,
  mapType,
} from '@bufbuild/cel';
import type { CelFunc, CelUint, CelValue } from '@bufbuild/cel';
import { none, optionalPayload, some } from './opaque.js';
import {
  OPT_ELEMENT,
  OPT_FIELD,
  OPT_HAS,
  OPT_INDEX,
  OPT_LIST,
  OPT_MAP,
  OPT_SELECT,
} from './optional-syntax.js';

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

/** An optional's value, or the value itself when it is no optional; undefined for `optional.none()`. */
function unwrap(v: CelValue): { value: CelValue } | undefined {
  const p = optionalPayload(v);
  if (p === undefined) return { value: v };
  return p.length === 1 ? { value: p[0] as CelValue } : undefined;
}

function lookup(container: CelValue, key: CelValue): { value: CelValue } | undefined {
  if (isCelMap(container)) {
    const k =
      typeof key === 'number' && Number.isInteger(key) ? BigInt(key) : isCelUint(key) ? key.value : key;
    if (typeof k !== 'string' && typeof k !== 'bigint' && typeof k !== 'boolean') return undefined;
    const v = container.get(k);
    if (v !== undefined && v !== null) return { value: v };
    // the library's map answers has() false for a key whose value is null; look at the keys
    for (const key2 of container.keys()) if (key2 === k) return { value: null };
    return undefined;
  }
  if (isCelList(container)) {
    const i = typeof key === 'bigint' ? Number(key) : typeof key === 'number' ? key : NaN;
    if (!Number.isInteger(i) || i < 0 || i >= container.size) return undefined;
    const v = container.get(i);
    return { value: v === undefined ? null : v };
  }
  return undefined;
}

/** The runtime of optional field selection (`a.?b`) and optional index (`a[?k]`). */
export function optionalSyntaxLibrary(): CelFunc[] {
  // `a.?b` / `a[?k]`: none when a is none or lacks b
  const select = (target: CelValue, key: CelValue): CelValue => {
    const inner = unwrap(target);
    if (inner === undefined) return none();
    const found = lookup(inner.value, key);
    return found === undefined ? none() : some(found.value);
  };
  // `a.?b.c`: none when a.?b is none, an error when its value lacks c (as cel-go)
  const strict = (target: CelValue, key: CelValue): CelValue => {
    const inner = unwrap(target);
    if (inner === undefined) return none();
    const found = lookup(inner.value, key);
    if (found !== undefined) return some(found.value);
    if (isCelMap(inner.value) || isCelList(inner.value)) return none();
    throw celError(`no such key: ${typeof key === 'string' || typeof key === 'bigint' ? key : 'key'}`);
  };
  const has = (target: CelValue, key: CelValue): boolean => {
    const inner = unwrap(target);
    return inner !== undefined && lookup(inner.value, key) !== undefined;
  };
  return [
    celFunc(
      OPT_SELECT,
      [CelScalar.DYN, CelScalar.STRING],
      CelScalar.DYN,
      (t: CelValue, f: CelValue) => select(t, f) as never,
    ),
    celFunc(
      OPT_INDEX,
      [CelScalar.DYN, CelScalar.DYN],
      CelScalar.DYN,
      (t: CelValue, k: CelValue) => select(t, k) as never,
    ),
    celFunc(
      OPT_FIELD,
      [CelScalar.DYN, CelScalar.STRING],
      CelScalar.DYN,
      (t: CelValue, f: CelValue) => strict(t, f) as never,
    ),
    celFunc(
      OPT_ELEMENT,
      [CelScalar.DYN, CelScalar.DYN],
      CelScalar.DYN,
      (t: CelValue, k: CelValue) => strict(t, k) as never,
    ),
    celFunc(OPT_LIST, [CelScalar.DYN, CelScalar.DYN], CelScalar.DYN, (l: CelValue, idx: CelValue) => {
      if (!isCelList(l) || !isCelList(idx)) throw celError('no such overload: optional list');
      const optional = new Set([...idx].map((n) => Number(n)));
      const out: CelValue[] = [];
      let i = 0;
      for (const v of l) {
        const p = optional.has(i++) ? optionalPayload(v) : undefined;
        if (p === undefined) out.push(v);
        else if (p.length === 1) out.push(p[0] as CelValue);
      }
      return out;
    }),
    celFunc(OPT_MAP, [CelScalar.DYN, CelScalar.DYN], CelScalar.DYN, (m: CelValue, keys: CelValue) => {
      if (!isCelMap(m) || !isCelList(keys)) throw celError('no such overload: optional map');
      const optional = [...keys];
      const same = (a: unknown, b: unknown): boolean =>
        a === b || (isCelUint(a) && isCelUint(b) && a.value === b.value);
      const out = new Map<string | bigint | boolean | CelUint, CelValue>();
      for (const [k, v] of m.entries()) {
        const p = optional.some((o) => same(o, k)) ? optionalPayload(v) : undefined;
        if (p === undefined) out.set(k, v);
        else if (p.length === 1) out.set(k, p[0] as CelValue);
      }
      return out;
    }),
    celFunc(OPT_HAS, [CelScalar.DYN, CelScalar.STRING], CelScalar.BOOL, (t: CelValue, f: CelValue) =>
      has(t, f),
    ),
  ];
}
