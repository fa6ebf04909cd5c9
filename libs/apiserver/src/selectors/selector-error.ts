/** Stable codes of {@link SelectorError}. */
export type SelectorErrorCode = 'InvalidLabelSelector' | 'InvalidFieldSelector';

/**
 * A label or field selector that cannot be parsed or is not valid. The API server answers it with
 * HTTP 400 (`BadRequest`) and {@link SelectorError.message} as the Status message, which is worded as
 * kube-apiserver words it (e.g. `unable to parse requirement: ...`, `found ',', expected: identifier`).
 */
export class SelectorError extends Error {
  /** Which kind of selector was refused. */
  readonly code: SelectorErrorCode;
  /** HTTP status the API server answers with: always 400. */
  readonly status = 400;

  constructor(code: SelectorErrorCode, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'SelectorError';
    this.code = code;
  }
}
