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
// `size` is a name's length as the limit counts it.
function databaseName(resource: MySQLSchema, max: number, size: (name: string) => number): string {
  const namespace = resource.metadata!.namespace ?? 'default';
  const name = resource.metadata!.name!;
  const exact = `${namespace}_${name}`;
  const mapped = exact.replace(/[^A-Za-z0-9_]/g, '_');
  if (mapped === exact && size(exact) <= max) return exact;
  const hash = createHash('sha256').update(`${namespace}/${name}`).digest('hex').slice(0, 8);
  let prefix = mapped.slice(0, max - 9);
  while (prefix.length > 0 && size(`${prefix}_${hash}`) > max) prefix = prefix.slice(0, -1);
  return `${prefix}_${hash}`;
}

/**
 * A schema name's length as MariaDB and MySQL count it in a GRANT, which must escape each `_` (a
 * wildcard there) with a backslash, within the same 64 characters.
 */
const grantedLength = (name: string): number => name.length + (name.match(/_/g)?.length ?? 0);

/**
 * The schema's name in the database: `<namespace>_<name>` when both are only letters and digits,
 * else that with `-` and `.` as `_` and a hash added; at most 64 characters with each `_` counted
 * twice, as a GRANT spells it (escaped: `_` is a wildcard there).
 */
export function schemaName(resource: MySQLSchema): string {
  return databaseName(resource, MAX_SCHEMA_NAME, grantedLength);
}

/** The user's name in the database: as {@link schemaName}, at most 32 characters. */
export function userName(resource: MySQLSchema): string {
  return databaseName(resource, MAX_USER_NAME, (n) => n.length);
}

/** The Secret with the credentials: `<name>-mysql-credentials`. */
export function secretName(resource: MySQLSchema): string {
  return `${resource.metadata!.name!}-mysql-credentials`;
}
