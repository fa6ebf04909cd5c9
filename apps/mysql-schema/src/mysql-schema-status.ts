import type { V1Secret } from '@kubernetes/client-node';
import { ErrorStatusUpdateControl, UpdateControl } from '@tosdk/core';
import type { SchemaState, UserState } from './database/mysql-database.js';
import { MySQLSchema } from './mysql-schema.resource.js';
import type { MySQLSchemaStatus } from './mysql-schema.resource.js';
import { SchemaNotOwnedError, UserNotOwnedError } from './mysql-schema-ownership.js';
import { UnsupportedEncodingError } from './mysql-schema-validation.js';

/** What exists for a resource after its workflow ran. */
export interface ObservedState {
  /** The credentials Secret, if it exists. */
  secret: V1Secret | undefined;
  /** The schema, if it exists. */
  schema: SchemaState | undefined;
  /** The user, if it exists. */
  user: UserState | undefined;
}

/** The status read from what exists: each name only when its object exists; ready when all three do. */
export function reconciledStatus(resource: MySQLSchema, observed: ObservedState): MySQLSchemaStatus {
  const secretName = observed.secret?.metadata?.name;
  return {
    ...(observed.schema ? { schemaName: observed.schema.name } : {}),
    ...(observed.user ? { userName: observed.user.name } : {}),
    ...(secretName ? { secretName } : {}),
    observedGeneration: resource.metadata?.generation,
    ready: Boolean(observed.schema && observed.user && secretName),
  };
}

/** Patches the status subresource only (server-side apply; fields left out, e.g. an old `errorMessage`, are removed). */
export function patchStatus(resource: MySQLSchema, status: MySQLSchemaStatus): UpdateControl<MySQLSchema> {
  return UpdateControl.patchStatus<MySQLSchema>(statusPatch(resource, status));
}

function statusPatch(resource: MySQLSchema, status: MySQLSchemaStatus): MySQLSchema {
  return {
    apiVersion: MySQLSchema.apiVersion,
    kind: MySQLSchema.kind,
    metadata: { name: resource.metadata!.name!, namespace: resource.metadata!.namespace! },
    status,
  };
}

/**
 * After a failed reconciliation: the error in `status.errorMessage` with `ready: false` (the names
 * of the last success are kept: the database may be unreachable, so what exists is unknown). An
 * {@link UnsupportedEncodingError} is not retried (a change of the spec reconciles again), nor is a
 * {@link SchemaNotOwnedError} or {@link UserNotOwnedError} (the poll reconciles again when the
 * schema or user changes); anything
 * else, such as a {@link MySQLConnectionError} naming the connection, follows the retry policy.
 */
export function errorStatus(resource: MySQLSchema, error: unknown): ErrorStatusUpdateControl<MySQLSchema> {
  const cause = rootCause(error);
  const { schemaName, userName, secretName } = resource.status ?? {};
  const control = ErrorStatusUpdateControl.patchStatus<MySQLSchema>(
    statusPatch(resource, {
      ...(schemaName ? { schemaName } : {}),
      ...(userName ? { userName } : {}),
      ...(secretName ? { secretName } : {}),
      observedGeneration: resource.metadata?.generation,
      ready: false,
      errorMessage: cause instanceof Error ? cause.message : String(cause),
    }),
  );
  return cause instanceof UnsupportedEncodingError ||
    cause instanceof SchemaNotOwnedError ||
    cause instanceof UserNotOwnedError
    ? control.withNoRetry()
    : control;
}

// The framework and the workflow wrap what a dependent threw (ReconcileError, AggregatedOperatorError):
// the first error with a stable `code` of this sample, found through `cause` and aggregated errors.
function rootCause(error: unknown): unknown {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  let deepest: unknown = error;
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (
      e instanceof UnsupportedEncodingError ||
      e instanceof SchemaNotOwnedError ||
      e instanceof UserNotOwnedError
    )
      return e;
    const { cause, errorsByDependent } = e as { cause?: unknown; errorsByDependent?: unknown };
    if (errorsByDependent instanceof Map) queue.push(...(errorsByDependent.values() as Iterable<unknown>));
    if (cause !== undefined) queue.push(cause);
    if (e instanceof Error && !(errorsByDependent instanceof Map) && isOurs(e)) deepest = e;
  }
  return deepest;
}

function isOurs(e: Error): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && /^(MySQL|Credentials)/.test(code);
}
