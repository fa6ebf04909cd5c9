import { MANAGED_BY_VALUE } from './mysql-schema-names.js';
import type { MySQLSchema } from './mysql-schema.resource.js';

/**
 * The comment the operator gives the schemas it creates: `mysql-schema-operator <namespace>/<name>`.
 * It names the resource rather than its uid, so a `MySQLSchema` created again with the same name
 * (a restored cluster, the dev mode's embedded API server started again) finds its schema again.
 */
export function ownerMark(resource: MySQLSchema): string {
  return `${MANAGED_BY_VALUE} ${resource.metadata!.namespace ?? 'default'}/${resource.metadata!.name!}`;
}

/**
 * A schema of the resource's name exists and the operator did not make it for this resource (no
 * or another {@link ownerMark}). Not retried: it is someone else's data; the poll reconciles again
 * when the schema is dropped or marked.
 */
export class SchemaNotOwnedError extends Error {
  /** Stable error code. */
  readonly code = 'SchemaNotOwned';
  constructor(
    /** The schema. */
    readonly schema: string,
    /** Its comment (empty when none). */
    readonly comment: string,
    /** The mark the resource expects. */
    readonly expected: string,
  ) {
    super(
      `the schema ${schema} exists and was not created for this MySQLSchema (its comment is ${comment ? `"${comment}"` : 'empty'}, not "${expected}"); it is left alone: rename the MySQLSchema, or drop or rename the schema`,
    );
    this.name = 'SchemaNotOwnedError';
  }
}
/**
 * A user of the resource's name exists and holds no privileges on the resource's schema, so the
 * operator did not make it. Its password is left alone; not retried (the poll reconciles again
 * when the user is dropped).
 */
export class UserNotOwnedError extends Error {
  /** Stable error code. */
  readonly code = 'UserNotOwned';
  constructor(
    /** `'name'@'host'`. */
    readonly user: string,
    /** The schema it would use. */
    readonly schema: string,
  ) {
    super(
      `the user ${user} exists and was not created for this MySQLSchema (it holds no privileges on ${schema}); it is left alone: rename the MySQLSchema, or drop the user`,
    );
    this.name = 'UserNotOwnedError';
  }
}
