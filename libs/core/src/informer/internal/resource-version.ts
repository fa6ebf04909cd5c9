/**
 * Compares two resourceVersions when both are decimal integers (what etcd-backed servers send):
 * negative, zero or positive like a comparator; undefined when either is opaque. Kubernetes
 * documents resourceVersions as opaque, so callers must have a rule for undefined.
 */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}
