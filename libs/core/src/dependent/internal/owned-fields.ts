import type { KubernetesResource } from '../../api/resource-type.js';
import { pruneToFields } from './fields-v1.js';
import type { FieldsV1 } from './fields-v1.js';
import { deepEqual } from './json.js';

type ManagedFieldsEntry = NonNullable<NonNullable<KubernetesResource['metadata']>['managedFields']>[number];

/**
 * The managedFields entry of `fieldManager`'s server-side applies to `obj`: of the main resource, or
 * of `subresource` (e.g. `'status'`). Undefined when the manager never applied it.
 */
export function applyEntry(
  obj: KubernetesResource,
  fieldManager: string,
  subresource?: string,
): ManagedFieldsEntry | undefined {
  const entries = obj.metadata?.managedFields;
  if (!Array.isArray(entries)) return undefined;
  // a loop rather than find(): no closure per call (the matchers ask on every reconciliation)
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (
      e !== null &&
      typeof e === 'object' &&
      e.manager === fieldManager &&
      e.operation === 'Apply' &&
      (subresource === undefined ? !e.subresource : e.subresource === subresource)
    )
      return e;
  }
  return undefined;
}

/**
 * Whether the status fields `fieldManager` owns by apply on `obj` (its managedFields entry of the
 * status subresource) hold exactly `status`: an apply of it would add, change and drop nothing.
 * False without such an entry.
 */
export function ownsExactlyStatus(obj: KubernetesResource, status: unknown, fieldManager: string): boolean {
  const entry = applyEntry(obj, fieldManager, 'status');
  if (!entry?.fieldsV1) return false;
  const owned = pruneToFields(obj, entry.fieldsV1 as FieldsV1) as { status?: unknown };
  return deepEqual(owned.status ?? {}, status ?? {});
}
