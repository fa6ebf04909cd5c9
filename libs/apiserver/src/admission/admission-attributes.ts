import type { JsonObject } from '../types.js';

/** The operations admission webhooks are called for. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/**
 * What one write asks for, as the admission chain sees it (kube-apiserver's `admission.Attributes`):
 * the resource as requested, the object before and after, who asks and whether it is a dry run.
 */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  group: string;
  /** The version the request used. */
  version: string;
  /** The plural resource name. */
  resource: string;
  /** `status`, or `''` for the main resource. */
  subresource: string;
  kind: string;
  /** Whether the resource is namespaced. */
  namespaced: boolean;
  /** The object's namespace; `''` for cluster-scoped objects. */
  namespace: string;
  /** The object's name (`''` while a generated name is still to be chosen). */
  name: string;
  /** The object as it would be stored (absent on DELETE). */
  object?: JsonObject;
  /** The stored object (UPDATE and DELETE). */
  oldObject?: JsonObject;
  dryRun: boolean;
  /**
   * A DELETE's options as the request gave them (body or query), sent to webhooks in the review's
   * `options` (dryRun comes from {@link AdmissionAttributes.dryRun}).
   */
  deleteOptions?: {
    propagationPolicy?: string;
    gracePeriodSeconds?: number;
    preconditions?: { uid?: string; resourceVersion?: string };
  };
  /** The user the request acts as (after impersonation), as the review's `userInfo` carries it. */
  user: {
    name: string;
    groups: readonly string[];
    uid?: string;
    extra?: Readonly<Record<string, readonly string[]>>;
  };
  /** The field manager of the write, when the request named one. */
  fieldManager?: string;
}

/** The labels of an object (empty when it has none). */
export function labelsOf(obj: JsonObject | undefined): Record<string, string> {
  const meta = obj?.metadata;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return {};
  const labels = (meta as JsonObject).labels;
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) return {};
  return labels as Record<string, string>;
}

/**
 * An AdmissionReview's `request.userInfo` (kube's authentication/v1 UserInfo): username, uid and
 * extra only when set, groups always.
 */
export function userInfoOf(user: AdmissionAttributes['user']): {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
} {
  const info: { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } = {
    username: user.name,
    groups: [...user.groups],
  };
  if (user.uid) info.uid = user.uid;
  if (user.extra && Object.keys(user.extra).length > 0)
    info.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return info;
}

/**
 * The options of the request as an AdmissionReview's `options` (and CEL's `request.options`) carry
 * them: CreateOptions, UpdateOptions or DeleteOptions (meta.k8s.io/v1).
 */
export function operationOptions(attrs: AdmissionAttributes): JsonObject {
  const kind =
    attrs.operation === 'CREATE'
      ? 'CreateOptions'
      : attrs.operation === 'UPDATE'
        ? 'UpdateOptions'
        : 'DeleteOptions';
  const o: JsonObject = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (attrs.fieldManager !== undefined && attrs.operation !== 'DELETE') o.fieldManager = attrs.fieldManager;
  if (attrs.dryRun) o.dryRun = ['All'];
  const del = attrs.operation === 'DELETE' ? attrs.deleteOptions : undefined;
  if (del?.gracePeriodSeconds !== undefined) o.gracePeriodSeconds = del.gracePeriodSeconds;
  if (del?.preconditions !== undefined) o.preconditions = { ...del.preconditions };
  if (del?.propagationPolicy !== undefined) o.propagationPolicy = del.propagationPolicy;
  return o;
}
