/** Stable codes of the database errors of the MySQL schema sample. */
export type MySQLErrorCode = 'MySQLNotConfigured' | 'InvalidMySQLSetting' | 'MySQLConnection' | 'MySQLQuery';

/** Base class of the sample's database errors: a stable {@link MySQLError.code} and the driver's error as `cause`. */
export abstract class MySQLError extends Error {
  /** Stable error code. */
  abstract readonly code: MySQLErrorCode;
}

/** Thrown when no database is configured (`MYSQL_HOST` unset). */
export class MySQLNotConfiguredError extends MySQLError {
  readonly code = 'MySQLNotConfigured';
  constructor() {
    super(
      'no MariaDB/MySQL server configured: set MYSQL_HOST (and MYSQL_PORT, MYSQL_USER, MYSQL_PASSWORD) to a server where the operator may create schemas and users; see apps/mysql-schema/README.md',
    );
    this.name = 'MySQLNotConfiguredError';
  }
}

/** Thrown when a `MYSQL_*` variable has a value that cannot be used. */
export class InvalidMySQLSettingError extends MySQLError {
  readonly code = 'InvalidMySQLSetting';
  constructor(
    /** The variable. */
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'InvalidMySQLSettingError';
  }
}

/**
 * The server cannot be reached or refused the operator's account (connection refused, access
 * denied, connection lost). Retried: the message names the connection, so a wrong `MYSQL_*` setting
 * is visible in the resource's status.
 */
export class MySQLConnectionError extends MySQLError {
  readonly code = 'MySQLConnection';
  constructor(
    /** `mysql://<user>@<host>:<port>` (no password). */
    readonly connection: string,
    /** The driver's error code (`ECONNREFUSED`, `ER_ACCESS_DENIED_ERROR`, ...). */
    readonly driverCode: string | undefined,
    message: string,
    options: { cause: unknown },
  ) {
    super(
      `cannot use the database ${connection}: ${message}; check MYSQL_HOST, MYSQL_PORT, MYSQL_USER and MYSQL_PASSWORD, and that the server runs`,
      options,
    );
    this.name = 'MySQLConnectionError';
  }
}

/** A statement failed on a working connection (`driverCode` says why, e.g. `ER_UNKNOWN_CHARACTER_SET`). */
export class MySQLQueryError extends MySQLError {
  readonly code = 'MySQLQuery';
  constructor(
    /** The driver's error code. */
    readonly driverCode: string | undefined,
    message: string,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'MySQLQueryError';
  }
}
