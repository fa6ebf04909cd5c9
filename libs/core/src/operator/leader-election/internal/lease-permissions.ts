import { KubernetesApiError } from '../../../client/errors.js';
import type { KubernetesClient } from '../../../client/kubernetes-client.js';
import type { AccessReviewResult } from '../../../client/types.js';
import {
  LeaderElectionPermissionCheckError,
  LeaderElectionPermissionError,
} from '../leader-election-errors.js';
import type { LeaseVerb } from '../leader-election-errors.js';

/** The client method the permission check uses. */
export type AccessReviewClient = Pick<KubernetesClient, 'selfSubjectAccessReview'>;

const VERBS: readonly LeaseVerb[] = ['get', 'create', 'update'];

/**
 * Asks the server (one SelfSubjectAccessReview per verb) whether this identity may get, create and
 * update `leases.coordination.k8s.io` in `namespace`: `get` and `update` of the lease by its name, as
 * the elector makes them (so a Role granting them by `resourceNames`, as `tosdk generate rbac`
 * writes it, passes), `create` without one (a create carries no name RBAC could match).
 *
 * @throws LeaderElectionPermissionError naming every denied verb.
 * @throws LeaderElectionPermissionCheckError when a review could not be made.
 */
export async function checkLeasePermissions(
  client: AccessReviewClient,
  namespace: string,
  leaseName: string,
): Promise<void> {
  let results: AccessReviewResult[];
  try {
    results = await Promise.all(
      VERBS.map((verb) =>
        client.selfSubjectAccessReview({
          verb,
          group: 'coordination.k8s.io',
          resource: 'leases',
          namespace,
          ...(verb === 'create' ? {} : { name: leaseName }),
        }),
      ),
    );
  } catch (cause) {
    const hint =
      cause instanceof KubernetesApiError && cause.isForbidden()
        ? '; every authenticated user may normally create selfsubjectaccessreviews (ClusterRole ' +
          'system:basic-user bound to group system:authenticated): restore that binding'
        : '';
    throw new LeaderElectionPermissionCheckError(
      `could not check the leader election permissions on leases.coordination.k8s.io in namespace ` +
        `"${namespace}" (SelfSubjectAccessReview failed: ${(cause as Error)?.message ?? String(cause)})${hint}`,
      cause,
    );
  }
  const missing = VERBS.filter((_, i) => !results[i]?.allowed);
  if (missing.length > 0) {
    const reasons = results
      .map((r) => r.reason || r.evaluationError)
      .filter((r): r is string => typeof r === 'string' && r.length > 0);
    throw new LeaderElectionPermissionError(missing, namespace, leaseName, [...new Set(reasons)]);
  }
}
