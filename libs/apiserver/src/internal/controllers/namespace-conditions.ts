import type { JsonObject } from '../../types.js';
import { isObject, str } from '../common/json.js';

/**
 * The condition types kube-controller-manager's namespace controller keeps on a terminating namespace,
 * in its order, each with the reason and message of its "nothing wrong" (False) state
 * (pkg/controller/namespace/deletion/status_condition_utils.go).
 */
const CONDITIONS: ReadonlyArray<readonly [type: string, reason: string, message: string]> = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  [
    'NamespaceDeletionGroupVersionParsingFailure',
    'ParsedGroupVersions',
    'All legacy kube types successfully parsed',
  ],
  [
    'NamespaceDeletionContentFailure',
    'ContentDeleted',
    'All content successfully deleted, may be waiting on finalization',
  ],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentRemoved', 'All content successfully removed'],
];

/** What a pass of namespace termination left: objects per resource (`plural.group`) and per finalizer. */
export interface NamespaceRemains {
  resources: ReadonlyMap<string, number>;
  finalizers: ReadonlyMap<string, number>;
}

function counted(m: ReadonlyMap<string, number>, format: (key: string, n: number) => string): string {
  return [...m]
    .filter(([, n]) => n > 0)
    .map(([k, n]) => format(k, n))
    .sort()
    .join(', ');
}

/**
 * The namespace's `status.conditions` after a termination pass, as the namespace controller's
 * updateConditions leaves them: each of its five types present; one whose status, reason or message
 * changes is rewritten (its lastTransitionTime only when the status changes); other conditions stay.
 * Returns undefined when nothing changes.
 */
export function terminationConditions(
  status: unknown,
  remains: NamespaceRemains,
  now: string,
): JsonObject[] | undefined {
  const wanted = new Map<string, { status: string; reason: string; message: string }>();
  if (remains.resources.size > 0)
    wanted.set('NamespaceContentRemaining', {
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: ${counted(remains.resources, (k, n) => `${k} has ${n} resource instances`)}`,
    });
  if (remains.finalizers.size > 0)
    wanted.set('NamespaceFinalizersRemaining', {
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${counted(remains.finalizers, (k, n) => `${k} in ${n} resource instances`)}`,
    });
  const old = isObject(status) && Array.isArray(status.conditions) ? status.conditions : [];
  const out: JsonObject[] = old.map((c) => (isObject(c) ? { ...c } : {}));
  let changed = false;
  for (const [type, reason, message] of CONDITIONS) {
    const next = wanted.get(type) ?? { status: 'False', reason, message };
    const have = out.find((c) => c.type === type);
    if (!have) {
      out.push({
        type,
        status: next.status,
        lastTransitionTime: now,
        reason: next.reason,
        message: next.message,
      });
      changed = true;
    } else if (
      str(have.status) !== next.status ||
      have.reason !== next.reason ||
      have.message !== next.message
    ) {
      if (str(have.status) !== next.status) have.lastTransitionTime = now;
      have.status = next.status;
      have.reason = next.reason;
      have.message = next.message;
      changed = true;
    }
  }
  return changed ? out : undefined;
}
