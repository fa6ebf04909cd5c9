import { createHash } from 'node:crypto';
import type { MySQLSchema } from './mysql-schema.resource.js';

/** The controller's name (metrics labels, `TOSDK_CONTROLLER_MYSQLSCHEMA_*` variables, logs). */
export const CONTROLLER_NAME = 'mysqlschema';

/** Label on every Kubernetes object the operator makes; its Secret informer selects on it. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** Value of {@link MANAGED_BY_LABEL}. */
export const MANAGED_BY_VALUE = 'mysql-schema-operator';

/** Label selector of the operator's Secret informer. */
export const SECONDARY_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`;

/** Longest schema name MariaDB and MySQL accept. */
export const MAX_SCHEMA_NAME = 64;

/** Longest user name MySQL accepts (MariaDB allows 80; the smaller keeps both working). */
export const MAX_USER_NAME = 32;

// `<namespace>_<name>` when that is a MySQL name as it stands (letters, digits, `_`) within the
// limit. Otherwise the characters outside [A-Za-z0-9_] become `_` (shortened to fit) and a hash of
// `<namespace>/<name>` is added: the mapping is lossy ("x.y" and "x-y", or namespace "a" with
// "b-c" and namespace "a-b" with "c"), and the hash keeps two resources from sharing a name.
function databaseName(resource: MySQLSchema, max: number): string {
  const namespace = resource.metadata!.namespace ?? 'default';
  const name = resource.metadata!.name!;
  const exact = `${namespace}_${name}`;
  const mapped = exact.replace(/[^A-Za-z0-9_]/g, '_');
  if (mapped === exact && exact.length <= max) return exact;
  const hash = createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, 8);
  return `${mapped.slice(0, max - 9)}_${hash}`;
}

/**
 * The schema's name in the database: `<namespace>_<name>` when both are only letters and digits,
 * else that with `-` and `.` as `_` and a hash added (at most 64 characters).
 */
export function schemaName(resource: MySQLSchema): string {
  return databaseName(resource, MAX_SCHEMA_NAME);
}

/** The user's name in the database: as {@link schemaName}, at most 32 characters. */
export function userName(resource: MySQLSchema): string {
  return databaseName(resource, MAX_USER_NAME);
}

/** The Secret with the credentials: `<name>-mysql-credentials`. */
export function secretName(resource: MySQLSchema): string {
  return `${resource.metadata!.name!}-mysql-credentials`;
}
