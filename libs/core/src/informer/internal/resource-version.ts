const DECIMAL = /^\d+$/;
const ZERO = '0'.charCodeAt(0);

/**
 * Compares two resourceVersions when both are decimal integers (what etcd-backed servers send):
 * negative, zero or positive like a comparator; undefined when either is opaque. Kubernetes
 * documents resourceVersions as opaque, so callers must have a rule for undefined.
 */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (!a || !b || !DECIMAL.test(a) || !DECIMAL.test(b)) return undefined;
  // leading zeros are rare: no new string unless there are some
  const x = a.charCodeAt(0) === ZERO ? a.replace(/^0+(?=\d)/, '') : a;
  const y = b.charCodeAt(0) === ZERO ? b.replace(/^0+(?=\d)/, '') : b;
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}
