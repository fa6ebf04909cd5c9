/** Stable codes of {@link GarbageCollectionError}. */
export type GarbageCollectionErrorCode = 'UnknownObject' | 'InvalidObject' | 'NoFixedPoint';

/** A garbage collection plan that cannot be made. */
export class GarbageCollectionError extends Error {
  /** `UnknownObject`: the deleted uid is not stored; `InvalidObject`: an object without uid; `NoFixedPoint`: the cascade did not settle (a bug). */
  readonly code: GarbageCollectionErrorCode;
  /** HTTP status the API server would answer with. */
  readonly status: number;

  constructor(code: GarbageCollectionErrorCode, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'GarbageCollectionError';
    this.code = code;
    this.status = code === 'UnknownObject' ? 404 : code === 'InvalidObject' ? 422 : 500;
  }
}
