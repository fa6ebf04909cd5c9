import type { StatusCause } from '../../types.js';

/** A cause with the path of the offending value as segments (numbers are list indexes). */
export interface LocatedCause {
  cause: StatusCause;
  segments: (string | number)[];
  /** Reported even when the value is unchanged (transition rules are not ratcheted). Defaults to false. */
  noRatchet?: boolean;
}
