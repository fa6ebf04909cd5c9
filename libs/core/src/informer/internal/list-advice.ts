import { KubernetesApiError } from '../../client/errors.js';
import type { ResourceType } from '../../api/resource-type.js';

/** What an informer lists, for the advice in an `InformerStartError`'s message and in its health. */
export interface InformerListTarget {
  /** The kind listed. */
  resourceType: Pick<ResourceType, 'group' | 'version' | 'plural' | 'kind'>;
  /** The namespace listed; undefined for all namespaces or a cluster-scoped kind. */
  namespace?: string;
}

/**
 * What to do about a failed list or watch, when the cause says it (a 404: the kind is not served; a
 * 403: the permission to grant), as a sentence starting with `. `; `''` otherwise. `running`: the
 * informer retries by itself (it synced before), so the advice does not ask to start again.
 */
export function advice(cause: unknown, target: InformerListTarget | undefined, running = false): string {
  if (!target || !(cause instanceof KubernetesApiError)) return '';
  const { group, version, plural, kind } = target.resourceType;
  const served = group ? `${group}/${version}` : version;
  if (cause.isNotFound()) {
    // every CustomResourceDefinition's group has a dot; the built-in groups (core, apps, batch...) have none
    if (group.includes('.')) {
      return `. The API server does not serve ${plural} (kind ${kind}) in ${served}: apply the CustomResourceDefinition ${plural}.${group} (with version ${version} served), e.g. kubectl apply -f <its yaml>, ${running ? 'and the informer lists again by itself' : 'then start again'}`;
    }
    return `. The API server does not serve ${plural} (kind ${kind}) in ${served}: check the resource type's group, version and kind against \`kubectl api-resources\``;
  }
  if (cause.isForbidden()) {
    const where = target.namespace ? `in namespace ${target.namespace}` : 'cluster-wide';
    return `. Grant the operator's identity list and watch on ${group ? `${plural}.${group}` : plural} ${where} (an RBAC Role or ClusterRole rule with apiGroups ["${group}"], resources ["${plural}"], verbs ["get", "list", "watch"] and its binding)`;
  }
  return '';
}
