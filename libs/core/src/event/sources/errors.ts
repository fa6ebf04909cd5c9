/**
 * A secondary lookup needs a {@link PrimaryToSecondaryMapper} and the event source has none: its
 * secondary-to-primary mapper is custom code that may read other state (e.g. the primaries that
 * reference a secondary), so an index built from it can be stale. Configure
 * `primaryToSecondaryMapper`, mark the mapper as depending on the secondary only with
 * `Mappers.indexable`, or read the cache directly (`get`, `list`, `byIndex`).
 */
export class MissingPrimaryToSecondaryMapperError extends Error {
  /** Stable error code. */
  readonly code = 'MissingPrimaryToSecondaryMapper';
  constructor(
    message: string,
    /** The event source. */
    readonly eventSource: string,
  ) {
    super(message);
    this.name = 'MissingPrimaryToSecondaryMapperError';
  }
}

/** An event source was configured or used wrongly (bad option, use before start, unknown name). */
export class EventSourceUsageError extends Error {
  /** Stable error code. */
  readonly code = 'EventSourceUsage';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventSourceUsageError';
  }
}

/** A polling fetcher did not settle within its timeout. */
export class FetchTimeoutError extends Error {
  /** Stable error code. */
  readonly code = 'FetchTimeout';
  constructor(
    message: string,
    /** The timeout that passed, in milliseconds. */
    readonly timeoutMs: number,
  ) {
    super(message);
    this.name = 'FetchTimeoutError';
  }
}

/**
 * The first poll of a {@link PollingEventSource} failed or timed out, so its cache is empty; read
 * as it is, it would say "no external resources exist". The source keeps polling every period: with
 * the operator's `stopOnInformerErrorDuringStartup` on (the default) the operator does not start;
 * off, it starts, reports the source unhealthy and recovers when a poll succeeds. `cause` is the
 * fetcher's error. Fix the fetcher or the external system it reads, or set the source's `failFast`
 * to false to start without its results.
 */
export class PollingEventSourceStartError extends Error {
  /** Stable error code. */
  readonly code = 'PollingEventSourceStart';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PollingEventSourceStartError';
  }
}

/**
 * The first list of an informer event source failed (e.g. 403 without RBAC access). The informer
 * keeps retrying: with `stopOnInformerErrorDuringStartup` off the operator starts anyway, reports
 * the source unhealthy and recovers once the list succeeds. `cause` is the API or transport error.
 */
export class InformerEventSourceStartError extends Error {
  /** Stable error code. */
  readonly code = 'InformerEventSourceStart';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InformerEventSourceStartError';
  }
}
