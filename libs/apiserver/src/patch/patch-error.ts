/**
 * Typed errors of the patch module. The HTTP engine maps `status` to the response code and `code`
 * to the Status `reason`/details; decisions are made on `code`, never on message text.
 */

/**
 * Stable codes of {@link PatchError}:
 * - `InvalidPatch` (400): the patch document has the wrong shape (a JSON patch that is not an array,
 *   an operation that is not an object, a directive with the wrong type, an unknown `$patch` value).
 * - `NotAnObject` (400): a merge or strategic merge patch (or an apply configuration) is not a JSON object.
 * - `InvalidOperation` (422): a JSON patch operation with an unknown `op`, or without a required
 *   `path`/`from`/`value` member.
 * - `InvalidPath` (422): a JSON pointer that is not well formed (no leading `/`, a bad array index).
 * - `PathNotFound` (422): a JSON patch path (or `from`) that does not exist in the target.
 * - `TestOperationFailed` (422): a JSON patch `test` operation whose value differs.
 * - `TypeMismatch` (422): a JSON patch that walks into a scalar as if it were an object or array.
 * - `MissingMergeKey` (422): a list item of a merge-by-key list without its merge key.
 * - `RetainKeysMismatch` (400, as kube-apiserver's `ErrBadPatchFormatForRetainKeys`): a strategic merge patch with fields that `$retainKeys` does not list.
 * - `InvalidApplyConfiguration` (400): an apply configuration that cannot be typed (e.g. a list-map item
 *   without a key field, a wrong `apiVersion`, `metadata.managedFields` set).
 * - `InvalidManagedFields` (400): a `FieldsV1` value or managedFields entry that does not decode.
 * - `ApplyConflict` (409): server-side apply conflicts; see {@link ApplyConflictError}.
 */
export type PatchErrorCode =
  | 'InvalidPatch'
  | 'NotAnObject'
  | 'InvalidOperation'
  | 'InvalidPath'
  | 'PathNotFound'
  | 'TestOperationFailed'
  | 'TypeMismatch'
  | 'MissingMergeKey'
  | 'RetainKeysMismatch'
  | 'InvalidApplyConfiguration'
  | 'InvalidManagedFields'
  | 'ApplyConflict';

/** An HTTP status a patch failure maps to. */
export type PatchErrorStatus = 400 | 409 | 422;

/** A patch (JSON, merge, strategic merge) or apply request that cannot be applied. */
export class PatchError extends Error {
  /** Stable machine-readable code; see {@link PatchErrorCode}. */
  readonly code: string;
  /** The HTTP status kube-apiserver answers with for this failure. */
  readonly status: PatchErrorStatus;

  /**
   * @param code - a stable {@link PatchErrorCode}.
   * @param status - the HTTP status to answer with.
   * @param message - a message that tells the client what is wrong.
   * @param options - `cause`: the underlying error, if any (defaults to none).
   */
  constructor(
    code: PatchErrorCode,
    status: PatchErrorStatus,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PatchError';
    this.code = code;
    this.status = status;
  }
}

/** One field a server-side apply conflicts on. */
export interface ApplyConflict {
  /** The manager that owns the field (its `manager` name). */
  manager: string;
  /** The field in Kubernetes' path syntax, e.g. `.spec.replicas` or `.spec.containers[name="nginx"].image`. */
  field: string;
}

/**
 * A server-side apply that would change fields another manager owns (HTTP 409, reason `Conflict`).
 * The message has kube-apiserver's exact form, e.g.
 * `Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas`.
 */
export class ApplyConflictError extends PatchError {
  /** Every conflicting field with its owner, in the order of the message. */
  readonly conflicts: readonly ApplyConflict[];
  /** Per conflict, kube-apiserver's Status cause message (`conflict with "kubectl" using apps/v1`). */
  readonly causeMessages: readonly string[];

  /**
   * @param conflicts - the conflicting fields with their owners (at least one).
   * @param message - the full message (built by the apply engine).
   * @param causeMessages - one message per conflict, for `Status.details.causes`.
   */
  constructor(conflicts: readonly ApplyConflict[], message: string, causeMessages: readonly string[]) {
    super('ApplyConflict', 409, message);
    this.name = 'ApplyConflictError';
    this.conflicts = conflicts;
    this.causeMessages = causeMessages;
  }
}
