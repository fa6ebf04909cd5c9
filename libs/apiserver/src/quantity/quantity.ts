/**
 * Kubernetes resource quantities (`resource.Quantity`): parsing, exact arithmetic and the canonical
 * form kube-apiserver writes back (`2000m` → `2`, `1024Mi` → `1Gi`, `0.5Gi` → `512Mi`, `1000` → `1k`).
 *
 * Values are kept exactly as a count of nano-units (10^-9) in a bigint; like kube-apiserver, a value
 * more precise than a nano-unit is rounded up (away from zero) to the next one.
 */

/** How a quantity was written, which decides how its canonical form is written. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** A quantity string that does not parse (`code` QUANTITY_INVALID). */
export class QuantityError extends Error {
  /** Stable code for this error. */
  readonly code = 'QUANTITY_INVALID';
  constructor(readonly input: string) {
    super(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
    this.name = 'QuantityError';
  }
}

/** A parsed quantity: an exact value and the format it was written in. */
export interface Quantity {
  /** The value in nano-units (10^-9), rounded up away from zero. */
  readonly nanos: bigint;
  readonly format: QuantityFormat;
}

const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIX: Record<number, string> = Object.fromEntries(
  Object.entries(DECIMAL).map(([s, e]) => [e, s]),
);
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?$/;
const NANO = 10n ** 9n;

function pow10(e: number): bigint {
  return 10n ** BigInt(e);
}

/** Divides rounding away from zero. */
function divUp(n: bigint, d: bigint): bigint {
  const q = n / d;
  return q * d === n ? q : n < 0n ? q - 1n : q + 1n;
}

/** Parses a quantity as kube-apiserver does; throws {@link QuantityError} when it is not one. */
export function parseQuantity(input: string): Quantity {
  const s = input.trim();
  if (s === '' || s !== input) throw new QuantityError(input);
  const m = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(s);
  if (!m) throw new QuantityError(input);
  const num = NUMBER.exec(m[1]);
  if (!num || (num[2] === '' && (num[3] ?? '') === '')) throw new QuantityError(input);
  const sign = num[1] === '-' ? -1n : 1n;
  const digits = `${num[2]}${num[3] ?? ''}`;
  const fracLen = (num[3] ?? '').length;
  const suffix = m[2];
  let format: QuantityFormat;
  let exp10 = -fracLen;
  let mult = 1n;
  if (suffix in BINARY) {
    format = 'BinarySI';
    mult = 1024n ** BigInt(BINARY[suffix]);
  } else if (suffix in DECIMAL) {
    format = 'DecimalSI';
    exp10 += DECIMAL[suffix];
  } else if (/^[eE][-+]?\d+$/.test(suffix)) {
    format = 'DecimalExponent';
    const e = Number(suffix.slice(1));
    if (!Number.isSafeInteger(e) || Math.abs(e) > 1000) throw new QuantityError(input);
    exp10 += e;
  } else throw new QuantityError(input);
  // value = sign * digits * mult * 10^exp10, in nanos: * 10^9
  const base = BigInt(digits || '0') * mult;
  const e = exp10 + 9;
  const nanos = e >= 0 ? base * pow10(e) : divUp(base, pow10(-e));
  return { nanos: sign * nanos, format };
}

/** Whether a string is a valid quantity. */
export function isQuantity(input: string): boolean {
  try {
    parseQuantity(input);
    return true;
  } catch {
    return false;
  }
}

/** The canonical string of a quantity, as kube-apiserver serializes it. */
export function formatQuantity(q: Quantity): string {
  const { nanos } = q;
  if (nanos === 0n) return '0';
  const neg = nanos < 0n;
  const abs = neg ? -nanos : nanos;
  let format = q.format;
  if (format === 'BinarySI' && (abs % NANO !== 0n || abs < 1024n * NANO)) format = 'DecimalSI';
  let out: string;
  if (format === 'BinarySI') {
    let v = abs / NANO;
    let k = 0;
    while (k < 6 && v % 1024n === 0n) {
      v /= 1024n;
      k++;
    }
    out = `${v}${BINARY_SUFFIX[k]}`;
  } else {
    // the largest exponent (a multiple of 3, from -9 to 18) that leaves an integer mantissa
    let e = -9;
    let v = abs;
    while (e < 18 && v % 1000n === 0n) {
      v /= 1000n;
      e += 3;
    }
    if (format === 'DecimalExponent') out = e === 0 ? `${v}` : `${v}e${e}`;
    else out = `${v}${DECIMAL_SUFFIX[e]}`;
  }
  return neg ? `-${out}` : out;
}

/** Parses and re-serializes a quantity in its canonical form; throws {@link QuantityError}. */
export function canonicalQuantity(input: string): string {
  return formatQuantity(parseQuantity(input));
}

/** The quantity's value as a float (`asApproximateFloat`). */
export function quantityToFloat(q: Quantity): number {
  return Number(q.nanos) / 1e9;
}

/** Compares two quantities: -1, 0 or 1. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}
