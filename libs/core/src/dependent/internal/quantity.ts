/**
 * The exact value of a Kubernetes resource quantity (`2000m`, `1Gi`, `1e3`), so the matcher compares
 * what the desired state asks for with what the API server returns in its canonical form (`2`,
 * `1Gi`, `1k`), as JOSDK's resource-requirements sanitizer does. Undefined when not a quantity.
 */
const SUFFIX: Record<string, [bigint, number]> = {
  n: [1n, -9],
  u: [1n, -6],
  m: [1n, -3],
  '': [1n, 0],
  k: [1n, 3],
  M: [1n, 6],
  G: [1n, 9],
  T: [1n, 12],
  P: [1n, 15],
  E: [1n, 18],
  Ki: [1024n, 0],
  Mi: [1024n ** 2n, 0],
  Gi: [1024n ** 3n, 0],
  Ti: [1024n ** 4n, 0],
  Pi: [1024n ** 5n, 0],
  Ei: [1024n ** 6n, 0],
};

/** The quantity's value in nano-units as a decimal string (rounded up as the API server does). */
export function quantityValue(q: unknown): string | undefined {
  if (typeof q === 'number') q = String(q);
  if (typeof q !== 'string') return undefined;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:([eE][-+]?\d+)|([a-zA-Z]*))$/.exec(q);
  if (!m || (m[2] === '' && !m[3])) return undefined;
  const [mult, exp] = m[4] !== undefined ? [1n, Number(m[4].slice(1))] : (SUFFIX[m[5] ?? ''] ?? [0n, 0]);
  // kube-apiserver rejects an exponent beyond 1000 (and 10^huge would not fit a bigint)
  if (mult === 0n || !Number.isSafeInteger(exp) || Math.abs(exp) > 1000) return undefined;
  const frac = m[3] ?? '';
  const e = exp - frac.length + 9;
  const base = BigInt(`${m[2]}${frac}` || '0') * mult;
  const d = 10n ** BigInt(Math.abs(e));
  const nanos = e >= 0 ? base * d : (base + d - 1n) / d;
  return `${m[1] === '-' && nanos !== 0n ? '-' : ''}${nanos}`;
}
