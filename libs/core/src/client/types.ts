import type { KubernetesResource } from '../api/resource-type.js';
import type { KubernetesApiError, KubernetesStatus } from './errors.js';

/**
 * What the API server does with fields of a written object that its schema does not know, or that
 * appear twice (`fieldValidation`): `Strict` refuses the write (400), `Warn` drops them and says so
 * in a `Warning` header, `Ignore` drops them silently.
 */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Options of every write. */
export interface WriteOptions {
  /** Name of the actor making the change (`fieldManager` query parameter). Defaults to none (the server derives one). */
  fieldManager?: string;
  /** When true, the server validates and answers but persists nothing (`dryRun=All`). Defaults to false. */
  dryRun?: boolean;
  /**
   * Unknown or duplicate fields in the object or patch (`fieldValidation`; see {@link FieldValidation}).
   * Defaults to the server's default, `Warn` (kubectl sends `Strict`).
   */
  fieldValidation?: FieldValidation;
  /**
   * Aborts the request: it rejects with a `KubernetesTransportError` of failure `aborted` and its
   * connection is closed (a write may still have landed on the server). No retry follows an abort.
   */
  signal?: AbortSignal;
}

/** Options of {@link KubernetesClient.get}. */
export interface GetOptions {
  /** Aborts the request (it rejects with a transport error of failure `aborted`). */
  signal?: AbortSignal;
}

/** Options of {@link KubernetesClient.list}. */
export interface ListOptions {
  /** Namespace to list in; undefined lists all namespaces (or the cluster-scoped kind). */
  namespace?: string;
  /** Label selector, e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** Field selector, e.g. `metadata.name=x`. */
  fieldSelector?: string;
  /** Page size. Defaults to no limit (the server sends everything). */
  limit?: number;
  /** Continue token of the previous page. */
  continue?: string;
  /** Resource version the list must be at least as new as (or exactly, see `resourceVersionMatch`). */
  resourceVersion?: string;
  /** How `resourceVersion` applies. */
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  /** Aborts the request (it rejects with a transport error of failure `aborted`). */
  signal?: AbortSignal;
  /**
   * Ask for metadata only (`PartialObjectMetadataList`, Accept `as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`):
   * items are `{apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata}`, much smaller
   * than full objects (Secrets, ConfigMaps). A server that cannot answers with full objects. Defaults to false.
   */
  metadataOnly?: boolean;
}

/**
 * An object's metadata alone (`meta.k8s.io/v1` `PartialObjectMetadata`), as metadata-only lists and
 * watches deliver it.
 */
export type PartialObjectMetadata = KubernetesResource;

/** One page of a list. */
export interface ListResult<T> {
  /** The objects, each with `apiVersion` and `kind` filled in. */
  items: T[];
  /** The list's resourceVersion: watch from here to see every later change. */
  resourceVersion: string;
  /** Token for the next page; undefined on the last page. */
  continue?: string;
}

/** Options of {@link KubernetesClient.apply}. */
export interface ApplyOptions {
  /** The field manager that owns the applied fields. Required. */
  fieldManager: string;
  /** Take ownership of fields other managers own (`force=true`). Defaults to true, as controllers should. */
  force?: boolean;
  /** Apply to the status subresource. Defaults to the main resource. */
  subresource?: 'status';
  /** Validate only. Defaults to false. */
  dryRun?: boolean;
  /**
   * Unknown or duplicate fields in the applied object (`fieldValidation`; see {@link FieldValidation}).
   * Defaults to the server's default, `Warn`.
   */
  fieldValidation?: FieldValidation;
  /**
   * Aborts the request: it rejects with a `KubernetesTransportError` of failure `aborted` and its
   * connection is closed (a write may still have landed on the server). No retry follows an abort.
   */
  signal?: AbortSignal;
}

/** Options of the patch methods. */
export interface PatchOptions extends WriteOptions {
  /** Patch the status subresource. Defaults to the main resource. */
  subresource?: 'status';
}

/** One RFC 6902 JSON patch operation. */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** Options of {@link KubernetesClient.delete}. */
export interface DeleteOptions {
  /** What happens to dependents. Defaults to the kind's server-side default (usually `Background`). */
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  /** Delete only if the object still has this uid and/or resourceVersion (409 otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Grace period; 0 deletes at once. Defaults to the kind's default. */
  gracePeriodSeconds?: number;
  /**
   * Validate only (`dryRun: ["All"]`: in the DeleteOptions body when another option makes one, as
   * kube-apiserver then ignores the query; else the `dryRun=All` query). Defaults to false.
   */
  dryRun?: boolean;
  /**
   * Aborts the request: it rejects with a `KubernetesTransportError` of failure `aborted` and its
   * connection is closed (a write may still have landed on the server). No retry follows an abort.
   */
  signal?: AbortSignal;
}

/** Options of {@link KubernetesClient.watch}. */
export interface WatchOptions {
  /** Namespace to watch; undefined watches all namespaces. */
  namespace?: string;
  /** Start after this resourceVersion (usually a list's). Undefined or `''` starts with synthetic ADDED events of the current state. */
  resourceVersion?: string;
  /** How `resourceVersion` applies (needed with `sendInitialEvents`). */
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  /** Label selector. */
  labelSelector?: string;
  /** Field selector. */
  fieldSelector?: string;
  /** Ask for BOOKMARK events (they carry only a newer resourceVersion). Defaults to false. */
  allowWatchBookmarks?: boolean;
  /** Server-side timeout: the server ends the stream cleanly after this many seconds. Defaults to the server's. */
  timeoutSeconds?: number;
  /** Streaming list: initial state as ADDED events, then a bookmark. Defaults to unset. */
  sendInitialEvents?: boolean;
  /** Aborting ends the iteration cleanly (no error). */
  signal?: AbortSignal;
  /** Called once the server accepted the watch (200), before any event: tells a quiet stream from a pending one. */
  onConnected?: () => void;
  /** Ask for metadata only (events carry `PartialObjectMetadata`); see {@link ListOptions.metadataOnly}. Defaults to false. */
  metadataOnly?: boolean;
  /**
   * Internal (informers): the event of an own write registered with `KubernetesClient.expectEcho`
   * for this consumer (`true`: registered without one) may carry the registered object itself,
   * shared with the cache that registered it, instead of a parse of its own. Only for the cache
   * that holds that object. Defaults to false: every event's object is the caller's.
   */
  sharedEchoes?: boolean | object;
}

/** A change to an object, as a watch stream reports it. */
export type WatchObjectEvent<T> = {
  /** What happened. `BOOKMARK` carries only `metadata.resourceVersion` (and maybe annotations). */
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  /** The object after the change (before deletion for `DELETED`). */
  object: T;
};

/** A watch `ERROR` event: the server reports a failure in the stream (410 Expired most often). */
export type WatchErrorEvent = {
  type: 'ERROR';
  /** The failure, typed; `error.isGone()` means: list again. */
  error: KubernetesApiError;
  /** The Status object as sent. */
  object: KubernetesStatus;
};

/** One event of a watch stream. */
export type WatchEvent<T> = WatchObjectEvent<T> | WatchErrorEvent;

/** HTTP methods of {@link KubernetesClient.request}. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Options of {@link KubernetesClient.request}. */
export interface RawRequestOptions {
  /** HTTP method. Defaults to `GET`. */
  method?: HttpMethod;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Body; serialized as JSON. */
  body?: unknown;
  /** Content type of the body. Defaults to `application/json`. */
  contentType?: string;
  /** Aborts the request (it rejects with a transport error of failure `aborted`). */
  signal?: AbortSignal;
}

/** Attributes of a {@link KubernetesClient.selfSubjectAccessReview}. */
export interface ResourceAttributes {
  /** The verb, e.g. `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`. */
  verb: string;
  /** API group; `''` for the core group. */
  group?: string;
  /** The resource plural, e.g. `leases`. */
  resource: string;
  /** Subresource, e.g. `status`. */
  subresource?: string;
  /** Namespace; undefined means all namespaces (or cluster-scoped). */
  namespace?: string;
  /** A single object's name. */
  name?: string;
  /** API version. */
  version?: string;
}

/** The answer of a {@link KubernetesClient.selfSubjectAccessReview}. */
export interface AccessReviewResult {
  /** Whether the current identity may do it. */
  allowed: boolean;
  /** Whether it was explicitly denied. */
  denied?: boolean;
  /** Why, if the authorizer said. */
  reason?: string;
  /** An error of the authorizer, if any. */
  evaluationError?: string;
}
