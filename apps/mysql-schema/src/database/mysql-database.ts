import { createHash } from 'node:crypto';
import { createPool } from 'mysql2/promise';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { MySQLConnectionError, MySQLQueryError } from './mysql-errors.js';
import { describeConnection } from './mysql-settings.js';
import type { MySQLSettings } from './mysql-settings.js';

/** A database schema as the server reports it. */
export interface SchemaState {
  /** The schema's name. */
  readonly name: string;
  /** Its default character set (`utf8mb4`, `latin1`, ...). */
  readonly encoding: string;
  /** Its comment (MariaDB 10.5+); the operator marks the schemas it made with it. Empty when none. */
  readonly comment: string;
}

/** A user account as the server reports it. */
export interface UserState {
  /** The user name. */
  readonly name: string;
  /** The host part (`%` for any host). */
  readonly host: string;
  /** Whether it holds schema-level privileges on the schema asked about (the operator's users do). */
  readonly owned: boolean;
  /**
   * Whether those privileges were granted on the schema's name as a pattern (as earlier versions of
   * the operator did: `_` matches any character there), so they reach other schemas too.
   */
  readonly wildcard?: boolean;
}

// Errors of the driver that mean "no usable connection" rather than "this statement failed".
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_ACCESS_DENIED_ERROR',
  'ER_ACCESS_DENIED_NO_PASSWORD_ERROR',
  'ER_HOST_NOT_PRIVILEGED',
  'ER_HOST_IS_BLOCKED',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
]);

/**
 * The operator's access to MariaDB/MySQL: a `mysql2` connection pool (reconnects by itself after
 * the server comes back) and the few statements the sample needs. Every failure is typed: a
 * {@link MySQLConnectionError} naming `mysql://user@host:port` when the server is unreachable or
 * refuses the account, a {@link MySQLQueryError} (with the driver's code) when a statement fails.
 * Names are escaped as identifiers and values sent as parameters.
 */
export class MySQLDatabase {
  /** `mysql://<user>@<host>:<port>`, as messages name it. */
  readonly connection: string;
  private readonly pool: Pool;

  constructor(readonly settings: MySQLSettings) {
    this.connection = describeConnection(settings);
    this.pool = createPool({
      host: settings.host,
      port: settings.port,
      user: settings.user,
      password: settings.password,
      connectionLimit: settings.poolSize,
      maxIdle: settings.poolSize,
      idleTimeout: 30_000,
      connectTimeout: settings.connectTimeoutMs,
      enableKeepAlive: true,
      // the operator only sends short statements; a long queue means a sick server
      queueLimit: 100,
    });
  }

  /** The schema, or undefined when it does not exist. */
  async schema(name: string): Promise<SchemaState | undefined> {
    const rows = await this.rows(
      'SELECT SCHEMA_NAME AS name, DEFAULT_CHARACTER_SET_NAME AS encoding, SCHEMA_COMMENT AS comment FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
      [name],
    );
    const row = rows[0];
    return row
      ? {
          name: String(row['name']),
          encoding: String(row['encoding']),
          comment: String(row['comment'] ?? ''),
        }
      : undefined;
  }

  /**
   * Creates the schema with a default character set and a comment (the operator's ownership mark).
   * @throws MySQLQueryError with `driverCode` `ER_DB_CREATE_EXISTS` when a schema of that name exists.
   */
  async createSchema(name: string, encoding: string, comment: string): Promise<void> {
    await this.execute(
      `CREATE DATABASE ${escapeIdentifier(name)} CHARACTER SET ${escapeCharset(encoding)} COMMENT ?`,
      [comment],
    );
  }

  /** Sets the schema's comment (marks a schema made by an earlier version of the operator). */
  async setSchemaComment(name: string, comment: string): Promise<void> {
    await this.execute(`ALTER DATABASE ${escapeIdentifier(name)} COMMENT ?`, [comment]);
  }

  /**
   * Whether the user on {@link MySQLSettings.userHost} holds schema-level privileges on that schema
   * (granted on its exact name, or on its name as a pattern by an earlier version).
   */
  async hasSchemaGrant(user: string, schema: string): Promise<boolean> {
    const rows = await this.rows(
      'SELECT 1 FROM mysql.db WHERE User = ? AND Host = ? AND (Db = ? OR Db = ?)',
      [user, this.settings.userHost, grantedName(schema), schema],
    );
    return rows.length > 0;
  }

  /** Changes the schema's default character set. */
  async alterSchemaEncoding(name: string, encoding: string): Promise<void> {
    await this.execute(`ALTER DATABASE ${escapeIdentifier(name)} CHARACTER SET ${escapeCharset(encoding)}`);
  }

  /** Drops the schema and everything in it (nothing when it does not exist). */
  async dropSchema(name: string): Promise<void> {
    await this.execute(`DROP DATABASE IF EXISTS ${escapeIdentifier(name)}`);
  }

  /** The user of that name on {@link MySQLSettings.userHost}, or undefined; `owned` tells whether it holds privileges on `schema`. */
  async user(name: string, schema: string): Promise<UserState | undefined> {
    const exact = grantedName(schema);
    const rows = await this.rows(
      'SELECT u.User AS name, u.Host AS host, ' +
        'EXISTS (SELECT 1 FROM mysql.db d WHERE d.User = u.User AND d.Host = u.Host AND (d.Db = ? OR d.Db = ?)) AS owned, ' +
        'EXISTS (SELECT 1 FROM mysql.db d WHERE d.User = u.User AND d.Host = u.Host AND d.Db = ?) AS wildcard ' +
        'FROM mysql.user u WHERE u.User = ? AND u.Host = ?',
      [exact, schema, exact === schema ? '' : schema, name, this.settings.userHost],
    );
    const row = rows[0];
    return row
      ? {
          name: String(row['name']),
          host: String(row['host']),
          owned: Number(row['owned']) === 1,
          wildcard: Number(row['wildcard']) === 1,
        }
      : undefined;
  }

  /**
   * Creates the user with the password and every privilege on one schema.
   * @throws MySQLQueryError with `driverCode` `ER_CANNOT_USER` when the user exists.
   */
  async createUser(name: string, password: string, schema: string): Promise<void> {
    const host = this.settings.userHost;
    await this.execute('CREATE USER ?@? IDENTIFIED BY ?', [name, host, password]);
    await this.execute(`GRANT ALL PRIVILEGES ON ${escapeIdentifier(grantedName(schema))}.* TO ?@?`, [
      name,
      host,
    ]);
  }

  /**
   * Replaces a grant on the schema's name as a pattern (see {@link UserState.wildcard}) by one on
   * the schema alone: granted first, so the user never loses its own schema.
   */
  async narrowGrant(name: string, schema: string): Promise<void> {
    const host = this.settings.userHost;
    await this.execute(`GRANT ALL PRIVILEGES ON ${escapeIdentifier(grantedName(schema))}.* TO ?@?`, [
      name,
      host,
    ]);
    await this.execute(`REVOKE ALL PRIVILEGES ON ${escapeIdentifier(schema)}.* FROM ?@?`, [name, host]);
  }

  /** Sets the user's password. */
  async setPassword(name: string, password: string): Promise<void> {
    await this.execute('ALTER USER ?@? IDENTIFIED BY ?', [name, this.settings.userHost, password]);
  }

  /**
   * Whether the user's stored password is this one. Only `mysql_native_password` accounts can be
   * compared (MariaDB's default); for other plugins (MySQL 8's `caching_sha2_password`) the answer
   * is false, so the password is set again on each reconciliation.
   */
  async passwordMatches(name: string, password: string): Promise<boolean> {
    const rows = await this.rows(
      'SELECT plugin, authentication_string AS auth FROM mysql.user WHERE User = ? AND Host = ?',
      [name, this.settings.userHost],
    );
    const row = rows[0];
    if (!row || String(row['plugin']) !== 'mysql_native_password') return false;
    return String(row['auth']) === nativePasswordHash(password);
  }

  /** Drops the user (nothing when it does not exist). */
  async dropUser(name: string): Promise<void> {
    await this.execute('DROP USER IF EXISTS ?@?', [name, this.settings.userHost]);
  }

  /** Closes the pool (waits for running statements). */
  async close(): Promise<void> {
    await this.pool.end();
  }

  private async rows(sql: string, params: unknown[] = []): Promise<RowDataPacket[]> {
    try {
      const [rows] = await this.pool.query<RowDataPacket[]>(sql, params);
      return rows;
    } catch (error) {
      throw this.typed(error);
    }
  }

  private async execute(sql: string, params: unknown[] = []): Promise<void> {
    try {
      await this.pool.query(sql, params);
    } catch (error) {
      throw this.typed(error);
    }
  }

  private typed(error: unknown): Error {
    const e = error as { code?: unknown; fatal?: unknown; message?: unknown };
    const code = typeof e?.code === 'string' ? e.code : undefined;
    const message = typeof e?.message === 'string' && e.message ? e.message : String(error);
    if ((code && CONNECTION_CODES.has(code)) || e?.fatal === true) {
      return new MySQLConnectionError(this.connection, code, message, { cause: error });
    }
    return new MySQLQueryError(code, `${this.connection}: ${message}`, { cause: error });
  }
}

// what mysql_native_password stores: '*' and the upper-case hex of SHA1(SHA1(password))
function nativePasswordHash(password: string): string {
  const inner = createHash('sha1').update(password, 'utf8').digest();
  return '*' + createHash('sha1').update(inner).digest('hex').toUpperCase();
}

/**
 * A schema's name as a GRANT must spell it to mean that schema alone: in the database part of a
 * GRANT, `_` and `%` are wildcards (MariaDB and MySQL), so they (and the backslash) are escaped
 * with a backslash. `mysql.db` stores the name so spelled.
 */
export function grantedName(schema: string): string {
  return schema.replace(/[\\_%]/g, '\\$&');
}

/** A schema or user name as a quoted identifier. */
export function escapeIdentifier(name: string): string {
  return '`' + name.replaceAll('`', '``') + '`';
}

/** A character set name; only letters, digits and `_` can name one, anything else is refused before SQL. */
export function escapeCharset(encoding: string): string {
  if (!/^[A-Za-z0-9_]{1,32}$/.test(encoding)) throw new TypeError(`not a character set name: ${encoding}`);
  return encoding;
}
