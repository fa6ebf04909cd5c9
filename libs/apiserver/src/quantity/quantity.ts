/**
 * Kubernetes resource quantities (`resource.Quantity`): parsing, exact arithmetic and the text
 * kube-apiserver writes back (`2000m` → `2`, `1024Mi` → `1Gi`, `0.5Gi` → `512Mi`, `1000` → `1k`,
 * while `1.500` and `+1` stay as written, as kube's parser keeps them).
 *
 * Values are kept exactly as a count of nano-units (10^-9) in a bigint; like kube-apiserver, a value
 * more precise than a nano-unit is rounded up (away from zero) to the next one.
 */

/** How a quantity was written, which decides how its canonical form is written. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/**
 * Why a string is not a quantity, as apimachinery's three parse errors: `Format` (the scanner cannot
 * read it: `ErrFormatWrong`), `Suffix` (a suffix that is neither SI, binary nor an exponent:
 * `ErrSuffix`), `Numeric` (an exponent too large for this implementation: `ErrNumeric`).
 */
export type QuantityErrorReason = 'Format' | 'Suffix' | 'Numeric';

const QUANTITY_MESSAGES: Record<QuantityErrorReason, string> = {
  Format: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  Suffix: "unable to parse quantity's suffix",
  Numeric: 'unable to parse numeric part of quantity',
};

/**
 * A quantity string that does not parse (`code` QUANTITY_INVALID). The message is kube-apiserver's
 * for the same {@link QuantityError.reason}, e.g. `unable to parse quantity's suffix` for `500mi`.
 */
export class QuantityError extends Error {
  /** Stable code for this error. */
  readonly code = 'QUANTITY_INVALID';
  constructor(
    readonly input: string,
    /** Which of kube's parse errors this is (default `Format`). */
    readonly reason: QuantityErrorReason = 'Format',
  ) {
    super(QUANTITY_MESSAGES[reason]);
    this.name = 'QuantityError';
  }
}

/** A parsed quantity: an exact value and the format it was written in. */
export interface Quantity {
  /** The value in nano-units (10^-9), rounded up away from zero. */
  readonly nanos: bigint;
  readonly format: QuantityFormat;
  /**
   * The text kube-apiserver keeps for this quantity instead of its canonical form: the input itself
   * when kube's parser took it as already canonical (an int64 value whose decimal scale is a multiple
   * of 3, e.g. `1.500` or `+1`; a binary value whose mantissa is not a multiple of 8, e.g. `+3Ki`);
   * undefined otherwise.
   */
  readonly text?: string;
}

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX: Record<number, string> = Object.fromEntries(
  Object.entries(DECIMAL).map(([s, e]) => [e, s]),
);
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const NANO = 10n ** 9n;
const INT64_MAX = 2n ** 63n - 1n;
/** The largest magnitude of a binary-format quantity (apimachinery `maxAllowed`, 2^63-1), in nanos. */
const MAX_BINARY_NANOS = INT64_MAX * NANO;
/** The largest exponent computed exactly here; kube takes any int32, which no one writes. */
const MAX_EXPONENT = 1000;
/** Go's `unicode.IsSpace` set, which `strings.TrimSpace` drops (JavaScript's `\s` adds U+FEFF, lacks U+0085). */
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const GO_TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'gu');

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

function pow10(e: number): bigint {
  return 10n ** BigInt(e);
}

/** Divides a non-negative number rounding up. */
function divUp(n: bigint, d: bigint): bigint {
  const q = n / d;
  return q * d === n ? q : q + 1n;
}

interface Scanned {
  positive: boolean;
  /** Integer digits without leading zeros; "0" when there are none. */
  num: string;
  /** Digits after the '.'. */
  denom: string;
  suffix: string;
}

/** apimachinery's `parseQuantityString`: sign, digits, an optional fraction, then the suffix text. */
function scanQuantity(str: string): Scanned {
  let pos = 0;
  let positive = true;
  if (str[0] === '-' || str[0] === '+') {
    positive = str[0] === '+';
    pos = 1;
  }
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
  while (pos < str.length && 'eEinumkKMGTP'.includes(str[pos])) pos++;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < str.length) throw new QuantityError(str, 'Format');
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

/** apimachinery's `suffixer.interpret`: the base, exponent and format a suffix stands for. */
function interpretSuffix(input: string, suffix: string): Suffix {
  if (suffix in DECIMAL) return { base: 10, exponent: DECIMAL[suffix], format: 'DecimalSI' };
  if (suffix in BINARY) return { base: 2, exponent: BINARY[suffix], format: 'BinarySI' };
  const digits = suffix.slice(1);
  if ((suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?[0-9]+$/.test(digits)) {
    const exponent = Number(digits);
    if (Math.abs(exponent) > MAX_EXPONENT) throw new QuantityError(input, 'Numeric');
    return { base: 10, exponent, format: 'DecimalExponent' };
  }
  throw new QuantityError(input, 'Suffix');
}

/**
 * Whether kube's `ParseQuantity` keeps the input as the quantity's string (its fast path): the value
 * fits an int64 at a scale of at least nano and, for decimal formats, the scale is a multiple of 3
 * and the digits neither end in "000" nor start with 0; for binary ones the mantissa is not a
 * multiple of 8. The sign, stripped leading zeros and the spelling of an exponent are not looked at.
 */
function keepsText(s: Scanned, suffix: Suffix): boolean {
  const digits = s.num + s.denom;
  let precision: number;
  let scale: number;
  let multiplier = 1n;
  if (suffix.base === 10) {
    precision = 18 - digits.length;
    scale = suffix.exponent;
  } else {
    if (s.denom !== '') return false;
    multiplier = 2n ** BigInt(suffix.exponent);
    // Go computes float32(exponent)*3/10 and truncates it
    precision = 15 - s.num.length - Math.trunc((suffix.exponent * 3) / 10) - 1;
    scale = 0;
  }
  if (precision < 0) return false;
  scale -= s.denom.length;
  if (scale < -9) return false;
  const value = BigInt(digits);
  if (value * multiplier > INT64_MAX) return false;
  if (suffix.base === 2) return (value & 7n) !== 0n;
  return scale % 3 === 0 && !digits.endsWith('000') && digits[0] !== '0';
}

/**
 * Parses a quantity as kube-apiserver's `resource.ParseQuantity` does (no blanks around it).
 * The value is exact; one more precise than a nano-unit is rounded up away from zero, and a binary
 * (`Ki`..`Ei`) one is capped at 2^63-1 as kube caps it. `.`, `+` and `-` are 0, as in kube.
 *
 * @throws QuantityError with kube's message for its {@link QuantityError.reason}.
 */
export function parseQuantity(input: string): Quantity {
  if (input.length === 0) throw new QuantityError(input, 'Format');
  if (input === '0') return { nanos: 0n, format: 'DecimalSI', text: '0' };
  const s = scanQuantity(input);
  const suffix = interpretSuffix(input, s.suffix);
  const digits = BigInt(s.num + s.denom);
  let abs: bigint;
  if (suffix.base === 2) {
    abs = divUp(digits * 2n ** BigInt(suffix.exponent) * NANO, pow10(s.denom.length));
  } else {
    const e = suffix.exponent - s.denom.length + 9;
    abs = e >= 0 ? digits * pow10(e) : divUp(digits, pow10(-e));
  }
  let format = suffix.format;
  if (format === 'BinarySI') {
    if (abs > MAX_BINARY_NANOS) abs = MAX_BINARY_NANOS;
    if (abs > 0n && abs < NANO) format = 'DecimalSI';
  }
  const nanos = s.positive ? abs : -abs;
  return keepsText(s, suffix) ? { nanos, format, text: input } : { nanos, format };
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

/**
 * The canonical string of a quantity, as apimachinery's `CanonicalizeBytes` writes it (regardless of
 * {@link Quantity.text}): the largest exponent, a multiple of 3, that leaves an integer mantissa;
 * for a binary quantity of at least 1024 that is a whole number, the largest power of 1024.
 */
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
    while (v % 1024n === 0n) {
      v /= 1024n;
      k++;
    }
    out = `${v}${BINARY_SUFFIX[k]}`;
  } else {
    let e = -9;
    let v = abs;
    while (v % 1000n === 0n) {
      v /= 1000n;
      e += 3;
    }
    // kube has no SI suffix past E (10^18) and then writes the mantissa alone
    if (format === 'DecimalExponent') out = e === 0 ? `${v}` : `${v}e${e}`;
    else out = `${v}${DECIMAL_SUFFIX[e] ?? ''}`;
  }
  return neg ? `-${out}` : out;
}

/**
 * The text kube-apiserver stores and answers for a quantity field of a built-in kind written as
 * `input` in a request body: `Quantity.UnmarshalJSON` trims blanks around it and parses it, then
 * `MarshalJSON` writes the input itself when the parser kept it ({@link Quantity.text}: `1.500`,
 * `+1`, `1E3` stay as written) and the canonical form otherwise (`2000m` → `2`, `1024Mi` → `1Gi`).
 *
 * @throws QuantityError when it is not a quantity.
 */
export function canonicalQuantity(input: string): string {
  const q = parseQuantity(input.replace(GO_TRIM, ''));
  return q.text ?? formatQuantity(q);
}

/** The quantity's value as a float (`asApproximateFloat`). */
export function quantityToFloat(q: Quantity): number {
  return Number(q.nanos) / 1e9;
}

/** Compares two quantities: -1, 0 or 1. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}
