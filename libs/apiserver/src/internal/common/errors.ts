import type { JsonObject, StatusCause } from '../../types.js';

/** Details of a failed request, as in a Kubernetes `Status.details`. */
export interface ApiErrorDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/**
 * An error the API server answers with a `Status` object. Every failure inside the engine is an
 * ApiError (or is converted to one in {@link toStatus}), so no request ends without a Status.
 */
export class ApiError extends Error {
  /** Stable machine-readable code: the Kubernetes `reason`, e.g. `NotFound`, `Conflict`. */
  readonly code: string;
  /** HTTP status code. */
  readonly status: number;
  readonly details: ApiErrorDetails | undefined;
  /**
   * The Status's `metadata.continue`: set on the 410 of an expired continue token, a token that goes
   * on from the same place at the latest resourceVersion (kube-apiserver's inconsistent continuation).
   */
  continueToken: string | undefined;

  constructor(status: number, reason: string, message: string, details?: ApiErrorDetails, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ApiError';
    this.status = status;
    this.code = reason;
    this.details = details;
    this.continueToken = undefined;
  }

  /** The Kubernetes reason (same as {@link code}). */
  get reason(): string {
    return this.code;
  }
}

/**
 * kube-apiserver's answer to a path nothing serves (its NotFound handler is Go's `http.NotFound`):
 * a plain-text `404 page not found`, not a Status. That is what an unknown group, a version a CRD
 * does not serve, an unknown resource of a CRD group or an unknown non-resource path get.
 */
export class PageNotFound extends ApiError {
  /** The body, as Go's http.NotFound writes it. */
  static readonly TEXT = '404 page not found\n';
  constructor() {
    super(404, 'NotFound', '404 page not found');
    this.name = 'PageNotFound';
  }
}

/** A resource identity used in messages: `configmaps "x"`, `deployments.apps "x"`. */
export interface ResourceRef {
  group: string;
  resource: string;
  kind?: string;
  name?: string;
}

function qualified(ref: ResourceRef): string {
  return ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
}

function detailsOf(ref: ResourceRef, extra?: Partial<ApiErrorDetails>): ApiErrorDetails {
  const d: ApiErrorDetails = { group: ref.group, kind: ref.resource, ...extra };
  if (ref.name !== undefined) d.name = ref.name;
  return d;
}

/** Constructors of the Kubernetes errors the engine raises, worded as kube-apiserver words them. */
export const errors = {
  notFound(ref: ResourceRef): ApiError {
    const msg =
      ref.name === undefined ? `${qualified(ref)} not found` : `${qualified(ref)} "${ref.name}" not found`;
    return new ApiError(404, 'NotFound', msg, detailsOf(ref));
  },
  alreadyExists(ref: ResourceRef): ApiError {
    return new ApiError(
      409,
      'AlreadyExists',
      `${qualified(ref)} "${ref.name ?? ''}" already exists`,
      detailsOf(ref),
    );
  },
  conflict(ref: ResourceRef, why: string): ApiError {
    return new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified(ref)} "${ref.name ?? ''}": ${why}`,
      detailsOf(ref),
    );
  },
  modified(ref: ResourceRef): ApiError {
    return errors.conflict(
      ref,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  },
  invalid(ref: ResourceRef & { kind: string }, causes: StatusCause[]): ApiError {
    const list = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
    const body = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
    const group = ref.group;
    return new ApiError(
      422,
      'Invalid',
      `${ref.kind}${group ? `.${group}` : ''} "${ref.name ?? ''}" is invalid: ${body}`,
      {
        name: ref.name ?? '',
        group,
        kind: ref.kind,
        causes,
      },
    );
  },
  badRequest(message: string, causes?: StatusCause[]): ApiError {
    return new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined);
  },
  methodNotAllowed(message = 'the server does not allow this method on the requested resource'): ApiError {
    return new ApiError(405, 'MethodNotAllowed', message);
  },
  unsupportedMediaType(contentType: string): ApiError {
    return new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml; got ${JSON.stringify(contentType)}`,
    );
  },
  forbidden(message: string, ref?: ResourceRef): ApiError {
    return new ApiError(403, 'Forbidden', message, ref ? detailsOf(ref) : undefined);
  },
  gone(message: string): ApiError {
    return new ApiError(410, 'Expired', message);
  },
  tooLarge(): ApiError {
    return new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
  },
  unauthorized(): ApiError {
    return new ApiError(401, 'Unauthorized', 'Unauthorized');
  },
  internal(message: string, cause?: unknown): ApiError {
    return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, undefined, cause);
  },
};

/** Converts any error to a Kubernetes `Status` object (the one place where errors become responses). */
export function toStatus(err: unknown): { status: number; body: JsonObject; retryAfter?: number } {
  let e: ApiError;
  if (err instanceof ApiError) e = err;
  else if (isPeerError(err))
    e = new ApiError(err.status, peerReason(err.status), err.message, conflictDetails(err), err);
  else e = errors.internal(err instanceof Error ? err.message : String(err), err);
  const body: JsonObject = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: e.continueToken !== undefined ? { continue: e.continueToken } : {},
    status: 'Failure',
    message: e.message,
    reason: e.code,
    code: e.status,
  };
  // an error kube does not make a Status of (a plain Go error) has no reason, omitted as empty
  if (e.code === '') delete body.reason;
  if (e.details) {
    const d: JsonObject = {};
    for (const [k, v] of Object.entries(e.details)) if (v !== undefined) d[k] = v;
    body.details = d;
  }
  const out: { status: number; body: JsonObject; retryAfter?: number } = { status: e.status, body };
  if (e.details?.retryAfterSeconds !== undefined) out.retryAfter = e.details.retryAfterSeconds;
  return out;
}

/** Errors from the patch/, crd/ and selectors/ modules carry a numeric `status` and a `code`. */
function isPeerError(err: unknown): err is Error & { status: number; code: string } {
  return (
    err instanceof Error &&
    typeof (err as { status?: unknown }).status === 'number' &&
    typeof (err as { code?: unknown }).code === 'string'
  );
}

/**
 * The details of a server-side apply conflict (patch/'s ApplyConflictError): one cause per field, as
 * kube-apiserver's fieldmanager NewConflictError gives them (`FieldManagerConflict`, the manager, the path).
 */
function conflictDetails(err: Error): ApiErrorDetails | undefined {
  const c = err as { conflicts?: unknown; causeMessages?: unknown };
  if (!Array.isArray(c.conflicts) || !Array.isArray(c.causeMessages)) return undefined;
  const messages = c.causeMessages as unknown[];
  const causes: StatusCause[] = (c.conflicts as { field?: unknown }[]).map((x, i) => ({
    reason: 'FieldManagerConflict',
    message: String(messages[i]),
    field: String(x.field),
  }));
  return { causes };
}

function peerReason(status: number): string {
  switch (status) {
    case 400:
      return 'BadRequest';
    case 409:
      return 'Conflict';
    case 422:
      return 'Invalid';
    case 415:
      return 'UnsupportedMediaType';
    default:
      return 'InternalError';
  }
}
