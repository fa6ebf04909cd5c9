/**
 * The `metav1.Status` object the API server sends with a failure (and in watch `ERROR` events).
 * Only the fields tosdk reads are typed; the rest is kept as sent.
 */
export interface KubernetesStatus {
  kind?: string;
  apiVersion?: string;
  /** `Success` or `Failure`. */
  status?: string;
  /** Human-readable description. */
  message?: string;
  /** Machine-readable reason (`NotFound`, `Conflict`, `AlreadyExists`, `Expired`, ...). */
  reason?: string;
  /** Extended data about the failure. */
  details?: KubernetesStatusDetails;
  /** The HTTP status code. */
  code?: number;
  [key: string]: unknown;
}

/** `metav1.StatusDetails`. */
export interface KubernetesStatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: Array<{ reason?: string; message?: string; field?: string }>;
  retryAfterSeconds?: number;
}

const REASON_BY_STATUS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/**
 * The API server answered a request with a failure status (HTTP status >= 400), or a watch
 * stream carried an `ERROR` event. Decide on it with the `is*()` helpers (they read the status
 * code and the Status reason, never the message text).
 */
export class KubernetesApiError extends Error {
  /** Stable error code. */
  readonly code = 'KubernetesApiError';
  /** The HTTP status code (or the Status object's `code` for a watch `ERROR` event). */
  readonly status: number;
  /** The Status reason; derived from the HTTP status when the body has none. */
  readonly reason: string;
  /** The Status details, if any. */
  readonly details?: KubernetesStatusDetails;
  /** The Status object as sent (or one built from the HTTP status when the body was not a Status). */
  readonly body: KubernetesStatus;
  /** Seconds the server asked to wait before retrying (`Retry-After` header or Status details). */
  readonly retryAfterSeconds?: number;
  /** HTTP method and path of the failed request, when known. */
  readonly request?: { method: string; path: string };

  constructor(
    status: number,
    body: KubernetesStatus,
    options: {
      retryAfterSeconds?: number;
      request?: { method: string; path: string };
      cause?: unknown;
      /** What the answer means and what to do, added to the message after the request. */
      hint?: string;
    } = {},
  ) {
    const reason = body.reason || REASON_BY_STATUS[status] || (status >= 500 ? 'InternalError' : 'Unknown');
    const where = options.request ? ` (${options.request.method} ${options.request.path})` : '';
    const hint = options.hint ? `; ${options.hint}` : '';
    super(`${status} ${reason}: ${body.message ?? 'no message'}${where}${hint}`, { cause: options.cause });
    this.name = 'KubernetesApiError';
    this.status = status;
    this.reason = reason;
    this.details = body.details;
    this.body = body;
    this.retryAfterSeconds = options.retryAfterSeconds ?? body.details?.retryAfterSeconds;
    this.request = options.request;
  }

  /** 404: the object (or the kind) does not exist. */
  isNotFound(): boolean {
    return this.status === 404;
  }

  /** 409 with reason `Conflict`: an optimistic-concurrency (resourceVersion) or apply conflict. */
  isConflict(): boolean {
    return this.status === 409 && this.reason !== 'AlreadyExists';
  }

  /** 409 with reason `AlreadyExists`: create of an object that exists. */
  isAlreadyExists(): boolean {
    return this.status === 409 && this.reason === 'AlreadyExists';
  }

  /** 410 (`Expired` or `Gone`): the requested resourceVersion is too old; list again. */
  isGone(): boolean {
    return this.status === 410 || this.reason === 'Expired' || this.reason === 'Gone';
  }

  /** 403: the identity lacks a permission. */
  isForbidden(): boolean {
    return this.status === 403;
  }

  /** 401: the credentials were rejected. */
  isUnauthorized(): boolean {
    return this.status === 401;
  }

  /** 422: the object failed validation. */
  isInvalid(): boolean {
    return this.status === 422;
  }

  /** 429: throttled; see {@link KubernetesApiError.retryAfterSeconds}. */
  isTooManyRequests(): boolean {
    return this.status === 429;
  }

  /** 5xx or 429: worth retrying later. */
  isRetryable(): boolean {
    return this.status >= 500 || this.status === 429;
  }
}

/** What went wrong below the HTTP status level. */
export type KubernetesTransportFailure =
  | 'connection'
  | 'tls'
  | 'timeout'
  | 'aborted'
  | 'unparsable-body'
  | 'unparsable-watch-event'
  | 'stream-ended';

/**
 * A request failed without a usable answer from the API server: the connection failed or was
 * reset (`connection`), TLS failed (`tls`: the message says whether the kubeconfig is stale), the
 * request timed out, or the body (or a watch line) was not the JSON it should be. Connection and
 * TLS failures name the server URL. Worth retrying later, except `tls` (a new kubeconfig is needed).
 * The underlying error is the `cause`.
 */
export class KubernetesTransportError extends Error {
  /** Stable error code. */
  readonly code = 'KubernetesTransport';

  constructor(
    message: string,
    /** What kind of failure this is. */
    readonly failure: KubernetesTransportFailure,
    options: { cause?: unknown; request?: { method: string; path: string } } = {},
  ) {
    super(options.request ? `${message} (${options.request.method} ${options.request.path})` : message, {
      cause: options.cause,
    });
    this.name = 'KubernetesTransportError';
    this.request = options.request;
  }

  /** HTTP method and path of the failed request, when known. */
  readonly request?: { method: string; path: string };
}

/**
 * The client was closed ({@link KubernetesClient.close}): it sends nothing more. Requests made
 * after `close()` fail with this at once; requests and watches in flight when it was called end
 * with it (their `cause` is the interrupted transport failure, if any). Not worth retrying: make a
 * new client if one is needed.
 */
export class KubernetesClientClosedError extends Error {
  /** Stable error code. */
  readonly code = 'KubernetesClientClosed';
  /** HTTP method and path of the refused or interrupted request. */
  readonly request?: { method: string; path: string };
  constructor(request?: { method: string; path: string }, options: { cause?: unknown } = {}) {
    super(
      `the Kubernetes client is closed and sends no more requests${request ? ` (${request.method} ${request.path})` : ''}; a stopped operator's client stays closed, create a new client (or operator) to talk to the API server again`,
      options,
    );
    this.name = 'KubernetesClientClosedError';
    this.request = request;
  }
}

/** The KubeConfig cannot be used (no current cluster, unsupported server URL, unreadable credentials). */
export class KubernetesClientConfigError extends Error {
  /** Stable error code. */
  readonly code = 'KubernetesClientConfig';
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'KubernetesClientConfigError';
  }
}

/** A client method was called with arguments it cannot turn into a request (e.g. no namespace for a namespaced kind). */
export class KubernetesClientUsageError extends Error {
  /** Stable error code. */
  readonly code = 'KubernetesClientUsage';
  constructor(message: string) {
    super(message);
    this.name = 'KubernetesClientUsageError';
  }
}

/** Whether `error` is a {@link KubernetesApiError}. */
export function isKubernetesApiError(error: unknown): error is KubernetesApiError {
  return error instanceof KubernetesApiError;
}
