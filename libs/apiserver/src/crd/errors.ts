/**
 * Typed errors of the CRD module.
 */
import type { StatusCause } from '../types.js';

/** Stable codes of {@link CrdError}. */
export type CrdErrorCode = 'CRD_INVALID' | 'JSONPATH_INVALID';

/**
 * A CRD could not be used (`CRD_INVALID`; `causes` say why, as kube-apiserver words them), or a
 * printer-column JSONPath could not be parsed (`JSONPATH_INVALID`).
 */
export class CrdError extends Error {
  /** Stable machine-readable code. */
  readonly code: CrdErrorCode;
  /** The validation causes (field paths and messages). */
  readonly causes: readonly StatusCause[];

  constructor(code: CrdErrorCode, message: string, causes: readonly StatusCause[] = [], cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'CrdError';
    this.code = code;
    this.causes = causes;
  }
}
