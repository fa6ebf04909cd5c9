/**
 * Types shared by the API server's modules (storage, patching, CRD schemas, selectors).
 */

/** A JSON object as parsed from a request body. */
export type JsonObject = { [key: string]: unknown };

/** One cause of a validation failure, as in a Kubernetes `Status.details.causes` entry. */
export interface StatusCause {
  /** Machine-readable reason, e.g. `FieldValueRequired`, `FieldValueInvalid`, `FieldValueNotSupported`. */
  reason: string;
  /** Human-readable message, as kube-apiserver words it. */
  message: string;
  /** The field path, e.g. `metadata.name` or `spec.replicas`. */
  field: string;
}

/**
 * How a list is merged by strategic merge patch and server-side apply
 * (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`, or a built-in kind's patch strategy).
 */
export interface ListInfo {
  /** `atomic`: replaced whole; `set`: scalars merged by value; `map`: objects merged by `keys`. */
  type: 'atomic' | 'set' | 'map';
  /** The map keys when `type` is `map` (the strategic merge key of a built-in list). */
  keys?: readonly string[];
  /**
   * Defaults of key fields when `type` is `map` (e.g. `{ protocol: 'TCP' }` for container ports), used by
   * server-side apply when an item omits a key that has a default. Defaults to none.
   */
  keyDefaults?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * List and map semantics of one kind's schema, looked up by path.
 * A path is the field names from the object's root; list items are written `[]`, for example
 * `['spec', 'template', 'spec', 'containers', '[]', 'ports']`.
 */
export interface PatchSchema {
  /** The list semantics at `path`, or undefined when the schema says nothing (atomic for apply, replace for SMP). */
  listInfo(path: readonly string[]): ListInfo | undefined;
  /** Whether the map at `path` is atomic (`x-kubernetes-map-type: atomic`); granular otherwise. */
  isAtomicMap?(path: readonly string[]): boolean;
  /**
   * The strategic-merge-patch semantics at `path` when they differ from `listInfo` (a built-in type's
   * `patchStrategy`/`patchMergeKey`, e.g. a Job's `status.conditions` is `listType=atomic` for apply but merged
   * by `type` in a strategic merge patch). Defaults to `listInfo`; for a `map` the first key is the merge key.
   */
  strategicListInfo?(path: readonly string[]): ListInfo | undefined;
}

/** One entry of `metadata.managedFields`. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  /** RFC 3339 time of the last change by this manager. */
  time: string;
  fieldsType: 'FieldsV1';
  /** The owned fields in Kubernetes' FieldsV1 encoding (`f:spec`, `k:{"name":"x"}`, `v:"a"`, `.`). */
  fieldsV1: JsonObject;
  /** `status` for writes to the status subresource; absent for the main resource. */
  subresource?: string;
}
