/**
 * Kubernetes' CEL list, set and regex libraries (`k8s.io/apiserver/pkg/cel/library`: lists.go,
 * sets.go, regex.go) over @bufbuild/cel: `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`,
 * `sets.contains`, `sets.equivalent`, `sets.intersects`, `find` and `findAll`.
 */
import {
  CelScalar,
  celError,
  celFunc,
  celMethod,
  isCelList,
  isCelMap,
  isCelUint,
  listType,
} from '@bufbuild/cel';
import type { CelFunc, CelList, CelValue } from '@bufbuild/cel';
import { compileRe2 } from '../re2.js';

const LIST = listType(CelScalar.DYN);

function items(l: CelList): CelValue[] {
  return [...l];
}

/** Numeric view of a comparable CEL value, for ordering. */
function ordinal(v: CelValue): bigint | number | string | boolean | undefined {
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean')
    return v;
  if (isCelUint(v)) return v.value;
  return undefined;
}

function compare(a: CelValue, b: CelValue, fn: string): number {
  const x = ordinal(a);
  const y = ordinal(b);
  if (x === undefined || y === undefined || typeof x !== typeof y) throw celError(`no such overload: ${fn}`);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** CEL equality of the values lists hold (numbers compare across int, uint and double). */
export function celEquals(a: CelValue, b: CelValue): boolean {
  const na = ordinal(a);
  const nb = ordinal(b);
  if (na !== undefined && nb !== undefined) {
    if (
      typeof na === 'string' ||
      typeof nb === 'string' ||
      typeof na === 'boolean' ||
      typeof nb === 'boolean'
    )
      return na === nb;
    return Number(na) === Number(nb) && (typeof na === typeof nb ? na === nb : true);
  }
  if (a === null || b === null) return a === b;
  if (isCelList(a) && isCelList(b)) {
    const x = items(a);
    const y = items(b);
    return x.length === y.length && x.every((v, i) => celEquals(v, y[i]));
  }
  if (isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      if (!b.has(k)) return false;
      const w = b.get(k);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array)
    return a.length === b.length && a.every((x, i) => x === b[i]);
  return false;
}

function sum(this: CelList): NonNullable<CelValue> {
  const xs = items(this);
  if (xs.length === 0) return 0n;
  let acc = xs[0] as NonNullable<CelValue>;
  for (const x of xs.slice(1)) {
    if (typeof acc === 'bigint' && typeof x === 'bigint') acc = acc + x;
    else if (typeof acc === 'number' && typeof x === 'number') acc = acc + x;
    else throw celError('no such overload: sum');
  }
  return acc;
}

function extreme(sign: 1 | -1, fn: 'min' | 'max'): (this: CelList) => NonNullable<CelValue> {
  return function (this: CelList): NonNullable<CelValue> {
    const xs = items(this);
    if (xs.length === 0) throw celError(`${fn} called on empty list`);
    let best: CelValue = xs[0];
    for (const x of xs.slice(1)) if (compare(x, best, fn) * sign < 0) best = x;
    if (best === null) throw celError(`no such overload: ${fn}`);
    return best;
  };
}

const regexCache = new Map<string, RegExp>();
function regex(pattern: string, flags: string): RegExp {
  const k = `${flags}/${pattern}`;
  let r = regexCache.get(k);
  if (!r) {
    try {
      r = compileRe2(pattern, flags);
    } catch (err) {
      throw celError(`error parsing regexp: ${(err as Error).message}`);
    }
    if (regexCache.size > 500) regexCache.clear();
    regexCache.set(k, r);
  }
  return r;
}

function findAll(s: string, pattern: string, limit: bigint): string[] {
  if (limit === 0n) return [];
  const out: string[] = [];
  const re = regex(pattern, 'g');
  re.lastIndex = 0;
  for (const m of s.matchAll(re)) {
    out.push(m[0]);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

/** cel-go's `split(sep, n)`: at most n parts, the last holding the rest (n < 0: all; 0: none). */
function splitN(s: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  const all = s.split(sep);
  if (n < 0n || BigInt(all.length) <= n) return all;
  const k = Number(n);
  return [...all.slice(0, k - 1), all.slice(k - 1).join(sep)];
}

/** The functions of the list, set and regex libraries. */
export function listLibrary(): CelFunc[] {
  return [
    // @bufbuild/cel 0.6's strings extension drops the remainder of split(sep, n); this is cel-go's
    celMethod(
      'split',
      CelScalar.STRING,
      [CelScalar.STRING, CelScalar.INT],
      listType(CelScalar.STRING),
      function (this: string, sep: string, n: bigint) {
        return splitN(this, sep, n);
      },
    ),
    celMethod('isSorted', LIST, [], CelScalar.BOOL, function (this: CelList) {
      const xs = items(this);
      for (let i = 1; i < xs.length; i++) if (compare(xs[i - 1], xs[i], 'isSorted') > 0) return false;
      return true;
    }),
    celMethod('sum', LIST, [], CelScalar.DYN, sum),
    celMethod('min', LIST, [], CelScalar.DYN, extreme(1, 'min')),
    celMethod('max', LIST, [], CelScalar.DYN, extreme(-1, 'max')),
    celMethod('indexOf', LIST, [CelScalar.DYN], CelScalar.INT, function (this: CelList, v: CelValue) {
      return BigInt(items(this).findIndex((x) => celEquals(x, v)));
    }),
    celMethod('lastIndexOf', LIST, [CelScalar.DYN], CelScalar.INT, function (this: CelList, v: CelValue) {
      return BigInt(items(this).findLastIndex((x) => celEquals(x, v)));
    }),
    celFunc('sets.contains', [LIST, LIST], CelScalar.BOOL, (a: CelList, b: CelList) => {
      const xs = items(a);
      return items(b).every((y) => xs.some((x) => celEquals(x, y)));
    }),
    celFunc('sets.equivalent', [LIST, LIST], CelScalar.BOOL, (a: CelList, b: CelList) => {
      const xs = items(a);
      const ys = items(b);
      return (
        ys.every((y) => xs.some((x) => celEquals(x, y))) && xs.every((x) => ys.some((y) => celEquals(x, y)))
      );
    }),
    celFunc('sets.intersects', [LIST, LIST], CelScalar.BOOL, (a: CelList, b: CelList) => {
      const xs = items(a);
      return items(b).some((y) => xs.some((x) => celEquals(x, y)));
    }),
    celMethod(
      'find',
      CelScalar.STRING,
      [CelScalar.STRING],
      CelScalar.STRING,
      function (this: string, p: string) {
        return regex(p, '').exec(this)?.[0] ?? '';
      },
    ),
    celMethod(
      'findAll',
      CelScalar.STRING,
      [CelScalar.STRING],
      listType(CelScalar.STRING),
      function (this: string, p: string) {
        return findAll(this, p, -1n);
      },
    ),
    celMethod(
      'findAll',
      CelScalar.STRING,
      [CelScalar.STRING, CelScalar.INT],
      listType(CelScalar.STRING),
      function (this: string, p: string, n: bigint) {
        return findAll(this, p, n);
      },
    ),
  ];
}
