/** A namespace list entry meaning every namespace (also expressed as an empty list). */
export const WATCH_ALL_NAMESPACES = 'JOSDK_ALL_NAMESPACES';
/** A namespace list entry meaning the operator's own namespace (in-cluster file, else the KubeConfig context's, else `default`). */
export const WATCH_CURRENT_NAMESPACE = 'JOSDK_WATCH_CURRENT';

/** Thrown when a namespace list is not usable. */
export class InvalidNamespacesError extends Error {
  /** Stable error code. */
  readonly code = 'InvalidNamespaces';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidNamespacesError';
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Resolves a namespace list to concrete names: `[]` for all namespaces, else the sorted, unique names.
 * @param currentNamespace - what {@link WATCH_CURRENT_NAMESPACE} stands for.
 * @throws InvalidNamespacesError for a name that is not a DNS label, or "all" mixed with names.
 */
export function resolveNamespaces(
  namespaces: readonly string[] | undefined,
  currentNamespace: string,
): string[] {
  if (!namespaces || namespaces.length === 0) return [];
  if (!Array.isArray(namespaces)) throw new InvalidNamespacesError('namespaces must be an array of names');
  const all = namespaces.includes(WATCH_ALL_NAMESPACES);
  if (all && namespaces.length > 1) {
    throw new InvalidNamespacesError(`${WATCH_ALL_NAMESPACES} cannot be combined with other namespaces`);
  }
  if (all) return [];
  const names: string[] = namespaces.map((n: string) =>
    n === WATCH_CURRENT_NAMESPACE ? currentNamespace : n,
  );
  for (const n of names) {
    if (typeof n !== 'string' || n.length > 63 || !DNS_LABEL.test(n)) {
      throw new InvalidNamespacesError(
        `namespace "${String(n)}" is not a valid namespace name (a DNS label)`,
      );
    }
  }
  return [...new Set(names)].sort();
}
