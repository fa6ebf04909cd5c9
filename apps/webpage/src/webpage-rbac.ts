import type { RbacRule } from '@tosdk/core';

/**
 * Permissions the WebPage reconcilers need that their configuration does not show (declared with
 * `@RbacRules`, read by `tosdk generate rbac`).
 */
export const WebPageRbac = Object.freeze({
  /** Warning events on pages, written by the reconcilers themselves (repeats are aggregated with a patch). */
  events: { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] } satisfies RbacRule,
  /**
   * The secondaries the low-level and standalone flavours write themselves (server-side apply, which
   * kube-apiserver authorizes as `create` when the object is new); the Ingress is also deleted when a
   * page stops being exposed. The managed flavour's workflow shows the same to the generator.
   */
  secondaryWrites: [
    { apiGroups: [''], resources: ['configmaps', 'services'], verbs: ['create', 'patch'] },
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['create', 'patch'] },
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['create', 'patch', 'delete'] },
  ] satisfies RbacRule[],
});
