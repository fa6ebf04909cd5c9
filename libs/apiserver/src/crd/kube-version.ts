/**
 * Kubernetes' version ordering (`version.CompareKubeAwareVersionStrings`): GA before beta before alpha,
 * higher numbers first (`v2`, `v1`, `v1beta2`, `v1beta1`, `v1alpha1`), then other names alphabetically.
 */

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function rank(v: string): [number, number, number] | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return [stability, Number(m[1]), Number(m[3] ?? 0)];
}

/** Negative when `a` has a higher priority than `b` (sorts the preferred version first). */
export function compareKubeVersions(a: string, b: string): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra && rb) {
    if (ra[0] !== rb[0]) return rb[0] - ra[0];
    if (ra[1] !== rb[1]) return rb[1] - ra[1];
    return rb[2] - ra[2];
  }
  if (ra) return -1;
  if (rb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
