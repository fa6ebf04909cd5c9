/**
 * The exact value of a Kubernetes resource quantity (`2000m`, `1Gi`, `1e3`), so the matcher compares
 * what the desired state asks for with what the API server returns (`2`, `1Gi`, `1k`, or the text as
 * written when kube keeps it: `1.500`, `+1`), as JOSDK's resource-requirements sanitizer does.
 *
 * The value is read as kube-apiserver decodes a quantity field (apimachinery pkg/api/resource:
 * `Quantity.UnmarshalJSON` trims blanks, `parseQuantityString` scans, `suffixer.interpret` reads the
 * suffix, `ParseQuantity` rounds up to a nano-unit and caps binary amounts at 2^63-1), so two texts
 * the server stores as the same value have the same key here, and different values different keys.
 */

/** Decimal SI suffixes and their power of ten. */
const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
/** Binary SI suffixes and their power of two. */
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
/** Characters that may start a suffix (kube's scanner takes a run of them, then a signed number). */
const SUFFIX_CHARS = 'eEinumkKMGTP';
const NANO = 10n ** 9n;
/** apimachinery's `maxAllowed` (2^63-1 units) in nano-units: the cap of a binary-format amount. */
const MAX_BINARY_NANOS = (2n ** 63n - 1n) * NANO;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Go's `unicode.IsSpace` set, which `strings.TrimSpace` removes around a quantity. */
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const GO_TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'gu');

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

interface Scanned {
  negative: boolean;
  /** Integer digits, leading zeros removed ("0" when none). */
  num: string;
  /** Digits after the point. */
  denom: string;
  suffix: string;
}

/**
 * kube's `parseQuantityString`: an optional sign, digits (none is 0, so `.`, `+` and `Ki` are 0), an
 * optional fraction, then a suffix. Undefined when the text does not scan.
 */
function scan(str: string): Scanned | undefined {
  let pos = 0;
  const negative = str[0] === '-';
  if (negative || str[0] === '+') pos = 1;
  while (str[pos] === '0') pos++;
  const numStart = pos;
  while (isDigit(str[pos])) pos++;
  const num = pos > numStart ? str.slice(numStart, pos) : '0';
  let denom = '';
  if (str[pos] === '.') {
    const denomStart = ++pos;
    while (isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
  }
  const suffixStart = pos;
  while (pos < str.length && SUFFIX_CHARS.includes(str[pos])) pos++;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < str.length) return undefined;
  return { negative, num, denom, suffix: str.slice(suffixStart) };
}

/**
 * kube's `suffixer.interpret`: [base, exponent]. An exponent suffix is read as an int64 and then
 * truncated to an int32, as kube does. Undefined for an unknown suffix.
 */
function interpret(suffix: string): [2 | 10, number] | undefined {
  if (Object.hasOwn(DECIMAL, suffix)) return [10, DECIMAL[suffix]];
  if (Object.hasOwn(BINARY, suffix)) return [2, BINARY[suffix]];
  if (suffix.length < 2 || (suffix[0] !== 'e' && suffix[0] !== 'E')) return undefined;
  const digits = suffix.slice(1);
  if (!/^[+-]?\d+$/.test(digits)) return undefined;
  const exponent = BigInt(digits);
  if (exponent < INT64_MIN || exponent > INT64_MAX) return undefined;
  return [10, Number(BigInt.asIntN(32, exponent))];
}

/** `n / d` rounded up, for non-negative `n` and positive `d`. */
function divUp(n: bigint, d: bigint): bigint {
  const q = n / d;
  return q * d === n ? q : q + 1n;
}

/**
 * A key for the quantity's exact value: equal for two texts kube-apiserver stores as the same value
 * (`1024Mi` and `1Gi`, `2000m` and ` 2 `, `8Ei` and `9223372036854775807`), different otherwise. A
 * JSON number counts as its text. Undefined when it is not a quantity (the value is then compared as
 * it is, and the API server's answer to the write decides).
 */
export function quantityValue(q: unknown): string | undefined {
  if (typeof q === 'number') {
    if (!Number.isFinite(q)) return undefined;
    q = String(q);
  }
  if (typeof q !== 'string') return undefined;
  const text = q.replace(GO_TRIM, '');
  if (text === '') return undefined;
  const s = scan(text);
  if (!s) return undefined;
  const suffix = interpret(s.suffix);
  if (!suffix) return undefined;
  const [base, exponent] = suffix;
  const digits = BigInt(s.num + s.denom);
  if (digits === 0n) return '0';
  // the value is coefficient * 10^scale nano-units, rounded up (away from zero) to a whole nano-unit
  let coefficient: bigint;
  let scale = 0;
  if (base === 2) {
    const nanos = divUp(digits * 2n ** BigInt(exponent) * NANO, 10n ** BigInt(s.denom.length));
    coefficient = nanos > MAX_BINARY_NANOS ? MAX_BINARY_NANOS : nanos;
  } else {
    scale = exponent - s.denom.length + 9;
    coefficient = digits;
    if (scale < 0) {
      // more precise than a nano-unit: below one nano-unit entirely, it becomes one
      coefficient = -scale > s.num.length + s.denom.length ? 1n : divUp(digits, 10n ** BigInt(-scale));
      scale = 0;
    }
  }
  while (coefficient % 10n === 0n) {
    coefficient /= 10n;
    scale++;
  }
  return `${s.negative ? '-' : ''}${coefficient}e${scale}`;
}
