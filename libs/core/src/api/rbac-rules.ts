/**
 * One permission a controller needs beyond what tosdk can see in its configuration, e.g. a write the
 * reconciler makes through `context.client` (QOSDK's `@RBACRule`). Read by `tosdk generate rbac`.
 */
export interface RbacRule {
  /** API groups; `''` for the core group. */
  apiGroups: string[];
  /** Resources (plural, optionally `/subresource`). */
  resources: string[];
  /** Verbs, e.g. `['create', 'patch']`. */
  verbs: string[];
  /** Restrict to these object names. Defaults to all names. */
  resourceNames?: string[];
  /**
   * Whether the resources are cluster-scoped, so the rule goes in the ClusterRole even for a
   * controller watching some namespaces only (a Role never grants a cluster-scoped resource).
   * Defaults to what `tosdk generate rbac` knows: the built-in cluster-scoped resources (`nodes`,
   * `namespaces`, `persistentvolumes`, ...) and the app's kinds declared with `scope: 'Cluster'` are
   * cluster-scoped, everything else is namespaced.
   */
  clusterScoped?: boolean;
}

type AnyClass = abstract new (...args: never[]) => unknown;
const RULES = new WeakMap<object, RbacRule[]>();

/**
 * Declares permissions a reconciler class needs that its configuration does not show (writes made
 * directly with the client). Has no effect at run time; `tosdk generate rbac` adds the rules to the
 * controller's role, in the namespaces the controller watches.
 *
 * ```ts
 * @RbacRules({ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch'] })
 * class MyReconciler implements Reconciler<MyResource> { ... }
 * ```
 */
export function RbacRules(...rules: RbacRule[]): (target: AnyClass, context?: unknown) => void {
  return (target) => {
    RULES.set(target, [...(RULES.get(target) ?? []), ...rules]);
  };
}

/** The rules declared with {@link RbacRules} on an object's class and its base classes. */
export function declaredRbacRules(instance: object): RbacRule[] {
  const found: RbacRule[] = [];
  let proto: object | null = Object.getPrototypeOf(instance) as object | null;
  while (proto && proto !== Object.prototype) {
    const ctor = (proto as { constructor?: object }).constructor;
    const rules = ctor ? RULES.get(ctor) : undefined;
    if (rules) found.push(...rules);
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return found;
}
