/**
 * The status kube-apiserver reports for a CRD: accepted names, the NamesAccepted and Established
 * conditions, and the stored versions.
 */
import type { JsonObject } from '../types.js';
import { apiApprovalState, isProtectedGroup } from './api-approval.js';
import { arrayAt, isObject, objectAt, stringAt } from './json-util.js';

/** Why the names of a CRD were not accepted (the NamesAccepted condition's reason and message). */
export interface NameConflict {
  reason: 'PluralConflict' | 'SingularConflict' | 'ShortNamesConflict' | 'KindConflict' | 'ListKindConflict';
  message: string;
}

interface Names {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

function namesOf(crd: JsonObject, accepted: boolean): Names {
  const spec = objectAt(crd, 'spec');
  const raw =
    accepted && isObject(objectAt(crd, 'status').acceptedNames)
      ? objectAt(objectAt(crd, 'status'), 'acceptedNames')
      : objectAt(spec, 'names');
  const kind = stringAt(raw, 'kind') ?? '';
  const strings = (k: string): string[] => arrayAt(raw, k).filter((x): x is string => typeof x === 'string');
  return {
    plural: stringAt(raw, 'plural') ?? '',
    singular: stringAt(raw, 'singular') || kind.toLowerCase(),
    kind,
    listKind: stringAt(raw, 'listKind') || (kind ? `${kind}List` : ''),
    shortNames: strings('shortNames'),
    categories: strings('categories'),
  };
}

/**
 * Finds a names conflict with other CRDs of the same group (their accepted names, or their requested
 * names when they have none yet): a plural, singular or short name already used as a resource name, or a
 * kind or list kind already used.
 */
export function findNameConflict(crd: JsonObject, others: readonly JsonObject[]): NameConflict | undefined {
  const group = stringAt(objectAt(crd, 'spec'), 'group');
  const self = stringAt(objectAt(crd, 'metadata'), 'name');
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const other of others) {
    if (stringAt(objectAt(other, 'metadata'), 'name') === self) continue;
    if (stringAt(objectAt(other, 'spec'), 'group') !== group) continue;
    const n = namesOf(other, true);
    for (const r of [n.plural, n.singular, ...n.shortNames]) if (r) resources.add(r);
    for (const k of [n.kind, n.listKind]) if (k) kinds.add(k);
  }
  const mine = namesOf(crd, false);
  const used = (v: string): string => `${JSON.stringify(v)} is already in use`;
  if (resources.has(mine.plural)) return { reason: 'PluralConflict', message: used(mine.plural) };
  if (resources.has(mine.singular)) return { reason: 'SingularConflict', message: used(mine.singular) };
  const short = mine.shortNames.find((s) => resources.has(s));
  if (short !== undefined) return { reason: 'ShortNamesConflict', message: used(short) };
  if (kinds.has(mine.kind)) return { reason: 'KindConflict', message: used(mine.kind) };
  if (kinds.has(mine.listKind)) return { reason: 'ListKindConflict', message: used(mine.listKind) };
  return undefined;
}

/** The message of {@link findNameConflict}'s result, or undefined when the names are free. */
export function checkNameConflicts(crd: JsonObject, others: readonly JsonObject[]): string | undefined {
  return findNameConflict(crd, others)?.message;
}

function condition(
  previous: unknown[],
  type: string,
  status: string,
  reason: string,
  message: string,
  now: string,
): JsonObject {
  const before = previous.find((c) => isObject(c) && c.type === type);
  const keepTime =
    isObject(before) && before.status === status && typeof before.lastTransitionTime === 'string';
  return { type, status, lastTransitionTime: keepTime ? before.lastTransitionTime : now, reason, message };
}

/**
 * The status of an accepted CRD (NamesAccepted and Established true, KubernetesAPIApprovalPolicyConformant
 * for a protected group, accepted names, stored versions
 * including the current storage version), or, given a conflict, NamesAccepted false with the previous
 * accepted names kept (categories aside) and Established as it was, false for a CRD never established
 * (kube-apiserver's naming controller, calculateNamesAndConditions).
 *
 * @param now - RFC 3339 time for conditions whose status changes.
 * @param conflict - the conflict found by {@link findNameConflict} (or its message). Defaults to none.
 */
export function crdStatus(crd: JsonObject, now: string, conflict?: string | NameConflict): JsonObject {
  const status = namesStatus(crd, now, conflict);
  const approval = approvalCondition(crd, now);
  if (approval) (status.conditions as JsonObject[]).push(approval);
  return status;
}

const APPROVAL_REASONS = {
  Approved: ['True', 'ApprovedAnnotation'],
  Bypassed: ['False', 'UnapprovedAnnotation'],
  Missing: ['False', 'MissingAnnotation'],
  Invalid: ['False', 'InvalidAnnotation'],
} as const;

/** KubernetesAPIApprovalPolicyConformant, for CRDs of protected groups (apiapproval_controller.go). */
function approvalCondition(crd: JsonObject, now: string): JsonObject | undefined {
  if (!isProtectedGroup(stringAt(objectAt(crd, 'spec'), 'group') ?? '')) return undefined;
  const previous = arrayAt(objectAt(crd, 'status'), 'conditions');
  const { state, reason } = apiApprovalState(crd);
  const [status, why] = APPROVAL_REASONS[state];
  return condition(previous, 'KubernetesAPIApprovalPolicyConformant', status, why, reason, now);
}

function namesStatus(crd: JsonObject, now: string, conflict?: string | NameConflict): JsonObject {
  const status = objectAt(crd, 'status');
  const previous = arrayAt(status, 'conditions');
  const stored = arrayAt(status, 'storedVersions').filter((v): v is string => typeof v === 'string');
  if (conflict !== undefined) {
    const c: NameConflict =
      typeof conflict === 'string' ? { reason: 'PluralConflict', message: conflict } : conflict;
    const accepted: JsonObject = isObject(status.acceptedNames)
      ? { ...status.acceptedNames }
      : { plural: '', kind: '' };
    // categories are never in conflict: they are always taken from spec
    const categories = namesOf(crd, false).categories;
    if (categories.length > 0) accepted.categories = categories;
    else delete accepted.categories;
    // a CRD that was established stays so (and served with its accepted names)
    const established = previous.find((x) => isObject(x) && x.type === 'Established');
    return {
      conditions: [
        condition(previous, 'NamesAccepted', 'False', c.reason, c.message, now),
        isObject(established)
          ? established
          : condition(previous, 'Established', 'False', 'NotAccepted', 'not all names are accepted', now),
      ],
      acceptedNames: accepted,
      storedVersions: stored,
    };
  }
  const n = namesOf(crd, false);
  const acceptedNames: JsonObject = {
    plural: n.plural,
    singular: n.singular,
    kind: n.kind,
    listKind: n.listKind,
  };
  if (n.shortNames.length > 0) acceptedNames.shortNames = n.shortNames;
  if (n.categories.length > 0) acceptedNames.categories = n.categories;
  const storage = arrayAt(objectAt(crd, 'spec'), 'versions').find((v) => isObject(v) && v.storage === true);
  const storageName = isObject(storage) ? stringAt(storage, 'name') : undefined;
  if (storageName && !stored.includes(storageName)) stored.push(storageName);
  return {
    conditions: [
      condition(previous, 'NamesAccepted', 'True', 'NoConflicts', 'no conflicts found', now),
      condition(
        previous,
        'Established',
        'True',
        'InitialNamesAccepted',
        'the initial names have been accepted',
        now,
      ),
    ],
    acceptedNames,
    storedVersions: stored,
  };
}
