import type { ResourceID } from '@tosdk/core';

/**
 * An object of a secondary's kind and name exists that the page does not own (someone else's): it
 * is left as it is (taking it over would have it garbage collected with the page). Retried.
 */
export class SecondaryNameTakenError extends Error {
  /** Stable error code. */
  readonly code = 'SecondaryNameTaken';
  constructor(kind: string, id: ResourceID, page: string, options?: { cause?: unknown }) {
    super(
      `${kind} ${id.key} exists but is not owned by WebPage ${page}; it is left as it is: delete or rename it, and the page is served`,
      options,
    );
    this.name = 'SecondaryNameTakenError';
  }
}
